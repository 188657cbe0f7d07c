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
    size = 16
    while size < len(keys) + len(keys) // 4:  # at most 80 % full
        size *= 2
    slots = np.full((size, 2), -1, np.int64)  # a number and its key, side by side
    mask = size - 1
    codes = np.empty(len(keys), np.int64)
    firsts = np.empty(len(keys), np.int64)
    count = 0
    for index in range(len(keys)):
        key = np.int64(keys[index])
        slot = mixed(np.uint64(key)) & mask
        while slots[slot, 0] >= 0 and slots[slot, 1] != key:
            slot = (slot + 1) & mask
        if slots[slot, 0] < 0:
            slots[slot, 0], slots[slot, 1] = count, key
            firsts[count] = index
            count += 1
        codes[index] = slots[slot, 0]
    return codes, firsts[:count].copy()
