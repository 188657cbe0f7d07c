"""Human checks of TaPaCo paraphrase sets: which members are not paraphrases of the rest.

A set annotation file is a TSV with the header `set_id sentence_id sentence annotator1
annotator2`, one row per member of each set to check, drawn (seeded) from a TaPaCo language file
(`OUT/<lang>.txt`). A member's label is `ok` (a paraphrase of the rest), `outlier` (not one) or
empty (not yet checked); an annotator answers a whole set at once. Answers are saved as pair
labels are (:func:`tapaco.core.files.update_file_atomically`): each changes only its
annotator's labels of that set in the file as it is at that moment.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.agreement import cohen_kappa
from tapaco.core.errors import InputError, usage_error
from tapaco.core.files import read_plain_text, tab_separated_rows, update_file_atomically

HEADER = ["set_id", "sentence_id", "sentence", "annotator1", "annotator2"]
OK = "ok"
OUTLIER = "outlier"
LABELS = (OK, OUTLIER)
HEADER_CHARACTERS = 100  # what a header check reads: more than the header and its line end
AGREEMENT_COLUMNS = ("both ok", "both outlier", "outlier for annotator 1 only",
                     "outlier for annotator 2 only")


@dataclass
class Member:
    set_id: int
    sentence_id: str
    sentence: str
    labels: list[str | None]


def _rows(path: Path) -> list[list[str]]:
    return tab_separated_rows(read_plain_text(path, "TaPaCo language files (OUT/<lang>.txt) "
                                                    "and set annotation files"))


def _set_id(path: Path, line: int, field: str) -> int:
    if not field.isdigit():
        raise InputError(path, f"set id {field!r} is not a whole number", f"line {line}",
                         kind="malformed sets")
    return int(field)


def read_language_file(path: Path) -> list[Member]:
    """The members of every set of a TaPaCo language file (5 fields: set id, sentence id, text,
    lists, tags), unlabelled."""
    members = []
    for line, row in enumerate(_rows(path), 1):
        if len(row) != 5:
            raise InputError(path, f"expected a TaPaCo language file's 5 tab-separated fields "
                             f"(set id, sentence id, text, lists, tags), found {len(row)}",
                             f"line {line}", kind="malformed sets")
        members.append(Member(_set_id(path, line, row[0]), row[1], row[2], [None, None]))
    return members


def _label(path: Path, line: int, field: str) -> str | None:
    if field not in ("", *LABELS):
        raise InputError(path, f"unknown label {field!r} (use {OK}, {OUTLIER} or leave empty)",
                         f"line {line}", kind="malformed sets")
    return field or None


def read_set_annotations(path: Path) -> list[Member]:
    """Read a set annotation file; errors name the file and line."""
    rows = _rows(path)
    if not rows or rows[0] != HEADER:
        raise InputError(path, f"expected the header {' '.join(HEADER)}", "line 1",
                         kind="malformed sets")
    members, seen = [], set()
    for line, row in enumerate(rows[1:], 2):
        if len(row) != len(HEADER):
            raise InputError(path, f"expected {len(HEADER)} tab-separated fields, found "
                             f"{len(row)}", f"line {line}", kind="malformed sets")
        member = Member(_set_id(path, line, row[0]), row[1], row[2],
                        [_label(path, line, row[3]), _label(path, line, row[4])])
        if (member.set_id, member.sentence_id) in seen:
            raise InputError(path, f"sentence {member.sentence_id} of set {member.set_id} "
                             "occurs twice", f"line {line}", kind="malformed sets")
        seen.add((member.set_id, member.sentence_id))
        members.append(member)
    return members


def is_set_annotation_file(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline(HEADER_CHARACTERS).rstrip("\n").split("\t") == HEADER
    except (OSError, UnicodeDecodeError):
        return False


def set_annotations_text(members: list[Member]) -> str:
    lines = ["\t".join(HEADER)]
    lines += ["\t".join([str(m.set_id), m.sentence_id, m.sentence, m.labels[0] or "",
                         m.labels[1] or ""]) for m in members]
    return "\n".join(lines) + "\n"


def sample_sets(members: list[Member], count: int | None, seed: int) -> list[Member]:
    """The members of `count` sets drawn uniformly at random (all sets if None or more than
    there are), in file order."""
    set_ids = list(dict.fromkeys(m.set_id for m in members))
    if count is None or count >= len(set_ids):
        return members
    chosen = np.sort(np.random.default_rng(seed).choice(len(set_ids), count, replace=False))
    kept = {set_ids[i] for i in chosen.tolist()}
    return [m for m in members if m.set_id in kept]


def save_set_answer(path: Path, set_id: int, annotator: int,
                    outliers: set[str] | None) -> tuple[list[Member], os.stat_result]:
    """Label every member of one set for one annotator (`outlier` for the ids in `outliers`,
    `ok` for the others), or clear them with None. Returns the file's members afterwards, and
    its status."""

    def change(members: list[Member]) -> str:
        chosen = [m for m in members if m.set_id == set_id]
        if not chosen:
            raise usage_error(path, f"no longer holds set {set_id}; was it replaced?")
        unknown = (outliers or set()) - {m.sentence_id for m in chosen}
        if unknown:
            raise usage_error(path, f"set {set_id} has no sentence {sorted(unknown)[0]}")
        for member in chosen:
            member.labels[annotator - 1] = (
                None if outliers is None else OUTLIER if member.sentence_id in outliers else OK)
        return set_annotations_text(members)

    return update_file_atomically(path, read_set_annotations, change)


@dataclass
class SetAgreement:
    counts: dict[str, int]
    kappa: float
    sets_agreed: int
    sets: int


def set_agreement(members: list[Member]) -> SetAgreement:
    """How two annotators agree on the members both checked: counts, Cohen's kappa over the
    members, and the sets whose every member got the same label from both."""
    both = [m for m in members if None not in m.labels]
    counts = Counter({OK + OK: 0, OUTLIER + OUTLIER: 0, OUTLIER + OK: 0, OK + OUTLIER: 0})
    counts.update(m.labels[0] + m.labels[1] for m in both)
    disagreeing = {m.set_id for m in both if m.labels[0] != m.labels[1]}
    checked = {m.set_id for m in both}
    keys = (OK + OK, OUTLIER + OUTLIER, OUTLIER + OK, OK + OUTLIER)
    return SetAgreement(dict(zip(AGREEMENT_COLUMNS, (counts[key] for key in keys))),
                        cohen_kappa([(m.labels[0], m.labels[1]) for m in both]),
                        len(checked - disagreeing), len(checked))
