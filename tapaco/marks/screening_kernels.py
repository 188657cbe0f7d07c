"""The compiled kernel of :mod:`tapaco.marks.screening`: each line's key hash and whether it
holds a word that starts a form of the rule table."""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, mixed

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
