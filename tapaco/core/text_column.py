"""Texts as a column: one UTF-8 buffer and int64 offsets (Arrow's `large_string` layout), the
form a sentence's text keeps from the document scanners to the writer.

Kernels read the buffers (`offsets`, `data`; :meth:`TextColumn.code_points`); rows are picked
and joined by compiled gathers; a `str` is made only for a row asked for (`column[row]`,
:meth:`TextColumn.strings`, through Arrow). A column reads, and compares, as the list of its
texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
from numba import njit

from tapaco.core.forked import map_on_threads
from tapaco.core.interruptible import in_background
from tapaco.core.utf8 import decode_into


@njit(nogil=True, cache=True)
def _gathered(offsets, data, extra_offsets, extra_data, rows, starts, out):
    """The texts of `rows` (-1: an empty text; from len(offsets) - 1 on: the texts of the extra
    column), text k written to `out` at `starts[k]`; with no `starts` (empty), to a new `out`
    at new offsets. Returns the offsets and `out`."""
    size = len(offsets) - 1
    if len(starts) == 0:
        starts = np.zeros(len(rows) + 1, np.int64)
        for k in range(len(rows)):
            row = rows[k]
            if row >= size:
                length = extra_offsets[row - size + 1] - extra_offsets[row - size]
            else:
                length = offsets[row + 1] - offsets[row] if row >= 0 else 0
            starts[k + 1] = starts[k] + length
        out = np.empty(starts[-1], np.uint8)
    for k in range(len(rows)):
        row = rows[k]
        if row >= size:  # through two views: a slice assignment compiles numba's shape check
            source = extra_data[extra_offsets[row - size]:extra_offsets[row - size + 1]]
        elif row >= 0:
            source = data[offsets[row]:offsets[row + 1]]
        else:
            continue
        target = out[starts[k]:starts[k] + len(source)]
        for at in range(len(source)):
            target[at] = source[at]
    return starts, out


@njit(nogil=True, cache=True)
def _code_points(offsets, data, rows):
    """The code points of the texts of `rows`, and each one's offsets into them."""
    size = 0
    for row in rows:
        size += offsets[row + 1] - offsets[row]
    codes = np.empty(size, np.int32)
    code_offsets = np.zeros(len(rows) + 1, np.int64)
    out = 0
    for k in range(len(rows)):
        out += decode_into(data, offsets[rows[k]], offsets[rows[k] + 1], codes[out:])
        code_offsets[k + 1] = out
    return codes[:out], code_offsets


_NO_STARTS, _NO_BYTES = np.zeros(0, np.int64), np.zeros(0, np.uint8)  # (for _gathered)


