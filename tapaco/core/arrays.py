"""Fast array helpers: lexicographic orderings, group boundaries, integer codes of strings,
and a pause of the garbage collector around bulk object building.

numpy's argsort/lexsort on int64 is several times slower than sorting one uint64 array, so when
the keys' value ranges fit in 64 bits together with the row index, they are packed into one
uint64 per row and sorted; the row index in the low bits makes the order stable and gives the
permutation back. Otherwise np.lexsort is used.

Strings are grouped through their 64-bit hashes (fast to factorize), and every row that shares
a code with an earlier row is checked to hold the same string, so a hash collision can never
merge two different strings: it makes the exact (slower) path run instead.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pandas as pd


def _bits(values: np.ndarray) -> int:
    return int(values.max()).bit_length() if len(values) else 0


def lexicographic_order(*keys: np.ndarray) -> np.ndarray:
    """Row indexes sorted by keys[0], then keys[1], ..., then row index (non-negative keys)."""
    count = len(keys[0])
    index_bits = max(count - 1, 0).bit_length()
    shifted = [np.asarray(key, np.int64) - (key.min() if len(key) else 0) for key in keys]
    widths = [_bits(key) for key in shifted]
    if sum(widths) + index_bits > 64:
        return np.lexsort([np.arange(count)] + shifted[::-1])
    packed = np.arange(count, dtype=np.uint64)
    shift = index_bits
    for key, width in zip(shifted[::-1], widths[::-1]):
        packed |= key.astype(np.uint64) << np.uint64(shift)
        shift += width
    packed.sort()
    mask = np.uint64((1 << index_bits) - 1) if index_bits else np.uint64(0)
    return (packed & mask).astype(np.int64)


def group_starts(*sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean array: True where any key differs from the previous row (rows already sorted)."""
    count = len(sorted_keys[0])
    starts = np.zeros(count, bool)
    if count:
        starts[0] = True
        for key in sorted_keys:
            starts[1:] |= key[1:] != key[:-1]
    return starts


def string_codes(strings: Sequence[str]) -> np.ndarray:
    """Codes 0..k-1 in order of first appearance; equal codes exactly when strings are equal."""
    hashes = np.fromiter(map(hash, strings), np.int64, len(strings))
    codes, _ = pd.factorize(hashes)
    first = np.full(len(codes) and codes.max() + 1, -1, np.int64)
    rows = np.arange(len(codes))
    first[codes[::-1]] = rows[::-1]
    repeated = np.flatnonzero(first[codes] != rows)
    leaders = first[codes[repeated]].tolist()
    if all(strings[row] == strings[leader] for row, leader in zip(repeated.tolist(), leaders)):
        return codes
    exact, _ = pd.factorize(np.array(strings, dtype=object))
    return exact


@contextmanager
def garbage_collector_paused() -> Iterator[None]:
    """Millions of long-lived strings make every full collection slower; none form cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
