"""The figures `evaluate` computes from cosines, each as its reference tool defines it (numpy).

- :func:`average_precision`: scikit-learn's `average_precision_score`,
  AP = sum over n of (R_n - R_(n-1)) * P_n, the thresholds being the distinct scores from the
  highest down, so tied scores form one step.
- :func:`best_accuracy` and :func:`best_f1`: MTEB's pair classification
  (`AbsTaskPairClassification._find_best_acc_and_threshold` and `_find_best_f1_and_threshold`):
  the pairs sorted by score from the highest (ties in input order), each cut after the k-th
  pair (k = 1 .. n-1) calls the first k positive; the first cut of the highest accuracy (F1)
  wins, its threshold halfway between the scores either side of it. Without a cut that is
  better than nothing, MTEB's starting values stand (accuracy 0 at threshold -1; F1 0 at
  threshold 0).
- :func:`triplets_won`: sentence-transformers' triplet accuracy, a triple counting when
  cos(anchor, positive) > cos(anchor, negative) (a tie does not count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Cut:
    """The best cut of one criterion: its value and threshold (for F1, also the precision and
    recall of the pairs it calls positive)."""

    value: float
    threshold: float
    precision: float = 0.0
    recall: float = 0.0


def average_precision(scores: np.ndarray, positive: np.ndarray) -> float:
    """Average precision of `scores` for the labels `positive` (at least one positive)."""
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    found = np.cumsum(positive[order])
    step_ends = np.append(np.flatnonzero(np.diff(ranked)), len(ranked) - 1)
    precision = found[step_ends] / (step_ends + 1)
    recall = found[step_ends] / found[-1]
    return float(np.sum(np.diff(recall, prepend=0.0) * precision))


def _cuts(scores: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                             np.ndarray]:
    """For each cut after the k-th pair by descending score (k = 1 .. n-1): the positives
    above it, k, and the threshold halfway between the scores either side."""
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    above = np.cumsum(positive[order])[:-1]
    called = np.arange(1, len(scores))
    return above, called, (ranked[:-1] + ranked[1:]) / 2


def best_accuracy(scores: np.ndarray, positive: np.ndarray) -> Cut:
    """The highest accuracy of a cut, and its threshold (MTEB's search)."""
    above, called, thresholds = _cuts(scores, positive)
    negatives = len(positive) - int(positive.sum())
    right = above + (negatives - (called - above))
    if not len(right) or right.max() == 0:
        return Cut(0.0, -1.0)
    best = int(np.argmax(right))
    return Cut(float(right[best] / len(positive)), float(thresholds[best]))


def best_f1(scores: np.ndarray, positive: np.ndarray) -> Cut:
    """The highest F1 of a cut, its threshold, precision and recall (MTEB's search)."""
    above, called, thresholds = _cuts(scores, positive)
    precision = above / called
    recall = above / positive.sum()
    with np.errstate(invalid="ignore"):
        f1 = np.where(above > 0, 2 * precision * recall / (precision + recall), 0.0)
    if not len(f1) or f1.max() == 0:
        return Cut(0.0, 0.0)
    best = int(np.argmax(f1))
    return Cut(float(f1[best]), float(thresholds[best]), float(precision[best]),
               float(recall[best]))


def pair_classification(scores: np.ndarray, positive: np.ndarray) -> dict:
    """AP, the best accuracy and the best F1 with their thresholds, of pairs that all have a
    score and hold at least one positive and one negative."""
    accuracy, f1 = best_accuracy(scores, positive), best_f1(scores, positive)
    return {"cosine_ap": average_precision(scores, positive),
            "accuracy": accuracy.value, "threshold": accuracy.threshold,
            "f1": f1.value, "f1_threshold": f1.threshold,
            "precision": f1.precision, "recall": f1.recall}


def triplets_won(to_positive: np.ndarray, to_negative: np.ndarray) -> tuple[int, int]:
    """Of the triples whose two cosines both exist: how many there are, and in how many the
    positive is closer to the anchor than the negative."""
    scored = ~(np.isnan(to_positive) | np.isnan(to_negative))
    return int(scored.sum()), int((to_positive[scored] > to_negative[scored]).sum())
