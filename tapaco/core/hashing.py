"""Hashes for the compiled kernels, the same in every interpreter and process (Python's `hash()`
of a str is salted per process): FNV-1a over code points or bytes, its high bits mixed into the
low ones; and the open-addressing table the kernels number their distinct keys with.

A table is `slots`, a power-of-two array of ids (-1: empty), beside the callers' own arrays of
each id's hash and key. Its keys are ranges of an array (a token's code points, a sentence's
key), compared in full where their hashes match; a key that is one integer is the empty range
with the integer as its hash (:func:`mixed` is one-to-one, so equal hashes are equal keys).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.ranges import equal_ranges

FNV_OFFSET = np.uint64(14695981039346656037)
FNV_PRIME = np.uint64(1099511628211)


@kernel_helper
def fnv1a_step(value: np.uint64, code: int) -> np.uint64:
    """The FNV-1a hash `value` after one more code point or byte."""
    return (value ^ np.uint64(code)) * FNV_PRIME


@kernel_helper
def mixed(value: np.uint64) -> np.int64:
    """A FNV-1a hash with its high bits mixed into the low ones (hash-table slots take the low
    bits), as an int64; one-to-one."""
    value ^= value >> np.uint64(29)
    value *= np.uint64(11400714819323198485)
    return np.int64(value ^ (value >> np.uint64(32)))


@kernel_helper
def hash_range(codes, start, end) -> np.int64:
    """The hash of codes[start:end]: FNV-1a over its items, mixed."""
    value = FNV_OFFSET
    for at in range(start, end):
        value = fnv1a_step(value, np.int64(codes[at]))
    return mixed(value)


@kernel_helper
def slot_of(slots, hashes, keys, key_starts, key_ends, value, data, start, end) -> int:
    """The slot of the key data[start:end] (its hash `value`): the one holding the id whose key
    (keys[key_starts[id]:key_ends[id]]) is equal, or the empty one where it goes."""
    mask = len(slots) - 1
    slot = value & mask
    while True:
        found = slots[slot]
        if found < 0 or (hashes[found] == value and equal_ranges(
                keys, key_starts[found], key_ends[found], data, start, end)):
            return slot
        slot = (slot + 1) & mask


@kernel_helper
def slots_for(hashes, count, size):
    """A table of `size` slots (a power of two, over twice `count`) holding ids 0..count-1."""
    slots = np.full(size, -1, np.int64)
    mask = size - 1
    for index in range(count):
        slot = hashes[index] & mask
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = index
    return slots


def first_occurrences(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of `keys` (integers) numbered 0, 1, ... in order of first
    occurrence, as `pandas.factorize` numbers them: each key's number, and the index of each
    number's first occurrence. The kernel takes every array as int64 (64-bit keys by their
    bits), so that it is compiled once."""
    keys = np.ascontiguousarray(keys)
    if keys.dtype.kind in "iu" and keys.dtype.itemsize == 8:
        return _first_occurrences(keys.view(np.int64))
    return _first_occurrences(keys.astype(np.int64))


@njit(nogil=True, cache=True)
def _first_occurrences(keys):
    first_of = _earlier_rows(keys)
    codes = np.empty(len(keys), np.int64)
    firsts = np.empty(len(keys), np.int64)
    count = 0
    for row in range(len(keys)):
        if first_of[row] < 0:
            codes[row] = count
            firsts[count] = row
            count += 1
        else:
            codes[row] = codes[first_of[row]]
    return codes, firsts[:count].copy()


@njit(nogil=True, cache=True)
def repeats(keys):
    """The rows whose key (a 64-bit integer) is that of an earlier row, ascending, and the
    first row of each one's key."""
    first_of = _earlier_rows(keys)
    found = np.count_nonzero(first_of >= 0)
    later, first = np.empty(found, np.int64), np.empty(found, np.int64)
    found = 0
    for row in range(len(keys)):
        if first_of[row] >= 0:
            later[found], first[found] = row, first_of[row]
            found += 1
    return later, first


@kernel_helper
def _earlier_rows(keys):
    """Each row's first row with its key (a 64-bit integer), -1 for that first row itself.

    The keys are first placed in buckets by the high bits of their hashes (keeping the order
    of rows within a bucket), each bucket then searched with a table small enough to stay in
    the cache: two passes over the keys instead of a cache miss for every key in one large
    table."""
    count = len(keys)
    shift = np.uint64(64)
    while shift > 48 and (count >> (64 - shift)) > 8192:
        shift -= np.uint64(1)
    starts = np.zeros((1 << (64 - shift)) + 1, np.int64)
    bucket_of = np.zeros(count, np.int64)
    if shift < 64:
        for row in range(count):
            bucket_of[row] = np.uint64(mixed(np.uint64(keys[row]))) >> shift
    for row in range(count):
        starts[bucket_of[row] + 1] += 1
    largest = 0
    for bucket in range(len(starts) - 1):
        largest = max(largest, starts[bucket + 1])
        starts[bucket + 1] += starts[bucket]
    rows, placed = np.empty(count, np.int64), np.empty(count, np.int64)
    filled = starts[:-1].copy()
    for row in range(count):
        at = filled[bucket_of[row]]
        rows[at], placed[at] = row, keys[row]
        filled[bucket_of[row]] += 1
    size = 16
    while size < 2 * largest:
        size *= 2
    table = np.empty(size, np.int64)
    first_of = bucket_of  # reused: each row's earlier row of its key, or -1
    first_of[:] = -1
    for bucket in range(len(starts) - 1):
        size = 16
        while size < 2 * (starts[bucket + 1] - starts[bucket]):
            size *= 2
        slots, mask = table[:size], size - 1
        slots[:] = -1
        for at in range(starts[bucket], starts[bucket + 1]):
            slot = mixed(np.uint64(placed[at])) & mask
            while slots[slot] >= 0 and placed[slots[slot]] != placed[at]:
                slot = (slot + 1) & mask
            if slots[slot] < 0:
                slots[slot] = at
            else:
                first_of[rows[at]] = rows[slots[slot]]
    return first_of
