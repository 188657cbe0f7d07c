"""Which rows of a language file can be in a marked pair, found without keying sentences one by
one: the sets where two sentences share their plain key (their words as they are, joined), or
where one sentence holds a word that starts a form of the language's rule table (or an
apostrophe, where the table has contractions).

A sentence without such a word has one key, its plain key (trivial), and none of features: it
can only be marked with a sentence sharing that key or with one the table rewrites. The texts of
a chunk are normalised and folded in one call over them all, joined by newlines (NFKC goes line
by line, folding character by character); a compiled kernel then hashes each line's word and
symbol characters and looks its words up among the hashes of the table's first words. Equal
keys give equal hashes, so the sets kept are a superset of those holding a marked pair (a hash
collision only keeps a set more). This relies on folding keeping each character's class (word,
symbol, other), which a test checks over every code point.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import regex
from numba import njit

from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, hash_range, mixed
from tapaco.marks.rules import Rules, folded, normalised

OTHER, SYMBOL, WORD = 0, 1, 2  # the classes of code points: neither, \p{S}, \w
_NEWLINE, _APOSTROPHE = 10, 39


@njit(nogil=True, cache=True)
def _is_start(starts: np.ndarray, value: np.int64) -> bool:
    at = np.searchsorted(starts, value)
    return at < len(starts) and starts[at] == value


@njit(nogil=True, cache=True)
def line_keys(codes, classes, starts, apostrophes_count, lines):
    """For each of the `lines` lines of `codes` (folded code points, lines separated by
    newlines): the hash of its word and symbol characters in order, and whether one of its
    tokens (a run of word characters, or one symbol) hashes to a value of `starts` (sorted),
    or, with `apostrophes_count`, it holds an apostrophe."""
    keys = np.empty(lines, np.int64)
    touched = np.zeros(lines, np.bool_)
    line, key, word, in_word = 0, FNV_OFFSET, FNV_OFFSET, False
    for at in range(len(codes) + 1):
        code = np.int64(codes[at]) if at < len(codes) else _NEWLINE
        kind = classes[code] if code != _NEWLINE else OTHER
        if kind == WORD:
            key, word, in_word = fnv1a_step(key, code), fnv1a_step(word, code), True
            continue
        if in_word:
            touched[line] |= _is_start(starts, mixed(word))
            word, in_word = FNV_OFFSET, False
        if kind == SYMBOL:
            key = fnv1a_step(key, code)
            touched[line] |= _is_start(starts, mixed(fnv1a_step(FNV_OFFSET, code)))
        elif code == _APOSTROPHE:
            touched[line] |= apostrophes_count
        elif code == _NEWLINE:
            keys[line] = mixed(key)
            key, line = FNV_OFFSET, line + 1
    return keys, touched


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


@cache
def _start_hashes(rules: Rules) -> np.ndarray:
    return np.sort(np.array([hash_range(_code_points(word), 0, len(word))
                             for word in rules.form_starts], np.int64))


def line_screen(rules: Rules, joined: str, lines: int) -> tuple[np.ndarray, np.ndarray] | None:
    """For each text of `joined` (`lines` texts joined by newlines): the hash of its plain key,
    and whether the table may rewrite it; None when a text holds a newline of its own."""
    if lines == 0 or joined.count("\n") != lines - 1:
        return None
    text = normalised(joined)
    return line_keys(_code_points(folded(text, text)), code_point_classes(),
                     _start_hashes(rules), rules.contractions, lines)


def rows_to_mark(rules: Rules, set_ids: np.ndarray, joined: str) -> np.ndarray:
    """The rows (ascending) of the sets, of two rows or more, where two rows share their plain
    key or one may be rewritten by the table; `joined`: the rows' texts joined by newlines."""
    screened = line_screen(rules, joined, len(set_ids))
    if screened is None:
        return np.arange(len(set_ids))
    order = np.lexsort((screened[0], set_ids))
    sets, keys, touched = set_ids[order], screened[0][order], screened[1][order]
    kept = (sets[1:] == sets[:-1]) & ((keys[1:] == keys[:-1]) | touched[1:] | touched[:-1])
    return np.flatnonzero(np.isin(set_ids, sets[1:][kept]))
