"""Read Moses bitexts as columns: no Python object per line.

The three members of a bitext (`<Corpus>.<l1>-<l2>.<l1>`, `.<l2>` and `.ids`) are decompressed
in large blocks and cut into chunks of the same lines with numpy (newline positions). A chunk
gives each side's lines as an Arrow string array over the decompressed bytes (no copy; UTF-8
checked in C), and a kernel parses the `.ids` fields: whether a line is a 1:1 link (one id on
each side) and the year in each side's document path (`en/1994/123/456.xml.gz` -> 1994). Text
identity is then Arrow's hashing (`dictionary_encode`) in C, so Python sees only distinct
sentences. The lines come from :class:`~tapaco.core.opus.textstream.LineChunks`, as in
:mod:`tapaco.core.opus.moses`, so errors name the file and line alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from tapaco.core.arrays import dictionary_encoded
from tapaco.core.characters import WHITESPACE_RE2
from tapaco.core.errors import InputError
from tapaco.core.hashing import first_occurrences
from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.memory import release_freed_memory
from tapaco.core.opus.moses import clean_line, moses_files
from tapaco.core.opus.textstream import FileRef, LineChunks, Lines

LINES_PER_CHUNK = 1 << 20
BLOCK_BYTES = 16 << 20
NO_YEAR = -1
_TAB, _SPACE, _SLASH, _DOT, _RETURN, _ZERO = (ord(c) for c in "\t /.\r0")


@dataclass
class IdsColumns:
    """What the `.ids` lines of a chunk say: 1:1 or not, and each side's document year."""

    one_to_one: np.ndarray
    years: tuple[np.ndarray, np.ndarray]


@kernel_helper
def _year(data: np.ndarray, start: int, end: int) -> int:
    """The year of the document path [start, end): 4 digits after its first `/`, followed by
    `/`, `.` or the end; NO_YEAR otherwise."""
    slash = start
    while slash < end and data[slash] != _SLASH:
        slash += 1
    after = slash + 5
    if slash == end or after > end:
        return NO_YEAR
    year = 0
    for at in range(slash + 1, after):
        digit = np.int64(data[at]) - _ZERO
        if digit < 0 or digit > 9:
            return NO_YEAR
        year = year * 10 + digit
    if after < end and data[after] != _SLASH and data[after] != _DOT:
        return NO_YEAR
    return year


@kernel_helper
def _is_one_id(data: np.ndarray, start: int, end: int) -> bool:
    """Whether the field [start, end) is one id: not empty, no space."""
    if end == start:
        return False
    for at in range(start, end):
        if data[at] == _SPACE:
            return False
    return True


@njit(nogil=True, cache=True)
def _parse_ids(data, starts, ends, one_to_one, years):
    """Fill `one_to_one` and `years` (lines, 2) from the `.ids` lines [starts, ends); returns
    (-1, 0), or the first line without four tab-separated fields and its number of fields."""
    for line in range(len(starts)):
        start, end = starts[line], ends[line]
        if end > start and data[end - 1] == _RETURN:
            end -= 1
        tabs = np.empty(3, np.int64)
        found = 0
        for at in range(start, ends[line]):
            if data[at] == _TAB:
                if found < 3:
                    tabs[found] = at
                found += 1
        if found != 3:
            return line, found + 1
        years[line, 0] = _year(data, start, tabs[0])
        years[line, 1] = _year(data, tabs[0] + 1, tabs[1])
        one_to_one[line] = (_is_one_id(data, tabs[1] + 1, tabs[2])
                            and _is_one_id(data, tabs[2] + 1, end))
    return -1, 0


def parse_ids(lines: Lines, ref: FileRef) -> IdsColumns:
    """The `.ids` fields of a chunk, by a kernel over its bytes."""
    one_to_one = np.empty(len(lines), np.bool_)
    years = np.empty((len(lines), 2), np.int16)
    bad, fields = in_background(_parse_ids, np.frombuffer(lines.data, np.uint8), lines.starts,
                                lines.ends, one_to_one, years, size=len(lines.data))
    if bad >= 0:
        raise InputError(ref, f"expected 4 tab-separated fields, found {fields}",
                         f"line {lines.first_line + bad}", kind="malformed ids")
    return IdsColumns(one_to_one, (years[:, 0], years[:, 1]))


