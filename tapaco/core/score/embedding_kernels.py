"""Compiled kernels of the vectors backend, without the GIL: the cosine of two sentences' mean
word vectors, for pairs and for each member of a set against the others, in float64 and
without materialising a vector per sentence.

A sentence is given by the rows of its known words in the vector matrix
(`rows[offsets[k]:offsets[k + 1]]`, rows < 0 skipped). A cosine with a mean equals the cosine
with the sum, so sums stand in for means. No known word, or a zero vector: NaN.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _sum_into(total, rows, start, end, matrix) -> int:
    """Add the vectors of the sentence's known words to `total`; how many there were."""
    count = 0
    for at in range(start, end):
        row = rows[at]
        if row < 0:
            continue
        count += 1
        for k in range(matrix.shape[1]):
            total[k] += matrix[row, k]
    return count


@njit(nogil=True, cache=True)
def _cosine(a, b) -> float:
    dot = 0.0
    aa = 0.0
    bb = 0.0
    for k in range(len(a)):
        dot += a[k] * b[k]
        aa += a[k] * a[k]
        bb += b[k] * b[k]
    norms = math.sqrt(aa) * math.sqrt(bb)
    return dot / norms if norms > 0 else np.nan


@njit(nogil=True, cache=True)
def pair_cosines(rows, offsets, matrix, left, right):
    """The score of each pair of sentences (left[k], right[k])."""
    scores = np.empty(len(left))
    a = np.empty(matrix.shape[1])
    b = np.empty(matrix.shape[1])
    for pair in range(len(left)):
        a[:] = 0.0
        b[:] = 0.0
        first, second = left[pair], right[pair]
        if _sum_into(a, rows, offsets[first], offsets[first + 1], matrix) == 0 or \
                _sum_into(b, rows, offsets[second], offsets[second + 1], matrix) == 0:
            scores[pair] = np.nan
        else:
            scores[pair] = _cosine(a, b)
    return scores


@njit(nogil=True, cache=True)
def set_cosines(rows, offsets, matrix, set_offsets):
    """The score of each sentence of the sets (set s: sentences set_offsets[s] to
    set_offsets[s + 1]) against the mean vector of the other members that have one."""
    sentences = len(offsets) - 1
    scores = np.full(sentences, np.nan)
    for s in range(len(set_offsets) - 1):
        lo, hi = set_offsets[s], set_offsets[s + 1]
        means = np.zeros((hi - lo, matrix.shape[1]))
        known = np.zeros(hi - lo, np.bool_)
        total = np.zeros(matrix.shape[1])
        for member in range(lo, hi):
            count = _sum_into(means[member - lo], rows, offsets[member], offsets[member + 1],
                              matrix)
            if count:
                known[member - lo] = True
                means[member - lo] /= count
                total += means[member - lo]
        if known.sum() < 2:
            continue
        for member in range(lo, hi):
            if known[member - lo]:
                scores[member] = _cosine(means[member - lo], total - means[member - lo])
    return scores
