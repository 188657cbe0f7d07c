"""Compiled kernels that render ranked rows into the release's UTF-8 bytes (for the export).

A number is printed as Python's `f"{value:.6f}"` with its trailing zeros and point stripped. The
kernel rounds `value * 10**6` to an integer. The product is the exact one rounded to the nearest
double, and rounding is monotonic: below 2**52, where every half-integer is a double, the exact
product and the rounded one lie on the same side of any half-integer, so rounding the latter is
Python's correct rounding, unless it is a half-integer itself (an exact tie or not: Python
decides). Such a value, one not finite or one too large is marked, and its caller prints it
with Python (:func:`_number` in the export).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.kernel_helper import kernel_helper

# bytes a number's text may take in the kernel: sign, 10 integer digits, the point, 6 decimals
SLOT = 24
_LARGEST = float(2**52)


@kernel_helper
def _digits(value) -> int:
    """How many decimal digits a non-negative integer prints with."""
    count = 1
    while value >= 10:
        value //= 10
        count += 1
    return count


@kernel_helper
def _put_integer(out, at, value) -> int:
    """`value` (an integer) in decimal at out[at:]; where its text ends."""
    if value < 0:
        out[at] = 45
        at += 1
        value = -value
    end = at + _digits(value)
    position = end
    while True:
        position -= 1
        out[position] = 48 + value % 10
        value //= 10
        if value == 0:
            break
    return end


@kernel_helper
def _fixed6(value, slot) -> int:
    """The stripped six-decimal text of `value` in `slot`; its length, or -1 when the kernel
    cannot be sure of Python's rounding (see the module)."""
    if not np.isfinite(value):
        return -1
    negative = value < 0 or (value == 0 and np.signbit(value))
    scaled = abs(value) * 1e6
    if scaled >= _LARGEST:
        return -1
    whole = np.floor(scaled)
    fraction = scaled - whole
    if fraction == 0.5:
        return -1
    rounded = np.int64(whole) + (1 if fraction > 0.5 else 0)
    integer, decimals = rounded // 1_000_000, rounded % 1_000_000
    at = 0
    if negative and rounded != 0:
        slot[0] = 45
        at = 1
    at = _put_integer(slot, at, integer)
    if decimals == 0:
        return at
    slot[at] = 46
    for place in range(6):
        slot[at + 6 - place] = 48 + decimals % 10
        decimals //= 10
    at += 7
    while slot[at - 1] == 48:
        at -= 1
    return at


@njit(nogil=True, cache=True)
def fixed6_slots(values):
    """Every value's text in a row of SLOT bytes, and its length (-1: print it with Python)."""
    slots = np.empty((len(values), SLOT), np.uint8)
    lengths = np.empty(len(values), np.int64)
    for k in range(len(values)):
        lengths[k] = _fixed6(values[k], slots[k])
    return slots, lengths


@njit(nogil=True, cache=True)
def packed_slots(slots, lengths, offsets, data) -> None:
    """The slots' texts one after another at `offsets` in `data` (rows of length -1 skipped)."""
    for k in range(len(lengths)):
        for at in range(lengths[k]):
            data[offsets[k] + at] = slots[k, at]


@kernel_helper
def _put_text(out, at, offsets, data, row) -> int:
    for position in range(offsets[row], offsets[row + 1]):
        out[at] = data[position]
        at += 1
    return at


@njit(nogil=True, cache=True)
def rendered_rows(prefix, first_number, texts, pivots, edit):
    """The rows' lines: `prefix` and the row's number (from `first_number`), then each column
    of `texts` (a tuple of four or five (offsets, data) columns: the sentences and the printed
    numbers), the pivots and the edit distance after the fourth, tab-separated. The row
    numbers, pivots and distances are not negative."""
    rows = len(pivots)
    size = 0
    for column in texts:
        size += column[0][rows] - column[0][0]
    for k in range(rows):
        size += (len(prefix) + _digits(first_number + k) + len(texts) + 2 + _digits(pivots[k])
                 + _digits(edit[k]) + 1)
    out = np.empty(size, np.uint8)
    at = 0
    for k in range(rows):
        for b in range(len(prefix)):
            out[at + b] = prefix[b]
        at = _put_integer(out, at + len(prefix), first_number + k)
        for column_number, column in enumerate(texts):
            out[at] = 9
            at = _put_text(out, at + 1, column[0], column[1], k)
            if column_number == 3:
                out[at] = 9
                at = _put_integer(out, at + 1, pivots[k])
                out[at] = 9
                at = _put_integer(out, at + 1, edit[k])
        out[at] = 10
        at += 1
    return out[:at]
