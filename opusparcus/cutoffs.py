"""Quality cut-offs of a ranked training set (paper section 2.1, Table 2).

Annotated pairs were sampled uniformly from the ranked list. For every rank r the share of
acceptable pairs (combined score >= 3) among the annotated pairs ranked at or above r estimates
the share in the top r rows; the estimate only changes at annotated ranks. Intervals are 95 %
Wilson score intervals on that binomial share. For each level the cut is the largest r whose
point estimate (or, conservatively, whose interval's lower bound) is at or above the level.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opusparcus.annotations import ACCEPTABLE
from tapaco.core.errors import InputError

Z_95 = 1.959963984540054


def wilson_interval(successes: np.ndarray, trials: np.ndarray,
                    z: float = Z_95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a binomial proportion (vectorised)."""
    successes = np.asarray(successes, float)
    trials = np.asarray(trials, float)
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    half = z * np.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / denominator
    return centre - half, centre + half


@dataclass
class Estimate:
    """The acceptable-share estimate at each annotated rank (sorted)."""

    ranks: np.ndarray
    share: np.ndarray
    low: np.ndarray
    high: np.ndarray
    annotated: np.ndarray


def estimate_shares(ranks: np.ndarray, scores: np.ndarray) -> Estimate:
    order = np.argsort(ranks, kind="stable")
    ranks, acceptable = np.asarray(ranks)[order], np.asarray(scores)[order] >= ACCEPTABLE
    trials = np.arange(1, len(ranks) + 1)
    successes = np.cumsum(acceptable)
    low, high = wilson_interval(successes, trials)
    return Estimate(ranks, successes / trials, low, high, trials)


@dataclass
class Cut:
    level: float
    rows: int
    share: float
    low: float
    high: float
    annotated: int


def choose_cut(estimate: Estimate, total_rows: int, level: float, conservative: bool) -> Cut:
    """The largest r whose estimate (or lower bound) is >= level; rows 0 if there is none."""
    values = estimate.low if conservative else estimate.share
    passing = np.flatnonzero(values >= level - 1e-12)
    if not len(passing):
        return Cut(level, 0, float("nan"), float("nan"), float("nan"), 0)
    i = int(passing[-1])
    rows = int(estimate.ranks[i + 1] - 1) if i + 1 < len(estimate.ranks) else total_rows
    return Cut(level, rows, float(estimate.share[i]), float(estimate.low[i]),
               float(estimate.high[i]), int(estimate.annotated[i]))


def read_combined(path: Path, ranked_rows: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and scores of a combined annotation file, checked against the ranked rows."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read: {error}", kind="missing file") from error
    if not lines or lines[0].split("\t") != ["rank", "id", "sentence1", "sentence2", "score"]:
        raise InputError(path, "expected the header rank id sentence1 sentence2 score",
                         "line 1", kind="malformed annotations")
    ranks, scores, seen = [], [], set()
    for number, line in enumerate(lines[1:], 2):
        rank, score = _combined_row(path, number, line.split("\t"), ranked_rows, seen)
        ranks.append(rank)
        scores.append(score)
    return np.array(ranks, np.int64), np.array(scores, float)


def _combined_row(path: Path, number: int, row: list[str], ranked_rows: list[list[str]],
                  seen: set[str]) -> tuple[int, float]:
    where = f"line {number}"
    if len(row) != 5:
        raise InputError(path, f"expected 5 tab-separated fields, found {len(row)}", where,
                         kind="malformed annotations")
    try:
        rank, score = int(row[0]), float(row[4])
    except ValueError:
        raise InputError(path, "rank and score must be numbers", where,
                         kind="malformed annotations") from None
    if not 1 <= score <= 4:
        raise InputError(path, f"score {row[4]} is outside the scale 1-4", where,
                         kind="malformed annotations")
    if row[1] in seen:
        raise InputError(path, f"duplicated id {row[1]}", where, kind="malformed annotations")
    seen.add(row[1])
    ranked_lang = ranked_rows[0][0].rsplit("-", 1)[0] if ranked_rows else ""
    if row[1].rsplit("-", 1)[0] != ranked_lang:
        raise InputError(path, f"pair {row[1]} is not of the ranked file's language "
                         f"{ranked_lang}", where, kind="malformed annotations")
    if not 1 <= rank <= len(ranked_rows) or ranked_rows[rank - 1][:3] != row[1:4]:
        raise InputError(path, f"pair {row[1]} is not at rank {rank} of the ranked file", where,
                         kind="malformed annotations")
    return rank, score
