"""The two things the annotation page can show: Opusparcus pairs and TaPaCo sets.

A task reads its file into units (a pair, or a set) with each annotator's answer, turns a
request's answer into a label after checking it, saves one annotator's answer of one unit, and
sums up agreement. Nothing here knows about HTTP; the file is re-read only when it changed on
disk (another annotator, the terminal annotator, or an undo wrote it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opusparcus.annotations import label_text, parse_label, read_annotations, save_label
from opusparcus.combine import COLUMNS, combine_annotations
from tapaco.set_annotations import (
    OUTLIER,
    Member,
    read_set_annotations,
    save_set_answer,
    set_agreement,
)

# The paper's Tables 4-5: what each agreement column means.
PAIR_COLUMN_TITLES = dict(zip(COLUMNS, (
    "2 × Green", "Green + Light green", "2 × Light green", "Light green + Yellow", "2 × Yellow",
    "Yellow + Red", "2 × Red", "Trash", "Disagree")))
PAIR_COLUMN_GROUPS = dict(zip(COLUMNS, (
    "Good", "Mostly good", "Mostly good", "Mostly bad", "Mostly bad", "Bad", "Bad",
    "Discarded", "Discarded")))


class BadAnswer(ValueError):
    """A request's answer that is not one the unit can take."""


@dataclass(frozen=True)
class Unit:
    """What one page shows: its id, what the annotator reads, and each annotator's answer."""

    id: str
    shown: dict[str, Any]
    answers: tuple[Any, Any]


class _FileCache:
    """The units of a file, read again only when the file on disk changed."""

    def __init__(self, path: Path, read: Callable[[Path], list]) -> None:
        self.path, self.read = path, read
        self.signature: tuple | None = None
        self.content: list = []

    def get(self) -> list:
        status = os.stat(self.path)
        signature = (status.st_ino, status.st_mtime_ns, status.st_size)
        if signature != self.signature:
            self.content, self.signature = self.read(self.path), signature
        return self.content


def _kappa(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


class PairTask:
    """Rate Opusparcus candidate pairs on the paper's four categories, or trash them."""

    mode = "pairs"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._annotations = _FileCache(path, read_annotations)

    def language(self) -> str:
        annotations = self._annotations.get()
        return annotations[0].id.rsplit("-", 1)[0] if annotations else ""

    def units(self) -> list[Unit]:
        return [Unit(a.id, {"sentences": [a.sentence1, a.sentence2]},
                     (label_text(a.labels[0]) or None, label_text(a.labels[1]) or None))
                for a in self._annotations.get()]

    def parse_answer(self, unit: Unit, answer: Any) -> int:
        if not isinstance(answer, str) or len(answer) > 20:
            raise BadAnswer("the answer must be one of 1, 2, 3, 4 or trash")
        try:
            label = parse_label(answer)
        except ValueError as error:
            raise BadAnswer(str(error)) from None
        if label is None:
            raise BadAnswer("the answer must be one of 1, 2, 3, 4 or trash")
        return label

    def save(self, unit: Unit, annotator: int, label: int | None) -> None:
        save_label(self.path, unit.id, annotator, label)

    def agreement(self) -> dict[str, Any]:
        combined = combine_annotations(self._annotations.get())
        return {"columns": [{"key": key, "title": PAIR_COLUMN_TITLES[key],
                             "group": PAIR_COLUMN_GROUPS[key],
                             "count": combined.agreement[key]} for key in COLUMNS],
                "kappa": _kappa(combined.kappa), "kept": len(combined.scores),
                "total": len(combined.annotations) + sum(
                    combined.agreement[key] for key in ("trash", "disagree"))}


def _member_answer(members: list[Member], column: int) -> list[str] | None:
    labels = [m.labels[column] for m in members]
    if None in labels:
        return None
    return [m.sentence_id for m in members if m.labels[column] == OUTLIER]


class SetTask:
    """Check TaPaCo sets: mark the members that are not paraphrases of the rest."""

    mode = "sets"

    def __init__(self, path: Path, language: str = "") -> None:
        self.path, self._language = path, language
        self._members = _FileCache(path, read_set_annotations)

    def language(self) -> str:
        return self._language

    def units(self) -> list[Unit]:
        sets: dict[int, list[Member]] = {}
        for member in self._members.get():
            sets.setdefault(member.set_id, []).append(member)
        return [Unit(str(set_id), {"members": [{"id": m.sentence_id, "text": m.sentence}
                                               for m in members]},
                     (_member_answer(members, 0), _member_answer(members, 1)))
                for set_id, members in sets.items()]

    def parse_answer(self, unit: Unit, answer: Any) -> set[str]:
        if not isinstance(answer, list) or not all(isinstance(x, str) for x in answer):
            raise BadAnswer("the answer must be the list of outlier sentence ids")
        members = {member["id"] for member in unit.shown["members"]}
        unknown = [x for x in answer if x not in members]
        if unknown:
            raise BadAnswer(f"set {unit.id} has no sentence {unknown[0][:40]!r}")
        return set(answer)

    def save(self, unit: Unit, annotator: int, outliers: set[str] | None) -> None:
        save_set_answer(self.path, int(unit.id), annotator, outliers)

    def agreement(self) -> dict[str, Any]:
        agreement = set_agreement(self._members.get())
        return {"columns": [{"key": key, "title": key, "group": "", "count": count}
                            for key, count in agreement.counts.items()],
                "kappa": _kappa(agreement.kappa), "kept": agreement.sets_agreed,
                "total": agreement.sets}


Task = PairTask | SetTask
