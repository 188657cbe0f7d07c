"""Sentence identity as in the Opusparcus release: tokenised text with normalised final punctuation.

Tokenised (`<w>`) documents are taken as they are; raw and Moses text goes through the Moses
tokenizer (exactly sacremoses with `escape=False`, in the batch form of
:mod:`opusparcus.moses_tokenizer`), once per distinct sentence. Then a final run of
punctuation tokens (made only of `. ! ? … ; :`) becomes a single `?` if it holds a `?`, else a
single `.`; a sentence without final punctuation is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from opusparcus.moses_tokenizer import moses_tokenize
from tapaco.core.characters import WHITESPACE

_FINAL_PUNCTUATION = frozenset(".!?…;:")
_PUNCTUATION_CODES = np.array(sorted(map(ord, _FINAL_PUNCTUATION)), np.uint32)
_FINAL_AS_IS = np.array([ord("."), ord("?")], np.uint32)
_SPACE, _NEWLINE = ord(" "), ord("\n")
# whitespace (what str.split splits on) but the space and the newline
_OTHER_WHITESPACE = re.compile("[" + re.escape(WHITESPACE.replace(" ", "").replace("\n", "")) + "]")


def normalize_final_punctuation(tokenized: str) -> str:
    """`Really ? !` -> `Really ?`; `Wait ...` -> `Wait .`; `Hello` -> `Hello`."""
    tokens = tokenized.split()
    end = len(tokens)
    while end and _FINAL_PUNCTUATION.issuperset(tokens[end - 1]):
        end -= 1
    if end == len(tokens):
        return " ".join(tokens)
    final = "?" if any("?" in token for token in tokens[end:]) else "."
    return " ".join([*tokens[:end], final])


def normalize_final_punctuations(texts: Sequence[str]) -> list[str]:
    """:func:`normalize_final_punctuation` of every text. Most texts provably stay as they are
    (their last character is no punctuation mark, or they end in one token "." or "?" after a
    token that is not punctuation): that is read off the last three characters of every text
    at once, with numpy; only the others, and texts with other whitespace than single spaces
    between tokens, go through the per-text function."""
    texts = list(texts)
    joined = "\n".join(texts)
    if joined.count("\n") != max(len(texts) - 1, 0):
        return [normalize_final_punctuation(text) for text in texts]
    characters = np.concatenate([np.full(3, _NEWLINE, np.uint32),
                                 np.frombuffer(joined.encode("utf-32-le"), np.uint32)])
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    ends = np.cumsum(lengths + 1) + 2  # a line's end in `characters`, after three newlines
    last, before, third = (characters[ends - k] for k in (1, 2, 3))
    unchanged = ~np.isin(last, _PUNCTUATION_CODES) | (
        np.isin(last, _FINAL_AS_IS) & (before == _SPACE) & (third != _NEWLINE)
        & ~np.isin(third, _PUNCTUATION_CODES))
    irregular = _irregular_lines(joined, characters, ends - lengths, ends)
    unchanged[irregular] = False
    regular = np.ones(len(texts), bool)
    regular[irregular] = False
    result = texts.copy()
    for line, simple in zip(np.flatnonzero(~unchanged).tolist(), regular[~unchanged].tolist()):
        text = texts[line]
        result[line] = _normalize_regular(text) if simple else normalize_final_punctuation(text)
    return result


def _irregular_lines(joined: str, characters: np.ndarray, starts: np.ndarray,
                     ends: np.ndarray) -> np.ndarray:
    """The lines (from `starts` to `ends`, exclusive, in `characters`: `joined` after three
    newlines) with whitespace other than single spaces between tokens."""
    if joined.isascii():
        odd = (characters < 32) & (characters != _NEWLINE)
    else:
        odd = np.zeros(len(characters), bool)
        odd[[match.start() + 3 for match in _OTHER_WHITESPACE.finditer(joined)]] = True
    odd[1:] |= (characters[1:] == _SPACE) & (characters[:-1] == _SPACE)
    irregular = np.searchsorted(ends, np.flatnonzero(odd), side="right")
    nonempty = ends > starts
    at_ends = nonempty & ((characters[np.minimum(starts, len(characters) - 1)] == _SPACE)
                          | (characters[ends - 1] == _SPACE))
    return np.union1d(irregular, np.flatnonzero(at_ends))


def _normalize_regular(text: str) -> str:
    """:func:`normalize_final_punctuation` of a text whose tokens are separated by single
    spaces, reading only its final tokens."""
    end, cut, question = len(text), None, False
    while end > 0:
        space = text.rfind(" ", 0, end)
        token = text[space + 1:end]
        if not _FINAL_PUNCTUATION.issuperset(token):
            break
        question = question or "?" in token
        cut, end = space, space
    if cut is None:
        return text
    final = "?" if question else "."
    return f"{text[:cut]} {final}" if cut > 0 else final


def normalize_sentences(texts: Sequence[str], lang: str, tokenized: bool) -> list[str]:
    """The release's normalisation of distinct sentences (raw ones are Moses-tokenised first)."""
    return normalize_final_punctuations(list(texts) if tokenized else moses_tokenize(texts, lang))
