"""Text keys that decide when two sentences count as the same.

- :func:`surface_key` (graph step 2): typographic punctuation mapped to ASCII (unidecode for
  punctuation characters: ’ → ', “ → ", … → ..., – → -), quotation marks removed, ``!`` made
  ``.``. Sentences of one language with equal keys get a surface-similarity edge.
- :func:`near_identical_key` (filter c): NFKC, casefold, every punctuation (Unicode P*) and
  space character dropped.

Both tables are built once over all of Unicode; ASCII text takes a fast path, so keying
millions of sentences costs well under a microsecond each. :class:`SurfaceHashes` holds the
surface keys of many texts as hashes, computed in numpy over their bytes: the reading processes
compute them while the texts are at hand, so the graph step does not walk millions of texts
again.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from itertools import islice

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


# A surface key hashes as the sum of its UTF-8 bytes times powers of an odd base (byte i times
# _HASH_BASE**i, modulo 2**64), xor its length times another constant: computed in numpy over
# many keys at once, and the same in every process (Python's str hashes are salted per
# interpreter). Collisions cost time, not correctness: the graph checks every edge's keys.
_HASH_BASE = 0x100000001B3
_HASH_LENGTH = 0x9E3779B97F4A7C15
_HASH_TEXTS = 1 << 14  # texts hashed together: their arrays stay a few MB
_base_powers_table = [np.ones(1, np.uint64)]


def _base_powers(count: int) -> np.ndarray:
    """_HASH_BASE**i modulo 2**64 for i in 0..count-1 (at least), kept for the next call."""
    powers = _base_powers_table[0]
    while len(powers) < count:
        powers = np.concatenate([powers, powers * np.uint64(pow(_HASH_BASE, len(powers), 1 << 64))])
    _base_powers_table[0] = powers
    return powers


def _concatenated_hashes(data: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The hashes of the byte strings laid end to end in `data` (uint8), of these lengths."""
    starts = np.cumsum(lengths) - lengths
    sums = np.zeros(len(lengths), np.uint64)
    nonempty = np.flatnonzero(lengths)
    if len(nonempty):
        position = np.arange(len(data)) - np.repeat(starts, lengths)
        terms = data.astype(np.uint64) * _base_powers(int(lengths.max()))[position]
        sums[nonempty] = np.add.reduceat(terms, starts[nonempty])
    return sums ^ (lengths.astype(np.uint64) * np.uint64(_HASH_LENGTH))


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _punctuation_mapped(texts: list[str], joined: str) -> str:
    """The texts `joined`, their non-ASCII punctuation mapped as :func:`surface_key` maps it:
    on the joined string where most texts are not ASCII, else text by text (the pattern scans
    long ASCII runs 2-3x slower than checking texts with str.isascii)."""
    if joined.isascii():
        return joined
    plain = [text.isascii() for text in texts]
    if sum(plain) * 2 < len(texts):
        return _surface_pattern().sub(_surface_replacement, joined)
    replace_non_ascii = partial(_surface_pattern().sub, _surface_replacement)
    return "\n".join([text if ascii_text else replace_non_ascii(text)
                      for text, ascii_text in zip(texts, plain)])


def _surface_hashes_of_batch(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Hashes and byte lengths of the texts' surface keys: keyed as one joined string, whose
    separators are then dropped from its bytes (one by one where a text holds a newline)."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        encoded = [_encoded(key) for key in surface_keys(texts)]
        data = np.frombuffer(b"".join(encoded), np.uint8)
        lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    else:
        keys = _punctuation_mapped(texts, joined).replace('"', "").replace("!", ".")
        data = np.frombuffer(_encoded(keys), np.uint8)
        separator = data == ord("\n")
        lengths = np.diff(np.flatnonzero(separator), prepend=-1, append=len(data)) - 1
        data = data[~separator]
    return _concatenated_hashes(data, lengths), lengths


@dataclass(frozen=True)
class SurfaceHashes:
    """The hash of each text's surface key (int64) and whether that key is nonempty."""

    hashes: np.ndarray
    nonempty: np.ndarray

    @classmethod
    def of(cls, texts: Iterable[str]) -> SurfaceHashes:
        texts = iter(texts)
        hashes, lengths = [np.zeros(0, np.uint64)], [np.zeros(0, np.int64)]
        while batch := list(islice(texts, _HASH_TEXTS)):
            batch_hashes, batch_lengths = _surface_hashes_of_batch(batch)
            hashes.append(batch_hashes)
            lengths.append(batch_lengths)
        return cls(np.concatenate(hashes).view(np.int64), np.concatenate(lengths) > 0)

    @classmethod
    def concatenate(cls, parts: Sequence[SurfaceHashes]) -> SurfaceHashes:
        """One row after another."""
        return cls(np.concatenate([np.zeros(0, np.int64), *(part.hashes for part in parts)]),
                   np.concatenate([np.zeros(0, bool), *(part.nonempty for part in parts)]))

    def take(self, rows: np.ndarray) -> SurfaceHashes:
        return SurfaceHashes(self.hashes[rows], self.nonempty[rows])
