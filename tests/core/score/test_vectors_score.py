"""`score` with a word-vector file: every row equals an independent computation
(tests/core/score/reference.py), rows come back unchanged, the known formats are recognised,
TaPaCo sets are scored member by member, folds and the lowest score kept hold, and bad input
ends in one line with nothing written."""

from __future__ import annotations

import bz2
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT, without_compile_notice

from tests.core.score.reference import pair_score, read_vectors, set_member_scores

WORDS = ["the", "cat", "dog", "sits", "is", "sitting", "on", "a", "mat", ".", ",", "?", "!", "'",
         "s", "café", "straße", "u.s", "what", "it", "this", "that", "i", "ate", "eat", "cheese",
         "hurry", "up", "look", "sharp", "so", "your", "point", "can", "stand", "abide", "guy",
         "fellow", "-", "\"", "la", "est", "c'", "quoi", "was", "ist", "das", "Cat", "1990"]


def write_vectors(path: Path, dimensions: int = 5, seed: int = 0, header: bool = True,
                  trailing_space: bool = True) -> Path:
    """Values k/64 (exact in float32 and float64, so no rounding of the file's text can differ
    between the backend and the reference); 'cat' listed twice: the first vector counts."""
    rng = random.Random(seed)
    lines = [f"{len(WORDS) + 1} {dimensions}"] if header else []
    for word in [*WORDS, "cat"]:
        values = " ".join(repr(rng.randint(-128, 128) / 64) for _ in range(dimensions))
        lines.append(f"{word} {values}" + (" " if trailing_space else ""))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


SENTENCES = ["The cat sits on the mat.", "A cat is sitting on a mat!", "What's this?",
             "C'est quoi ?", "Was ist das?", "THE CAFÉ, the Straße.", "zzz qqq", "", "  ",
             "The U.S. in 1990-1991, he said \"so\".", "I can't stand that guy.",
             "I can't abide that fellow.", "Hurry up.", "Look sharp!", "cat", "Cat"]


def run_score(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "tapaco", "score", *map(str, arguments)],
                          capture_output=True, text=True, cwd=cwd or PROJECT)
    done.stderr = without_compile_notice(done.stderr)
    return done


def random_pairs(count: int, seed: int = 1) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(rng.choice(SENTENCES), rng.choice(SENTENCES)) for _ in range(count)]


def test_every_pair_equals_an_independent_computation(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    pairs = random_pairs(300)
    rows = [f"x{k}\t{a}\tmiddle\t{b}\t{k}" for k, (a, b) in enumerate(pairs)]
    source = tmp_path / "pairs.tsv"
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = run_score("--pairs", source, "--columns", "2,4", "--model", vectors,
                     "--out", tmp_path / "scored.tsv")
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "scored.tsv").read_text(encoding="utf-8").splitlines()
    reference = read_vectors(vectors)
    assert [line.rsplit("\t", 1)[0] for line in out] == rows
    assert [line.rsplit("\t", 1)[1] for line in out] == [pair_score(a, b, reference)
                                                         for a, b in pairs]
    stats = json.loads((tmp_path / "scored.tsv.stats.json").read_text())
    assert stats["rows"] == 300 and stats["backend"] == "vectors"
    assert stats["scored"] == sum(1 for line in out if line.rsplit("\t", 1)[1])
    assert 0 < stats["scored"] < 300  # some sentences have no known word


