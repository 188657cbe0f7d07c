"""Ranked pairs as sorted runs, best first, read back in chunks of rows by a k-way merge.

A split's pairs are summed in partitions of their keys (:mod:`opusparcus.aggregate`); each
partition is ordered alone by (-score, first sentence, second sentence) and appended to one
file per field, so the split's ranked rows are the merge of those runs and no stage holds all
the pairs: the merge (a kernel over the runs' heads) gives the positions of the next chunk, and
only that chunk's fields are read. Since a partition is sorted by key, ordering it by a stable
sort on the score alone gives the same order as the sort by (-score, key) over the whole split.
The files are memory-mapped afresh every few chunks, so the pages read stay few. A single run
in memory (dev, test) goes through the same reader.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numba import njit

from opusparcus.counting import unpack_pairs
from opusparcus.scores import ScoredPairs
from tapaco.core.kernel_helper import kernel_helper

# (field, dtype) of a ranked row; `score` only for a scheme other than summed PMI
ROW_FIELDS = (("first", np.int32), ("second", np.int32), ("summed_pmi", np.float64),
              ("expected", np.float64), ("pivots", np.int16), ("score", np.float64))
# chunks read before the files are mapped again (their pages read so far let go)
CHUNKS_PER_MAPPING = 16


def best_first(score: np.ndarray) -> np.ndarray:
    """Positions by descending score, ties in their order (a stable sort), as int32 where they
    fit. The score is negated in place and restored (a sign flip is exact) instead of sorting a
    negated copy."""
    np.negative(score, out=score)
    try:
        order = np.argsort(score, kind="stable")
    finally:
        np.negative(score, out=score)
    return order.astype(np.int32) if len(order) < 2**31 else order


def ordered_rows(pairs: ScoredPairs, with_score: bool) -> dict[str, np.ndarray]:
    """The fields of key-sorted `pairs` best first (ties by the sentences); `pairs` is let go
    field by field as its ordered copy exists."""
    order = best_first(pairs.score)
    rows = dict(zip(("first", "second"), (codes[order] for codes in
                                          unpack_pairs(pairs.keys, np.int32))))
    pairs.keys = pairs.keys[:0].copy()
    for name in ("summed_pmi", "expected", "pivots", "score"):
        if name != "score" or with_score:
            rows[name] = getattr(pairs, name)[order]
        setattr(pairs, name, getattr(pairs, name)[:0].copy())
    return rows


@kernel_helper
def _before(score, first, second, a, b):
    """Whether row `a` ranks before row `b`: higher score (NaN last), then smaller codes."""
    left, right = score[a], score[b]
    if left != right and not (left != left and right != right):
        if left != left:
            return False
        if right != right:
            return True
        return left > right
    if first[a] != first[b]:
        return first[a] < first[b]
    return second[a] < second[b]


@kernel_helper
def _sift_down(heap, size, heads, score, first, second, at):
    while True:
        child = 2 * at + 1
        if child >= size:
            return
        if child + 1 < size and _before(score, first, second, heads[heap[child + 1]],
                                        heads[heap[child]]):
            child += 1
        if not _before(score, first, second, heads[heap[child]], heads[heap[at]]):
            return
        heap[at], heap[child] = heap[child], heap[at]
        at = child


@njit(nogil=True, cache=True)
def merged_positions(score, first, second, heads, ends, dropped, out):
    """Fill `out` with the positions of the next rows of the merge of the runs [heads, ends)
    (each best first), advancing `heads`; a row holding a code `dropped` marks is passed over
    (no mask: none is). Returns how many were filled."""
    heap = np.empty(len(heads), np.int64)
    size = 0
    for run in range(len(heads)):
        if heads[run] < ends[run]:
            heap[size] = run
            size += 1
    for at in range(size // 2 - 1, -1, -1):
        _sift_down(heap, size, heads, score, first, second, at)
    count = 0
    while count < len(out) and size > 0:
        run = heap[0]
        row = heads[run]
        if len(dropped) == 0 or not (dropped[first[row]] or dropped[second[row]]):
            out[count] = row
            count += 1
        heads[run] += 1
        if heads[run] == ends[run]:
            size -= 1
            heap[0] = heap[size]
        _sift_down(heap, size, heads, score, first, second, 0)
    return count


class RankedRuns:
    """Runs of ranked rows, each best first: one in memory (:meth:`in_memory`) or appended to
    one file per field in `folder` (:meth:`add`)."""

    def __init__(self, with_score: bool, folder: Path | None = None) -> None:
        self.names = [name for name, _ in ROW_FIELDS if name != "score" or with_score]
        self.folder = folder
        self.bounds = [0]
        self.arrays: dict[str, np.ndarray] | None = None
        self.dropped = np.zeros(0, bool)
        self.dropped_rows = 0

    def __len__(self) -> int:
        return self.bounds[-1] - self.dropped_rows

    @classmethod
    def in_memory(cls, pairs: ScoredPairs, with_score: bool) -> RankedRuns:
        """One run of key-sorted `pairs` (let go as they are ordered)."""
        runs = cls(with_score)
        runs.arrays = ordered_rows(pairs, with_score)
        for values in runs.arrays.values():  # read-only as mapped runs: one merged_positions
            values.flags.writeable = False
        runs.bounds.append(len(runs.arrays["first"]))
        return runs

    def add(self, pairs: ScoredPairs) -> None:
        """Append a run of key-sorted `pairs` (let go as they are ordered) to the files."""
        rows = ordered_rows(pairs, "score" in self.names)
        self.bounds.append(self.bounds[-1] + len(rows["first"]))
        for name, dtype in ROW_FIELDS:
            if name in self.names:
                with (self.folder / name).open("ab") as stream:
                    rows.pop(name).astype(dtype, copy=False).tofile(stream)

    def drop(self, codes: np.ndarray, vocabulary_size: int) -> int:
        """Leave out the rows holding a sentence of `codes`; how many rows that is."""
        self.dropped = np.zeros(vocabulary_size, bool)
        self.dropped[codes] = True
        step, rows = 1 << 22, 0
        for start in range(0, self.bounds[-1], step):
            arrays = self._mapped()
            rows += int((self.dropped[arrays["first"][start:start + step]]
                         | self.dropped[arrays["second"][start:start + step]]).sum())
        self.dropped_rows = rows
        return rows

    def _mapped(self) -> dict[str, np.ndarray]:
        if self.arrays is not None:
            return self.arrays
        return {name: (np.memmap(self.folder / name, dtype, "r") if self.bounds[-1] else
                       np.zeros(0, dtype))
                for name, dtype in ROW_FIELDS if name in self.names}

    def chunks(self, rows: int) -> Iterator[dict[str, np.ndarray]]:
        """The ranked rows, best first, `rows` at a time: each chunk's fields."""
        heads = np.array(self.bounds[:-1], np.int64)
        ends = np.array(self.bounds[1:], np.int64)
        positions = np.empty(rows, np.int64)
        served = 0
        for chunk in itertools.count():
            if served == len(self):
                return
            if chunk % CHUNKS_PER_MAPPING == 0:
                arrays = self._mapped()
            count = merged_positions(arrays.get("score", arrays["summed_pmi"]), arrays["first"],
                                     arrays["second"], heads, ends, self.dropped, positions)
            chosen = positions[:count]
            yield {name: np.asarray(values[chosen]) for name, values in arrays.items()}
            served += count
