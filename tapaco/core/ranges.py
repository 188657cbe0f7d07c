"""Comparisons of ranges of arrays for the compiled kernels (code points, bytes, ids)."""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.kernel_helper import kernel_helper


@kernel_helper
def equal_ranges(a, a_start, a_end, b, b_start, b_end) -> bool:
    """Whether a[a_start:a_end] equals b[b_start:b_end]; a range past its array's end is equal
    to none."""
    length = a_end - a_start
    if b_end - b_start != length or a_end > len(a) or b_end > len(b):
        return False
    for k in range(length):
        if a[a_start + k] != b[b_start + k]:
            return False
    return True


@njit(nogil=True, cache=True)
def compare_ranges(a, a_start, a_end, b, b_start, b_end) -> int:
    """-1, 0 or 1 as a[a_start:a_end] sorts before, as or after b[b_start:b_end], element by
    element (for UTF-8 bytes: code-point order)."""
    a_length, b_length = a_end - a_start, b_end - b_start
    for k in range(min(a_length, b_length)):
        if a[a_start + k] != b[b_start + k]:
            return -1 if a[a_start + k] < b[b_start + k] else 1
    return np.sign(a_length - b_length)


@kernel_helper
def starts_with(data: np.ndarray, at: int, prefix: np.ndarray) -> bool:
    """Whether `prefix` is at `data[at:]`."""
    return equal_ranges(data, at, at + len(prefix), prefix, np.int64(0), len(prefix))


@kernel_helper
def copy_into(target, at, source) -> int:
    """Copy `source` to target[at:]; where the copy ends. (A slice assignment would compile
    numba's shape check and its error message into every kernel on the first run.)"""
    for k in range(len(source)):
        target[at + k] = source[k]
    return at + len(source)
