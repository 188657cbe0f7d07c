"""Ranked runs on disk merged back in chunks: the order of one sort of all the pairs by
(-score, first code, second code), whatever the partitions, the chunk size or the rows left out."""

import numpy as np
import pytest

from opusparcus import ranked_runs
from opusparcus.counting import pack_pairs, unpack_pairs
from opusparcus.ranked_runs import RankedRuns
from opusparcus.scores import ScoredPairs


def _pairs(rng: np.random.Generator, count: int) -> ScoredPairs:
    left = rng.integers(0, 400, count)
    keys = np.unique(pack_pairs(left, left + 1 + rng.integers(0, 400, count)))
    pmi = rng.integers(-8, 8, len(keys)) / 4  # many exact ties, and -0.0 / 0.0
    return ScoredPairs(keys, pmi, rng.random(len(keys)), rng.integers(1, 5, len(keys)),
                       rng.integers(0, 3, len(keys)) / 2)


@pytest.mark.parametrize(("partitions", "chunk", "with_score"),
                         [(1, 1000, False), (5, 333, False), (17, 50, True), (3, 7, True)])
def test_merged_runs_give_the_order_of_one_sort(tmp_path, monkeypatch, partitions, chunk,
                                                with_score):
    monkeypatch.setattr(ranked_runs, "CHUNKS_PER_MAPPING", 3)
    rng = np.random.default_rng(partitions)
    pairs = _pairs(rng, 6000)
    if not with_score:  # summed PMI is the score
        pairs.score = pairs.summed_pmi
    score = pairs.score.copy()
    first, second = unpack_pairs(pairs.keys)
    expected = np.lexsort((second, first, -score))  # by the definition, in one sort
    runs = RankedRuns(with_score, tmp_path)
    cuts = np.sort(rng.choice(np.arange(1, len(pairs)), partitions - 1, replace=False))
    for part in np.split(np.arange(len(pairs)), cuts):  # key ranges, in key order
        runs.add(pairs.take(part))
    chunks = list(runs.chunks(chunk))
    assert all(len(c["first"]) == chunk for c in chunks[:-1])
    merged = {name: np.concatenate([c[name] for c in chunks]) for name in chunks[0]}
    assert len(runs) == len(merged["first"]) == len(pairs)
    assert merged["first"].tolist() == first[expected].tolist()
    assert merged["second"].tolist() == second[expected].tolist()
    assert merged["expected"].tolist() == pairs.expected[expected].tolist()
    assert merged["pivots"].tolist() == pairs.pivots[expected].tolist()
    assert ("score" in merged) == with_score


def test_dropped_codes_leave_their_rows_out_and_are_counted(tmp_path):
    rng = np.random.default_rng(9)
    pairs = _pairs(rng, 3000)
    pairs.score = pairs.summed_pmi
    first, second = unpack_pairs(pairs.keys)
    expected = np.lexsort((second, first, -pairs.summed_pmi))
    dropped = np.array([3, 17, 250, 401])
    keep = ~(np.isin(first, dropped) | np.isin(second, dropped))
    runs = RankedRuns(False, tmp_path)
    runs.add(pairs.take(np.arange(0, 1000)))
    runs.add(pairs.take(np.arange(1000, len(pairs))))
    assert runs.drop(dropped, 1000) == int((~keep).sum()) > 0
    merged = np.concatenate([c["first"] for c in runs.chunks(128)])
    assert len(runs) == len(merged)
    assert merged.tolist() == first[expected][keep[expected]].tolist()


def test_one_run_in_memory_and_no_rows(tmp_path):
    pairs = _pairs(np.random.default_rng(2), 500)
    pairs.score = pairs.summed_pmi
    first, _ = unpack_pairs(pairs.keys)
    expected = first[np.lexsort((unpack_pairs(pairs.keys)[1], first, -pairs.summed_pmi))]
    runs = RankedRuns.in_memory(pairs, False)
    assert np.concatenate([c["first"] for c in runs.chunks(64)]).tolist() == expected.tolist()
    assert list(RankedRuns(False, tmp_path).chunks(64)) == []
