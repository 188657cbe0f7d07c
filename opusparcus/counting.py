"""Alignment counts of a bitext and the candidate pairs that share a pivot sentence.

All counting is numpy on integer codes: (pivot, target) pairs are packed into one uint64 and
sorted, so the distinct pairs come out grouped by pivot; every pivot sentence aligned to d
distinct target sentences then yields its d(d-1)/2 target pairs with one vectorised expansion,
each contributing c(t1,f) c(t2,f) / c(f) to S(t1, t2). Pivots with more than `max_fanout`
distinct targets are skipped and counted.

Every count of a bitext split (c(t,f), c(t), c(f)) is at most its number of links, so the counts
are int32 when the links fit (:func:`count_type`), int64 otherwise; products of two counts are
taken in int64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tapaco.core.arrays import ordered_group_sums


def count_type(links: int) -> type:
    """The integer type that holds any count of a bitext split of `links` links."""
    return np.int32 if links <= np.iinfo(np.int32).max else np.int64


def count_product(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """first * second in int64, whatever the counts' own type (int32 would overflow)."""
    return np.multiply(first, second, dtype=np.int64)


def pack_pairs(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """One uint64 key per pair of 32-bit codes: `high` in the upper half, `low` in the lower."""
    return (high.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64)


def unpack_pairs(keys: np.ndarray, dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """The two codes of packed pair keys (the inverse of :func:`pack_pairs`), as `dtype`."""
    return ((keys >> np.uint64(32)).astype(dtype),
            (keys & np.uint64(0xFFFFFFFF)).astype(dtype))


@dataclass
class LinkCounts:
    """c(t,f) as parallel arrays grouped by pivot f, c(t), c(f) and N of one bitext split."""

    pair_pivot: np.ndarray
    pair_target: np.ndarray
    pair_count: np.ndarray
    target_count: np.ndarray
    pivot_count: np.ndarray
    links: int


@dataclass
class FanoutSkips:
    pivots: int = 0
    links: int = 0
    pairs: int = 0


@dataclass
class SharedPairs:
    """Target pairs (left < right by code) sharing a pivot, with S = sum_f c(l,f)c(r,f)/c(f)."""

    keys: np.ndarray
    shared: np.ndarray

    @property
    def left(self) -> np.ndarray:
        return (self.keys >> np.uint64(32)).astype(np.int32)

    @property
    def right(self) -> np.ndarray:
        return (self.keys & np.uint64(0xFFFFFFFF)).astype(np.int32)


def count_links(target: np.ndarray, pivot: np.ndarray, target_vocabulary: int) -> LinkCounts:
    """Counts of 1:1 links given as target and pivot sentence codes (32-bit), each count of
    the :func:`count_type` of the links."""
    keys = pack_pairs(pivot, target)
    keys.sort()
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if len(keys) else (
        np.zeros(0, np.int64))
    pair_pivot, pair_target = unpack_pairs(keys[starts], np.int32)
    del keys
    counts = count_type(len(target))
    return LinkCounts(
        pair_pivot=pair_pivot,
        pair_target=pair_target,
        pair_count=np.diff(np.append(starts, len(target))).astype(counts),
        target_count=np.bincount(target, minlength=target_vocabulary).astype(counts),
        pivot_count=np.bincount(pivot).astype(counts) if len(pivot) else np.zeros(0, counts),
        links=len(target),
    )


def _members_and_partners(starts: np.ndarray,
                          sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every element of each group [start, start+size), and how many elements follow it in its
    group (the pairs it is the first of)."""
    ranks = _ranks_within(sizes)
    return np.repeat(starts, sizes) + ranks, np.repeat(sizes, sizes) - 1 - ranks


def _within_group_pairs(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indexes (i, j), i < j, of every pair of elements inside each group [start, start+size)."""
    members, partners = _members_and_partners(starts, sizes)
    left = np.repeat(members, partners)
    right = left + 1 + _ranks_within(partners)
    return left, right


def pairs_by_first_code(counts: LinkCounts, groups: PivotGroups, size: int) -> np.ndarray:
    """How many of the pairs of `groups` have each target code (0 to `size` - 1) as their first,
    smaller, sentence: a pivot's targets are in code order, so its k-th of d is first in d-1-k
    of its pairs."""
    members, partners = _members_and_partners(groups.starts, groups.sizes)
    return np.bincount(counts.pair_target[members], weights=partners,
                       minlength=size).astype(np.int64)


def _ranks_within(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ..., size-1 for every size, concatenated."""
    total = int(sizes.sum())
    ends = np.cumsum(sizes)
    return np.arange(total, dtype=np.int64) - np.repeat(ends - sizes, sizes)


@dataclass
class PivotGroups:
    """The pivots that yield pairs (2 to `max_fanout` distinct targets): where each one's
    (pivot, target) rows start in :class:`LinkCounts` and how many there are."""

    starts: np.ndarray
    sizes: np.ndarray

    def pair_counts(self) -> np.ndarray:
        """How many target pairs each pivot yields: d(d-1)/2."""
        return self.sizes * (self.sizes - 1) // 2

    def take(self, chosen: slice | np.ndarray) -> PivotGroups:
        return PivotGroups(self.starts[chosen], self.sizes[chosen])


def pivot_groups(counts: LinkCounts, max_fanout: int | None) -> tuple[PivotGroups, FanoutSkips]:
    """The pivots that yield pairs, and what the fan-out cap skipped (None or 0: no cap)."""
    pivots = counts.pair_pivot
    boundaries = np.flatnonzero(np.concatenate([[True], pivots[1:] != pivots[:-1]])) if len(
        pivots) else np.zeros(0, np.int64)
    sizes = np.diff(np.append(boundaries, len(pivots)))
    too_wide = sizes > max_fanout if max_fanout else np.zeros(len(sizes), bool)
    skips = FanoutSkips(int(too_wide.sum()),
                        int(counts.pivot_count[pivots[boundaries[too_wide]]].sum()),
                        int((sizes[too_wide] * (sizes[too_wide] - 1) // 2).sum()))
    chosen = (sizes >= 2) & ~too_wide
    return PivotGroups(boundaries[chosen], sizes[chosen]), skips


def weighted_pairs(counts: LinkCounts, groups: PivotGroups) -> tuple[np.ndarray, np.ndarray]:
    """Every target pair of every pivot in `groups`, in pivot order: packed keys (left < right)
    and the pivot's contribution c(l,f) c(r,f) / c(f)."""
    left, right = _within_group_pairs(groups.starts, groups.sizes)
    weight = (count_product(counts.pair_count[left], counts.pair_count[right])
              / counts.pivot_count[counts.pair_pivot[left]])
    return pack_pairs(counts.pair_target[left], counts.pair_target[right]), weight


def sum_by_pair(keys: np.ndarray, weights: np.ndarray) -> SharedPairs:
    """S per distinct pair, keys sorted. Each pair's contributions are summed in the order
    given, by a reduction over that pair's values alone (:func:`ordered_group_sums`), so any
    subset holding all of a pair's contributions in the same order gives the same S to the
    last bit: partitions and Spark buckets sum as the whole does."""
    distinct, _, (summed,) = ordered_group_sums(keys, weights)
    return SharedPairs(distinct.astype(np.uint64), summed)