def test_a_file_without_header_or_trailing_spaces_gzipped_reads_the_same(tmp_path: Path) -> None:
    plain = write_vectors(tmp_path / "plain.vec")
    packed = tmp_path / "glove.txt.gz"
    write_vectors(tmp_path / "glove.txt", header=False, trailing_space=False)
    packed.write_bytes(gzip.compress((tmp_path / "glove.txt").read_bytes()))
    source = tmp_path / "pairs.tsv"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in random_pairs(50)), encoding="utf-8")
    outputs = []
    for model in (plain, packed):
        out = tmp_path / f"{model.name}.out"
        assert run_score("--pairs", source, "--columns", "1,2", "--model", model,
                         "--out", out).returncode == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_known_formats_are_recognised_and_compressed_files_read_and_written(
        tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    reference = read_vectors(vectors)
    pairs = random_pairs(40)
    enrich = tmp_path / "enrich.tsv"
    enrich.write_text("reference\tparaphrase\tsource\n"
                      + "".join(f"{a}\t{b}\tsrc\n" for a, b in pairs), encoding="utf-8")
    ranked = tmp_path / "en-train.txt.bz2"
    ranked.write_bytes(bz2.compress("".join(
        f"en-N{k + 1}\t{a}\t{b}\t1.5\t2.0\t3\t4\n" for k, (a, b) in enumerate(pairs)).encode()))
    assert run_score("--pairs", enrich, "--model", vectors, "--out",
                     tmp_path / "enrich.scored.tsv").returncode == 0
    lines = (tmp_path / "enrich.scored.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "reference\tparaphrase\tsource\tparaphrase_score"
    assert [line.split("\t")[3] for line in lines[1:]] == [pair_score(a, b, reference)
                                                           for a, b in pairs]
    assert run_score("--pairs", ranked, "--model", vectors, "--out",
                     tmp_path / "scored.txt.gz").returncode == 0
    lines = gzip.decompress((tmp_path / "scored.txt.gz").read_bytes()).decode().splitlines()
    assert [line.split("\t")[7] for line in lines] == [pair_score(a, b, reference)
                                                       for a, b in pairs]


def test_sets_are_scored_member_against_the_rest_of_the_set(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    reference = read_vectors(vectors)
    build = tmp_path / "build"
    build.mkdir()
    rng = random.Random(3)
    sets = [[rng.choice(SENTENCES) for _ in range(rng.randint(1, 6))] for _ in range(60)]
    rows = [f"{s + 1}\t{k}\t{text}\tlist\t" for s, texts in enumerate(sets)
            for k, text in enumerate(texts)]
    (build / "en.txt").write_text("\n".join(rows), encoding="utf-8")  # no final newline
    assert run_score("--sets", build, "--lang", "en", "--model", vectors,
                     "--out", tmp_path / "en.scored.tsv").returncode == 0
    out = (tmp_path / "en.scored.tsv").read_text(encoding="utf-8").splitlines()
    assert [line.rsplit("\t", 1)[0] for line in out] == rows
    expected = [score for texts in sets for score in set_member_scores(texts, reference)]
    assert [line.rsplit("\t", 1)[1] for line in out] == expected


def test_the_real_release_heads_are_scored_with_their_rows_unchanged(tmp_path: Path,
                                                                    shared_data: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    heads = shared_data / "tapaco-v1.0-head"
    assert run_score("--sets", heads, "--lang", "en", "--model", vectors,
                     "--out", tmp_path / "en.tsv").returncode == 0
    rows = (heads / "en.txt").read_text(encoding="utf-8").split("\n")
    out = (tmp_path / "en.tsv").read_text(encoding="utf-8").splitlines()
    assert [line.rsplit("\t", 1)[0] for line in out] == rows
    texts = [row.split("\t")[2] for row in rows]
    assert [line.rsplit("\t", 1)[1] for line in out] == set_member_scores(texts,
                                                                          read_vectors(vectors))
    assert all(line.rsplit("\t", 1)[1] for line in out)


def test_folds_and_the_lowest_score_kept(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    reference = read_vectors(vectors)
    pairs = random_pairs(200, seed=7)
    source = tmp_path / "pairs.tsv"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    assert run_score("--pairs", source, "--columns", "1,2", "--model", vectors, "--folds", "4",
                     "--out", tmp_path / "folds.tsv").returncode == 0
    out = [line.split("\t") for line in (tmp_path / "folds.tsv").read_text().splitlines()]
    scores = [pair_score(a, b, reference) for a, b in pairs]
    scored = sorted((float(score), at) for at, score in enumerate(scores) if score)
    expected_fold = [""] * len(pairs)
    for rank, (_, at) in enumerate(scored):
        expected_fold[at] = str(rank * 4 // len(scored) + 1)
    assert [row[3] for row in out] == expected_fold
    assert run_score("--pairs", source, "--columns", "1,2", "--model", vectors,
                     "--min-score", "0.25", "--out", tmp_path / "kept.tsv").returncode == 0
    kept = (tmp_path / "kept.tsv").read_text().splitlines()
    assert kept == [f"{a}\t{b}\t{score}" for (a, b), score in zip(pairs, scores)
                    if score and float(score) >= 0.25]


@pytest.mark.parametrize(("content", "arguments", "says"), [
    ("a\tb\n", (), "--columns A,B"),
    ("a\tb\nonly one field\n", ("--columns", "1,2"), "line 2"),
    ("a\tb\n", ("--columns", "1,1"), "two different columns"),
    ("a\tb\n\xff\n", ("--columns", "1,2"), "line 2"),
])
def test_bad_pairs_end_in_one_line_and_write_nothing(tmp_path: Path, content: str,
                                                     arguments: tuple, says: str) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    source = tmp_path / "pairs.tsv"
    source.write_bytes(content.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    done = run_score("--pairs", source, *arguments, "--model", vectors,
                     "--out", tmp_path / "out.tsv")
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pairs.tsv", "words.vec"]


@pytest.mark.parametrize(("content", "says"), [
    ("2 3\nthe 1 2 3\ncat 1 2\n", "line 3: not a word-vector file: 2 values where the first "
                                  "vector has 3"),
    ("2 4\nthe 1 2 3\n", "the header says 4 dimensions"),
    ("the 1 x 3\n", "line 1: the value 'x' is not a number"),
    ("", "holds no word vector"),
])
def test_a_bad_vector_file_ends_in_one_line(tmp_path: Path, content: str, says: str) -> None:
    vectors = tmp_path / "bad.vec"
    vectors.write_text(content)
    source = tmp_path / "pairs.tsv"
    source.write_text("the cat\tthe dog\n")
    done = run_score("--pairs", source, "--columns", "1,2", "--model", vectors,
                     "--out", tmp_path / "out.tsv")
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr
    assert not (tmp_path / "out.tsv").exists()


def test_never_replaces_a_file_it_did_not_write(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    source = tmp_path / "pairs.tsv"
    source.write_text("the cat\tthe dog\n")
    theirs = tmp_path / "theirs.tsv"
    theirs.write_text("precious\n")
    done = run_score("--pairs", source, "--columns", "1,2", "--model", vectors, "--out", theirs)
    assert done.returncode == 2 and "--overwrite" in done.stderr
    assert theirs.read_text() == "precious\n"
    ours = tmp_path / "ours.tsv"
    for _ in range(2):  # a rerun replaces its own output
        assert run_score("--pairs", source, "--columns", "1,2", "--model", vectors,
                         "--out", ours).returncode == 0
    done = run_score("--pairs", source, "--columns", "1,2", "--model", vectors, "--out", source)
    assert done.returncode == 2 and source.read_text() == "the cat\tthe dog\n"


def test_both_programs_score_the_same(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    source = tmp_path / "pairs.tsv"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in random_pairs(20)))
    for program in ("tapaco", "opusparcus"):
        done = subprocess.run([sys.executable, "-m", program, "score", "--pairs", str(source),
                               "--columns", "1,2", "--model", str(vectors), "--out",
                               str(tmp_path / f"{program}.tsv")], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "tapaco.tsv").read_bytes() == (tmp_path / "opusparcus.tsv").read_bytes()


def test_a_folder_that_is_not_a_model_ends_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "pairs.tsv"
    source.write_text("a\tb\n")
    (tmp_path / "folder").mkdir()
    done = run_score("--pairs", source, "--columns", "1,2", "--model", tmp_path / "folder",
                     "--out", tmp_path / "out.tsv")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "modules.json" in done.stderr


def test_a_cached_copy_scores_the_same_and_a_changed_file_is_read_again(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    cache = tmp_path / "cache"
    source = tmp_path / "pairs.tsv"
    pairs = random_pairs(60)
    source.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")

    def scored(name: str) -> list[str]:
        done = run_score("--pairs", source, "--columns", "1,2", "--model", vectors,
                         "--vectors-cache", cache, "--out", tmp_path / name)
        assert done.returncode == 0, done.stderr
        return [line.rsplit("\t", 1)[1] for line in (tmp_path / name).read_text().splitlines()]

    first = scored("first.tsv")
    (copy,) = cache.iterdir()
    assert sorted(path.name for path in copy.iterdir()) == ["matrix.npy", "record.json",
                                                            "words.txt"]
    assert scored("second.tsv") == first
    write_vectors(vectors, seed=5)  # another file at the same path
    assert scored("third.tsv") == [pair_score(a, b, read_vectors(vectors)) for a, b in pairs]
    assert scored("third.tsv") != first and len(list(cache.iterdir())) == 2


def test_the_output_is_written_under_a_held_temporary(tmp_path: Path, monkeypatch) -> None:
    """A second run cleaning up never takes a live run's `.OUT.tmp-PID` for a dead one's, even
    when that run's pid is not one it can see (tapaco.core.scratch)."""
    from tapaco.core.files import temporary_name
    from tapaco.core.score import scoring
    from tapaco.core.scratch import held

    source = tmp_path / "pairs.tsv"
    source.write_text("The cat sits.\tA cat is sitting.\n", encoding="utf-8")
    out = tmp_path / "scored.tsv"
    seen = []
    write_rows = scoring._ScoredFile._write_rows

    def observed(self, stream, scored, rows_again) -> None:  # noqa: ANN001
        seen.append(held(temporary_name(out, "tmp")))
        write_rows(self, stream, scored, rows_again)

    monkeypatch.setattr(scoring._ScoredFile, "_write_rows", observed)
    options = scoring.ScoreOptions(model=write_vectors(tmp_path / "words.vec"), out=out)
    scoring.score_pairs(source, options, columns=(0, 1))
    assert seen == [True] and out.is_file()
