"""Quality cut-offs of a ranked training set (paper section 2.1, Table 2).

Annotated pairs were sampled uniformly from the ranked list. For every rank r the share of
acceptable pairs (combined score >= 3) among the annotated pairs ranked at or above r estimates
the share in the top r rows; the estimate only changes at annotated ranks. Intervals are 95 %
Wilson score intervals on that binomial share. For each level the cut is the largest r whose
point estimate (or, conservatively, whose interval's lower bound) is at or above the level.
A level no annotated rank reaches cuts 0 rows and is reported as not reached (null estimates
in `cutoffs.json`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from opusparcus.combine import TRAINING_HEADER
from opusparcus.ranked_file import read_ranked, write_rows
from tapaco.core.annotation.pairs import ACCEPTABLE, malformed
from tapaco.core.errors import InputError, OptionError, usage_error
from tapaco.core.files import write_json
from tapaco.core.outputs import OutputFolder

COMMAND = "opusparcus cutoff"

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

    @property
    def reached(self) -> bool:
        return not math.isnan(self.share)


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


@dataclass(frozen=True)
class CombinedPair:
    """One line of a combined training annotation file."""

    rank: int
    id: str
    sentence1: str
    sentence2: str
    score: float


def read_combined_pairs(path: Path) -> list[CombinedPair]:
    """The pairs of a combined annotation file (`combine`'s output for training pairs)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read: {error}", kind="missing file") from error
    if not lines or lines[0] != TRAINING_HEADER:
        raise malformed(path, "expected the header rank id sentence1 sentence2 score (the "
                        "output of `opusparcus combine` for training pairs)", "line 1")
    pairs, seen = [], set()
    for number, line in enumerate(lines[1:], 2):
        pair = _combined_pair(path, number, line.split("\t"))
        if pair.id in seen:
            raise malformed(path, f"duplicated id {pair.id}", f"line {number}")
        seen.add(pair.id)
        pairs.append(pair)
    return pairs


def _combined_pair(path: Path, number: int, row: list[str]) -> CombinedPair:
    where = f"line {number}"
    if len(row) != 5:
        raise malformed(path, f"expected 5 tab-separated fields, found {len(row)}", where)
    try:
        rank, score = int(row[0]), float(row[4])
    except ValueError:
        raise malformed(path, "rank and score must be numbers", where) from None
    if not 1 <= score <= 4:
        raise malformed(path, f"score {row[4]} is outside the scale 1-4", where)
    return CombinedPair(rank, row[1], row[2], row[3], score)


def _language_of_rows(ranked_rows: list[list[str]]) -> str:
    return ranked_rows[0][0].rsplit("-", 1)[0] if ranked_rows else ""


def read_combined(path: Path, ranked_rows: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and scores of a combined annotation file, checked against the ranked rows."""
    lang = _language_of_rows(ranked_rows)
    ranks, scores = [], []
    for number, pair in enumerate(read_combined_pairs(path), 2):
        where = f"line {number}"
        if pair.id.rsplit("-", 1)[0] != lang:
            raise malformed(path, f"pair {pair.id} is not of the ranked file's language "
                            f"{lang}", where)
        row = ranked_rows[pair.rank - 1] if 1 <= pair.rank <= len(ranked_rows) else None
        if row is None or row[:3] != [pair.id, pair.sentence1, pair.sentence2]:
            raise malformed(path, f"pair {pair.id} is not at rank {pair.rank} of the ranked "
                            "file", where)
        ranks.append(pair.rank)
        scores.append(pair.score)
    return np.array(ranks, np.int64), np.array(scores, float)


def ranks_by_sentences(path: Path, ranked_rows: list[list[str]],
                       ranked: Path) -> tuple[np.ndarray, np.ndarray]:
    """Ranks in `ranked_rows` of the combined annotated pairs, found by their two sentences
    (another scheme's ranking of the same pairs), and their scores."""
    position = {(row[1], row[2]): rank for rank, row in enumerate(ranked_rows, 1)}
    ranks, scores = [], []
    for number, pair in enumerate(read_combined_pairs(path), 2):
        rank = position.get((pair.sentence1, pair.sentence2))
        if rank is None:
            raise malformed(path, f"pair {pair.id} is not in {ranked}", f"line {number}")
        ranks.append(rank)
        scores.append(pair.score)
    return np.array(ranks, np.int64), np.array(scores, float)


def parse_levels(text: str) -> tuple[float, ...]:
    """`95,90,75` -> (0.95, 0.9, 0.75): percentages above 0 and at most 100."""
    levels = []
    for item in (part.strip() for part in text.split(",")):
        try:
            value = float(item)
        except ValueError:
            raise OptionError("--levels", f"expected comma-separated percentages such as "
                              f"95,90,75, got {text!r}") from None
        if not 0 < value <= 100:
            raise OptionError("--levels", f"a level is a percentage above 0 and at most 100, "
                              f"got {item}")
        levels.append(value / 100)
    return tuple(dict.fromkeys(levels))


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else value


def cutoffs_json(cuts: list[Cut], total_rows: int, conservative: bool) -> dict:
    """`cutoffs.json`: a level no rank reaches has 0 rows and null estimates."""
    return {"interval": "Wilson 95 %", "total_rows": total_rows, "conservative": conservative,
            "cuts": [{"level": cut.level, "rows": cut.rows, "reached": cut.reached,
                      "share": _json_number(cut.share), "low": _json_number(cut.low),
                      "high": _json_number(cut.high), "annotated": cut.annotated}
                     for cut in cuts]}


def cut_ranked(ranked: Path, annotations: Path, levels: tuple[float, ...], out: Path,
               conservative: bool = False, overwrite: bool = False) -> tuple[list[Cut], int]:
    """Write `<lang>-train-<level>.txt.bz2` per level and `cutoffs.json` into the folder `out`;
    return the cuts and the number of ranked rows."""
    output = OutputFolder(out, COMMAND, (ranked, annotations), overwrite)
    output.check()
    rows = read_ranked(ranked)
    ranks, scores = read_combined(annotations, rows)
    if not len(ranks):
        raise usage_error(annotations, "holds no annotated pair; nothing to estimate from")
    estimate = estimate_shares(ranks, scores)
    cuts = [choose_cut(estimate, len(rows), level, conservative) for level in levels]
    lang = _language_of_rows(rows)

    def write(folder: Path) -> None:
        for cut in cuts:
            write_rows(folder / f"{lang}-train-{cut.level * 100:g}.txt.bz2", rows[:cut.rows])
        write_json(folder / "cutoffs.json", cutoffs_json(cuts, len(rows), conservative))

    output.write(write)
    return cuts, len(rows)


def cutoff_table(cuts: list[Cut], total_rows: int) -> str:
    """The cuts as a table; a level no rank reaches says so."""
    lines = [f"{'level':>6}  {'rows':>10}  estimate  95 % Wilson interval  annotated"]
    for cut in cuts:
        if cut.reached:
            lines.append(f"{cut.level * 100:>5g}%  {cut.rows:>10}  {cut.share:8.3f}  "
                         f"[{cut.low:.3f}, {cut.high:.3f}]        {cut.annotated:>9}")
        else:
            lines.append(f"{cut.level * 100:>5g}%  {0:>10}  not reached: no annotated rank has "
                         "this share")
    lines.append(f"of {total_rows} ranked pairs")
    return "\n".join(lines)
