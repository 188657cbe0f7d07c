"""A word-vector file (word2vec or fastText text format: `.vec`/`.txt`, may be `.gz` or `.bz2`)
read once into arrays: the words, each word's row, and a float32 matrix of the vectors.

The file is parsed by Arrow's multi-threaded CSV reader in blocks, written straight into the
matrix, so loading millions of words takes seconds and holds the matrix once. An optional first
line `COUNT DIMENSIONS` (word2vec and fastText write one, GloVe does not) is recognised; a space
at the end of each line (fastText writes one) is allowed. A word listed twice keeps its first
vector.
"""

from __future__ import annotations

import bz2
import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from tapaco.core.errors import InputError

_BLOCK_BYTES = 32 << 20
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open}


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


def read_word_vectors(path: Path) -> WordVectors:
    """Read a word-vector file; a malformed one is an :class:`InputError` naming file and line."""
    layout = _layout(path)
    names = ["word", *(f"v{k}" for k in range(layout.dimensions))]
    if layout.trailing_space:
        names.append("end")
    types = {"word": pa.string(), **{name: pa.float32() for name in names[1:]}}
    reader = _csv_reader(path, layout, names, types)
    words: list[str] = []
    blocks: list[np.ndarray] = []
    first_line = layout.header_lines + 1
    try:
        for batch in reader:
            if layout.trailing_space and batch.column(len(names) - 1).null_count != len(batch):
                raise _malformed(path, "a line holds more values than the first")
            vectors = [batch.column(k) for k in range(1, layout.dimensions + 1)]
            if any(column.null_count for column in vectors):
                raise _malformed(path, "a line has an empty or non-numeric value")
            blocks.append(np.column_stack([column.to_numpy() for column in vectors]))
            words += batch.column(0).to_pylist()
            first_line += len(batch)
    except pa.ArrowInvalid as error:
        raise InputError(path, f"not a word-vector file: {_arrow_reason(error)}",
                         f"after line {first_line - 1}") from error
    if not words:
        raise InputError(path, "holds no word vector")
    row_of: dict[str, int] = {}
    for row, word in enumerate(words):
        row_of.setdefault(word, row)
    return WordVectors(row_of, np.concatenate(blocks) if len(blocks) > 1 else blocks[0])


def _layout(path: Path) -> _Layout:
    """The header, dimensions and line ending of the file, from its first two lines."""
    try:
        with _open(path) as stream:
            first = stream.readline(1 << 20).decode("utf-8", "replace")
            second = stream.readline(1 << 20).decode("utf-8", "replace")
    except (OSError, EOFError) as error:
        raise InputError(path, f"cannot be read: {error}") from error
    fields = first.rstrip("\r\n").split(" ")
    header = len(fields) == 2 and all(field.isdigit() for field in fields)
    data = (second if header else first).rstrip("\r\n")
    if not data:
        raise InputError(path, "holds no word vector")
    values = data.split(" ")[1:]
    trailing = bool(values) and values[-1] == ""
    dimensions = len(values) - trailing
    if dimensions < 1:
        raise InputError(path, "not a word-vector file: a line holds a word and no number",
                         f"line {2 if header else 1}")
    if header and int(fields[1]) != dimensions:
        raise InputError(path, f"the header says {fields[1]} dimensions, the first vector has "
                               f"{dimensions}", "line 2")
    return _Layout(int(header), dimensions, trailing)


def _open(path: Path):
    return _OPENERS.get(path.suffix, open)(path, "rb")


def _csv_reader(path: Path, layout: _Layout, names: list[str], types: dict):
    read = pa_csv.ReadOptions(column_names=names, skip_rows=layout.header_lines,
                              block_size=_BLOCK_BYTES)
    parse = pa_csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                double_quote=False)
    convert = pa_csv.ConvertOptions(column_types=types, null_values=[""],
                                    strings_can_be_null=False, quoted_strings_can_be_null=False)
    try:
        return pa_csv.open_csv(_open(path), read_options=read, parse_options=parse,
                               convert_options=convert)
    except pa.ArrowInvalid as error:
        raise InputError(path, f"not a word-vector file: {_arrow_reason(error)}") from error


def _malformed(path: Path, reason: str) -> InputError:
    return InputError(path, f"not a word-vector file: {reason}")


def _arrow_reason(error: Exception) -> str:
    return str(error).splitlines()[0].removeprefix("CSV parse error: ")
