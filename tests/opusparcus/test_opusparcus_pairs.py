"""`opusparcus pairs` on a small release written here: the positives are the ranked pairs, and
no hard negative shares a pivot translation with its anchor — checked against the bitexts'
rows directly, not through the ranking's code — nor is ranked with it; reruns are identical,
another seed differs, the folder loads in `datasets`, and a file outside a ranking is refused
in one line."""

from __future__ import annotations

import bz2
import json
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import write_moses

from opusparcus.cli import main

PIVOT_WORDS = {"fr": ("Rouge", "Bleu"), "de": ("Rot", "Blau")}


def bitext_rows(pivot: str) -> list[tuple]:
    """en "Phrase i red|blue ." (i < 5: red) aligned to a pivot sentence of its colour only."""
    red, blue = PIVOT_WORDS[pivot]
    rows = []
    for n in range(40):
        colour = n % 10 < 5
        en = f"Phrase {n % 10} {'red' if colour else 'blue'} ."
        other = f"{red if colour else blue} {n % 3} ."
        pair = (en, other) if pivot > "en" else (other, en)
        docs = (f"en/2000/1/{n}.xml.gz", f"{pivot}/2000/1/{n}.xml.gz")
        rows.append((*(docs if pivot > "en" else docs[::-1]), "1", "1", *pair))
    return rows


@pytest.fixture(scope="module")
def ranking(tmp_path_factory) -> tuple[Path, dict[str, set]]:
    root = tmp_path_factory.mktemp("opus") / "opus"
    pivots = defaultdict(set)
    for pivot in PIVOT_WORDS:
        rows = bitext_rows(pivot)
        write_moses(root, "-".join(sorted(("en", pivot))), rows)
        for row in rows:
            en, other = (row[4], row[5]) if pivot > "en" else (row[5], row[4])
            pivots[en].add((pivot, other))
    out = root.parent / "ranked"
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1", "--out",
                 str(out), "--quiet"]) == 0
    return out / "en" / "train" / "en-train.txt.bz2", pivots


def pairs(ranked: Path, out: Path, *options: str) -> Path:
    assert main(["pairs", "--ranked", str(ranked), "--out", str(out), "--quiet",
                 *options]) == 0
    return out


def test_positives_are_ranked_pairs_and_negatives_share_no_pivot(ranking, tmp_path):
    ranked, pivots = ranking
    ranked_pairs = {frozenset(line.split("\t")[1:3])
                    for line in bz2.decompress(ranked.read_bytes()).decode().splitlines()}
    out = pairs(ranked, tmp_path / "rows", "--negatives", "2")
    rows = pq.read_table(out / "data" / "en.parquet").to_pylist()
    assert rows and {frozenset((r["anchor"], r["positive"])) for r in rows} <= ranked_pairs
    for row in rows:
        assert pivots[row["anchor"]] & pivots[row["positive"]]
        for name in ("negative_1", "negative_2"):
            assert not pivots[row["anchor"]] & pivots[row[name]]
            assert frozenset((row["anchor"], row[name])) not in ranked_pairs
            assert "phrase" in row[name].lower()
    stats = json.loads((out / "stats.json").read_text())
    assert stats["rows"] == len(rows) and stats["seed"] == 0


def test_rerun_identical_seed_differs_and_loads(ranking, tmp_path):
    ranked, _ = ranking
    first = pairs(ranked, tmp_path / "a", "--negatives", "1", "--format", "parquet,jsonl")
    second = pairs(ranked, tmp_path / "b", "--negatives", "1", "--format", "parquet,jsonl")
    for name in ("data/en.parquet", "data/en.jsonl", "README.md", "stats.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    other = pairs(ranked, tmp_path / "c", "--negatives", "1", "--seed", "3")
    assert (other / "data/en.parquet").read_bytes() != (first / "data/en.parquet").read_bytes()
    datasets = pytest.importorskip("datasets", reason="the 'test' extra's datasets is absent")
    loaded = datasets.load_dataset(str(first), "en", cache_dir=str(tmp_path / "cache"))
    assert loaded["train"].column_names == ["anchor", "positive", "negative"]
    assert loaded["train"].num_rows == json.loads((first / "stats.json").read_text())["rows"]


def test_the_parquet_copy_gives_the_rows_of_the_tsv(ranking, tmp_path):
    ranked, _ = ranking
    both = tmp_path / "both"
    assert main(["rank", "--opus-dir", str(ranked.parents[3] / "opus"), "--lang", "en",
                 "--workers", "1", "--format", "tsv,parquet", "--out", str(both),
                 "--quiet"]) == 0
    from_tsv = pairs(both / "en/train/en-train.txt.bz2", tmp_path / "tsv", "--negatives", "1")
    from_parquet = pairs(both / "en/data/train.parquet", tmp_path / "pq", "--negatives", "1")
    assert (from_parquet / "data/en.parquet").read_bytes() == \
        (from_tsv / "data/en.parquet").read_bytes()


def test_a_file_outside_a_ranking_is_refused(ranking, tmp_path, capsys):
    ranked, _ = ranking
    loose = tmp_path / "en-train.txt.bz2"
    loose.write_bytes(ranked.read_bytes())
    assert main(["pairs", "--ranked", str(loose), "--out", str(tmp_path / "out")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "bitexts to check pivots in are unknown" in line


def test_level_keeps_the_pairs_down_to_its_cut(ranking, tmp_path, capsys):
    ranked, _ = ranking
    lines = bz2.decompress(ranked.read_bytes()).decode().splitlines()
    cutoffs = tmp_path / "cutoffs.json"
    cutoffs.write_text(json.dumps({"total_rows": len(lines), "cuts": [
        {"level": 0.9, "rows": 3}, {"level": 0.75, "rows": 6}]}))
    out = pairs(ranked, tmp_path / "cut", "--level", "75", "--cutoffs", str(cutoffs))
    rows = pq.read_table(out / "data" / "en.parquet").to_pylist()
    assert {frozenset((r["anchor"], r["positive"])) for r in rows} == {
        frozenset(line.split("\t")[1:3]) for line in lines[:6]}
    assert main(["pairs", "--ranked", str(ranked), "--out", str(tmp_path / "x"), "--level", "80",
                 "--cutoffs", str(cutoffs)]) == 2
    assert main(["pairs", "--ranked", str(ranked), "--out", str(tmp_path / "y"), "--level",
                 "80"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 2
