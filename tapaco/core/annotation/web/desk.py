"""The annotators' desk: who a token belongs to, what each annotator sees next, answers, undo.

An annotator sees only their own answers; the other annotator's exist for them only as the
agreement summary, once every unit has both answers. Navigation is by position in the file: the
next unit still to answer after a position (wrapping round, so skipped units come back), or the
unit at a position (to look back and change an answer). Undo clears this annotator's latest
answer given through the page since the server started, giving the unit back the answer it
had before (none, or the one that answer changed). Nothing here knows about HTTP.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from typing import Any

from tapaco.core.annotation.web.tasks import BadAnswer, Task, Unit


class NotYet(Exception):
    """Asked for something that exists only once both annotators are done."""


def new_tokens(annotators: int) -> dict[int, str]:
    """One unguessable URL token per annotator (128 random bits each)."""
    return {annotator: secrets.token_urlsafe(16) for annotator in range(1, annotators + 1)}


class Desk:
    def __init__(self, task: Task, tokens: dict[int, str]) -> None:
        self.task = task
        self.tokens = dict(tokens)
        # per annotator: (unit id, the answer it had before) of each answer given on the page
        self._history: dict[int, list[tuple[str, Any]]] = {annotator: [] for annotator in tokens}
        self._lock = threading.Lock()

    def annotator(self, token: str) -> int | None:
        """The annotator a token belongs to; compared in constant time."""
        found = None
        for annotator, known in self.tokens.items():
            if hmac.compare_digest(token.encode(), known.encode()):
                found = annotator
        return found

    def _view(self, units: list[Unit], index: int, annotator: int) -> dict[str, Any]:
        unit = units[index]
        return {"index": index, "id": unit.id, **unit.shown,
                "answer": unit.answers[annotator - 1]}

    def progress(self, annotator: int, units: list[Unit] | None = None) -> dict[str, Any]:
        units = self.task.units() if units is None else units
        done = sum(unit.answers[annotator - 1] is not None for unit in units)
        both = all(None not in unit.answers for unit in units)
        return {"done": done, "total": len(units), "everyone_done": both and bool(units)}

    def info(self, annotator: int) -> dict[str, Any]:
        return {"mode": self.task.mode, "annotator": annotator,
                "annotators": len(self.tokens), "language": self.task.language(),
                "progress": self.progress(annotator)}

    def unit_at(self, annotator: int, index: int) -> dict[str, Any]:
        units = self.task.units()
        if not 0 <= index < len(units):
            raise BadAnswer(f"there is no unit {index}; positions run from 0 to "
                            f"{len(units) - 1}")
        return {"unit": self._view(units, index, annotator),
                "progress": self.progress(annotator, units)}

    def next_after(self, annotator: int, index: int) -> dict[str, Any]:
        """The first unit this annotator has not answered after `index` (-1: from the start),
        wrapping round; None when every unit is answered."""
        units = self.task.units()
        count = len(units)
        order = [(index + step) % count for step in range(1, count + 1)] if count else []
        found = next((i for i in order if units[i].answers[annotator - 1] is None), None)
        return {"unit": None if found is None else self._view(units, found, annotator),
                "progress": self.progress(annotator, units)}

    def _unit(self, unit_id: Any) -> tuple[int, Unit]:
        if not isinstance(unit_id, str):
            raise BadAnswer("the request must name the unit by its id")
        units = self.task.units()
        found = next((i for i, unit in enumerate(units) if unit.id == unit_id), None)
        if found is None:
            raise BadAnswer(f"there is no unit {unit_id[:40]!r}")
        return found, units[found]

    def answer(self, annotator: int, unit_id: Any, answer: Any) -> dict[str, Any]:
        """Save this annotator's answer of one unit; returns the next unit to answer."""
        with self._lock:
            index, unit = self._unit(unit_id)
            self.task.save(unit, annotator, self.task.parse_answer(unit, answer))
            self._history[annotator].append((unit.id, unit.answers[annotator - 1]))
        return self.next_after(annotator, index)

    def undo(self, annotator: int) -> dict[str, Any]:
        """Take back this annotator's latest answer through the page; returns that unit."""
        with self._lock:
            history = self._history[annotator]
            if not history:
                raise BadAnswer("nothing to undo: no answer was given on this page since the "
                                "server started")
            unit_id, before = history.pop()
            index, unit = self._unit(unit_id)
            self.task.save(unit, annotator,
                           None if before is None else self.task.parse_answer(unit, before))
        return self.unit_at(annotator, index)

    def agreement(self, annotator: int) -> dict[str, Any]:
        progress = self.progress(annotator)
        if not progress["everyone_done"]:
            raise NotYet("the agreement opens when every unit has both annotators' answers")
        return {"mode": self.task.mode, **self.task.agreement(), "progress": progress}
