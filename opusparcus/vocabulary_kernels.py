"""Merging two sorted vocabularies of distinct UTF-8 strings (Arrow offsets + bytes).

Byte order of UTF-8 is code-point order, so the merge compares bytes. Each side gets the rank of
its strings in the merged, still distinct, sequence; a string in both sides is kept once.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _compare(first, first_start, first_end, second, second_start, second_end):
    """-1, 0 or 1 as the byte range [first_start, first_end) of `first` sorts before, as or
    after [second_start, second_end) of `second`."""
    length = min(first_end - first_start, second_end - second_start)
    for at in range(length):
        a, b = first[first_start + at], second[second_start + at]
        if a != b:
            return -1 if a < b else 1
    a_length, b_length = first_end - first_start, second_end - second_start
    return -1 if a_length < b_length else 1 if a_length > b_length else 0


@njit(nogil=True, cache=True)
def merge_ranks(first_offsets, first_data, second_offsets, second_data, first_rank, second_rank,
                origin):
    """Fill each side's ranks in the merge of the two sorted, distinct string arrays, and
    `origin` (room for both sides' strings): for every merged string, its index in the first
    side, or -1 - its index in the second. Returns how many strings the merge holds."""
    first_count, second_count = len(first_offsets) - 1, len(second_offsets) - 1
    i = j = merged = 0
    while i < first_count or j < second_count:
        if i == first_count:
            order = 1
        elif j == second_count:
            order = -1
        else:
            order = _compare(first_data, first_offsets[i], first_offsets[i + 1],
                             second_data, second_offsets[j], second_offsets[j + 1])
        if order <= 0:
            first_rank[i] = merged
            origin[merged] = i
            i += 1
        if order >= 0:
            second_rank[j] = merged
            if order > 0:
                origin[merged] = -1 - j
            j += 1
        merged += 1
    return merged


@njit(nogil=True, cache=True)
def gather(origin, first_offsets, first_data, second_offsets, second_data, offsets):
    """The bytes of the merged strings `origin` names (see :func:`merge_ranks`), their
    `offsets` (one more than the strings) filled."""
    offsets[0] = 0
    for at in range(len(origin)):
        index = origin[at]
        if index >= 0:
            length = first_offsets[index + 1] - first_offsets[index]
        else:
            length = second_offsets[-index] - second_offsets[-1 - index]
        offsets[at + 1] = offsets[at] + length
    data = np.empty(offsets[-1], np.uint8)
    for at in range(len(origin)):
        index = origin[at]
        if index >= 0:
            source, start = first_data, first_offsets[index]
        else:
            source, start = second_data, second_offsets[-1 - index]
        for k in range(offsets[at + 1] - offsets[at]):
            data[offsets[at] + k] = source[start + k]
    return data
