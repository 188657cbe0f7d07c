"""Combine two annotators (paper section 2.2): scores, agreement counts and Cohen's kappa.

The agreement table has the columns of the paper's Tables 4-5: 2 x Green (4.0), Green + Light
green (3.5), 2 x Light green (3.0), Light green + Yellow (2.5), 2 x Yellow (2.0), Yellow + Red
(1.5), 2 x Red (1.0), Trash, Disagree. Kappa is computed over the five labels (four categories
and trash) of the pairs both annotators labelled.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from opusparcus.annotations import TRASH, Annotation, combine

COLUMNS = ("4.0", "3.5", "3.0", "2.5", "2.0", "1.5", "1.0", "trash", "disagree")


@dataclass
class Combined:
    annotations: list[Annotation]
    scores: list[float]
    agreement: dict[str, int]
    kappa: float
    unfinished: int


def cohen_kappa(pairs: list[tuple[int, int]]) -> float:
    """Cohen's kappa of two annotators' labels (1.0 when both always agree on one label)."""
    if not pairs:
        return float("nan")
    observed = sum(a == b for a, b in pairs) / len(pairs)
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / len(pairs) ** 2
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def _column(first: int, second: int) -> str:
    if TRASH in (first, second):
        return "trash"
    score = combine(first, second)
    return "disagree" if score is None else f"{score:.1f}"


def combine_annotations(annotations: list[Annotation]) -> Combined:
    """Keep the pairs both annotators labelled and that survive the combination rule."""
    agreement = dict.fromkeys(COLUMNS, 0)
    kept, scores, labelled = [], [], []
    for annotation in annotations:
        first, second = annotation.labels
        if first is None or second is None:
            continue
        labelled.append((first, second))
        agreement[_column(first, second)] += 1
        score = None if TRASH in (first, second) else combine(first, second)
        if score is not None:
            kept.append(annotation)
            scores.append(score)
    unfinished = len(annotations) - len(labelled)
    return Combined(kept, scores, agreement, cohen_kappa(labelled), unfinished)


def release_lines(combined: Combined) -> str:
    """The release's 4-field dev/test lines: id, sentence 1, sentence 2, mean score."""
    return "".join(f"{a.id}\t{a.sentence1}\t{a.sentence2}\t{score:.1f}\n"
                   for a, score in zip(combined.annotations, combined.scores))


def combined_lines(combined: Combined) -> str:
    """Combined training annotations with their ranks: rank, id, sentence 1, sentence 2, score."""
    header = "rank\tid\tsentence1\tsentence2\tscore\n"
    return header + "".join(f"{a.rank}\t{a.id}\t{a.sentence1}\t{a.sentence2}\t{score:.1f}\n"
                            for a, score in zip(combined.annotations, combined.scores))
