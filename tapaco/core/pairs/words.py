"""The words of each sentence as sorted integer ids, for lexical retrieval and overlap.

A word is a run of characters between separators (whitespace, ASCII punctuation and the
general, CJK and full-width punctuation blocks), case-folded simply (ASCII, Latin-1, basic
Greek and Cyrillic capitals to small letters); each Han, kana or CJK-compatibility character
is a word of its own, so that texts written without spaces share words too. A word is known by
its 64-bit FNV-1a hash (:mod:`tapaco.core.hashing`); the hashes of one language are numbered
in sorted order, so a sentence's distinct words are an increasing run of ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tapaco.core.characters import is_whitespace
from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, mixed
from tapaco.core.interruptible import in_background
from tapaco.core.text_column import TextColumn
from tapaco.core.utf8 import code_point_at

_PUNCTUATION_BLOCKS = np.array([
    (0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E), (0xA1, 0xBF), (0x2010, 0x205E),
    (0x3000, 0x303F), (0xFF01, 0xFF0F), (0xFF1A, 0xFF20), (0xFF3B, 0xFF40), (0xFF5B, 0xFF65),
    (0x055A, 0x055F), (0x0589, 0x0589), (0x060C, 0x060C), (0x061B, 0x061F), (0x06D4, 0x06D4),
    (0x0964, 0x0965)], np.int64)
_SINGLE_CHARACTER_WORDS = np.array([(0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
                                    (0xF900, 0xFAFF)], np.int64)


@njit(nogil=True, cache=True)
def _within(code, blocks) -> bool:
    for k in range(len(blocks)):
        if blocks[k, 0] <= code <= blocks[k, 1]:
            return True
    return False


@njit(nogil=True, cache=True)
def folded(code: int) -> int:
    """The small letter of an ASCII, Latin-1, basic Greek or Cyrillic capital; else `code`."""
    if 0x41 <= code <= 0x5A or (0xC0 <= code <= 0xDE and code != 0xD7):
        return code + 32
    if 0x391 <= code <= 0x3A9 or 0x410 <= code <= 0x42F:
        return code + 32
    if 0x400 <= code <= 0x40F:
        return code + 80
    return code


@njit(nogil=True, cache=True)
def _sorted_distinct(values, start, end) -> int:
    """Sort values[start:end] and keep each value once; returns the new end."""
    values[start:end] = np.sort(values[start:end])
    out = start
    for at in range(start, end):
        if at == start or values[at] != values[out - 1]:
            values[out] = values[at]
            out += 1
    return out


@njit(nogil=True, cache=True)
def _word_hashes(offsets, data, punctuation, single):
    """Each text's distinct word hashes, sorted, and the texts' offsets into them."""
    hashes = np.empty(offsets[-1] - offsets[0], np.int64)
    ends = np.zeros(len(offsets), np.int64)
    count = 0
    for row in range(len(offsets) - 1):
        first, value, in_word = count, FNV_OFFSET, False
        at = offsets[row]
        while at < offsets[row + 1]:
            code, width = code_point_at(data, at)
            at += width
            if is_whitespace(code) or _within(code, punctuation) or _within(code, single):
                if in_word:
                    hashes[count] = mixed(value)
                    count += 1
                    in_word = False
                if _within(code, single):
                    hashes[count] = mixed(fnv1a_step(FNV_OFFSET, code))
                    count += 1
                continue
            if not in_word:
                value, in_word = FNV_OFFSET, True
            value = fnv1a_step(value, folded(code))
        if in_word:
            hashes[count] = mixed(value)
            count += 1
        count = _sorted_distinct(hashes, first, count)
        ends[row + 1] = count
    return hashes[:count], ends


@dataclass(frozen=True)
class WordSets:
    """Sentence k's distinct words are `ids[offsets[k]:offsets[k + 1]]` (increasing); word w
    occurs in the sentences `postings[posting_offsets[w]:posting_offsets[w + 1]]`
    (increasing)."""

    offsets: np.ndarray
    ids: np.ndarray
    posting_offsets: np.ndarray
    postings: np.ndarray

    @property
    def sentences(self) -> int:
        return len(self.offsets) - 1


def word_sets(texts: TextColumn) -> WordSets:
    """The words of `texts` (one language) and their postings."""
    hashes, offsets = in_background(_word_hashes, texts.offsets, texts.data,
                                    _PUNCTUATION_BLOCKS, _SINGLE_CHARACTER_WORDS,
                                    size=len(texts.data))
    distinct, ids = np.unique(hashes, return_inverse=True)
    ids = ids.astype(np.int64)
    sentence = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    order = np.argsort(ids, kind="stable")
    posting_offsets = np.zeros(len(distinct) + 1, np.int64)
    np.cumsum(np.bincount(ids, minlength=len(distinct)), out=posting_offsets[1:])
    return WordSets(offsets, ids, posting_offsets, sentence[order])
