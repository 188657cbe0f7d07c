"""The two things the annotation page can show: Opusparcus pairs and TaPaCo sets.

A task reads its file into units (a pair, or a set) with each annotator's answer, turns a
request's answer into a label after checking it, saves one annotator's answer of one unit, and
sums up agreement. Nothing here knows about HTTP; the file is re-read only when it changed on
disk (another annotator, the terminal annotator, or an undo wrote it).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tapaco.core.annotation.pairs import (
    COLUMNS,
    Annotation,
    combine_annotations,
    label_text,
    language_of_id,
    parse_label,
    read_annotations,
    save_label,
)
from tapaco.core.annotation.sets import (
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


def _signature(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_ino, status.st_mtime_ns, status.st_size


class _FileCache:
    """What a file holds (and the units made of it), read again only when the file on disk
    changed; a save hands over what it wrote, so the next request needs no reading."""

    def __init__(self, path: Path, read: Callable[[Path], list],
                 to_units: Callable[[list], list[Unit]]) -> None:
        self.path, self.read, self.to_units = path, read, to_units
        self._lock = threading.Lock()
        self._signature: tuple | None = None
        self._held: tuple[list, list[Unit]] = ([], [])

    def get(self) -> tuple[list, list[Unit]]:
        """The file's content and its units."""
        with self._lock:
            signature = _signature(os.stat(self.path))
            if signature != self._signature:
                self._keep(self.read(self.path), signature)
            return self._held

    def keep(self, content: list, status: os.stat_result) -> None:
        with self._lock:
            self._keep(content, _signature(status))

    def _keep(self, content: list, signature: tuple) -> None:
        self._held, self._signature = (content, self.to_units(content)), signature


def _pair_units(annotations: list[Annotation]) -> list[Unit]:
    return [Unit(a.id, {"sentences": [a.sentence1, a.sentence2]},
                 (label_text(a.labels[0]) or None, label_text(a.labels[1]) or None))
            for a in annotations]


def _kappa(value: float) -> float | None:
    return None if math.isnan(value) else value


class PairTask:
    """Rate Opusparcus candidate pairs on the paper's four categories, or trash them."""

    mode = "pairs"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._annotations = _FileCache(path, read_annotations, _pair_units)

    def language(self) -> str:
        annotations, _ = self._annotations.get()
        return language_of_id(annotations[0].id) if annotations else ""

    def units(self) -> list[Unit]:
        return self._annotations.get()[1]

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
        self._annotations.keep(*save_label(self.path, unit.id, annotator, label))

    def agreement(self) -> dict[str, Any]:
        combined = combine_annotations(self._annotations.get()[0])
        return {"columns": [{"key": key, "title": PAIR_COLUMN_TITLES[key],
                             "group": PAIR_COLUMN_GROUPS[key],
                             "count": combined.agreement[key]} for key in COLUMNS],
                "kappa": _kappa(combined.kappa), "kept": len(combined.scores),
                "total": sum(combined.agreement.values())}


def _member_answer(members: list[Member], column: int) -> list[str] | None:
    labels = [m.labels[column] for m in members]
    if None in labels:
        return None
    return [m.sentence_id for m in members if m.labels[column] == OUTLIER]


def _set_units(all_members: list[Member]) -> list[Unit]:
    sets: dict[int, list[Member]] = {}
    for member in all_members:
        sets.setdefault(member.set_id, []).append(member)
    return [Unit(str(set_id), {"members": [{"id": m.sentence_id, "text": m.sentence}
                                           for m in members]},
                 (_member_answer(members, 0), _member_answer(members, 1)))
            for set_id, members in sets.items()]


class SetTask:
    """Check TaPaCo sets: mark the members that are not paraphrases of the rest."""

    mode = "sets"

    def __init__(self, path: Path, language: str = "") -> None:
        self.path, self._language = path, language
        self._members = _FileCache(path, read_set_annotations, _set_units)

    def language(self) -> str:
        return self._language

    def units(self) -> list[Unit]:
        return self._members.get()[1]

    def parse_answer(self, unit: Unit, answer: Any) -> set[str]:
        if not isinstance(answer, list) or not all(isinstance(x, str) for x in answer):
            raise BadAnswer("the answer must be the list of outlier sentence ids")
        members = {member["id"] for member in unit.shown["members"]}
        unknown = [x for x in answer if x not in members]
        if unknown:
            raise BadAnswer(f"set {unit.id} has no sentence {unknown[0][:40]!r}")
        return set(answer)

    def save(self, unit: Unit, annotator: int, outliers: set[str] | None) -> None:
        self._members.keep(*save_set_answer(self.path, int(unit.id), annotator, outliers))

    def agreement(self) -> dict[str, Any]:
        agreement = set_agreement(self._members.get()[0])
        return {"columns": [{"key": key, "title": key, "group": "", "count": count}
                            for key, count in agreement.counts.items()],
                "kappa": _kappa(agreement.kappa), "kept": agreement.sets_agreed,
                "total": agreement.sets}


Task = PairTask | SetTask
