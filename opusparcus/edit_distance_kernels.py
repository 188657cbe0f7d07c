"""Compiled kernels of the edit distances (:mod:`opusparcus.edit_distance`), over code points,
without the GIL.

Both distances run Myers' bit-parallel algorithm (Hyyrö's formulation) when the shorter sentence
has at most 64 code points, one machine word per column of the dynamic programme; longer pairs
run the dynamic programme row by row. The plain (Levenshtein) distance charges the longer
sentence's first characters (the top row counts up); the adjusted distance lets the shorter
sentence start and end anywhere in the longer one (the top row stays 0, the best bottom cell
wins).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_WORD = 64


@njit(nogil=True, cache=True)
def _pattern_masks(pattern):
    """The distinct code points of `pattern`, sorted, and for each the bits of its positions."""
    chars = np.unique(pattern)
    masks = np.zeros(len(chars), np.uint64)
    for position in range(len(pattern)):
        masks[np.searchsorted(chars, pattern[position])] |= np.uint64(1) << np.uint64(position)
    return chars, masks


@njit(nogil=True, cache=True)
def _bit_parallel(pattern, text, infix: bool) -> int:
    """The distance of `pattern` (1 to 64 code points) to `text` (see the module)."""
    chars, masks = _pattern_masks(pattern)
    m = len(pattern)
    last = np.uint64(1) << np.uint64(m - 1)
    vertical_plus = ~np.uint64(0)
    vertical_minus = np.uint64(0)
    score = m
    best = m
    for char in text:
        at = np.searchsorted(chars, char)
        equal = masks[at] if at < len(chars) and chars[at] == char else np.uint64(0)
        x_vertical = equal | vertical_minus
        x_horizontal = (((equal & vertical_plus) + vertical_plus) ^ vertical_plus) | equal
        horizontal_plus = vertical_minus | ~(x_horizontal | vertical_plus)
        horizontal_minus = vertical_plus & x_horizontal
        if horizontal_plus & last:
            score += 1
        elif horizontal_minus & last:
            score -= 1
        horizontal_plus <<= np.uint64(1)
        horizontal_minus <<= np.uint64(1)
        if not infix:
            horizontal_plus |= np.uint64(1)
        vertical_plus = horizontal_minus | ~(x_vertical | horizontal_plus)
        vertical_minus = horizontal_plus & x_vertical
        best = min(best, score)
    return best if infix else score


@njit(nogil=True, cache=True)
def _by_rows(pattern, text, infix: bool) -> int:
    """The same distance by the dynamic programme, a row of `text` positions per pattern
    character."""
    row = np.zeros(len(text) + 1, np.int64)
    if not infix:
        row[:] = np.arange(len(text) + 1)
    for i in range(1, len(pattern) + 1):
        diagonal = row[0]
        row[0] = i
        for j in range(1, len(text) + 1):
            above = row[j]
            row[j] = min(above + 1, row[j - 1] + 1,
                         diagonal + (0 if pattern[i - 1] == text[j - 1] else 1))
            diagonal = above
    return row.min() if infix else row[len(text)]


@njit(nogil=True, cache=True)
def distances(codes_a, offsets_a, codes_b, offsets_b, infix: bool):
    """The distance of every pair (row k: codes_a[offsets_a[k]:offsets_a[k + 1]] and the same
    of b), the shorter side as the pattern; `infix`: the adjusted distance, else Levenshtein."""
    rows = len(offsets_a) - 1
    found = np.empty(rows, np.int64)
    for row in range(rows):
        a = codes_a[offsets_a[row]:offsets_a[row + 1]]
        b = codes_b[offsets_b[row]:offsets_b[row + 1]]
        pattern, text = (a, b) if len(a) <= len(b) else (b, a)
        if len(pattern) == 0:
            found[row] = 0 if infix else len(text)
        elif len(pattern) <= _WORD:
            found[row] = _bit_parallel(pattern, text, infix)
        else:
            found[row] = _by_rows(pattern, text, infix)
    return found