@dataclass
class MosesChunk:
    """Consecutive links of a Moses bitext: each side's raw lines (with their newline) and what
    the `.ids` file says of them (without one, every line is a 1:1 link without a year)."""

    texts: tuple[pa.Array, pa.Array]
    ids: IdsColumns

    def __len__(self) -> int:
        return len(self.ids.one_to_one)


def moses_chunks(source: Path, pair: tuple[str, str], lines_per_chunk: int = LINES_PER_CHUNK,
                 bad_line: Callable[[InputError], None] | None = None) -> Iterator[MosesChunk]:
    """The links of a Moses bitext in chunks; the sides are in the order of `pair`. A text line
    too long, not UTF-8 or holding a control character goes to `bad_line` (raised by default)
    and reads as empty."""
    first, second, ids = moses_files(source, pair)
    readers = [LineChunks(first, BLOCK_BYTES, bad_line), LineChunks(second, BLOCK_BYTES, bad_line)]
    if ids is not None:
        readers.append(LineChunks(ids, BLOCK_BYTES))
    try:
        while True:
            parts = [reader.take(lines_per_chunk) for reader in readers]
            if len({len(part) for part in parts}) > 1:
                short = min(readers, key=lambda reader: reader.line)
                raise InputError(short.ref, "fewer lines than the other files of the bitext",
                                 f"line {short.line}", kind="malformed Moses")
            if not len(parts[0]):
                return
            texts = (parts[0].strings(), parts[1].strings())
            if len(parts) == 3:
                ids = parse_ids(parts[2], readers[2].ref)
            else:
                none = np.full(len(parts[0]), NO_YEAR, np.int16)
                ids = IdsColumns(np.ones(len(parts[0]), bool), (none, none))
            yield MosesChunk(texts, ids)
    finally:
        for reader in readers:
            reader.close()


@dataclass
class OneToOneLinks:
    """The 1:1 links of a Moses bitext whose two lines have a text (within a length limit,
    if any), as codes.

    `keys[side]` are the distinct cleaned texts of a side (:func:`clean_line`) in order of first
    appearance among the links kept, as an Arrow string array; `codes[side]` index them, one
    per link; `years[side]` is the year of that side's document (NO_YEAR when none).
    """

    keys: tuple[pa.Array, pa.Array]
    codes: tuple[np.ndarray, np.ndarray]
    years: tuple[np.ndarray, np.ndarray]
    links: int
    one_to_one: int
    empty_text: int
    long_text: int = 0


# Lines :func:`clean_line` changes: whitespace at an end (any that str.strip removes), or a tab,
# two spaces or a carriage return inside. Only these go through Python.
_NEEDS_CLEANING = rf"^[{WHITESPACE_RE2}]|[{WHITESPACE_RE2}]$|\t|  |\r"


def _cleaned(texts: pa.Array) -> pa.Array:
    """:func:`clean_line` of every text; Python runs only on the texts it changes."""
    changed = pc.match_substring_regex(texts, _NEEDS_CLEANING).to_numpy(zero_copy_only=False)
    if not changed.any():
        return texts
    rows = np.flatnonzero(changed)
    replacements = pa.array([clean_line(text) for text in texts.take(rows).to_pylist()],
                            pa.large_string())
    return pc.replace_with_mask(texts, pa.array(changed), replacements)


