"""Text keys that decide when two sentences count as the same.

- :func:`surface_key` (graph step 2): typographic punctuation mapped to ASCII (unidecode for
  punctuation characters: ’ → ', “ → ", … → ..., – → -), quotation marks removed, ``!`` made
  ``.``. Sentences of one language with equal keys get a surface-similarity edge.
- :func:`near_identical_key` (filter c): NFKC, casefold, every punctuation (Unicode P*) and
  whitespace character (:mod:`tapaco.core.characters`, for ASCII and other text alike) dropped.

Both functions are the readable references. For millions of texts, compiled kernels
(:mod:`tapaco.normalize_kernels`) do the same from per-code-point tables, over the texts' UTF-8
(:mod:`tapaco.core.text_column`): filter (c) with :func:`first_near_identical`, and
:class:`SurfaceHashes`, the surface keys of many texts as hashes.
"""

from __future__ import annotations

import re
import sys
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
import regex
from unidecode import unidecode

from tapaco import normalize_kernels
from tapaco.core.arrays import code_points, group_offsets
from tapaco.core.characters import WHITESPACE
from tapaco.core.forked import map_on_threads
from tapaco.core.hashing import FNV_OFFSET, mixed
from tapaco.core.interruptible import in_background
from tapaco.core.text_column import TextColumn

_PUNCTUATION_OR_SPACE = regex.compile(r"[\p{P}" + regex.escape(WHITESPACE) + "]")


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def _ascii_punctuation(char: str) -> str:
    name = unicodedata.name(char, "")
    if "QUOTATION MARK" in name:
        return "'" if "SINGLE" in name else '"'
    ascii_form = unidecode(char).strip()
    return ascii_form if ascii_form and all(_is_punctuation(c) for c in ascii_form) else char


@cache
def _every_character() -> str:
    """Every code point, in order, as one string (scanned by C loops: `map`, `filter`, regular
    expressions; a Python call per code point would take seconds)."""
    return "".join(map(chr, range(sys.maxunicode + 1)))


@cache
def _surface_table() -> dict[int, str]:
    table = {}
    every = _every_character()
    categories = list(map(unicodedata.category, every))
    for char in [char for char, category in zip(every, categories) if category[0] == "P"]:
        code = ord(char)
        mapped = _ascii_punctuation(char) if code > 127 else char
        mapped = mapped.replace('"', "").replace("!", ".")
        if mapped != char:
            table[code] = mapped
    return table


@cache
def _surface_pattern() -> re.Pattern:
    mapped = (chr(code) for code in _surface_table() if code > 127)
    return re.compile("[" + "".join(map(re.escape, mapped)) + "]")


def _surface_replacement(match: re.Match) -> str:
    return _surface_table()[ord(match.group())]


_ASCII_DROPPED = bytes(c for c in range(128) if _is_punctuation(chr(c)) or chr(c) in WHITESPACE)


def surface_key(text: str) -> str:
    """The text with punctuation normalised for surface-similarity links."""
    if not text.isascii():
        text = _surface_pattern().sub(_surface_replacement, text)
    return text.replace('"', "").replace("!", ".")


@cache
def _dropped_table() -> dict[int, None]:
    """Every punctuation character (by the regex module's Unicode tables, which may be newer
    than unicodedata's) and whitespace character, as a str.translate table that drops them
    (faster than substituting the pattern)."""
    return dict.fromkeys(map(ord, _PUNCTUATION_OR_SPACE.findall(_every_character())))


def _ascii_near_identical_key(text: str) -> str:
    """:func:`near_identical_key` of ASCII text (or of ASCII texts joined by a character kept)."""
    return text.lower().encode().translate(None, _ASCII_DROPPED).decode()


def near_identical_key(text: str) -> str:
    """The text reduced to what near-identical sentences share."""
    if text.isascii():
        return _ascii_near_identical_key(text)
    return unicodedata.normalize("NFKC", text).casefold().translate(_dropped_table())


