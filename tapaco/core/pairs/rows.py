"""One language's training rows: positives from its groups of paraphrases, hard negatives that
the relation says are unrelated (and, with a score model, that it does not score as
paraphrases), and the lexical overlap of positives, hard and random negatives.

Rows without all their negatives are left out (and counted): sentence-transformers needs every
column filled.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

from tapaco.core.pairs.negatives import hard_negatives, random_negatives
from tapaco.core.pairs.output import rows_table
from tapaco.core.pairs.overlap import OverlapTally
from tapaco.core.pairs.positives import positive_pairs
from tapaco.core.pairs.words import word_sets
from tapaco.core.text_column import TextColumn

SCORE_MAX = 0.8
SPARE = 3  # candidates retrieved per negative asked for, when a score model may drop some


@dataclass(frozen=True)
class PairsOptions:
    """What `pairs` is asked for: negatives per row, the cap of pairs per group, the seed, the
    output formats and the optional second check by a `score` model."""

    negatives: int = 0
    max_pairs_per_group: int = 10
    seed: int = 0
    formats: tuple[str, ...] = ("parquet",)
    score_model: Path | None = None
    score_max: float = SCORE_MAX

    def as_dict(self) -> dict:
        return {"negatives": self.negatives, "max_pairs_per_set": self.max_pairs_per_group,
                "seed": self.seed, "formats": list(self.formats),
                "score_model": str(self.score_model) if self.score_model else None,
                "score_max": self.score_max if self.score_model else None}

    def command_words(self, *after_negatives: str) -> list[str]:
        """These options as the command line of a dataset card says them."""
        words = [f"--negatives {self.negatives}", *after_negatives, f"--seed {self.seed}",
                 f"--format {','.join(self.formats)}"]
        if self.score_model:
            words += [f"--score-model {shlex.quote(self.score_model.name)}",
                      f"--score-max {self.score_max}"]
        return words


@dataclass(frozen=True)
class Relation:
    """What makes two sentences unrelated (see :mod:`tapaco.core.pairs.negatives`): distinct
    components (-1: unknown) and, if given, disjoint sorted pivot lists per sentence."""

    component: np.ndarray
    pivot_offsets: np.ndarray | None = None
    pivots: np.ndarray | None = None


def score_embedder(options: PairsOptions):  # noqa: ANN201 - an Embedder, or None
    """The `score` model of `--score-model` (loaded only when negatives are asked for)."""
    if options.score_model is None or not options.negatives:
        return None
    from tapaco.core.score.embedders import open_embedder

    return open_embedder(options.score_model)


def pairs_stats(command: str, options: PairsOptions, per_language: dict, tally: OverlapTally,
                embedder, rule: str, **recorded) -> dict:  # noqa: ANN001
    """`stats.json`: the command, versions, seed and options, what the input was
    (`recorded`), the rule, the counts per language and the overlap over all."""
    from tapaco.core.versions import library_versions

    return {"command": command, "versions": library_versions("numpy", "pyarrow", "numba"),
            "seed": options.seed, "options": options.as_dict(), **recorded,
            "score_model": embedder.description() if embedder is not None else None,
            "negative_rule": rule if options.negatives else None,
            "rows": sum(found["rows"] for found in per_language.values()),
            "languages": per_language, "overlap": tally.total()}


@dataclass
class LanguageRows:
    table: pa.Table
    stats: dict = field(default_factory=dict)


def _scored_out(texts: TextColumn, anchors: np.ndarray, candidates: np.ndarray,
                embedder, score_max: float) -> tuple[np.ndarray, int]:  # noqa: ANN001
    """Candidates the model scores above `score_max` replaced by -1; the number dropped."""
    rows, slots = np.nonzero(candidates >= 0)
    if not len(rows):
        return candidates, 0
    scores = embedder.pair_scores(texts.strings(anchors[rows]),
                                  texts.strings(candidates[rows, slots]))
    above = scores > score_max  # NaN (no score) is kept
    candidates = candidates.copy()
    candidates[rows[above], slots[above]] = -1
    return candidates, int(above.sum())


def _first_found(candidates: np.ndarray, k: int) -> np.ndarray:
    """The first `k` candidates of each row that are not -1 (-1 where fewer)."""
    order = np.argsort(candidates < 0, axis=1, kind="stable")
    return np.take_along_axis(candidates, order, axis=1)[:, :k]


def group_rows(texts: TextColumn, group_starts: np.ndarray, relation: Relation,
               options: PairsOptions, tally: OverlapTally, embedder=None) -> LanguageRows:  # noqa: ANN001
    """The rows of one language's groups (`group_starts`, the last entry len(texts))."""
    anchors, positives = positive_pairs(group_starts, options.max_pairs_per_group, options.seed)
    return language_rows(texts, anchors, positives, relation, options, tally, embedder)


def language_rows(texts: TextColumn, anchors: np.ndarray, positives: np.ndarray,
                  relation: Relation, options: PairsOptions, tally: OverlapTally,
                  embedder=None) -> LanguageRows:  # noqa: ANN001
    """The rows of one language's positive pairs (indices of `texts`)."""
    words = word_sets(texts)
    k = options.negatives
    stats = {"sentences": len(texts), "pairs": int(len(anchors))}
    negatives = np.zeros((len(anchors), 0), np.int64)
    if k:
        distinct = np.unique(anchors)
        wanted = k * (1 + SPARE) if embedder is not None else k
        candidates = hard_negatives(words, distinct, wanted, options.seed, relation.component,
                                    relation.pivot_offsets, relation.pivots)
        if embedder is not None:
            candidates, stats["negatives_dropped_by_score"] = _scored_out(
                texts, distinct, candidates, embedder, options.score_max)
        negatives = _first_found(candidates, k)[np.searchsorted(distinct, anchors)]
        complete = (negatives >= 0).all(axis=1)
        stats["pairs_without_negatives"] = int((~complete).sum())
        anchors, positives, negatives = anchors[complete], positives[complete], negatives[complete]
    stats["rows"] = int(len(anchors))
    randoms = random_negatives(len(texts), anchors, options.seed, relation.component,
                               relation.pivot_offsets, relation.pivots)
    others = {"positive": positives, "random_negative": randoms}
    if k:
        others["hard_negative"] = negatives.ravel()
    flat = {kind: (np.repeat(anchors, k) if kind == "hard_negative" else anchors, other)
            for kind, other in others.items()}
    stats["overlap"] = tally.add(words, flat)
    return LanguageRows(rows_table(texts, anchors, positives, negatives), stats)
