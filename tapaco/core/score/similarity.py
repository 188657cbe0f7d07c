"""The paraphrase score of pairs and of set members: the cosine of two sentence vectors
(ParaNMT-50M, Wieting & Gimpel 2018, section 3), computed in float64.

- A pair scores the cosine of its two sentences' vectors; without a vector on a side (or a zero
  vector) it has no score (NaN).
- A member of a set scores the cosine of its vector and the mean vector of the other members
  that have one; a set of one, or a member without a vector, has no score.

Each distinct sentence is embedded once per call, and once per run while the
:class:`EmbeddingCache` holds it (sentences recur across the pairs of a ranked file).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from tapaco.core.score.embedders import Embedder

CACHE_VALUES = 1 << 27  # floats the cache may hold: 1 GiB of float64


class EmbeddingCache:
    """Sentence vectors already computed, up to `max_values` floats (emptied when full; 0 keeps
    none, for a backend that embeds faster than it would look up)."""

    def __init__(self, embedder: Embedder, max_values: int = CACHE_VALUES) -> None:
        self.embedder = embedder
        self.max_values = max_values
        self._vectors: dict[str, np.ndarray | None] = {}
        self._values = 0

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One float64 row per text; NaN rows for texts without a vector."""
        codes, distinct = pd.factorize(pd.Series(texts, dtype=object), sort=False)
        distinct = distinct.tolist()
        missing = [text for text in distinct if text not in self._vectors]
        vectors, known = self.embedder.embed(missing) if missing else (np.zeros((0, 1)), [])
        found = dict(zip(missing, [row if has else None
                                   for row, has in zip(np.asarray(vectors, np.float64),
                                                       np.asarray(known).tolist())]))
        rows = [found[text] if text in found else self._vectors[text] for text in distinct]
        self._remember(found)
        width = next((len(row) for row in rows if row is not None), 1)
        table = np.full((len(distinct), width), np.nan)
        for at, row in enumerate(rows):
            if row is not None:
                table[at] = row
        return table[codes]

    def _remember(self, found: dict[str, np.ndarray | None]) -> None:
        size = sum(len(row) for row in found.values() if row is not None)
        if self._values + size > self.max_values:
            self._vectors.clear()
            self._values = 0
        if size <= self.max_values:
            self._vectors.update(found)
            self._values += size


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two float64 arrays; NaN where a row is NaN or has no length."""
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
    against the mean of the other members; NaN where it has none."""
    vectors = cache.vectors(texts)
    known = ~np.isnan(vectors[:, 0]) if len(vectors) else np.zeros(0, bool)
    present = np.where(known[:, None], vectors, 0.0)
    starts = set_offsets[:-1]
    sizes = np.diff(set_offsets)
    set_of = np.repeat(np.arange(len(sizes)), sizes)
    sums = np.add.reduceat(present, starts, axis=0) if len(texts) else present
    counts = np.add.reduceat(known.astype(np.int64), starts) if len(texts) else known
    others = sums[set_of] - present
    scores = cosines(vectors, others)  # the cosine with the others' sum is the one with their mean
    scores[counts[set_of] - known < 1] = np.nan
    return scores
