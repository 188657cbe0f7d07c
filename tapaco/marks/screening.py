"""Which rows of a language file can be in a marked pair, found without keying sentences one by
one: the sets where two sentences share their plain key (their words as they are, joined), or
where one sentence holds a word that starts a form of the language's rule table (or an
apostrophe, where the table has contractions).

A sentence without such a word has one key at every level, its plain key (trivial), and none
of features: it can only be marked with a sentence sharing that key or with one the table
rewrites. The texts of a chunk are normalised and folded in one call over them all, joined by
newlines (both steps go character by character, and nothing composes with a newline); a
compiled kernel then hashes each line's word and symbol characters and looks its words up among
the hashes of the table's first words. Equal keys give equal hashes, so the sets kept are a
superset of those holding a marked pair; a hash collision only keeps a set more. This relies on
case folding keeping each character's class (word, symbol, other): tests check it over every
code point.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import regex

from tapaco.core.hashing import hash_range
from tapaco.marks.rules import Rules, folded, normalised
from tapaco.marks.screening_kernels import SYMBOL, WORD, line_keys


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
    keys, touched = screened
    order = np.lexsort((keys, set_ids))
    same_set = set_ids[order][1:] == set_ids[order][:-1]
    shared = same_set & (keys[order][1:] == keys[order][:-1])
    kept_sets = set_ids[order][1:][shared | (same_set & (touched[order][1:]
                                                          | touched[order][:-1]))]
    return np.flatnonzero(np.isin(set_ids, kept_sets))
