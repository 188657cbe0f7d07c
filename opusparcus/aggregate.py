"""The candidate pairs of one split, summed and scored in memory or, past the memory budget, in
partitions on disk.

In memory, every pivot's target pairs are expanded at once (about `BYTES_PER_PAIR` bytes a pair
at the peak) and summed per pair. When the split's pairs would not fit in the budget, the pairs
are cut into ranges of their first (smaller) sentence code, each range holding about an equal
share of the pairs (counted beforehand from the pivots' fan-outs, :func:`pairs_by_first_code`).
Pivots are expanded in chunks that fit and each chunk's (key, weight) rows are appended to one
file per bitext and range; each range is then summed and scored alone. The ranges come out
sorted by key, so their concatenation is the whole, sorted, with nothing to merge; the budget
keeps room for it (`SCORED_BYTES` a pair). All of a pair's contributions land in one range in
the same (pivot) order, and the sum is taken per pair in that order, so every S, score and
count is identical to the last bit: the output does not depend on the budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opusparcus.counting import (
    FanoutSkips,
    LinkCounts,
    PivotGroups,
    count_links,
    pairs_by_first_code,
    pivot_groups,
    sum_by_pair,
    weighted_pairs,
)
from opusparcus.scores import FIELDS, ScoredPairs, score_pairs
from tapaco.core.forked import map_on_threads
from tapaco.core.memory import release_freed_memory
from tapaco.core.scratch import scratch_folder

BYTES_PER_PAIR = 128
# a scored pair (key, summed PMI, expected count, pivots, a scheme's own score) and the
# concatenation's copy of one field
SCORED_BYTES = 42
MIN_BUDGET = 64 << 20
MAX_PARTITIONS = 1 << 16


@dataclass
class BitextPairs:
    """One bitext's counts for a split and the pivots whose pairs it contributes."""

    counts: LinkCounts
    groups: PivotGroups
    skips: FanoutSkips

    @property
    def pair_count(self) -> int:
        return int(self.groups.pair_counts().sum())

    def keep_only_target_counts(self) -> None:
        """Let the (pivot, target) rows and the pivots go once the pairs are expanded: scoring
        needs only c(t) and N."""
        counts = self.counts
        self.counts = LinkCounts(counts.pair_pivot[:0].copy(), counts.pair_target[:0].copy(),
                                 counts.pair_count[:0].copy(), counts.target_count,
                                 counts.pivot_count[:0].copy(), counts.links)
        self.groups = self.groups.take(slice(0, 0))


@dataclass
class SplitPairs:
    """The pairs of one split, scored, and how they were aggregated."""

    scored: ScoredPairs
    skips: FanoutSkips
    links_per_bitext: list[int]
    expanded_pairs: int
    candidates: int
    partitions: int = 1
    spilled_bytes: int = 0


def bitext_pairs(target: np.ndarray, pivot: np.ndarray, vocabulary_size: int,
                 max_fanout: int | None) -> BitextPairs:
    """Count one bitext's links of a split (target and pivot codes) and find its pair pivots."""
    counts = count_links(target, pivot, vocabulary_size)
    groups, skips = pivot_groups(counts, max_fanout)
    return BitextPairs(counts, groups, skips)


def partitions_needed(expanded_pairs: int, budget: int, scored_bytes: int = SCORED_BYTES) -> int:
    """1 when the pairs fit in `budget` bytes, else how many partitions make each fit in what
    the budget leaves beside the scored pairs of the partitions done (`scored_bytes` a pair)."""
    if expanded_pairs * BYTES_PER_PAIR <= budget:
        return 1
    needed = math.ceil(expanded_pairs * BYTES_PER_PAIR
                       / working_budget(expanded_pairs, budget, scored_bytes))
    return 1 if needed <= 1 else min(needed, MAX_PARTITIONS)


def working_budget(expanded_pairs: int, budget: int, scored_bytes: int = SCORED_BYTES) -> int:
    """What `budget` leaves for expanding pairs once the scored pairs have their room."""
    return max(budget - expanded_pairs * scored_bytes, MIN_BUDGET)


def range_bounds(first_counts: np.ndarray, partitions: int) -> np.ndarray:
    """The first code of ranges 1 to `partitions` - 1, so that each range of codes is first in
    about an equal share of the pairs (`first_counts`: pairs per code)."""
    cumulative = np.cumsum(first_counts)
    total = cumulative[-1] if len(cumulative) else 0
    shares = total * np.arange(1, partitions) / partitions
    return (np.searchsorted(cumulative, shares, side="left") + 1).astype(np.uint64)


