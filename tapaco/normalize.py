"""Text keys that decide when two sentences count as the same.

- :func:`surface_key` (graph step 2): typographic punctuation mapped to ASCII (unidecode for
  punctuation characters: ’ → ', “ → ", … → ..., – → -), quotation marks removed, ``!`` made
  ``.``. Sentences of one language with equal keys get a surface-similarity edge.
- :func:`near_identical_key` (filter c): NFKC, casefold, every punctuation (Unicode P*) and
  space character dropped.

Both tables are built once over all of Unicode; ASCII text takes a fast path, so keying
millions of sentences costs well under a microsecond each. :class:`SurfaceHashes` holds the
surface keys of many texts as hashes: the reading processes compute them while the texts are
at hand (:class:`SurfaceHasher`, as each chunk of a document is read), so the graph step does
not walk millions of texts again.
"""

from __future__ import annotations

import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
import regex
from unidecode import unidecode

from tapaco import normalize_kernels
from tapaco.core.arrays import code_points, group_starts, index_ranges

_PUNCTUATION_OR_SPACE = regex.compile(r"[\p{P}\s]")


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def _ascii_punctuation(char: str) -> str:
    name = unicodedata.name(char, "")
    if "QUOTATION MARK" in name:
        return "'" if "SINGLE" in name else '"'
    ascii_form = unidecode(char).strip()
    return ascii_form if ascii_form and all(_is_punctuation(c) for c in ascii_form) else char


@cache
def _surface_table() -> dict[int, str]:
    table = {}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if not _is_punctuation(char):
            continue
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


_ASCII_DROPPED = bytes(c for c in range(128) if _is_punctuation(chr(c)) or chr(c).isspace())


def surface_key(text: str) -> str:
    """The text with punctuation normalised for surface-similarity links."""
    if not text.isascii():
        text = _surface_pattern().sub(_surface_replacement, text)
    return text.replace('"', "").replace("!", ".")


@cache
def _dropped_table() -> dict[int, None]:
    r"""Every character of the regex module's ``[\p{P}\s]`` (its Unicode tables, which may be
    newer than unicodedata's), as a str.translate table that drops them (faster than
    substituting the pattern)."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    return dict.fromkeys(map(ord, _PUNCTUATION_OR_SPACE.findall(every)))


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
    for code in range(sys.maxunicode + 1):
        decomposition = unicodedata.decomposition(chr(code))
        if decomposition and decomposition[0] != "<" and decomposition.count(" ") == 1:
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
        folded = "".join(c for c in char.casefold() if not _PUNCTUATION_OR_SPACE.match(c))
        if (0xD800 <= code < 0xE000 or (code < 128 and _ascii_near_identical_key(char) != folded)
                or unicodedata.normalize("NFKC", char) != char
                or unicodedata.combining(char) or code in self._seconds
                or len(folded) > normalize_kernels.MAX_FOLDED):
            return
        self.decidable[code] = True
        self.folded_length[code] = len(folded)
        self.folded[code, :len(folded)] = [ord(c) for c in folded]


@cache
def _near_identical_tables() -> NearIdenticalTables:
    return NearIdenticalTables()


def _near_identical_key_ranges(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The near-identical keys of the texts as code points, and each text's start and end in
    them: from the kernel, or from :func:`near_identical_key` for the texts it leaves."""
    codes, offsets = code_points(texts)
    tables = _near_identical_tables()
    tables.cover(codes)
    keys, key_offsets, undecided = normalize_kernels.key_codes(
        codes, offsets, tables.decidable, tables.folded, tables.folded_length)
    starts, ends = key_offsets[:-1].copy(), key_offsets[1:].copy()
    rows = np.flatnonzero(undecided)
    if len(rows):
        extra_codes, extra_offsets = _reference_key_codes([texts[row] for row in rows.tolist()],
                                                          tables)
        starts[rows] = len(keys) + extra_offsets[:-1]
        ends[rows] = len(keys) + extra_offsets[1:]
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
    return normalize_kernels.without_dropped(codes, offsets, tables.dropped, plain)


def near_identical_keys(texts: Sequence[str]) -> list[str]:
    """:func:`near_identical_key` of every text, by the compiled kernel."""
    keys, starts, ends = _near_identical_key_ranges(texts)
    joined = keys.astype("<i4").tobytes().decode("utf-32-le", "surrogatepass")
    return [joined[start:end] for start, end in zip(starts.tolist(), ends.tolist())]


