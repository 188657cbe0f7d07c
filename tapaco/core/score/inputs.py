"""What the score reads: the rows of a TSV of pairs (plain, `.gz` or `.bz2`) with the two
columns holding the sentences (:mod:`~tapaco.core.score.pair_formats` recognises the project's
own files), or the sets of a TaPaCo language file, in chunks of rows.

Rows are kept as they are (their line ending aside), header included, whatever their length
(a line of 16 MiB at least is read whole; memory stays bounded, longer is an error), to be
written back with the score appended; a UTF-8 byte order mark at the start of the file is
taken for the signature it is, not as text of the first row. A file cut short, corrupt
compressed data and bytes that are not UTF-8 are errors naming the file and place.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.errors import InputError, usage_error
from tapaco.core.opus.textstream import (
    DECOMPRESSION_ERRORS,
    MAX_LINE_BYTES,
    FileRef,
    open_binary,
    text_chunks,
    unreadable,
)

CHUNK_ROWS = 1 << 15
_BOM = "\ufeff"
_PARQUET = b"PAR1"


@dataclass(frozen=True)
class PairColumns:
    """Which fields (0-based) hold a pair's sentences, and whether the first line is a header."""

    first: int
    second: int
    header: bool

    def described(self) -> str:
        return f"columns {self.first + 1},{self.second + 1}" + (", header" if self.header else "")


@dataclass
class RowChunk:
    """Consecutive rows of the input (without line endings), the number of the first one, and
    the header row when the file has one and this is its first chunk."""

    rows: list[str]
    first_line: int
    header: str | None = None


def _rows(path: Path) -> Iterator[RowChunk]:
    """The rows of the file in chunks of at least CHUNK_ROWS rows (the last may hold fewer)."""
    pending: list[str] = []
    first = 1
    for chunk in text_chunks(FileRef(path), b"\n"):
        text = chunk.text.removeprefix(_BOM) if chunk.first_line == 1 else chunk.text
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        pending += [line[:-1] if line.endswith("\r") else line for line in lines]
        if len(pending) >= CHUNK_ROWS:
            yield RowChunk(pending, first)
            first += len(pending)
            pending = []
    if pending:
        yield RowChunk(pending, first)


def pair_chunks(path: Path,
                columns: PairColumns) -> Iterator[tuple[RowChunk, list[str], list[str]]]:
    """Each chunk of data rows with its two sentence columns (the header row left out)."""
    need = max(columns.first, columns.second) + 1
    for chunk in _rows(path):
        if columns.header and chunk.first_line == 1:
            chunk = RowChunk(chunk.rows[1:], 2, chunk.rows[0])
        split = [row.split("\t") for row in chunk.rows]
        for at, fields in enumerate(split):
            if len(fields) < need:
                raise InputError(path, f"a row of {len(fields)} field(s), but the sentences are "
                                       f"in {columns.described()}",
                                 f"line {chunk.first_line + at}")
        yield chunk, [f[columns.first] for f in split], [f[columns.second] for f in split]


def first_row(path: Path) -> str:
    """The start of the file's first line (its first MiB: enough to recognise a format by; the
    rows themselves are read, and checked, by :func:`pair_chunks`)."""
    with open_binary(FileRef(path)) as stream:
        try:
            data = stream.readline(MAX_LINE_BYTES)
        except DECOMPRESSION_ERRORS as error:
            raise unreadable(FileRef(path), error) from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        if data.startswith(_PARQUET):
            raise usage_error(path, "is a Parquet file: give the text (TSV) file it was written "
                                    "beside") from error
        text = data.decode("utf-8", "replace")
    return text.removeprefix(_BOM).rstrip("\r\n")


def set_chunks(path: Path) -> Iterator[tuple[RowChunk, list[str], np.ndarray]]:
    """Chunks of whole sets of a TaPaCo language file (rows: set id, sentence id, text, ...):
    the rows, their texts and the sets' offsets into them. A set is a run of one set id; ids
    must rise, as a build writes them, so that a run is the whole set."""
    rows: list[str] = []
    starts: list[int] = []
    first = 1
    previous = ""
    for chunk in _rows(path):
        for line, row in enumerate(chunk.rows, chunk.first_line):
            set_id = row.split("\t", 1)[0]
            if row.count("\t") < 2:
                raise InputError(path, "not a TaPaCo language file: a row has fewer than 3 "
                                       "fields (set id, sentence id, text)", f"line {line}")
            if set_id != previous:
                _check_rising(path, previous, set_id, line)
                if len(rows) >= CHUNK_ROWS:
                    yield _set_chunk(rows, first, starts)
                    rows, starts, first = [], [], line
                starts.append(len(rows))
                previous = set_id
            rows.append(row)
    if rows:
        yield _set_chunk(rows, first, starts)


def _set_chunk(rows: list[str], first: int, starts: list[int]):
    texts = [row.split("\t", 3)[2] for row in rows]
    return RowChunk(rows, first), texts, np.array([*starts, len(rows)], np.int64)


def _check_rising(path: Path, previous: str, set_id: str, line: int) -> None:
    if not set_id.isdigit():
        raise InputError(path, f"not a TaPaCo language file: set id {set_id!r} is not a "
                               "number", f"line {line}")
    if previous and int(set_id) <= int(previous):
        raise InputError(path, "rows are not sorted by set id as a TaPaCo build writes them",
                         f"line {line}")
