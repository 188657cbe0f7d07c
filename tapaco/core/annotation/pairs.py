"""Annotation labels and files, and the paper's rules for combining two annotators.

Categories (paper Table 1, release README): 4 Good (green), 3 Mostly good (light green),
2 Mostly bad (yellow), 1 Bad (red), plus trash. An annotation file is a TSV with the header
`rank id sentence1 sentence2 annotator1 annotator2`; a label is empty (not yet annotated), a
category number, a name, a colour, or `trash`. Two labels combine as the paper says: the same
category is kept, adjacent ones average to x.5, labels further apart or any trash drop the pair.
A combined score >= 3 is acceptable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.agreement import cohen_kappa
from tapaco.core.errors import InputError, usage_error
from tapaco.core.files import (
    read_plain_text,
    tab_separated_rows,
    update_file_atomically,
    write_file_atomically,
)

# bytes a line of an annotation file (pairs or sets) can grow by when it is answered: both
# annotators' labels, `outlier` at most
ANSWER_BYTES = 16

TRASH = 0
CATEGORIES = {4: "good", 3: "mostly-good", 2: "mostly-bad", 1: "bad"}
CATEGORY_TITLES = {4: "Good", 3: "Mostly good", 2: "Mostly bad", 1: "Bad"}
COLOURS = {4: "green", 3: "light-green", 2: "yellow", 1: "red"}
HEADER = ["rank", "id", "sentence1", "sentence2", "annotator1", "annotator2"]
ACCEPTABLE = 3.0
# the agreement table's columns, as the paper's Tables 4-5: 2 x Green (4.0), Green + Light green
# (3.5), ... 2 x Red (1.0), Trash, Disagree
COLUMNS = ("4.0", "3.5", "3.0", "2.5", "2.0", "1.5", "1.0", "trash", "disagree")
_NAMES = {**{str(k): k for k in CATEGORIES}, **{v: k for k, v in CATEGORIES.items()},
          **{v: k for k, v in COLOURS.items()}, "trash": TRASH, "t": TRASH}


def malformed(path: str | Path, message: str, where: str = "") -> InputError:
    """The error of an annotation file (pairs, or the scores combined from them) that is not
    as the workflow writes it."""
    return InputError(path, message, where, kind="malformed annotations")


def parse_label(text: str) -> int | None:
    """A label as 1-4 or TRASH; None for an empty (not yet annotated) field."""
    key = text.strip().lower().replace("_", "-").replace(" ", "-")
    if not key:
        return None
    if key not in _NAMES:
        raise ValueError(f"unknown label {text!r} (use 1-4, good/mostly-good/mostly-bad/bad, "
                         "green/light-green/yellow/red, or trash)")
    return _NAMES[key]


def label_text(label: int | None) -> str:
    if label is None:
        return ""
    return "trash" if label == TRASH else str(label)


def combine(first: int, second: int) -> float | None:
    """The pair's combined score, or None when it is dropped (trash, or labels 2+ apart)."""
    if TRASH in (first, second) or abs(first - second) > 1:
        return None
    return (first + second) / 2


@dataclass
class Annotation:
    rank: int
    id: str
    sentence1: str
    sentence2: str
    labels: list[int | None]
    line: int


def language_of_id(pair_id: str) -> str:
    return pair_id.rsplit("-", 1)[0]


def labelled_count(annotations: list[Annotation]) -> int:
    """How many pairs carry at least one label."""
    return sum(any(label is not None for label in a.labels) for a in annotations)


def labels_held(path: Path) -> str:
    """Why an existing file must never be replaced: it is an annotation file holding labels
    ('' when it is not one, or holds none)."""
    try:
        labelled = labelled_count(read_annotations(path))
    except InputError:
        return ""
    return f"holds {labelled} labelled pairs" if labelled else ""


def is_unlabelled_annotation_file(path: Path) -> bool:
    try:
        return labelled_count(read_annotations(path)) == 0
    except InputError:
        return False


