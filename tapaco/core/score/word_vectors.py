"""A word-vector file (word2vec or fastText text format: `.vec`/`.txt`, may be `.gz` or `.bz2`)
read once into arrays: the words, each word's row, and a float32 matrix of the vectors.

The file is parsed by Arrow's multi-threaded CSV reader in blocks of lines, written straight
into a matrix that grows with the lines read (:mod:`~tapaco.core.score.growing_matrix`): memory
holds the vectors once, as many as the file holds (a header's count is never trusted with
memory). Parsing runs at ~100 MB/s; a converted copy kept in a cache folder
(`--vectors-cache`, :mod:`~tapaco.core.score.vectors_cache`) is memory-mapped by later runs
instead.

An optional first line `COUNT DIMENSIONS` (word2vec and fastText write one, GloVe does not) is
recognised; in an uncompressed file its count is checked against the file's size. A space at
the end of each line (fastText writes one) is allowed, and so is a UTF-8 byte order mark at
the start. A word listed twice keeps its first vector. Everything else is bad input named by
file and line: a line of another number of values, a value that is not a finite float32
(`nan`, `inf`, `1e39`: it would leave every sentence holding the word without a score), a file
cut short; word2vec's binary format is named as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import DECOMPRESSION_ERRORS, FileRef, open_binary, unreadable
from tapaco.core.score.growing_matrix import GrowingMatrix
from tapaco.core.score.vectors_cache import copy_folder, load_copy, save_copy, source_record

_BLOCK_BYTES = 32 << 20  # also the longest line read: Arrow's block must hold a whole line
_BOM = b"\xef\xbb\xbf"
_HEADER = re.compile(rb"([0-9]+) ([0-9]+)")
_NOT_TEXT = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CODECS = {".gz": "gzip", ".bz2": "bz2"}
_SHOWN_CHARACTERS = 40


@dataclass(frozen=True)
class WordVectors:
    """Words and their vectors: `matrix[row_of[word]]`."""

    row_of: dict[str, int]
    matrix: np.ndarray

    @property
    def dimensions(self) -> int:
        return self.matrix.shape[1]

    def rows(self, words: list[str]) -> np.ndarray:
        """Each word's row, -1 for a word the file does not hold."""
        get = self.row_of.get
        return np.fromiter((get(word, -1) for word in words), np.int64, len(words))


@dataclass(frozen=True)
class _Layout:
    header_lines: int
    dimensions: int
    trailing_space: bool


def read_word_vectors(path: Path, cache: Path | None = None) -> WordVectors:
    """Read a word-vector file; a malformed one is an :class:`InputError` naming file and line.

    With `cache` (a folder), a converted copy is kept there and memory-mapped by later reads of
    the same unchanged file, instead of parsing it again.
    """
    path = Path(path)
    if cache is None:
        return _parsed(path)[0]
    folder = copy_folder(cache, path)
    copy = load_copy(folder, path)
    if copy is not None:
        words, matrix = copy
        return WordVectors(_first_rows(words), matrix)
    source = source_record(path)
    vectors, words = _parsed(path)
    save_copy(folder, source, words, vectors.matrix)
    return vectors


def _first_rows(words: list[str]) -> dict[str, int]:
    row_of: dict[str, int] = {}
    for row, word in enumerate(words):
        row_of.setdefault(word, row)
    return row_of


def _parsed(path: Path) -> tuple[WordVectors, list[str]]:
    layout = _layout(path)
    words: list[str] = []
    rows = GrowingMatrix(layout.dimensions)
    try:
        for batch in _batches(path, layout):
            if not _filled(rows, batch, layout):
                raise _bad_line(path, layout, len(words))
            words += batch.column(0).to_pylist()
    except pa.ArrowInvalid as error:
        raise _bad_line(path, layout, len(words), _arrow_reason(error)) from error
    except DECOMPRESSION_ERRORS as error:
        raise _unreadable(path, error, len(words)) from error
    if not words:
        raise InputError(path, "holds no word vector")
    return WordVectors(_first_rows(words), rows.matrix()), words


def _filled(rows: GrowingMatrix, batch: pa.RecordBatch, layout: _Layout) -> bool:
    """Append the batch's vectors to `rows`; False when a line holds more values than the first,
    an empty one, or one that is not a finite float32."""
    if layout.trailing_space and batch.column(batch.num_columns - 1).null_count != len(batch):
        return False
    columns = [batch.column(k) for k in range(1, layout.dimensions + 1)]
    if any(column.null_count for column in columns):
        return False
    block = rows.block(len(batch))
    for k, column in enumerate(columns):
        block[:, k] = column.to_numpy()
    return bool(np.isfinite(block).all())


