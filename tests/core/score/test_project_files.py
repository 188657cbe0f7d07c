"""`score --pairs` without `--columns` on every file the project writes, each produced here by
the project's own commands: the files of pairs are scored on the right two columns (the
scores equal the independent computation on the columns each writer puts the sentences in),
their header kept; the other files are refused in one line saying what they are and what to
give instead (before, `combine`'s training output was "not a known pair format")."""

from __future__ import annotations

import bz2
import io
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE, write_moses

from opusparcus.cli import main as opusparcus
from tapaco.cli import main as tapaco
from tapaco.core.annotation.pairs import read_annotations, save_label
from tapaco.core.annotation.web.serve import ServeOptions, open_task
from tests.core.score.reference import pair_score, read_vectors
from tests.core.score.test_vectors_score import WORDS, write_vectors

PHRASES = [f"{WORDS[k % 20]} {WORDS[(3 * k) % 47]} {WORDS[(7 * k) % 45]} ." for k in range(40)]


def _release(root: Path) -> Path:
    """An en-fr Moses release over ten years (so dev and test candidates too): en phrase
    n % 40 aligned to fr phrase n % 13, so en phrases share French pivots."""
    rows = [(f"en/{2000 + n % 10}/1/{n}.xml.gz", f"fr/{2000 + n % 10}/1/{n}.xml.gz", "1", "1",
             PHRASES[n % 40], f"Phrase {n % 13} .") for n in range(800)]
    return write_moses(root, "en-fr", rows)


def _labelled(annotations: Path, labelled: Path) -> Path:
    """A copy of `sample`'s file with every pair labelled 4 by both annotators, saved by the
    function `annotate` and `serve` save labels with."""
    shutil.copy(annotations, labelled)
    for annotation in read_annotations(labelled):
        for annotator in (1, 2):
            save_label(labelled, annotation.id, annotator, 4)
    return labelled


def _sample_and_combine(folder: Path, ranked: Path, name: str, *size: str) -> tuple[Path, Path]:
    sample = folder / f"{name}.sample.tsv"
    assert opusparcus(["sample", "--ranked", str(ranked), *size, "--out", str(sample)]) == 0
    combined = folder / f"{name}.combined.tsv"
    assert opusparcus(["combine", "--annotations",
                       str(_labelled(sample, folder / f"{name}.labelled.tsv")),
                       "--out", str(combined)]) == 0
    return sample, combined


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Every file of the project's commands, by name."""
    folder = tmp_path_factory.mktemp("project")
    assert opusparcus(["rank", "--opus-dir", str(_release(folder / "opus")), "--lang", "en",
                       "--out", str(folder / "ranked"), "--format", "tsv,parquet",
                       "--workers", "1", "--quiet"]) == 0
    release = folder / "ranked" / "en"
    found = {"train": release / "train" / "en-train.txt.bz2",
             "dev candidates": release / "dev" / "en-dev-candidates.txt",
             "test candidates": release / "test" / "en-test-candidates.txt",
             "parquet": next(release.rglob("*.parquet"))}
    found["annotations"], found["combined train"] = _sample_and_combine(
        folder, found["train"], "train", "--n", "30", "--seed", "1")
    found["labelled annotations"] = folder / "train.labelled.tsv"
    _, found["combined dev"] = _sample_and_combine(folder, found["dev candidates"], "dev", "--all")
    _, found["combined test"] = _sample_and_combine(folder, found["test candidates"], "test",
                                                    "--all")
    assert opusparcus(["cutoff", "--ranked", str(found["train"]), "--annotations",
                       str(found["combined train"]), "--out", str(folder / "cuts")]) == 0
    found["cut"] = folder / "cuts" / "en-train-95.txt.bz2"
    assert opusparcus(["export-gem", "--ranked", str(found["train"]), "--annotations",
                       str(found["combined train"]), "--dev", str(found["combined dev"]),
                       "--test", str(found["combined test"]), "--out", str(folder / "gem")]) == 0
    found["gem"] = folder / "gem" / "en" / "validation.jsonl"
    build = folder / "build"
    assert tapaco(["build", "--opus-dir", str(SAMPLE), "--out", str(build), "--min-sets", "1",
                   "--marks", "--quiet"]) == 0
    found["language file"] = build / "en.txt"
    found["marks"] = build / "marks" / "en.tsv"
    found["set annotations"] = folder / "en-sets.tsv"
    open_task(ServeOptions(found["language file"], labels=found["set annotations"], sets=5),
              out=io.StringIO())
    assert all(path.is_file() and path.stat().st_size for path in found.values()), found
    found["model"] = write_vectors(folder / "words.vec")
    return found


