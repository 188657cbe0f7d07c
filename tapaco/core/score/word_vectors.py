"""A word-vector file (word2vec or fastText text format: `.vec`/`.txt`, may be `.gz` or `.bz2`)
read once into arrays: the words, each word's row, and a float32 matrix of the vectors.

The file is parsed by Arrow's multi-threaded CSV reader in blocks, written straight into the
matrix (sized by the header when there is one), so memory holds the matrix once. Parsing runs
at ~100 MB/s; a converted copy kept in a cache folder (`--vectors-cache`) is memory-mapped by
later runs instead. An optional first
line `COUNT DIMENSIONS` (word2vec and fastText write one, GloVe does not) is recognised; a space
at the end of each line (fastText writes one) is allowed. A word listed twice keeps its first
vector.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from tapaco.core.errors import InputError
from tapaco.core.files import fill_folder_atomically

_BLOCK_BYTES = 32 << 20
_MOST_ROWS_AHEAD = 1 << 22  # rows made ready from the header's count, which may be wrong
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
    count: int  # words the header announces (0 without a header)
    dimensions: int
    trailing_space: bool


def read_word_vectors(path: Path, cache: Path | None = None) -> WordVectors:
    """Read a word-vector file; a malformed one is an :class:`InputError` naming file and line.

    With `cache` (a folder), a converted copy is kept there (the matrix as `.npy`, the words)
    and memory-mapped by later reads of the same unchanged file, instead of parsing it again.
    """
    if cache is None:
        return _parsed(path)[0]
    folder = Path(cache) / _cache_key(path)
    if (folder / "matrix.npy").is_file() and (folder / "words.txt").is_file():
        words = (folder / "words.txt").read_text(encoding="utf-8").split("\n")
        return WordVectors(_first_rows(words), np.load(folder / "matrix.npy", mmap_mode="r"))
    vectors, words = _parsed(path)

    def fill(temporary: Path) -> None:
        np.save(temporary / "matrix.npy", vectors.matrix)
        (temporary / "words.txt").write_text("\n".join(words), encoding="utf-8")

    fill_folder_atomically(folder, fill, _keep_theirs)
    return vectors


def _cache_key(path: Path) -> str:
    """The file's identity: where it is, its size and when it last changed."""
    stat = path.stat()
    text = f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _keep_theirs(out: Path, new: Path) -> None:
    """Another run converted the same file at the same time: its copy stays."""
    shutil.rmtree(new, ignore_errors=True)


def _first_rows(words: list[str]) -> dict[str, int]:
    row_of: dict[str, int] = {}
    for row, word in enumerate(words):
        row_of.setdefault(word, row)
    return row_of


def _parsed(path: Path) -> tuple[WordVectors, list[str]]:
    layout = _layout(path)
    names = ["word", *(f"v{k}" for k in range(layout.dimensions))]
    if layout.trailing_space:
        names.append("end")
    types = {"word": pa.string(), **{name: pa.float32() for name in names[1:]}}
    reader = _csv_reader(path, layout, names, types)
    words: list[str] = []
    matrix = np.empty((min(max(layout.count, 1), _MOST_ROWS_AHEAD), layout.dimensions), np.float32)
    try:
        for batch in reader:
            if layout.trailing_space and batch.column(len(names) - 1).null_count != len(batch):
                raise _malformed(path, "a line holds more values than the first")
            vectors = [batch.column(k) for k in range(1, layout.dimensions + 1)]
            if any(column.null_count for column in vectors):
                raise _malformed(path, "a line has an empty or non-numeric value")
            matrix = _room_for(matrix, len(words) + len(batch))
            for k, column in enumerate(vectors):
                matrix[len(words):len(words) + len(batch), k] = column.to_numpy()
            words += batch.column(0).to_pylist()
    except pa.ArrowInvalid as error:
        raise InputError(path, f"not a word-vector file: {_arrow_reason(error)}",
                         f"after line {layout.header_lines + len(words)}") from error
    if not words:
        raise InputError(path, "holds no word vector")
    if len(words) < len(matrix):
        matrix = matrix[:len(words)].copy()
    return WordVectors(_first_rows(words), matrix), words


def _room_for(matrix: np.ndarray, rows: int) -> np.ndarray:
    """`matrix`, or a copy twice as large when it holds fewer than `rows` rows (a file without
    a header, or one longer than its header said)."""
    if rows <= len(matrix):
        return matrix
    grown = np.empty((max(rows, 2 * len(matrix)), matrix.shape[1]), np.float32)
    grown[:len(matrix)] = matrix
    return grown


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
    return _Layout(int(header), int(fields[0]) if header else 0, dimensions, trailing)


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
