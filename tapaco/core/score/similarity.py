"""The paraphrase score of pairs and of set members from sentence embeddings (the
sentence-transformers backend): the cosine of two sentence vectors (ParaNMT-50M, Wieting &
Gimpel 2018, section 3), computed in float64.

- A pair scores the cosine of its two sentences' vectors; without a vector on a side (or a zero
  vector) it has no score (NaN).
- A member of a set scores the cosine of its vector and the mean vector of the other members
  that have one; a set of one, or a member without a vector, has no score.

Each distinct sentence is embedded once per call, and once per run while the
:class:`EmbeddingCache` holds it (sentences recur across the pairs of a ranked file).
The vectors backend computes the same cosines in kernels (:mod:`.embedding_kernels`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tapaco.core.arrays import distinct_strings

CACHE_VALUES = 1 << 27  # floats the cache may hold: 1 GiB of float64


class EmbeddingCache:
    """Sentence vectors already computed by `embed` (texts to one row each), up to
    `max_values` floats (emptied when full)."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray],
                 max_values: int = CACHE_VALUES) -> None:
        self.embed = embed
        self.max_values = max_values
        self._vectors: dict[str, np.ndarray] = {}
        self._values = 0

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One float64 row per text."""
        codes, distinct = distinct_strings(texts)
        missing = [text for text in distinct if text not in self._vectors]
        found = dict(zip(missing, np.asarray(self.embed(missing), np.float64))) if missing else {}
        table = np.array([found[text] if text in found else self._vectors[text]
                          for text in distinct], np.float64)
        self._remember(found)
        return table[codes] if len(texts) else np.zeros((0, 1))

    def _remember(self, found: dict[str, np.ndarray]) -> None:
        size = sum(len(row) for row in found.values())
        if self._values + size > self.max_values:
            self._vectors.clear()
            self._values = 0
        if size <= self.max_values:
            self._vectors.update(found)
            self._values += size


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two float64 arrays; NaN where a row has no length."""
    dots = np.einsum("ij,ij->i", a, b)
    norms = np.sqrt(np.einsum("ij,ij->i", a, a)) * np.sqrt(np.einsum("ij,ij->i", b, b))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, dots / norms, np.nan)


def pair_scores(cache: EmbeddingCache, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """The score of each pair (left[k], right[k]); NaN where it has none."""
    vectors = cache.vectors([*left, *right])
    return cosines(vectors[:len(left)], vectors[len(left):])


def set_scores(cache: EmbeddingCache, texts: Sequence[str], set_offsets: np.ndarray) -> np.ndarray:
    """The score of each member of the sets (set k: texts[set_offsets[k]:set_offsets[k + 1]])
    against the mean of the other members; NaN where it has none (a set of one)."""
    vectors = cache.vectors(texts)
    if not len(texts):
        return np.zeros(0)
    sizes = np.diff(set_offsets)
    set_of = np.repeat(np.arange(len(sizes)), sizes)
    sums = np.add.reduceat(vectors, set_offsets[:-1], axis=0)
    scores = cosines(vectors, sums[set_of] - vectors)  # with the others' sum: with their mean
    scores[sizes[set_of] < 2] = np.nan
    return scores
