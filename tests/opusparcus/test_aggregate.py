"""Pair aggregation under a memory budget: ranges of pairs on disk give the in-memory result to
the last bit, and the whole ranking writes the same bytes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from test_rank_languages import _files, _release

import opusparcus.aggregate as aggregate
import opusparcus.rank as rank_module
from opusparcus.aggregate import (
    BYTES_PER_PAIR,
    SCORED_BYTES,
    aggregate_split,
    bitext_pairs,
    partitions_needed,
    range_bounds,
    range_of,
)
from opusparcus.cli import main
from opusparcus.counting import PivotGroups, pairs_by_first_code, sum_by_pair, weighted_pairs
from opusparcus.rank import RankOptions, rank
from opusparcus.scores import SCHEMES


def _random_bitexts(seed: int, count: int = 3) -> list:
    """Bitexts whose pivots have skewed fan-out, so pairs get many contributions each."""
    rng = np.random.default_rng(seed)
    bitexts = []
    for _ in range(count):
        links = 20_000
        pivot = rng.zipf(1.5, links) % 3_000
        target = rng.zipf(1.3, links) % 400
        bitexts.append(bitext_pairs(target, pivot, 400, max_fanout=60))
    return bitexts


def _assert_same(a, b) -> None:
    for name in ("keys", "summed_pmi", "expected", "pivots", "score"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name


@pytest.mark.parametrize("scheme", SCHEMES)
def test_partitioned_sums_equal_in_memory_sums_bit_for_bit(scheme, tmp_path, monkeypatch):
    bitexts = _random_bitexts(1)
    in_memory = aggregate_split(bitexts, scheme, budget=1 << 40)
    assert in_memory.partitions == 1 and in_memory.spilled_bytes == 0
    monkeypatch.setattr(aggregate, "MIN_BUDGET", 1)
    expanded = in_memory.expanded_pairs
    budget = expanded * SCORED_BYTES + math.ceil(expanded * BYTES_PER_PAIR / 7)
    spilled = aggregate_split(bitexts, scheme, budget, spill_dir=tmp_path)
    assert spilled.partitions == 7
    assert spilled.spilled_bytes == 16 * expanded
    _assert_same(spilled.scored, in_memory.scored)
    assert list(tmp_path.iterdir()) == []


def test_consumed_partitions_are_the_whole_in_key_order(tmp_path, monkeypatch):
    bitexts = _random_bitexts(1)
    in_memory = aggregate_split(bitexts, "pmi", budget=1 << 40)
    monkeypatch.setattr(aggregate, "MIN_BUDGET", 1)
    parts = []
    budget = math.ceil(in_memory.expanded_pairs * BYTES_PER_PAIR / 5)  # no room kept for them
    consumed = aggregate_split(bitexts, "pmi", budget, tmp_path, consume=parts.append)
    assert consumed.partitions == len(parts) == 5
    assert consumed.candidates == len(in_memory.scored) == sum(map(len, parts))
    assert len(consumed.scored) == 0
    _assert_same(aggregate._concatenate(parts), in_memory.scored)


def test_the_test_data_is_sensitive_to_summation_order():
    """Were the partitions to reorder a pair's contributions, some sums would change: the
    bit-for-bit test above can fail."""
    bitext = _random_bitexts(1, 1)[0]
    keys, weights = weighted_pairs(bitext.counts, bitext.groups)
    ordered = sum_by_pair(keys, weights)
    reverse = sum_by_pair(keys[::-1].copy(), weights[::-1].copy())
    assert ordered.keys.tobytes() == reverse.keys.tobytes()
    assert ordered.shared.tobytes() != reverse.shared.tobytes()


def test_chunks_cover_every_pivot_once_and_a_wide_pivot_stands_alone():
    groups = PivotGroups(np.array([0, 5, 9, 30, 31]), np.array([5, 4, 21, 1, 3]))
    pairs = groups.pair_counts().tolist()
    assert pairs == [10, 6, 210, 0, 3]
    chunks = list(aggregate._chunks(groups, 16))
    assert [c.starts.tolist() for c in chunks] == [[0, 5], [9], [30, 31]]
    assert all(c.pair_counts().sum() <= 16 or len(c.starts) == 1 for c in chunks)


def test_partitions_needed_leave_room_for_the_scored_pairs(monkeypatch):
    assert partitions_needed(1000, 1000 * BYTES_PER_PAIR) == 1
    assert partitions_needed(1000, 1) == 1, "below the floor the floor's budget is used"
    monkeypatch.setattr(aggregate, "MIN_BUDGET", 1)
    assert partitions_needed(1000, 1000 * SCORED_BYTES + 100 * BYTES_PER_PAIR) == 10
    assert partitions_needed(1001, 1001 * SCORED_BYTES + 100 * BYTES_PER_PAIR) == 11
    assert partitions_needed(10**9, 10**9 * SCORED_BYTES) == aggregate.MAX_PARTITIONS


def test_pairs_by_first_code_counts_what_the_expansion_gives():
    for bitext in _random_bitexts(2):
        keys, _ = weighted_pairs(bitext.counts, bitext.groups)
        expected = np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=400)
        assert pairs_by_first_code(bitext.counts, bitext.groups, 400).tolist() == (
            expected.tolist())


def test_ranges_share_the_pairs_evenly_and_in_key_order():
    bitexts = _random_bitexts(3)
    keys = np.concatenate([weighted_pairs(b.counts, b.groups)[0] for b in bitexts])
    first_counts = np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=400)
    bounds = range_bounds(first_counts, 8)
    ranges = range_of(keys, bounds)
    sizes = np.bincount(ranges, minlength=8)
    assert len(sizes) == 8 and sizes.sum() == len(keys)
    assert sizes.max() <= len(keys) / 8 + first_counts.max()
    order = np.argsort(keys, kind="stable")
    assert (np.diff(ranges[order].astype(np.int64)) >= 0).all(), "a later range has smaller keys"


def test_ranking_under_a_small_memory_limit_writes_the_same_bytes(tmp_path, monkeypatch):
    root = _release(tmp_path / "opus")
    rank(root, "en", tmp_path / "memory", RankOptions(workers=1))
    monkeypatch.setattr(aggregate, "MIN_BUDGET", 1)
    limit = 256 << 20
    monkeypatch.setattr(rank_module, "current_rss", lambda: limit - 2 * BYTES_PER_PAIR)
    timings = tmp_path / "timings.json"
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--out", str(tmp_path / "disk"),
                 "--workers", "1", "--quiet", "--memory-limit", "256M", "--temp-dir",
                 str(tmp_path), "--timings", str(timings)]) == 0
    notes = json.loads(timings.read_text())["notes"]
    assert notes["en train pairs"]["partitions"] > 1
    assert _files(tmp_path / "memory" / "en") == _files(tmp_path / "disk" / "en")
    assert {p.name for p in tmp_path.iterdir()} == {"opus", "memory", "disk", "timings.json"}


def test_real_release_ranks_the_same_in_partitions(shared_data, tmp_path, monkeypatch):
    rank(shared_data / "opus-rf", "en", tmp_path / "memory", RankOptions(workers=1))
    monkeypatch.setattr(aggregate, "MIN_BUDGET", 1)
    monkeypatch.setattr(rank_module, "current_rss", lambda: (256 << 20) - 3 * BYTES_PER_PAIR)
    rank(shared_data / "opus-rf", "en", tmp_path / "disk",
         RankOptions(workers=1, memory_limit=256 << 20))
    assert _files(tmp_path / "memory" / "en") == _files(tmp_path / "disk" / "en")


@pytest.mark.parametrize(("limit", "message"), [(1 << 20, "at least 256M"), (0.5, "at least")])
def test_memory_limit_below_the_floor_is_refused(limit, message):
    with pytest.raises(Exception, match=message):
        RankOptions(memory_limit=limit)


def test_temp_dir_must_be_a_folder(tmp_path):
    with pytest.raises(Exception, match="--temp-dir"):
        RankOptions(temp_dir=tmp_path / "missing")


def test_memory_limit_does_not_change_stats(tmp_path):
    root = _release(tmp_path / "opus")
    one = rank(root, "fr", tmp_path / "a", RankOptions(workers=1))
    two = rank(root, "fr", tmp_path / "b", RankOptions(workers=2, memory_limit=1 << 30,
                                                       temp_dir=Path(tmp_path)))
    assert one == two
    assert "memory_limit" not in one["options"] and "workers" not in one["options"]
