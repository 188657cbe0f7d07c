"""`evaluate`'s figures against hand-worked cases, MTEB's own test values, MTEB's search as MTEB
writes it, a brute-force threshold search and (when installed) scikit-learn."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tapaco.core.score.pair_metrics import (
    average_precision,
    best_accuracy,
    best_f1,
    pair_classification,
    triplets_won,
)
from tests.core.score import metrics_reference as reference


def arrays(scores: list[float], labels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    return np.array(scores, float), np.array(labels, bool)


def test_average_precision_groups_tied_scores_into_one_step():
    # by hand: thresholds 0.9 (P 1/1, R 1/3), 0.8 (P 2/4, R 2/3), 0.5 (P 3/5, R 1), 0.3 (no
    # recall gained): AP = 1/3 * 1 + 1/3 * 1/2 + 1/3 * 3/5 = 0.7. Taken one pair at a time,
    # the tie's positive first, it would be 1/3 + 1/3 + 1/3 * 3/5 = 0.8667.
    scores, labels = [0.9, 0.8, 0.8, 0.8, 0.5, 0.3], [1, 1, 0, 0, 1, 0]
    for order in ([0, 1, 2, 3, 4, 5], [0, 3, 2, 1, 5, 4], [5, 4, 3, 2, 1, 0]):
        chosen = arrays([scores[k] for k in order], [labels[k] for k in order])
        assert average_precision(*chosen) == pytest.approx(0.7, abs=1e-15)


def test_average_precision_by_hand_without_ties():
    # ranks 1 (pos), 2 (neg), 3 (pos): AP = 1/2 * 1 + 1/2 * 2/3
    assert average_precision(*arrays([0.3, 0.9, 0.5], [1, 1, 0])) == pytest.approx(5 / 6)


def test_mteb_own_test_case():
    # mteb's tests/test_evaluators/test_PairClassificationEvaluator.py (before 2.0): accuracy
    # 0.9 at threshold 7.95999
    scores, labels = arrays([6.12, 5.39, 5.28, 5.94, 6.34, 6.47, 7.88, 6.62, 8.04, 5.9],
                            [0, 0, 0, 0, 1, 0, 0, 0, 1, 0])
    accuracy = best_accuracy(scores, labels)
    assert accuracy.value == pytest.approx(0.9) and accuracy.threshold == pytest.approx(7.96)


def _random_case(rng: random.Random, ties: bool) -> tuple[list[float], list[int]]:
    count = rng.randint(2, 60)
    labels = [rng.random() < 0.4 for _ in range(count)]
    labels[rng.randrange(count)], labels[rng.randrange(count)] = True, False
    if labels.count(True) == count or labels.count(False) == count:
        labels = [True, False] + labels[2:]
    scores = [round(rng.uniform(-1, 1), 1) if ties else rng.uniform(-1, 1) for _ in labels]
    return scores, [int(label) for label in labels]


@pytest.mark.parametrize("ties", [False, True])
def test_random_cases_equal_the_references(ties):
    rng = random.Random(7 + ties)
    for _ in range(300):
        scores, labels = _random_case(rng, ties)
        values, positive = arrays(scores, labels)
        assert average_precision(values, positive) == pytest.approx(
            reference.average_precision(scores, labels), abs=1e-12)
        accuracy, f1 = best_accuracy(values, positive), best_f1(values, positive)
        assert (accuracy.value, accuracy.threshold) == reference.mteb_accuracy(scores, labels)
        expected_f1, precision, recall, threshold = reference.mteb_f1(scores, labels)
        assert (f1.value, f1.precision, f1.recall, f1.threshold) == (
            expected_f1, precision, recall, threshold)
        if not ties:  # MTEB's cut is a threshold only where the scores either side differ
            assert (accuracy.value, accuracy.threshold) == pytest.approx(
                reference.brute_force_accuracy(scores, labels))
            assert (f1.value, f1.threshold) == pytest.approx(
                reference.brute_force_f1(scores, labels))


def test_scikit_learn_agrees_when_installed():
    metrics = pytest.importorskip("sklearn.metrics",
                                  reason="scikit-learn is not installed (an optional check)")
    rng = random.Random(3)
    for ties in (False, True) * 100:
        scores, labels = _random_case(rng, ties)
        assert average_precision(*arrays(scores, labels)) == pytest.approx(
            metrics.average_precision_score(labels, scores), abs=1e-12)


def test_mteb_starting_values_stand_when_no_cut_helps():
    # the positive is last: every cut calls the negative positive
    accuracy = best_accuracy(*arrays([0.9, 0.1], [0, 1]))
    f1 = best_f1(*arrays([0.9, 0.1], [0, 1]))
    assert (accuracy.value, accuracy.threshold) == reference.mteb_accuracy([0.9, 0.1], [0, 1])
    assert (f1.value, f1.threshold) == (0.0, 0.0)
    report = pair_classification(*arrays([0.9, 0.1], [0, 1]))
    assert report["cosine_ap"] == pytest.approx(0.5)


def test_triplets_count_only_a_strictly_closer_positive_and_leave_out_missing_cosines():
    to_positive = [0.9, 0.5, 0.5, float("nan"), 0.2, 0.7]
    to_negative = [0.1, 0.5, 0.6, 0.3, float("nan"), 0.69]
    assert triplets_won(np.array(to_positive), np.array(to_negative)) == (4, 2) == \
        reference.triplet_accuracy(to_positive, to_negative)