def _composing_seconds() -> frozenset[int]:
    """Code points that NFC may compose with the character before them although they are no
    combining marks (the second half of a primary composite, and Hangul's vowel and trailing
    jamo)."""
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for decomposition in filter(None, map(unicodedata.decomposition, _every_character())):
        if decomposition[0] != "<" and decomposition.count(" ") == 1:
            seconds.add(int(decomposition.split()[1], 16))
    return frozenset(seconds)


class NearIdenticalTables:
    """What :func:`near_identical_key` does to each code point, for the compiled kernels: whether
    the code point alone decides it (NFKC keeps it, it is no combining mark and composes with
    nothing before it) and its case fold without punctuation and spaces. Filled for the code
    points met, once each; shared by threads."""

    def __init__(self) -> None:
        size = sys.maxunicode + 1
        self.known = np.zeros(size, bool)
        self.decidable = np.zeros(size, bool)
        self.folded = np.zeros((size, normalize_kernels.MAX_FOLDED), np.int32)
        self.folded_length = np.zeros(size, np.int8)
        self.dropped = np.zeros(size, bool)
        self._lock = threading.Lock()
        self._seconds: frozenset[int] = frozenset()
        self._fill(np.arange(128))

    def cover(self, codes: np.ndarray) -> None:
        """Fill the tables for every code point of `codes` not met before."""
        self._fill(normalize_kernels.unknown_code_points(codes, self.known))

    def _fill(self, codes: np.ndarray) -> None:
        if not len(codes):
            return
        with self._lock:
            if not self._seconds and codes[-1] >= 128:
                self._seconds = _composing_seconds()
            for code in codes.tolist():
                self._decide(code)
            self.known[codes] = True

    def _decide(self, code: int) -> None:
        char = chr(code)
        self.dropped[code] = bool(_PUNCTUATION_OR_SPACE.match(char))
        normalized = unicodedata.normalize("NFKC", char)
        folded = "".join(c for c in normalized.casefold() if not _PUNCTUATION_OR_SPACE.match(c))
        if (0xD800 <= code < 0xE000 or (code < 128 and _ascii_near_identical_key(char) != folded)
                or (normalized != char and not self._vanishes(normalized))
                or unicodedata.combining(char) or code in self._seconds
                or len(folded) > normalize_kernels.MAX_FOLDED):
            return
        self.folded_length[code] = len(folded)
        self.folded[code, :len(folded)] = [ord(c) for c in folded]
        self.decidable[code] = True  # last: threads read the tables as they fill

    def _vanishes(self, normalized: str) -> bool:
        """Whether a character NFKC makes `normalized` leaves nothing in a key, whatever is
        beside it: all punctuation or spaces, none a combining mark or composing with the
        character before (a full-width question mark, an ellipsis; a character after that
        composes with one of them is left to the reference itself)."""
        return all(_PUNCTUATION_OR_SPACE.match(c) and not unicodedata.combining(c)
                   and ord(c) not in self._seconds for c in normalized)


@cache
def _near_identical_tables() -> NearIdenticalTables:
    return NearIdenticalTables()


