"""Compiled kernel of the vectors backend: each sentence's mean word vector, without the GIL."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def mean_vectors(rows, offsets, matrix):
    """Sentence k's mean of `matrix[rows[offsets[k]:offsets[k + 1]]]`, in float64, skipping
    rows < 0 (words the file does not hold); and whether it had a word at all."""
    sentences = len(offsets) - 1
    means = np.zeros((sentences, matrix.shape[1]), np.float64)
    known = np.zeros(sentences, np.bool_)
    for sentence in range(sentences):
        count = 0
        for at in range(offsets[sentence], offsets[sentence + 1]):
            row = rows[at]
            if row < 0:
                continue
            count += 1
            for k in range(matrix.shape[1]):
                means[sentence, k] += matrix[row, k]
        if count:
            known[sentence] = True
            for k in range(matrix.shape[1]):
                means[sentence, k] /= count
    return means, known
