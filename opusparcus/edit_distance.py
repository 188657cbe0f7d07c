"""Edit distances of sentence pairs: the release's adjusted distance and the dev/test pre-filter.

Adjusted edit distance: the tails of the longer sentence are free, i.e. the Levenshtein distance
of the shorter sentence to the best-matching substring of the longer one ("Frankfurt , Germany ."
vs "Oh , Frankfurt , Germany ." is 0), computed by edlib's infix ("HW") alignment in C.
edlib takes at most 256 distinct symbols per pair; a pair with more (long CJK sentences) is
recoded first: only characters the two sentences share need their own symbol, the others one
symbol per side, which changes no equality between the sides. When even the shared characters
are too many, a row-vectorised dynamic programme computes the same distance.
The pre-filter uses plain character Levenshtein distance (rapidfuzz, in C).
"""

from __future__ import annotations

from collections.abc import Iterable

import edlib
import numpy as np
from rapidfuzz.distance import Levenshtein

EDLIB_SYMBOLS = 256


def adjusted_edit_distance(first: str, second: str) -> int:
    """Levenshtein distance with the tails of the longer sentence free."""
    shorter, longer = (first, second) if len(first) <= len(second) else (second, first)
    if not shorter:
        return 0
    if len(shorter) + len(longer) > EDLIB_SYMBOLS and len(
            set(shorter).union(longer)) > EDLIB_SYMBOLS:
        shared = set(shorter).intersection(longer)
        if len(shared) > EDLIB_SYMBOLS - 2:
            return infix_distance(shorter, longer)
        shorter, longer = _recoded(shorter, longer, shared)
    return edlib.align(shorter, longer, mode="HW", task="distance")["editDistance"]


def _recoded(shorter: str, longer: str, shared: set[str]) -> tuple[str, str]:
    """Both strings over at most 256 symbols, with the same equalities between their sides."""
    code = {char: chr(i) for i, char in enumerate(sorted(shared))}
    only_shorter, only_longer = chr(len(code)), chr(len(code) + 1)
    return ("".join(code.get(char, only_shorter) for char in shorter),
            "".join(code.get(char, only_longer) for char in longer))


def infix_distance(shorter: str, longer: str) -> int:
    """The adjusted distance by dynamic programming over any alphabet, one numpy row per
    character of `shorter`: a row is the best of substituting and deleting, then the
    insertions run as a prefix minimum."""
    target = np.frombuffer(longer.encode("utf-32-le"), np.uint32)
    columns = np.arange(len(longer) + 1)
    row = np.zeros(len(longer) + 1, np.int64)  # the match may start anywhere in `longer`
    for i, char in enumerate(shorter, 1):
        best = np.empty_like(row)
        best[0] = i
        np.minimum(row[1:] + 1, row[:-1] + (target != ord(char)), out=best[1:])
        row = np.minimum.accumulate(best - columns) + columns
    return int(row.min())  # and end anywhere


def adjusted_edit_distances(pairs: Iterable[tuple[str, str]]) -> np.ndarray:
    return np.array([adjusted_edit_distance(a, b) for a, b in pairs], np.int64)


def differ_enough(first: str, second: str, ratio: float, short_ratio: float,
                  short_length: int = 24) -> bool:
    """Whether the pair's plain edit distance reaches ratio x the shorter length (short_ratio
    when the shorter sentence has fewer than `short_length` characters)."""
    shorter = min(len(first), len(second))
    threshold = (short_ratio if shorter < short_length else ratio) * shorter
    return Levenshtein.distance(first, second) >= threshold
