"""Independent computations of `evaluate`'s figures, in plain Python, from their definitions:

- average precision by brute force over thresholds: for each distinct score t, from the highest
  down, precision and recall of "score >= t", AP = sum of (recall gained) x precision
  (scikit-learn's definition, ties one step);
- MTEB's threshold search transcribed as MTEB writes it (a loop over the sorted rows), and a
  brute-force search over candidate thresholds, "score > t", which agrees with it when no two
  scores tie;
- the triplet accuracy, one triple at a time.
"""

from __future__ import annotations

import math


def average_precision(scores: list[float], labels: list[int]) -> float:
    positives = sum(labels)
    total, recall_before = 0.0, 0.0
    for threshold in sorted(set(scores), reverse=True):
        chosen = [label for score, label in zip(scores, labels) if score >= threshold]
        precision = sum(chosen) / len(chosen)
        recall = sum(chosen) / positives
        total += (recall - recall_before) * precision
        recall_before = recall
    return total


def mteb_accuracy(scores: list[float], labels: list[int]) -> tuple[float, float]:
    """MTEB's `_find_best_acc_and_threshold` (high score more similar)."""
    rows = sorted(zip(scores, labels), key=lambda row: row[0], reverse=True)
    max_acc, best_threshold = 0, -1.0
    positive_so_far, remaining_negatives = 0, labels.count(0)
    for i in range(len(rows) - 1):
        if rows[i][1] == 1:
            positive_so_far += 1
        else:
            remaining_negatives -= 1
        acc = (positive_so_far + remaining_negatives) / len(labels)
        if acc > max_acc:
            max_acc, best_threshold = acc, (rows[i][0] + rows[i + 1][0]) / 2
    return max_acc, best_threshold


def mteb_f1(scores: list[float], labels: list[int]) -> tuple[float, float, float, float]:
    """MTEB's `_find_best_f1_and_threshold` (high score more similar): F1, precision, recall,
    threshold."""
    rows = sorted(zip(scores, labels), key=lambda row: row[0], reverse=True)
    best_f1 = best_precision = best_recall = 0.0
    threshold, extracted, correct, positives = 0.0, 0, 0, sum(labels)
    for i in range(len(rows) - 1):
        extracted += 1
        correct += rows[i][1] == 1
        if correct > 0:
            precision, recall = correct / extracted, correct / positives
            f1 = 2 * precision * recall / (precision + recall)
            if f1 > best_f1:
                best_f1, best_precision, best_recall = f1, precision, recall
                threshold = (rows[i][0] + rows[i + 1][0]) / 2
    return best_f1, best_precision, best_recall, threshold


def _candidates(scores: list[float]) -> list[float]:
    """Thresholds from the highest down: halfway between neighbouring distinct scores (a
    threshold above the top or below the bottom is not one of MTEB's cuts)."""
    distinct = sorted(set(scores), reverse=True)
    return [(high + low) / 2 for high, low in zip(distinct, distinct[1:])]


def brute_force_accuracy(scores: list[float], labels: list[int]) -> tuple[float, float]:
    """The highest accuracy of "score > t" over the candidate thresholds, the highest such t
    (none better than 0: MTEB's starting values, as for F1)."""
    best = (0.0, -1.0)
    for threshold in _candidates(scores):
        right = sum((score > threshold) == bool(label) for score, label in zip(scores, labels))
        if right / len(scores) > best[0]:
            best = (right / len(scores), threshold)
    return best


def brute_force_f1(scores: list[float], labels: list[int]) -> tuple[float, float]:
    best = (0.0, 0.0)
    for threshold in _candidates(scores):
        called = [label for score, label in zip(scores, labels) if score > threshold]
        if not sum(called):
            continue
        precision, recall = sum(called) / len(called), sum(called) / sum(labels)
        f1 = 2 * precision * recall / (precision + recall)
        if f1 > best[0]:
            best = (f1, threshold)
    return best


def triplet_accuracy(to_positive: list[float | None], to_negative: list[float | None]
                     ) -> tuple[int, int]:
    """Triples with both cosines, and those whose positive is the closer."""
    scored = [(p, n) for p, n in zip(to_positive, to_negative)
              if p is not None and n is not None and not math.isnan(p) and not math.isnan(n)]
    return len(scored), sum(p > n for p, n in scored)