def _layout(path: Path) -> _Layout:
    """The header, dimensions and line ending of the file, from its first lines."""
    try:
        with open_binary(FileRef(path)) as stream:
            first = stream.readline(_BLOCK_BYTES + 1).removeprefix(_BOM)
            second = stream.readline(_BLOCK_BYTES + 1)
    except DECOMPRESSION_ERRORS as error:
        raise _unreadable(path, error, 0) from error
    header = _HEADER.fullmatch(first.rstrip(b"\r\n"))
    data, line = (second, 2) if header else (first, 1)
    if len(data) > _BLOCK_BYTES:
        raise InputError(path, f"not a word-vector file: a line over {_BLOCK_BYTES >> 20} MiB",
                         f"line {line}")
    text = data.decode("utf-8", "replace").rstrip("\r\n")
    if not text:
        raise InputError(path, "holds no word vector")
    values = text.split(" ")[1:]
    trailing = bool(values) and values[-1] == ""
    dimensions = len(values) - trailing
    if header and int(header[2]) != dimensions:
        if _NOT_TEXT.search(data) or "\ufffd" in text:
            raise InputError(path, "is in word2vec's binary format: give the text format "
                                   "(.vec/.txt, a word and its values per line), e.g. from "
                                   "gensim's save_word2vec_format(..., binary=False)", "line 2")
        raise InputError(path, f"the header says {int(header[2])} dimensions, the first vector "
                               f"has {dimensions}", "line 2")
    if dimensions < 1:
        raise InputError(path, "not a word-vector file: a line holds a word and no number",
                         f"line {line}")
    if header:
        _check_count(path, int(header[1]), dimensions)
    return _Layout(int(bool(header)), dimensions, trailing)


def _check_count(path: Path, words: int, dimensions: int) -> None:
    """Refuse a header announcing more vectors than an uncompressed file can hold (a line of
    `dimensions` values takes at least 2 bytes a value and 2 more); a compressed file's size
    bounds nothing, but the count is only ever a hint."""
    if path.suffix in _CODECS:
        return
    size = path.stat().st_size
    if words > size // (2 * dimensions + 2):
        raise InputError(path, f"the header says {words:,} words of {dimensions:,} dimensions, "
                               f"more than the file's {size:,} bytes can hold", "line 1")


def _batches(path: Path, layout: _Layout) -> Iterator[pa.RecordBatch]:
    names = ["word", *(f"v{k}" for k in range(layout.dimensions))]
    if layout.trailing_space:
        names.append("end")
    types = {"word": pa.string(), **{name: pa.float32() for name in names[1:]}}
    read = pa_csv.ReadOptions(column_names=names, skip_rows=layout.header_lines,
                              block_size=_BLOCK_BYTES)
    parse = pa_csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                double_quote=False)
    convert = pa_csv.ConvertOptions(column_types=types, null_values=[""],
                                    strings_can_be_null=False, quoted_strings_can_be_null=False)
    # Arrow reads and decompresses the file itself: no thread of its own may be left reading a
    # Python file object when a bad line ends the program (it aborts the interpreter's exit)
    with pa.input_stream(str(path), compression=_CODECS.get(path.suffix)) as stream:
        reader = pa_csv.open_csv(stream, read_options=read, parse_options=parse,
                                 convert_options=convert)
        try:
            yield from reader
        finally:
            reader.close()


def _bad_line(path: Path, layout: _Layout, from_row: int, reason: str = "") -> InputError:
    """The error naming the first bad line from data row `from_row` on (found by reading the
    file again, only on this path); without one found, Arrow's reason."""
    try:
        found = _first_bad_line(path, layout, from_row)
    except DECOMPRESSION_ERRORS as error:
        return _unreadable(path, error, from_row)
    if found is None:
        return InputError(path, f"not a word-vector file: {reason or 'a malformed line'}",
                          f"after line {layout.header_lines + from_row}")
    line, problem = found
    return InputError(path, problem, f"line {line}")


def _first_bad_line(path: Path, layout: _Layout, from_row: int) -> tuple[int, str] | None:
    """The number of the first line from data row `from_row` on (0-based; empty lines are no
    rows, as for Arrow) that is not a word and the first line's number of finite values, and
    what is wrong with it."""
    row = -1
    with open_binary(FileRef(path)) as stream:
        for number in count(1):
            line = stream.readline(_BLOCK_BYTES + 1)
            if not line:
                return None
            if number == 1:
                line = line.removeprefix(_BOM)
            if number <= layout.header_lines or not line.rstrip(b"\r\n"):
                continue
            row += 1
            problem = _line_problem(line, layout) if row >= from_row else None
            if problem:
                return number, problem


def _line_problem(line: bytes, layout: _Layout) -> str | None:
    if len(line) > _BLOCK_BYTES:
        return f"not a word-vector file: a line over {_BLOCK_BYTES >> 20} MiB"
    try:
        values = line.decode("utf-8").rstrip("\r\n").split(" ")[1:]
    except UnicodeDecodeError as error:
        return f"not UTF-8: {error.reason} at byte {error.start + 1} of the line"
    trailing = values[-1:] == [""]
    if trailing != layout.trailing_space:
        return (f"not a word-vector file: the line {'ends' if trailing else 'does not end'} "
                f"in a space, unlike the first vector's")
    values = values[:len(values) - trailing]
    if len(values) != layout.dimensions:
        return (f"not a word-vector file: {len(values)} values where the first vector has "
                f"{layout.dimensions}")
    return next(filter(None, map(_value_problem, values)), None)


def _value_problem(value: str) -> str | None:
    shown = repr(value[:_SHOWN_CHARACTERS] + ("..." if len(value) > _SHOWN_CHARACTERS else ""))
    try:
        number = float(value)
    except ValueError:
        number = None
    if number is None or "_" in value or value != value.strip():
        return f"the value {shown} is not a number"
    with np.errstate(over="ignore"):
        if not np.isfinite(np.float32(number)):
            return f"the value {shown} is not a finite number (a float32 vector value)"
    return None


def _unreadable(path: Path, error: BaseException, vectors: int) -> InputError:
    return unreadable(FileRef(path), error, f"after {vectors:,} vectors" if vectors else "")


def _arrow_reason(error: Exception) -> str:
    return str(error).splitlines()[0].removeprefix("CSV parse error: ")
