"""Hashes of code-point ranges for the compiled kernels' hash tables: FNV-1a, the same in every
interpreter and process (Python's `hash()` of a str is salted per process)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def hash_range(codes, start, end) -> np.int64:
    """A hash of codes[start:end], the same in every interpreter: FNV-1a over the code points,
    its high bits mixed into the low ones (hash-table slots take the low bits)."""
    value = np.uint64(14695981039346656037)
    for at in range(start, end):
        value = (value ^ np.uint64(codes[at])) * np.uint64(1099511628211)
    return mixed(value)


@njit(nogil=True, cache=True)
def mixed(value: np.uint64) -> np.int64:
    """A FNV-1a hash with its high bits mixed into the low ones, as an int64."""
    value ^= value >> np.uint64(29)
    value *= np.uint64(11400714819323198485)
    return np.int64(value ^ (value >> np.uint64(32)))
