"""The dev and test pairs held out for annotation: none already in an earlier split, and their
two sentences differing enough (the edit-distance pre-filter). Both engines call it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from opusparcus.counting import unpack_pairs
from opusparcus.edit_distance import differ_enough_mask
from opusparcus.rank_inputs import RankOptions
from opusparcus.scores import ScoredPairs
from tapaco.core.text_column import TextColumn


def contained(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each key is in `sorted_keys` (binary search: np.isin is far slower here)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), bool)
    position = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[position] == keys


def held_out(pairs: ScoredPairs, excluded: list[np.ndarray], vocabulary: pa.Array,
              options: RankOptions) -> ScoredPairs:
    """Pairs in none of the `excluded` key arrays (each sorted) whose sentences differ enough.
    The arrays are searched one by one: merging the train and dev keys would copy them twice."""
    seen = np.zeros(len(pairs), bool)
    for keys in excluded:
        seen |= contained(keys, pairs.keys)
    fresh = pairs.take(~seen)
    sentences = TextColumn.of_arrow(vocabulary)
    left, right = (sentences.take(codes) for codes in unpack_pairs(fresh.keys))
    keep = differ_enough_mask(left, right, options.min_edit_ratio, options.min_edit_ratio_short,
                              options.short_length)
    return fresh.take(keep)