def _near_identical_key_ranges(texts: Sequence[str], rows: np.ndarray | None = None
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The near-identical keys of the texts (of `rows` of a column) as code points, and each
    text's start and end in them: from the kernel, or from :func:`near_identical_key` for the
    texts it leaves."""
    codes, offsets = code_points(texts) if rows is None else texts.code_points(rows)
    tables = _near_identical_tables()
    tables.cover(codes)
    keys, key_offsets, undecided = in_background(
        normalize_kernels.key_codes, codes, offsets, tables.decidable, tables.folded,
        tables.folded_length, size=len(codes))
    starts, ends = key_offsets[:-1].copy(), key_offsets[1:].copy()
    left = np.flatnonzero(undecided)
    if len(left):
        picked = left if rows is None else rows[left]
        extra_codes, extra_offsets = _reference_key_codes([texts[row] for row in picked.tolist()],
                                                          tables)
        starts[left] = len(keys) + extra_offsets[:-1]
        ends[left] = len(keys) + extra_offsets[1:]
        keys = np.concatenate([keys, extra_codes])
    return keys, starts, ends


def _reference_key_codes(texts: list[str],
                         tables: NearIdenticalTables) -> tuple[np.ndarray, np.ndarray]:
    """:func:`near_identical_key` of the texts as code points and offsets: normalised and
    case-folded by Python, then stripped of punctuation and spaces by the kernel."""
    plain = np.fromiter((text.isascii() for text in texts), bool, len(texts))
    folded = [_ascii_near_identical_key(text) if ascii_text
              else unicodedata.normalize("NFKC", text).casefold()
              for text, ascii_text in zip(texts, plain.tolist())]
    codes, offsets = code_points(folded)
    tables.cover(codes)
    return in_background(normalize_kernels.without_dropped, codes, offsets, tables.dropped,
                         plain, size=len(codes))


def near_identical_keys(texts: Sequence[str]) -> list[str]:
    """:func:`near_identical_key` of every text, by the compiled kernel."""
    keys, starts, ends = _near_identical_key_ranges(texts)
    joined = keys.astype("<i4").tobytes().decode("utf-32-le", "surrogatepass")
    return [joined[start:end] for start, end in zip(starts.tolist(), ends.tolist())]


def first_near_identical(groups: np.ndarray, texts: Sequence[str],
                         rows: np.ndarray | None = None) -> np.ndarray:
    """Filter (c): True for the first text of each near-identical key in its group (the rows
    of a group are contiguous); `rows`: the rows of `texts`, a column, filtered (all by
    default), read in place."""
    keys, starts, ends = _near_identical_key_ranges(texts, rows)
    return in_background(normalize_kernels.first_of_each_key, keys, starts, ends,
                         group_offsets(groups), size=len(keys))


def surface_keys(texts: Iterable[str]) -> list[str]:
    """:func:`surface_key` of every text (one comprehension: no Python call per ASCII text)."""
    replace_non_ascii = partial(_surface_pattern().sub, _surface_replacement)
    return [(text if text.isascii() else replace_non_ascii(text)).replace('"', "")
            .replace("!", ".") for text in texts]


@cache
def _surface_replacements() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`surface_key` does to each code point, for the kernels: the index of its
    replacement (-1: kept as it is), and the replacements' code points with their offsets."""
    table = _surface_table()
    replaced = np.full(sys.maxunicode + 1, -1, np.int32)
    replaced[list(table)] = np.arange(len(table))
    codes, offsets = code_points(list(table.values()))
    return replaced, offsets, codes


_HASH_CHUNK_ROWS = 1 << 18  # rows hashed per kernel call when several threads share them


def surface_hashes(texts: Sequence[str], workers: int = 1) -> np.ndarray:
    """The hash of each text's surface key, by a kernel over the texts' UTF-8 that replaces the
    characters :func:`surface_key` changes as it hashes: no key is built, and the hashes are
    the same in every interpreter. `workers` threads share chunks of rows."""
    column = TextColumn.of(texts)
    replacements = _surface_replacements()
    size = _HASH_CHUNK_ROWS if workers > 1 else max(len(column), 1)

    def chunk_hashes(start: int) -> np.ndarray:
        offsets = column.offsets[start:start + size + 1]
        return in_background(normalize_kernels.surface_hashes_of_utf8, column.data, offsets,
                             *replacements, size=len(offsets) - 1)

    return np.concatenate([np.zeros(0, np.int64), *map_on_threads(
        chunk_hashes, list(range(0, len(column), size)), workers)])


def empty_key_hash() -> int:
    """The surface hash of an empty text: FNV-1a's offset basis, mixed."""
    return int(mixed(FNV_OFFSET))


@dataclass(frozen=True)
class SurfaceHashes:
    """The hash of each text's surface key (int64, by :func:`surface_hashes`) and whether that
    key is nonempty."""

    hashes: np.ndarray
    nonempty: np.ndarray

    @classmethod
    def of(cls, texts: Sequence[str], workers: int = 1) -> SurfaceHashes:
        """The texts' hashes (on `workers` threads); a text whose hash is that of "" is keyed
        to tell."""
        hashes = surface_hashes(texts, workers)
        nonempty = hashes != empty_key_hash()
        maybe_empty = np.flatnonzero(~nonempty).tolist()
        nonempty[maybe_empty] = [surface_key(texts[row]) != "" for row in maybe_empty]
        return cls(hashes, nonempty)
