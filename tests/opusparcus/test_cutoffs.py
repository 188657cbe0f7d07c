"""Cut-off estimation on ranked lists whose true acceptable share per rank is known."""

from __future__ import annotations

import numpy as np
import pytest

from opusparcus.cutoffs import choose_cut, estimate_shares, wilson_interval


def test_wilson_interval_known_values():
    # 8 of 10 at 95 %: the textbook Wilson interval is [0.4902, 0.9433]
    low, high = wilson_interval(np.array([8]), np.array([10]))
    assert low[0] == pytest.approx(0.4902, abs=1e-4) and high[0] == pytest.approx(0.9433, abs=1e-4)


def _truth(total: int) -> np.ndarray:
    """P(acceptable) of the pair at rank r: 0.99 at the top, falling linearly to 0.3."""
    return np.linspace(0.99, 0.3, total)


def _top_share(truth: np.ndarray, rows: int) -> float:
    return float(truth[:rows].mean())


def test_cut_lies_within_the_interval_of_the_truth():
    total = 200_000
    truth = _truth(total)
    rng = np.random.default_rng(5)
    ranks = np.sort(rng.choice(total, 3000, replace=False)) + 1
    scores = np.where(rng.random(len(ranks)) < truth[ranks - 1], 4.0, 1.0)
    estimate = estimate_shares(ranks, scores)
    for level in (0.95, 0.9, 0.75):
        cut = choose_cut(estimate, total, level, conservative=False)
        assert cut.rows > 0
        assert cut.low <= _top_share(truth, cut.rows) <= cut.high
        assert cut.share >= level


def test_monotone_truth_gives_nested_cuts_and_conservative_is_smaller():
    total = 100_000
    truth = _truth(total)
    rng = np.random.default_rng(11)
    ranks = np.sort(rng.choice(total, 2000, replace=False)) + 1
    scores = np.where(rng.random(len(ranks)) < truth[ranks - 1], 3.5, 2.5)
    estimate = estimate_shares(ranks, scores)
    cuts = [choose_cut(estimate, total, level, False) for level in (0.95, 0.9, 0.75)]
    assert cuts[0].rows <= cuts[1].rows <= cuts[2].rows
    strict = [choose_cut(estimate, total, level, True) for level in (0.95, 0.9, 0.75)]
    assert all(s.rows <= c.rows for s, c in zip(strict, cuts))
    assert all(s.low >= s.level for s in strict if s.rows)


def test_cut_extends_to_just_before_the_next_annotated_rank():
    ranks = np.array([10, 20, 30, 40])
    scores = np.array([4.0, 3.0, 1.0, 1.0])  # shares 1, 1, 2/3, 1/2
    estimate = estimate_shares(ranks, scores)
    assert choose_cut(estimate, 100, 0.95, False).rows == 29
    assert choose_cut(estimate, 100, 0.6, False).rows == 39
    assert choose_cut(estimate, 100, 0.5, False).rows == 100
    assert choose_cut(estimate, 100, 0.95, True).rows == 0
