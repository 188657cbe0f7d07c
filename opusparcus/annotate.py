"""A plain-text terminal annotator: one person labels the pairs of an annotation file.

The loop shows one unlabelled pair at a time and reads an answer per line (1-4, a category
name or colour, `t`/`trash`, `u` undo, `q` quit; end of input quits), the keys once at the start.
An answer is read in a bounded piece: a line longer than any answer (`< /dev/zero`, a stream
without line ends) ends the session in one line, its answers saved; a byte that is not UTF-8
makes an unknown answer.
Every answer and every undo changes only this annotator's label of that pair in the file as it
is at that moment (:func:`tapaco.core.annotation.pairs.save_label`), so the other annotator, here
or on the web page (`serve`), may answer the same file at once, and a later run resumes at the
first pair still unlabelled.
The command line (`python -m opusparcus annotate`) calls `annotate`.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

from tapaco.core.annotation.pairs import (
    ANSWER_BYTES,
    Annotation,
    parse_label,
    read_annotations,
    save_label,
)
from tapaco.core.disk import check_updatable
from tapaco.core.errors import usage_error

HELP = ("keys: 4 good  3 mostly good  2 mostly bad  1 bad  t trash  u undo  q quit  "
        "(or a word: good/green, mostly-good/light-green, mostly-bad/yellow, bad/red)")
HINT = "? unknown answer {answer!r}: type 1-4, t, u or q, then Enter"
UNDO = "u"
QUIT = "q"
# characters of an answer line; the longest answer is `mostly-good`
LONGEST_ANSWER = 1000
STDIN = "standard input"


def _first_unlabelled(annotations: list[Annotation], column: int) -> int | None:
    return next((i for i, a in enumerate(annotations) if a.labels[column] is None), None)


def _remaining(annotations: list[Annotation], column: int) -> int:
    return sum(a.labels[column] is None for a in annotations)


def _show(annotations: list[Annotation], index: int, column: int, stdout: TextIO) -> None:
    pair = annotations[index]
    left = _remaining(annotations, column)
    stdout.write(f"\npair {index + 1} of {len(annotations)} ({left} left)  id {pair.id}\n"
                 f"  1: {pair.sentence1}\n  2: {pair.sentence2}\n")


def _ask(stdin: TextIO, stdout: TextIO, path: Path) -> str:
    """The next answer, lower-cased; end of input reads as quit."""
    stdout.write("> ")
    stdout.flush()
    line = stdin.readline(LONGEST_ANSWER)
    if len(line) == LONGEST_ANSWER and not line.endswith("\n"):
        raise usage_error(STDIN, f"an answer of over {LONGEST_ANSWER:,} characters without a "
                          f"line end; type 1-4, t, u or q, then Enter; earlier answers are saved "
                          f"in {path}")
    return line.strip().lower() if line else QUIT


def _label(answer: str) -> int | None:
    """The label an answer names, or None when it is not a label."""
    try:
        return parse_label(answer)
    except ValueError:
        return None


def annotate(path: Path, annotator: int, stdin: TextIO = sys.stdin,
             stdout: TextIO = sys.stdout) -> dict:
    """Interactive loop over the pairs of `path` whose label for `annotator` (1 or 2) is empty,
    in file order; saves after every answer and undo. Returns {"answered", "remaining"}."""
    if annotator not in (1, 2):
        raise ValueError(f"annotator must be 1 or 2, not {annotator!r}")
    column = annotator - 1
    annotations = read_annotations(path)
    check_updatable(path, ANSWER_BYTES * (len(annotations) + 1))  # room for a new copy
    if isinstance(stdin, io.TextIOWrapper):  # a stray byte is an unknown answer, not a crash
        stdin.reconfigure(errors="replace")
    history: list[int] = []
    shown = None
    while (index := _first_unlabelled(annotations, column)) is not None:
        if index != shown:
            if shown is None:
                stdout.write(HELP + "\n")
            _show(annotations, index, column, stdout)
            shown = index
        answer = _ask(stdin, stdout, path)
        if answer == QUIT:
            break
        if answer == UNDO:
            annotations = _undo(path, annotations, annotator, history, stdout)
            continue
        label = _label(answer)
        if label is None:
            stdout.write(HINT.format(answer=answer[:40]) + "\n")
            continue
        annotations, _ = save_label(path, annotations[index].id, annotator, label)
        history.append(index)
    remaining = _remaining(annotations, column)
    stdout.write(f"\n{len(history)} answered, {remaining} remaining; saved to {path}\n")
    stdout.flush()
    return {"answered": len(history), "remaining": remaining}


def _undo(path: Path, annotations: list[Annotation], annotator: int, history: list[int],
          stdout: TextIO) -> list[Annotation]:
    """Clear this session's previous answer and save; that pair is then the first unlabelled."""
    if not history:
        stdout.write("? nothing to undo in this session\n")
        return annotations
    return save_label(path, annotations[history.pop()].id, annotator, None)[0]
