"""The lexical overlap of row pairs (anchor with positive, hard negative, random negative): the
words they share and the Jaccard index of their word sets, summarised for `stats.json`."""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.pairs.words import WordSets


@njit(nogil=True, cache=True)
def _overlaps(offsets, ids, left, right):
    shared = np.zeros(len(left), np.int64)
    jaccard = np.zeros(len(left), np.float64)
    for row in range(len(left)):
        a, b = left[row], right[row]
        i, i_end, j, j_end = offsets[a], offsets[a + 1], offsets[b], offsets[b + 1]
        common = 0
        while i < i_end and j < j_end:
            if ids[i] == ids[j]:
                common += 1
                i += 1
                j += 1
            elif ids[i] < ids[j]:
                i += 1
            else:
                j += 1
        union = (offsets[a + 1] - offsets[a]) + (offsets[b + 1] - offsets[b]) - common
        shared[row] = common
        jaccard[row] = common / union if union else 0.0
    return shared, jaccard


def overlaps(words: WordSets, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """Shared words and Jaccard index of each pair (left[k], right[k]) of sentences."""
    return _overlaps(words.offsets, words.ids, np.asarray(left, np.int64),
                     np.asarray(right, np.int64))


def summary(shared: np.ndarray, jaccard: np.ndarray) -> dict:
    """What `stats.json` reports of a set of pairs' overlaps."""
    if not len(shared):
        return {"pairs": 0}
    return {"pairs": int(len(shared)),
            "mean_jaccard": round(float(jaccard.mean()), 4),
            "median_jaccard": round(float(np.median(jaccard)), 4),
            "mean_shared_words": round(float(shared.mean()), 4),
            "share_with_a_shared_word": round(float((shared > 0).mean()), 4)}


class OverlapTally:
    """Overlaps gathered language by language, for the summary over all of them."""

    KINDS = ("positive", "hard_negative", "random_negative")

    def __init__(self) -> None:
        self._parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {
            kind: [] for kind in self.KINDS}

    def add(self, words: WordSets, pairs: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict:
        """The summary of one language's pairs (anchors, others) per kind, in the order of
        :attr:`KINDS` (pairs with -1 are left out)."""
        result = {}
        for kind in self.KINDS:
            if kind not in pairs:
                continue
            anchors, other = pairs[kind]
            kept = other >= 0
            shared, jaccard = overlaps(words, anchors[kept], other[kept])
            self._parts[kind].append((shared, jaccard))
            result[kind] = summary(shared, jaccard)
        return result

    def total(self) -> dict:
        return {kind: summary(np.concatenate([s for s, _ in parts] or [np.zeros(0, np.int64)]),
                              np.concatenate([j for _, j in parts] or [np.zeros(0)]))
                for kind, parts in self._parts.items() if parts}
