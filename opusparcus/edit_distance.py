"""Edit distances of sentence pairs: the release's adjusted distance and the dev/test pre-filter.

Adjusted edit distance: the tails of the longer sentence are free, i.e. the Levenshtein distance
of the shorter sentence to the best-matching substring of the longer one ("Frankfurt , Germany ."
vs "Oh , Frankfurt , Germany ." is 0), computed by edlib's infix ("HW") alignment in C.
The pre-filter uses plain character Levenshtein distance (rapidfuzz, in C).
"""

from __future__ import annotations

from collections.abc import Iterable

import edlib
import numpy as np
from rapidfuzz.distance import Levenshtein


def adjusted_edit_distance(first: str, second: str) -> int:
    """Levenshtein distance with the tails of the longer sentence free."""
    shorter, longer = (first, second) if len(first) <= len(second) else (second, first)
    if not shorter:
        return 0
    return edlib.align(shorter, longer, mode="HW", task="distance")["editDistance"]


def adjusted_edit_distances(pairs: Iterable[tuple[str, str]]) -> np.ndarray:
    return np.array([adjusted_edit_distance(a, b) for a, b in pairs], np.int64)


def differ_enough(first: str, second: str, ratio: float, short_ratio: float,
                  short_length: int = 24) -> bool:
    """Whether the pair's plain edit distance reaches ratio x the shorter length (short_ratio
    when the shorter sentence has fewer than `short_length` characters)."""
    shorter = min(len(first), len(second))
    threshold = (short_ratio if shorter < short_length else ratio) * shorter
    return Levenshtein.distance(first, second) >= threshold
