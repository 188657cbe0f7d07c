"""Text keys that decide when two sentences count as the same.

- :func:`surface_key` (graph step 2): typographic punctuation mapped to ASCII (unidecode for
  punctuation characters: ’ → ', “ → ", … → ..., – → -), quotation marks removed, ``!`` made
  ``.``. Sentences of one language with equal keys get a surface-similarity edge.
- :func:`near_identical_key` (filter c): NFKC, casefold, every punctuation (Unicode P*) and
  space character dropped.

Both tables are built once over all of Unicode; ASCII text takes a fast path, so keying
millions of sentences costs well under a microsecond each. :class:`SurfaceHashes` holds the
surface keys of many texts as hashes: the reading processes compute them while the texts are
at hand, so the graph step does not walk millions of texts again.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
import regex
from unidecode import unidecode

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


@cache
def _dropped_mask() -> np.ndarray:
    """Whether :func:`near_identical_key` drops each code point (from the Unicode path)."""
    mask = np.zeros(sys.maxunicode + 1, bool)
    mask[list(_dropped_table())] = True
    return mask


_BATCH_SEPARATOR = "\x00"  # neither punctuation nor space in any table, kept by NFKC and casefold
_BATCH_TEXTS = 1 << 16  # the joined strings and code arrays of a batch stay a few MB


def near_identical_keys(texts: Sequence[str]) -> list[str]:
    """:func:`near_identical_key` of every text, 2-3x faster: in batches, ASCII texts
    lowercased and stripped as one joined string; the others normalised one by one, then
    joined and stripped as an array of code points."""
    keys: list[str] = []
    for start in range(0, len(texts), _BATCH_TEXTS):
        keys += _near_identical_batch(texts[start:start + _BATCH_TEXTS])
    return keys


def _near_identical_batch(texts: Sequence[str]) -> list[str]:
    joined = _BATCH_SEPARATOR.join(texts)
    if joined.count(_BATCH_SEPARATOR) != max(len(texts) - 1, 0):
        return [near_identical_key(text) for text in texts]
    if joined.isascii():
        return _ascii_near_identical_key(joined).split(_BATCH_SEPARATOR) if texts else []
    is_ascii = [text.isascii() for text in texts]
    normalize = partial(unicodedata.normalize, "NFKC")
    others = _BATCH_SEPARATOR.join([normalize(text).casefold()
                                    for text, plain in zip(texts, is_ascii) if not plain])
    try:
        codes = np.frombuffer(others.encode("utf-32-le"), np.uint32)
    except UnicodeEncodeError:  # a lone surrogate
        return [near_identical_key(text) for text in texts]
    other_keys = iter(codes[~_dropped_mask()[codes]].tobytes().decode("utf-32-le")
                      .split(_BATCH_SEPARATOR))
    plain = _BATCH_SEPARATOR.join([text for text, plain in zip(texts, is_ascii) if plain])
    plain_keys = iter(_ascii_near_identical_key(plain).split(_BATCH_SEPARATOR))
    return [next(plain_keys) if ascii_text else next(other_keys) for ascii_text in is_ascii]


def surface_keys(texts: Iterable[str]) -> list[str]:
    """:func:`surface_key` of every text (one comprehension: no Python call per ASCII text)."""
    replace_non_ascii = partial(_surface_pattern().sub, _surface_replacement)
    return [(text if text.isascii() else replace_non_ascii(text)).replace('"', "")
            .replace("!", ".") for text in texts]


# Python salts str hashes per interpreter: hashes compare only within a process and its forks.
_SALT_PROBE = "tapaco surface key"


@dataclass(frozen=True)
class SurfaceHashes:
    """``hash()`` of each text's surface key (int64) and whether that key is nonempty."""

    hashes: np.ndarray
    nonempty: np.ndarray
    salt: int

    @classmethod
    def of(cls, texts: Iterable[str]) -> SurfaceHashes:
        keys = surface_keys(texts)
        hashes = np.fromiter(map(hash, keys), np.int64, len(keys))
        # an empty key hashes as "" does: only keys with that hash need looking at
        nonempty = hashes != hash("")
        maybe_empty = np.flatnonzero(~nonempty).tolist()
        nonempty[maybe_empty] = [keys[index] != "" for index in maybe_empty]
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