@dataclass(frozen=True, eq=False)
class TextColumn(Sequence[str]):
    """Texts: text k is the UTF-8 `data[offsets[k]:offsets[k + 1]]`."""

    offsets: np.ndarray
    data: np.ndarray

    @classmethod
    def of(cls, texts: Iterable[str]) -> TextColumn:
        """The texts as a column (a column is returned as it is)."""
        if isinstance(texts, TextColumn):
            return texts
        return cls.of_arrow(pa.array(texts if isinstance(texts, list) else list(texts),
                                     pa.large_string()))

    @classmethod
    def of_arrow(cls, array: pa.Array) -> TextColumn:
        """The texts of an Arrow string array, sharing its buffers (nulls read as empty)."""
        array = array.cast(pa.large_string())
        _, offsets, data = array.buffers()
        return cls(np.frombuffer(offsets, np.int64)[array.offset:array.offset + len(array) + 1],
                   np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8))

    @classmethod
    def concatenate(cls, columns: Sequence[TextColumn]) -> TextColumn:
        """The columns one after another."""
        if len(columns) == 1:
            return columns[0]
        offsets = np.zeros(sum(map(len, columns)) + 1, np.int64)
        data = np.empty(sum(int(column.offsets[-1] - column.offsets[0]) for column in columns),
                        np.uint8)
        row = size = 0
        for column in columns:
            start, end = int(column.offsets[0]), int(column.offsets[-1])
            data[size:size + end - start] = column.data[start:end]
            np.add(column.offsets[1:], size - start, out=offsets[row + 1:row + len(column) + 1])
            row, size = row + len(column), size + end - start
        return cls(offsets, data)

    @classmethod
    def of_takes(cls, takes: Sequence[Take], workers: int = 1) -> TextColumn:
        """The texts of each take, one take after another: gathered straight into one column,
        the takes shared by `workers` threads (contiguous runs of about equal bytes)."""
        lengths = [take.lengths() for take in takes]
        offsets = np.zeros(sum(map(len, lengths)) + 1, np.int64)
        np.cumsum(np.concatenate(lengths) if takes else [], out=offsets[1:])
        data = np.empty(int(offsets[-1]), np.uint8)
        first_rows = np.cumsum([0] + [len(part) for part in lengths])
        inner = np.searchsorted(offsets[first_rows[1:]],
                                np.arange(1, workers) * offsets[-1] / workers) + 1
        bounds = [0, *np.minimum(inner, len(takes)).tolist(), len(takes)]

        def gather(run: int) -> None:
            for index in range(bounds[run], bounds[run + 1]):
                take = takes[index]
                column, extra = take.column, take.extra
                in_background(_gathered, column.offsets, column.data, extra.offsets,
                              extra.data, np.asarray(take.rows, np.int64),
                              offsets[first_rows[index]:first_rows[index + 1]], data,
                              size=len(take.rows))

        map_on_threads(gather, list(range(workers)), workers)
        return cls(offsets, data)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, row):  # noqa: ANN001, ANN204 - an int, or a slice (a column)
        if isinstance(row, slice):
            start, stop, step = row.indices(len(self))
            if step != 1:
                raise ValueError("a column is sliced by ranges of rows only")
            return TextColumn(self.offsets[start:max(start, stop) + 1], self.data)
        row = range(len(self))[row]
        return self.data[self.offsets[row]:self.offsets[row + 1]].tobytes().decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return iter(self.strings())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None

    def take(self, rows: np.ndarray, extra: TextColumn | None = None) -> TextColumn:
        """The texts of `rows`, in that order (-1: an empty text); rows from the column's
        length on are those of `extra` after it, as if the two were one column."""
        rows = np.asarray(rows, np.int64)
        extra = extra if extra is not None else NO_TEXTS
        return TextColumn(*in_background(_gathered, self.offsets, self.data, extra.offsets,
                                         extra.data, rows, _NO_STARTS, _NO_BYTES,
                                         size=len(rows)))

    def strings(self, rows: np.ndarray | None = None) -> list[str]:
        """The texts (of `rows`) as Python strings."""
        return (self if rows is None else self.take(rows)).arrow().to_pylist()

    def arrow(self) -> pa.LargeStringArray:
        """The texts as an Arrow array over the same buffers."""
        return pa.LargeStringArray.from_buffers(len(self), pa.py_buffer(self.offsets),
                                                pa.py_buffer(self.data))

    def with_rows(self, rows: Sequence[int], texts: Sequence[str]) -> TextColumn:
        """The column with the text of each of `rows` replaced by the text given for it."""
        if not len(rows):
            return self
        order = np.arange(len(self))
        order[np.asarray(rows, np.int64)] = len(self) + np.arange(len(rows))
        return self.take(order, TextColumn.of(texts))

    def nonempty(self) -> np.ndarray:
        """Whether each text is not empty."""
        return self.offsets[1:] > self.offsets[:-1]

    def code_points(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The texts (of `rows`) as one int32 array of code points and the rows' offsets into
        it: what the compiled kernels over code points read."""
        rows = np.arange(len(self)) if rows is None else np.asarray(rows, np.int64)
        return in_background(_code_points, self.offsets, self.data, rows,
                             size=int(self.offsets[-1] - self.offsets[0]))


NO_TEXTS = TextColumn(np.zeros(1, np.int64), np.zeros(0, np.uint8))  # a column of no rows


@dataclass(frozen=True)
class Take:
    """The texts of `rows` of a column, as :meth:`TextColumn.take` would gather them, not
    gathered yet (see :meth:`TextColumn.of_takes`)."""

    column: TextColumn
    rows: np.ndarray
    extra: TextColumn = field(default_factory=lambda: NO_TEXTS)

    def lengths(self) -> np.ndarray:
        """The byte length of each text."""
        every = np.concatenate([np.diff(self.column.offsets), np.diff(self.extra.offsets), [0]])
        return every[self.rows]


@dataclass(frozen=True, eq=False)
class IndexedTexts(Sequence[str]):
    """A column kept as row numbers into another: text k is `values[rows[k]]` (-1: an empty
    text). For texts read at a few rows only (the lists and tags of the rows written), or
    shared by many: their bytes are gathered only when rows are taken."""

    values: TextColumn
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, row: int) -> str:
        value = int(self.rows[range(len(self))[row]])
        return self.values[value] if value >= 0 else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None

    def take(self, rows: np.ndarray) -> TextColumn:
        """The texts of `rows`, in that order."""
        return self.values.take(self.rows[np.asarray(rows, np.int64)])
