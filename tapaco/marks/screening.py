"""Which rows of a language file can be in a marked pair, found without keying sentences one by
one: the rows that share their plain key (their words as they are, joined) with another row of
their set, the sets holding a row that the table may give another trivial key (a word that
starts a contraction or a number word, or an apostrophe where the table has contractions), and
the rows holding a word that starts a feature's form, in a set with another such row.

A sentence holding no word of the table has one key, its plain key (trivial), and none of
features; one holding only feature forms has its plain key as its one trivial key. So a pair
of sentences can only be marked when they share their plain key, when one of them may get
another trivial key, or when both hold feature forms; marking pairs one at a time, the rows
left out are in no marked pair. The texts of a chunk are normalised and folded in one call over
them all, joined by newlines (NFKC goes line by line, folding character by character); a
compiled kernel then hashes each line's word and symbol characters and looks its words up among
the hashes of the table's first words. Equal keys give equal hashes, so the rows kept are a
superset of those in a marked pair (a hash collision only keeps a row more). This relies on
folding keeping each character's class (word, symbol, other), which a test checks over every
code point.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import regex
from numba import njit

from tapaco.core.arrays import group_starts
from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, hash_range, mixed
from tapaco.marks.rules import Rules, folded, normalised

OTHER, SYMBOL, WORD = 0, 1, 2  # the classes of code points: neither, \p{S}, \w
FEATURE, TRIVIAL = 1, 2  # what the table may do to a text: neutralise it, give another trivial key
_NEWLINE, _APOSTROPHE = 10, 39
_LOW_BITS = 0xFFFF  # the hash bits of a first, quick look-up among the starts


@njit(nogil=True, cache=True)
def _is_start(starts: np.ndarray, value: np.int64) -> bool:
    at = np.searchsorted(starts, value)
    return at < len(starts) and starts[at] == value


@njit(nogil=True, cache=True)
def _rewrites(starts: tuple, value: np.int64) -> int:
    """What a token of hash `value` may do (FEATURE, TRIVIAL bits); `starts`: the filter of
    the low bits of start hashes, the feature starts and the trivial starts (sorted)."""
    maybe, feature_starts, trivial_starts = starts
    if not maybe[value & _LOW_BITS]:  # most words: no binary search
        return 0
    return ((FEATURE if _is_start(feature_starts, value) else 0)
            | (TRIVIAL if _is_start(trivial_starts, value) else 0))


@njit(nogil=True, cache=True)
def line_keys(codes, classes, starts, apostrophes_count, lines):
    """For each of the `lines` lines of `codes` (folded code points, lines separated by
    newlines): the hash of its word and symbol characters in order, and what the table may do
    to it: FEATURE if one of its tokens (a run of word characters, or one symbol) hashes to a
    feature start, plus TRIVIAL if one hashes to a trivial start (`starts`:
    :func:`_start_hashes`) or, with `apostrophes_count`, it holds an apostrophe."""
    keys = np.empty(lines, np.int64)
    rewrites = np.zeros(lines, np.uint8)
    line, key, word, in_word = 0, FNV_OFFSET, FNV_OFFSET, False
    for at in range(len(codes) + 1):
        code = np.int64(codes[at]) if at < len(codes) else _NEWLINE
        kind = classes[code] if code != _NEWLINE else OTHER
        if kind == WORD:
            key, word, in_word = fnv1a_step(key, code), fnv1a_step(word, code), True
            continue
        if in_word:
            rewrites[line] |= _rewrites(starts, mixed(word))
            word, in_word = FNV_OFFSET, False
        if kind == SYMBOL:
            key = fnv1a_step(key, code)
            rewrites[line] |= _rewrites(starts, mixed(fnv1a_step(FNV_OFFSET, code)))
        elif code == _APOSTROPHE:
            if apostrophes_count:
                rewrites[line] |= TRIVIAL
        elif code == _NEWLINE:
            keys[line] = mixed(key)
            key, line = FNV_OFFSET, line + 1
    return keys, rewrites


@cache
def code_point_classes() -> np.ndarray:
    """The class of every code point: WORD (\\w), SYMBOL (\\p{S}) or OTHER."""
    codes = np.arange(0x110000, dtype=np.uint32)
    codes[0xD800:0xE000] = 0  # surrogates: no text holds them
    text = regex.sub(r"[^\w\p{S}]", "\x00", codes.tobytes().decode("utf-32-le"))
    text = regex.sub(r"\p{S}", chr(SYMBOL), regex.sub(r"\w", chr(WORD), text))  # Ⓐ: a word
    return np.frombuffer(text.encode("utf-32-le"), np.uint32).astype(np.uint8)


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), np.uint32)


def _hashes(words: set[str]) -> np.ndarray:
    return np.sort(np.array([hash_range(_code_points(word), 0, len(word)) for word in words],
                            np.int64))


@cache
def _start_hashes(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whether a hash's low bits are those of a start; the sorted hashes of the first words of
    the table's feature forms, and of its contractions and number words."""
    features, trivial = _hashes(rules.feature_starts), _hashes(rules.trivial_starts)
    maybe = np.zeros(_LOW_BITS + 1, np.bool_)
    maybe[np.concatenate([features, trivial]) & _LOW_BITS] = True
    return maybe, features, trivial


def line_screen(rules: Rules, joined: str, lines: int) -> tuple[np.ndarray, np.ndarray] | None:
    """For each text of `joined` (`lines` texts joined by newlines): the hash of its plain key,
    and what the table may do to it (FEATURE, TRIVIAL: bits); None when a text holds a newline
    of its own."""
    if lines == 0 or joined.count("\n") != lines - 1:
        return None
    text = normalised(joined)
    return line_keys(_code_points(folded(text, text)), code_point_classes(),
                     _start_hashes(rules), rules.contractions, lines)


def rows_to_mark(rules: Rules, set_ids: np.ndarray, joined: str) -> np.ndarray:
    """The rows (ascending) that can be in a marked pair: of a set of two rows or more, each
    row sharing its plain key with another, every row of a set holding a row that may get
    another trivial key, each row holding a feature form in a set with another such row;
    `joined`: the rows' texts joined by newlines."""
    screened = line_screen(rules, joined, len(set_ids))
    if screened is None:
        return np.arange(len(set_ids))
    keys, rewrites = screened
    order = np.lexsort((keys, set_ids))
    sets, keys, rewrites = set_ids[order], keys[order], rewrites[order]
    run = np.cumsum(group_starts(sets)) - 1  # the set of each row, in this order
    sizes = np.bincount(run)
    shared = (run[1:] == run[:-1]) & (keys[1:] == keys[:-1])
    kept = np.zeros(len(order), bool)
    kept[1:] |= shared
    kept[:-1] |= shared
    kept |= (np.bincount(run, (rewrites & TRIVIAL) > 0) > 0)[run] & (sizes[run] > 1)
    features = rewrites > 0
    kept |= features & (np.bincount(run, features)[run] > 1)
    return np.sort(order[kept])
