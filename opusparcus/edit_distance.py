"""Edit distances of sentence pairs: the release's adjusted distance and the dev/test pre-filter.

Adjusted edit distance: the tails of the longer sentence are free, i.e. the Levenshtein distance
of the shorter sentence to the best-matching substring of the longer one ("Frankfurt , Germany ."
vs "Oh , Frankfurt , Germany ." is 0). The pre-filter uses the plain character Levenshtein
distance. Both come from a compiled kernel over code points, a batch of pairs at a time
(:mod:`opusparcus.edit_distance_kernels`; any alphabet, any length, ceil(m / 64) x n machine-word
steps for lengths m <= n), run in bounded pieces (:mod:`tapaco.core.interruptible`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from opusparcus import edit_distance_kernels
from tapaco.core.arrays import code_points
from tapaco.core.interruptible import STEPS, in_pieces


def _paired_code_points(first: Sequence[str], second: Sequence[str]) -> tuple[tuple, tuple]:
    if len(first) != len(second):
        raise ValueError(f"{len(first)} first sentences but {len(second)} second ones")
    return code_points(first), code_points(second)


def _code_point_distances(first: tuple[np.ndarray, np.ndarray],
                          second: tuple[np.ndarray, np.ndarray], infix: bool) -> np.ndarray:
    (codes_a, offsets_a), (codes_b, offsets_b) = first, second
    longest = int(np.maximum(np.diff(offsets_a), np.diff(offsets_b)).max(initial=0))
    workspace = edit_distance_kernels.Workspace(len(offsets_a) - 1, longest)
    in_pieces(lambda: edit_distance_kernels.advance(codes_a, offsets_a, codes_b, offsets_b, infix,
                                                    *workspace.arrays(), STEPS))
    return workspace.found


def edit_distances(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """The Levenshtein distance (over code points) of every pair (first[k], second[k])."""
    return _code_point_distances(*_paired_code_points(first, second), infix=False)


def adjusted_edit_distances(first: Sequence[str], second: Sequence[str]) -> np.ndarray:
    """The adjusted distance of every pair (first[k], second[k])."""
    return _code_point_distances(*_paired_code_points(first, second), infix=True)


def differ_enough_mask(first: Sequence[str], second: Sequence[str], ratio: float,
                       short_ratio: float, short_length: int = 24) -> np.ndarray:
    """Whether each pair's plain edit distance reaches ratio x the shorter length (short_ratio
    when the shorter sentence has fewer than `short_length` characters)."""
    first, second = _paired_code_points(first, second)
    shorter = np.minimum(np.diff(first[1]), np.diff(second[1]))
    threshold = np.where(shorter < short_length, short_ratio, ratio) * shorter
    return _code_point_distances(first, second, infix=False) >= threshold