def first_near_identical(groups: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """Filter (c): True for the first text of each near-identical key in its group (the rows
    of a group are contiguous)."""
    keys, starts, ends = _near_identical_key_ranges(texts)
    set_offsets = np.r_[np.flatnonzero(group_starts(np.asarray(groups))), len(texts)]
    return normalize_kernels.first_of_each_key(keys, starts, ends, set_offsets)


def surface_keys(texts: Iterable[str]) -> list[str]:
    """:func:`surface_key` of every text (one comprehension: no Python call per ASCII text)."""
    replace_non_ascii = partial(_surface_pattern().sub, _surface_replacement)
    return [(text if text.isascii() else replace_non_ascii(text)).replace('"', "")
            .replace("!", ".") for text in texts]


@cache
def _changed_code_points() -> np.ndarray:
    """Whether :func:`surface_key` changes each code point."""
    changed = np.zeros(sys.maxunicode + 1, bool)
    changed[list(_surface_table())] = True
    return changed


@cache
def _changed_first_bytes() -> list[tuple[int, int]]:
    """Runs [low, high] of the first UTF-8 bytes of the characters :func:`surface_key`
    changes."""
    runs: list[list[int]] = []
    for byte in sorted({chr(code).encode()[0] for code in _surface_table()}):
        if runs and runs[-1][1] == byte - 1:
            runs[-1][1] = byte
        else:
            runs.append([byte, byte])
    return [(low, high) for low, high in runs]


def _code_points_at(data: np.ndarray, leads: np.ndarray) -> np.ndarray:
    """The code point of each UTF-8 sequence of two or more bytes starting at `leads`."""
    last = len(data) - 1
    lead = data[leads].astype(np.int32)
    b1, b2, b3 = ((data[np.minimum(leads + k, last)] & 0x3F).astype(np.int32) for k in (1, 2, 3))
    return np.where(lead < 0xE0, ((lead & 0x1F) << 6) | b1,
                    np.where(lead < 0xF0, ((lead & 0x0F) << 12) | (b1 << 6) | b2,
                             ((lead & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3))


def _changed_at(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets in UTF-8 `data` of the ASCII and of the other characters :func:`surface_key`
    changes: the bytes that may begin one (compared by runs, faster than a table lookup per
    byte), then the code points of the non-ASCII ones looked up."""
    may_begin = np.zeros(len(data), bool)
    for low, high in _changed_first_bytes():
        may_begin |= (data == low) if low == high else (data >= low) & (data <= high)
    at = np.flatnonzero(may_begin)
    is_ascii = data[at] < 0x80
    wide = at[~is_ascii]
    return at[is_ascii], wide[_changed_code_points()[_code_points_at(data, wide)]]


class SurfaceHasher:
    """``hash()`` of texts' surface keys as documents are read (a
    :class:`tapaco.core.opus.documents.TextHasher`): a text whose key is the text itself, as
    most are, is hashed as it is, and only the others are keyed."""

    def texts(self, texts: list[str]) -> np.ndarray:
        return np.fromiter(map(hash, surface_keys(texts)), np.int64, len(texts))

    def joined(self, texts: list[str], joined: bytes, exact: np.ndarray) -> np.ndarray:
        """Texts changed only in ASCII (`"`, `!`) are keyed together on their bytes; texts
        with a non-ASCII change, or not exact, one by one."""
        hashes = np.fromiter(map(hash, texts), np.int64, len(texts))
        data = np.frombuffer(joined, np.uint8)
        ends = np.flatnonzero(data == ord("\n"))
        ascii_changed, wide_changed = _changed_at(data)
        keyed = ~exact
        keyed[np.searchsorted(ends, wide_changed)] = True
        translated = np.zeros(len(texts), bool)
        translated[np.searchsorted(ends, ascii_changed)] = True
        rows = np.flatnonzero(translated & ~keyed)
        if len(rows):
            starts = np.concatenate([[0], ends[:-1] + 1])[rows]
            table, deleted = _ascii_surface_translation()
            lines = data[index_ranges(starts, ends[rows] + 1 - starts)].tobytes()
            keys = lines.translate(table, deleted).decode("utf-8").split("\n")[:-1]
            hashes[rows] = np.fromiter(map(hash, keys), np.int64, len(keys))
        for index in np.flatnonzero(keyed).tolist():
            hashes[index] = hash(surface_key(texts[index]))
        return hashes


@cache
def _ascii_surface_translation() -> tuple[bytes, bytes]:
    """What :func:`surface_key` does to ASCII characters (each maps to one character or
    none), as a bytes.translate table and the bytes it deletes."""
    table, deleted = bytearray(range(256)), bytearray()
    for code, mapped in _surface_table().items():
        if code < 0x80:
            if mapped:
                table[code] = ord(mapped)
            else:
                deleted.append(code)
    return bytes(table), bytes(deleted)


# Python salts str hashes per interpreter: hashes compare only within a process and its forks.
_SALT_PROBE = "tapaco surface key"


@dataclass(frozen=True)
class SurfaceHashes:
    """``hash()`` of each text's surface key (int64) and whether that key is nonempty."""

    hashes: np.ndarray
    nonempty: np.ndarray
    salt: int

    @classmethod
    def of(cls, texts: Sequence[str]) -> SurfaceHashes:
        return cls.of_hashes(SurfaceHasher().texts(list(texts)), texts.__getitem__)

    @classmethod
    def of_hashes(cls, hashes: np.ndarray, text_at: Callable[[int], str]) -> SurfaceHashes:
        """From the hashes of texts' surface keys, made in this process (`text_at`: the text of
        a row, looked at only where its hash is that of "")."""
        nonempty = hashes != hash("")
        maybe_empty = np.flatnonzero(~nonempty).tolist()
        nonempty[maybe_empty] = [surface_key(text_at(row)) != "" for row in maybe_empty]
        return cls(hashes, nonempty, hash(_SALT_PROBE))

    @classmethod
    def concatenate(cls, parts: Sequence[SurfaceHashes]) -> SurfaceHashes:
        """One row after another; parts hashed by another interpreter are refused."""
        salt = hash(_SALT_PROBE)
        if any(part.salt != salt for part in parts):
            raise ValueError("surface hashes from another interpreter (another str hash salt)")
        if not parts:
            return cls(np.zeros(0, np.int64), np.zeros(0, bool), salt)
        return cls(np.concatenate([part.hashes for part in parts]),
                   np.concatenate([part.nonempty for part in parts]), salt)

    def take(self, rows: np.ndarray) -> SurfaceHashes:
        return SurfaceHashes(self.hashes[rows], self.nonempty[rows], self.salt)

    def usable(self) -> bool:
        """Whether these hashes compare with hashes made in this process."""
        return self.salt == hash(_SALT_PROBE)