def range_of(keys: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The range of every pair key: how many bounds its first code reaches."""
    return np.searchsorted(bounds, keys >> np.uint64(32), side="right").astype(np.uint16)


def aggregate_split(bitexts: list[BitextPairs], scheme: str, budget: int,
                    spill_dir: Path | None = None, workers: int = 1,
                    consume: Callable[[ScoredPairs], None] | None = None) -> SplitPairs:
    """Sum and score the pairs of every bitext of a split within about `budget` bytes. In
    memory, the bitexts are summed on `workers` threads (one bitext's expansion is a share of
    the split's that `BYTES_PER_PAIR` counts whole). When they are summed in partitions, each
    bitext keeps only its target counts once its pairs are on disk. With `consume`, each
    partition's scored pairs (sorted by key, partitions in key order) go to it, not to the
    result, and the budget keeps no room for them."""
    skips = FanoutSkips(sum(b.skips.pivots for b in bitexts), sum(b.skips.links for b in bitexts),
                        sum(b.skips.pairs for b in bitexts))
    expanded = sum(b.pair_count for b in bitexts)
    scored_bytes = SCORED_BYTES if consume is None else 0
    partitions = partitions_needed(expanded, budget, scored_bytes)
    links = [b.counts.links for b in bitexts]
    parts: list[ScoredPairs] = []
    candidates = 0

    def keep(scored: ScoredPairs) -> None:
        nonlocal candidates
        candidates += len(scored)
        (consume or parts.append)(scored)

    if partitions == 1:
        per_bitext = map_on_threads(
            lambda b: (sum_by_pair(*weighted_pairs(b.counts, b.groups)), b.counts), bitexts,
            workers)
        keep(score_pairs(per_bitext, scheme))
        return SplitPairs(_concatenate(parts), skips, links, expanded, candidates)
    size = max(len(b.counts.target_count) for b in bitexts)
    first_counts = sum(pairs_by_first_code(b.counts, b.groups, size) for b in bitexts)
    bounds = range_bounds(first_counts, partitions)
    with scratch_folder("opusparcus-pairs-", spill_dir) as folder:
        spill = _Spill(folder, bounds)
        chunk_pairs = working_budget(expanded, budget, scored_bytes) // BYTES_PER_PAIR
        for number, bitext in enumerate(bitexts):
            for chunk in _chunks(bitext.groups, chunk_pairs):
                spill.add(number, *weighted_pairs(bitext.counts, chunk))
            bitext.keep_only_target_counts()
        release_freed_memory()
        for part in range(partitions):
            keep(score_pairs([(sum_by_pair(*spill.read(number, part)), bitext.counts)
                              for number, bitext in enumerate(bitexts)], scheme))
            release_freed_memory()
    return SplitPairs(_concatenate(parts), skips, links, expanded, candidates, partitions,
                      spill.bytes_written)


def _chunks(groups: PivotGroups, chunk_pairs: int) -> Iterator[PivotGroups]:
    """Consecutive runs of pivots yielding at most `chunk_pairs` pairs (a wider pivot alone)."""
    ends = np.cumsum(groups.pair_counts())
    start = 0
    while start < len(ends):
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + chunk_pairs, side="right")), start + 1)
        yield groups.take(slice(start, stop))
        start = stop


def _concatenate(parts: list[ScoredPairs]) -> ScoredPairs:
    """The ranges' pairs in one key-sorted set, as the in-memory path gives them; each field of
    the ranges is let go once its whole exists (none: no pairs)."""
    if len(parts) <= 1:
        return parts[0] if parts else score_pairs([])
    same_score = all(part.score is part.summed_pmi for part in parts)
    columns = {}
    for name in FIELDS:
        if name == "score" and same_score:
            columns[name] = columns["summed_pmi"]
        else:
            columns[name] = np.concatenate([getattr(part, name) for part in parts])
        for part in parts:
            setattr(part, name, getattr(part, name)[:0].copy())
        release_freed_memory()
    return ScoredPairs(**columns)


class _Spill:
    """Files of (key, weight) rows, one pair per bitext and range of keys, appended in order."""

    def __init__(self, folder: Path, bounds: np.ndarray) -> None:
        self.folder = folder
        self.bounds = bounds
        self.partitions = len(bounds) + 1
        self.bytes_written = 0

    def _paths(self, bitext: int, part: int) -> tuple[Path, Path]:
        stem = self.folder / f"{bitext}-{part}"
        return stem.with_suffix(".keys"), stem.with_suffix(".weights")

    def add(self, bitext: int, keys: np.ndarray, weights: np.ndarray) -> None:
        part_of = range_of(keys, self.bounds)
        order = np.argsort(part_of, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(part_of,
                                                            minlength=self.partitions))])
        keys, weights = keys[order], weights[order]
        for part in range(self.partitions):
            rows = slice(bounds[part], bounds[part + 1])
            if rows.start == rows.stop:
                continue
            for path, values in zip(self._paths(bitext, part), (keys[rows], weights[rows])):
                with path.open("ab") as stream:
                    values.tofile(stream)
                self.bytes_written += values.nbytes

    def read(self, bitext: int, part: int) -> tuple[np.ndarray, np.ndarray]:
        keys_path, weights_path = self._paths(bitext, part)
        if not keys_path.exists():
            return np.zeros(0, np.uint64), np.zeros(0, np.float64)
        return np.fromfile(keys_path, np.uint64), np.fromfile(weights_path, np.float64)