class _SideCodes:
    """Codes of one side's lines across chunks: chunk-local Arrow dictionaries, unified once."""

    def __init__(self) -> None:
        self.indices: list[np.ndarray] = []
        self.dictionaries: list[pa.Array] = []

    def add(self, texts: pa.Array) -> None:
        encoded = pc.utf8_rtrim(texts, characters="\n").dictionary_encode()
        self.indices.append(encoded.indices.to_numpy(zero_copy_only=False))
        self.dictionaries.append(encoded.dictionary)

    def cleaned(self) -> tuple[pa.Array, np.ndarray]:
        """Distinct cleaned texts (first appearance) and each line's code into them. The
        chunks' dictionaries are let go as they are merged."""
        offsets = np.cumsum([0] + [len(d) for d in self.dictionaries[:-1]], dtype=np.int64)
        distinct, raw_code = dictionary_encoded(self.dictionaries)
        self.dictionaries = []
        lines = np.concatenate([raw_code[indices + offset] for indices, offset
                                in zip(self.indices, offsets)] or [np.zeros(0, np.int32)])
        self.indices = []
        release_freed_memory()
        clean = _cleaned(distinct)
        if clean is distinct:  # nothing to clean: the texts are distinct already
            return distinct, lines
        encoded = clean.dictionary_encode()
        return encoded.dictionary, encoded.indices.to_numpy(zero_copy_only=False)[lines]


def _first_appearance(codes: np.ndarray, keys: pa.Array) -> tuple[np.ndarray, pa.Array]:
    renumbered, firsts = first_occurrences(codes.astype(np.int64))
    return renumbered.astype(np.int32), keys.take(pa.array(codes[firsts]))


def one_to_one_link_pieces(source: Path, pair: tuple[str, str], lines_per_piece: int | None,
                           lines_per_chunk: int = LINES_PER_CHUNK,
                           bad_line: Callable[[InputError], None] | None = None,
                           max_length: int | None = None) -> Iterator[OneToOneLinks]:
    """The 1:1 links of a Moses bitext with a text on both sides, of at most `max_length` code
    points (None: any length), sides in `pair` order (a bad line: see :func:`moses_chunks`), in
    consecutive pieces of the bitext, each of whole chunks (of at most `lines_per_piece` lines)
    and at least `lines_per_piece` lines but the last (None: one piece), so that what is held
    follows a piece, not the bitext; at least one."""
    piece, pieces = _Piece(), 0
    chunk_lines = min(lines_per_chunk, lines_per_piece or lines_per_chunk)
    for chunk in moses_chunks(source, pair, chunk_lines, bad_line):
        piece.add(chunk)
        if lines_per_piece and piece.links >= lines_per_piece:
            yield piece.links_kept(max_length)
            piece, pieces = _Piece(), pieces + 1
    if piece.links or not pieces:
        yield piece.links_kept(max_length)


class _Piece:
    """The chunks of a piece of a bitext: each side's codes, the years of its 1:1 links."""

    def __init__(self) -> None:
        self.sides, self.years, self.links = (_SideCodes(), _SideCodes()), ([], []), 0

    def add(self, chunk: MosesChunk) -> None:
        self.links += len(chunk)
        keep = pa.array(chunk.ids.one_to_one)
        for side, texts in zip(self.sides, chunk.texts):
            side.add(texts.filter(keep))
        for kept, side_years in zip(self.years, chunk.ids.years):
            kept.append(side_years[chunk.ids.one_to_one])

    def links_kept(self, max_length: int | None) -> OneToOneLinks:
        (first_keys, first), (second_keys, second) = (side.cleaned() for side in self.sides)
        empty = (_is_empty(first_keys)[first]) | (_is_empty(second_keys)[second])
        long = ~empty & (_is_longer(first_keys, max_length)[first]
                         | _is_longer(second_keys, max_length)[second])
        used = ~(empty | long)
        first_codes, first_keys = _first_appearance(first[used], first_keys)
        second_codes, second_keys = _first_appearance(second[used], second_keys)
        kept_years = tuple(np.concatenate(side or [np.zeros(0, np.int16)])[used]
                           for side in self.years)
        return OneToOneLinks((first_keys, second_keys), (first_codes, second_codes),
                             kept_years, self.links, len(empty), int(empty.sum()),
                             int(long.sum()))


def _is_empty(keys: pa.Array) -> np.ndarray:
    return pc.equal(pc.utf8_length(keys), 0).to_numpy(zero_copy_only=False)


def _is_longer(keys: pa.Array, max_length: int | None) -> np.ndarray:
    if not max_length:
        return np.zeros(len(keys), bool)
    return pc.greater(pc.utf8_length(keys), max_length).to_numpy(zero_copy_only=False)
