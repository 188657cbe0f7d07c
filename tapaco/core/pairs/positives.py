"""Positive pairs: two members of one group of paraphrases (a TaPaCo set, an Opusparcus pair).

Every pair of a group's members is a candidate; a group with more than `max_pairs` pairs keeps
the `max_pairs` whose seeded keys are smallest (0: no cap). Which member is the anchor is the
key's lowest bit. Rows come group by group, in the order of the members' rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.interruptible import in_background
from tapaco.core.pairs.seeded import seeded_key


@njit(nogil=True, cache=True)
def _group_pairs(group_starts, max_pairs, seed):
    total = 0
    for g in range(len(group_starts) - 1):
        n = group_starts[g + 1] - group_starts[g]
        count = n * (n - 1) // 2
        total += count if max_pairs == 0 else min(count, max_pairs)
    anchors = np.empty(total, np.int64)
    positives = np.empty(total, np.int64)
    out = 0
    for g in range(len(group_starts) - 1):
        start, n = group_starts[g], group_starts[g + 1] - group_starts[g]
        count = n * (n - 1) // 2
        first = np.empty(count, np.int64)
        second = np.empty(count, np.int64)
        keys = np.empty(count, np.int64)
        k = 0
        for i in range(start, start + n):
            for j in range(i + 1, start + n):
                first[k], second[k], keys[k] = i, j, seeded_key(seed, i, j)
                k += 1
        chosen = np.arange(count) if max_pairs == 0 or count <= max_pairs else \
            np.sort(np.argsort(keys, kind="mergesort")[:max_pairs])
        for c in chosen:
            swap = keys[c] & 1
            anchors[out] = second[c] if swap else first[c]
            positives[out] = first[c] if swap else second[c]
            out += 1
    return anchors, positives


def positive_pairs(group_starts: np.ndarray, max_pairs: int, seed: int) -> tuple[np.ndarray,
                                                                                  np.ndarray]:
    """Rows (anchor, positive) of the groups `group_starts[g]:group_starts[g + 1]` (indices
    of sentences; the last entry is the number of sentences)."""
    return in_background(_group_pairs, np.asarray(group_starts, np.int64), max_pairs, seed,
                         size=int(group_starts[-1]) if len(group_starts) else 0)


@njit(nogil=True, cache=True)
def _oriented(first, second, seed):
    anchors, positives = first.copy(), second.copy()
    for row in range(len(first)):
        if seeded_key(seed, first[row], second[row]) & 1:
            anchors[row], positives[row] = second[row], first[row]
    return anchors, positives


def oriented_pairs(first: np.ndarray, second: np.ndarray, seed: int) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Rows (anchor, positive) of given pairs; which one is the anchor is seeded."""
    return _oriented(np.asarray(first, np.int64), np.asarray(second, np.int64), seed)
