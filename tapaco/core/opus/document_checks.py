"""What in a chunk of a sentence document is bad input, and the chunk without what it touches.

Bad input is a byte that is not UTF-8, a character XML forbids and a character reference to
one (:mod:`tapaco.core.characters`, :mod:`tapaco.core.opus.xml_text`). Read strictly, the first
stops the reading in one line naming file, line and column. Given somewhere to report it
(`--skip-bad-input`), a sentence holding bad input is left out as if the document did not hold
it (its newlines kept, so later lines keep their numbers), and bad input between sentences (a
stray byte between a `</s>` and the next `<s>`) is dropped, touching no sentence; each is
reported, to be counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tapaco.core.characters import forbidden_characters
from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import ByteChunk, FileRef, bad_utf8_ranges
from tapaco.core.opus.xml_text import bad_references

_SENTENCE_END = re.compile(rb"</s\s*>")
_NAME_ENDS = b" \t\n\r>/"


@dataclass(frozen=True)
class _Problem:
    """Bad input at bytes [start, end): what it is, and the one-line error it makes alone."""

    start: int
    end: int
    what: str
    alone: str
    kind: str


def _problems(chunk: ByteChunk) -> list[_Problem]:
    """The chunk's bad input, in the order of the file."""
    data = chunk.data
    found = [] if chunk.is_utf8() else [
        _Problem(start, end, f"invalid UTF-8 byte 0x{data[start]:02x}",
                 f"invalid UTF-8 byte 0x{data[start]:02x}", "encoding")
        for start, end in bad_utf8_ranges(data)]
    marks = chunk.marks
    references = marks[np.frombuffer(data, np.uint8)[marks] == ord("&")].tolist()
    found += [_Problem(start, end, f"{what} (not allowed in XML)",
                       f"{what} is not allowed in XML", "malformed XML")
              for start, end, what in (forbidden_characters(data, marks)
                                       + bad_references(data, references))]
    return sorted(found, key=lambda problem: problem.start)


def _error(ref: FileRef, chunk: ByteChunk, at: int, message: str, kind: str) -> InputError:
    column = at - (chunk.data.rfind(b"\n", 0, at) + 1) + 1
    return InputError(ref, message, f"line {chunk.line_at(at)}, column {column}", kind=kind)


def _sentence_around(data: bytes, offset: int) -> tuple[int, int] | None:
    """The bytes of the `<s>` element holding `offset` (in its tags or its body), or None."""
    opening = data.rfind(b"<s", 0, offset)
    while opening >= 0 and opening + 2 < offset and data[opening + 2] not in _NAME_ENDS:
        opening = data.rfind(b"<s", 0, opening)
    tag_end = data.find(b">", opening) if opening >= 0 else -1
    if tag_end < 0:
        return None
    if data[tag_end - 1] == ord("/"):  # <s .../>
        return (opening, tag_end + 1) if offset <= tag_end else None
    closing = _SENTENCE_END.search(data, tag_end)
    if closing is None or closing.end() <= offset:
        return None
    return opening, closing.end()


def checked(chunk: ByteChunk, ref: FileRef,
            bad_sentence: Callable[[InputError], None] | None) -> ByteChunk:
    """The chunk, if it holds no bad input. Otherwise, without `bad_sentence`, an
    :class:`InputError` at the first; with it, the chunk without every sentence bad input
    touches and without bad input between sentences, each reported to `bad_sentence`."""
    problems = _problems(chunk)
    if not problems:
        return chunk
    if bad_sentence is None:
        first = problems[0]
        raise _error(ref, chunk, first.start, first.alone, first.kind)
    data = chunk.data
    cuts: list[tuple[int, int, bool]] = []  # (start, end, whether a sentence)
    for problem in problems:
        if cuts and problem.start < cuts[-1][1]:
            continue  # in a sentence left out already
        sentence = _sentence_around(data, problem.start)
        if sentence is None:
            bad_sentence(_error(ref, chunk, problem.start, f"{problem.what} outside any "
                                "sentence; dropped, no sentence lost", problem.kind))
            cuts.append((problem.start, problem.end, False))
        else:
            bad_sentence(_error(ref, chunk, problem.start, f"{problem.what} in a sentence; "
                                "the sentence is left out", problem.kind))
            cuts.append((*sentence, True))
    pieces, kept_from = [], 0
    for start, end, whole_sentence in cuts:
        start = max(start, kept_from)
        pieces += [data[kept_from:start],
                   b"\n" * data.count(b"\n", start, end) if whole_sentence else b""]
        kept_from = end
    pieces.append(data[kept_from:])
    return ByteChunk(b"".join(pieces), chunk.first_line)