ANNOTATION_FILES = "annotation files written by sample (or TaPaCo language files)"


def read_annotations(path: Path) -> list[Annotation]:
    """Read an annotation file; errors name the file and line."""
    rows = tab_separated_rows(read_plain_text(path, ANNOTATION_FILES))
    if not rows or rows[0] != HEADER:
        raise malformed(path, f"expected the header {' '.join(HEADER)}", "line 1")
    annotations, seen, lang = [], {}, None
    for line, row in enumerate(rows[1:], 2):
        annotation = _annotation(path, line, row)
        if annotation.id in seen:
            raise malformed(path, f"duplicated id {annotation.id} (also on line "
                            f"{seen[annotation.id]})", f"line {line}")
        seen[annotation.id] = line
        lang = lang or language_of_id(annotation.id)
        if language_of_id(annotation.id) != lang:
            raise malformed(path, f"id {annotation.id} is not of language {lang}", f"line {line}")
        annotations.append(annotation)
    return annotations


def _annotation(path: Path, line: int, row: list[str]) -> Annotation:
    if len(row) != len(HEADER):
        raise malformed(path, f"expected {len(HEADER)} tab-separated fields, found {len(row)}",
                        f"line {line}")
    try:
        rank = int(row[0])
        labels = [parse_label(row[4]), parse_label(row[5])]
    except ValueError as error:
        raise malformed(path, str(error), f"line {line}") from None
    return Annotation(rank, row[1], row[2], row[3], labels, line)


def annotations_text(annotations: list[Annotation]) -> str:
    lines = ["\t".join(HEADER)]
    lines += ["\t".join([str(a.rank), a.id, a.sentence1, a.sentence2,
                         label_text(a.labels[0]), label_text(a.labels[1])]) for a in annotations]
    return "\n".join(lines) + "\n"


def write_annotations(path: Path, annotations: list[Annotation]) -> None:
    """Write the file through a temporary name, so a crash never leaves half a file."""
    write_file_atomically(path, annotations_text(annotations))


def save_label(path: Path, pair_id: str, annotator: int,
               label: int | None) -> tuple[list[Annotation], os.stat_result]:
    """Set (or, with None, clear) one annotator's label of one pair, keeping every other label
    as the file holds it at that moment: the terminal annotator and the web page may answer the
    same file at once. Returns the file's annotations after the change, and its status."""

    def change(annotations: list[Annotation]) -> str:
        pair = next((a for a in annotations if a.id == pair_id), None)
        if pair is None:
            raise usage_error(path, f"no longer holds pair {pair_id}; was it replaced?")
        pair.labels[annotator - 1] = label
        return annotations_text(annotations)

    return update_file_atomically(path, read_annotations, change)


def read_release_pairs(path: Path) -> list[tuple[str, str, str, float]]:
    """The release's annotated 4-field dev/test lines: id, sentence 1, sentence 2, score."""
    lines = read_plain_text(path, "the release's dev/test files (4 tab-separated "
                            "fields)").splitlines()
    pairs = []
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != 4:
            raise malformed(path, f"expected 4 tab-separated fields (id, sentence 1, "
                            f"sentence 2, score), found {len(fields)}", f"line {number}")
        try:
            score = float(fields[3])
        except ValueError:
            score = float("nan")
        if not 1.0 <= score <= 4.0:
            raise malformed(path, f"score {fields[3]!r} is not a number from 1 to 4",
                            f"line {number}")
        pairs.append((fields[0], fields[1], fields[2], score))
    return pairs


@dataclass
class Combined:
    annotations: list[Annotation]
    scores: list[float]
    agreement: dict[str, int]
    kappa: float
    unfinished: int
    missing: tuple[int, int] = (0, 0)  # pairs each annotator has not labelled


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
    missing = tuple(sum(a.labels[column] is None for a in annotations) for column in (0, 1))
    return Combined(kept, scores, agreement, cohen_kappa(labelled), unfinished, missing)