# the columns (1-based) each writer puts the two sentences in, and whether it writes a header
PAIR_FILES = {"train": (2, 3, False), "dev candidates": (2, 3, False),
              "test candidates": (2, 3, False), "cut": (2, 3, False),
              "combined dev": (2, 3, False), "combined test": (2, 3, False),
              "annotations": (3, 4, True), "labelled annotations": (3, 4, True),
              "combined train": (3, 4, True)}


def _text(path: Path) -> str:
    data = path.read_bytes()
    return (bz2.decompress(data) if path.suffix == ".bz2" else data).decode("utf-8")


def _score(files: dict[str, Path], source: Path, out: Path) -> int:
    return tapaco(["score", "--pairs", str(source), "--model", str(files["model"]),
                   "--out", str(out), "--quiet"])


@pytest.mark.parametrize("name", sorted(PAIR_FILES))
def test_every_file_of_pairs_is_scored_on_its_sentences(files, name, tmp_path):
    first, second, header = PAIR_FILES[name]
    vectors = read_vectors(files["model"])
    lines = _text(files[name]).splitlines()
    rows = [line.split("\t") for line in lines[header:]]
    expected = [pair_score(row[first - 1], row[second - 1], vectors) for row in rows]
    assert sum(map(bool, expected)) > len(rows) / 2
    out = tmp_path / "scored.tsv"
    assert _score(files, files[name], out) == 0
    scored = out.read_text(encoding="utf-8").splitlines()
    assert [line.rsplit("\t", 1)[0] for line in scored] == lines
    assert scored[:header] == [f"{lines[0]}\tparaphrase_score"][:header]
    assert [line.rsplit("\t", 1)[1] for line in scored[header:]] == expected
    # score's own output is read as the file it was scored from
    again = tmp_path / "again.tsv"
    assert _score(files, out, again) == 0
    assert [line.rsplit("\t", 1)[1] for line in again.read_text().splitlines()[header:]] == \
        expected


NOT_PAIRS = {
    "language file": "a TaPaCo language file (tapaco build): sets, not pairs; score a build's "
                     "sets with --sets DIR --lang xx",
    "set annotations": "a set annotation file (serve): sets to check, not pairs",
    "marks": "the marks of a TaPaCo build: sentence ids, not sentences",
    "gem": "JSON lines (export-gem writes them), not a TSV",
    "parquet": "is a Parquet file: give the text (TSV) file it was written beside",
}


@pytest.mark.parametrize("name", sorted(NOT_PAIRS))
def test_every_other_file_is_named_in_one_line(files, name, tmp_path, capsys):
    capsys.readouterr()
    assert _score(files, files[name], tmp_path / "out.tsv") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and f"{files[name]}: " in error[0], error
    assert NOT_PAIRS[name] in error[0], error
    assert not (tmp_path / "out.tsv").exists()


def test_the_language_file_is_scored_with_sets(files, tmp_path):
    assert tapaco(["score", "--sets", str(files["language file"].parent), "--lang", "en",
                   "--model", str(files["model"]), "--out", str(tmp_path / "en.tsv"),
                   "--quiet"]) == 0
