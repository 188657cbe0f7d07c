"""The evidence of a mark: the word units in which two marked sentences differ (`he/she`,
`I'm/I am`), then `case`, `punctuation`, `spacing` or `Unicode forms` for differences outside
them."""

from __future__ import annotations

import difflib
import unicodedata
from functools import lru_cache
from typing import NamedTuple

import regex

from tapaco.marks.rules import APOSTROPHES

# a word with the words joined to it by apostrophes (I'm, can 't, Qu' est), or one symbol
_UNIT = regex.compile(r"\w+(?:\s?['’ʼ‘`´]\s?\w+)*|\p{S}")
_SPACE = regex.compile(r"\s+")


class _Layout(NamedTuple):
    """A sentence cut for evidence: the spans of its word units and their compared forms."""

    spans: list[tuple[int, int]]
    compared: list[str]


@lru_cache(maxsize=4096)
def _layout(text: str) -> _Layout:
    matches = list(_UNIT.finditer(text))
    compared = [_SPACE.sub("", unicodedata.normalize("NFKC", m.group())).translate(APOSTROPHES)
                .casefold() for m in matches]
    return _Layout([m.span() for m in matches], compared)


def _punctuation(text: str, cuts: list[tuple[int, int]]) -> str:
    """The punctuation of `text` outside the spans `cuts` (in order), spaces dropped."""
    kept, end = [], 0
    for cut_start, cut_end in cuts:
        kept.append(text[end:cut_start])
        end = cut_end
    kept.append(text[end:])
    return _SPACE.sub("", unicodedata.normalize("NFKC", "".join(kept)))


# how two forms of one word unit can differ, each with the change that removes the difference
_STEPS = {"case": str.casefold,
          "punctuation": lambda unit: unit.translate(APOSTROPHES),
          "spacing": lambda unit: _SPACE.sub("", unit),
          "Unicode forms": lambda unit: unicodedata.normalize("NFKC", unit)}


def _needed_steps(first: str, second: str) -> list[str]:
    """The steps without which the two forms of a unit stay different."""
    needed = []
    for name in _STEPS:
        a, b = first, second
        for other, change in _STEPS.items():
            if other != name:
                a, b = change(a), change(b)
        if a != b:
            needed.append(name)
    return needed


def evidence(first: str, second: str) -> str:
    """What differs between two sentences: the differing word spans (`he/she`, `I'm/I am`, `∅`
    for none) in order, then `case`, `punctuation`, `spacing`, `Unicode forms` for
    differences outside them; `spacing` alone when only the spaces differ."""
    layouts = _layout(first), _layout(second)
    parts: list[str] = []
    flags: set[str] = set()
    # each sentence's word units and differing spans, cut out before comparing punctuation
    cuts: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])

    def span(side: int, start: int, end: int) -> str:
        spans = layouts[side].spans[start:end]
        if not spans:
            return "∅"
        cuts[side].append((spans[0][0], spans[-1][1]))
        return (first, second)[side][spans[0][0]:spans[-1][1]]

    matcher = difflib.SequenceMatcher(None, layouts[0].compared, layouts[1].compared,
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            cuts[0].extend(layouts[0].spans[i1:i2])
            cuts[1].extend(layouts[1].spans[j1:j2])
            for (a1, a2), (b1, b2) in zip(layouts[0].spans[i1:i2], layouts[1].spans[j1:j2]):
                if first[a1:a2] != second[b1:b2]:
                    flags.update(_needed_steps(first[a1:a2], second[b1:b2]))
        elif "".join(layouts[0].compared[i1:i2]) == "".join(layouts[1].compared[j1:j2]):
            span(0, i1, i2)
            span(1, j1, j2)
            flags.add("spacing")
        else:
            parts.append(f"{span(0, i1, i2)}/{span(1, j1, j2)}")
    if _punctuation(first, cuts[0]) != _punctuation(second, cuts[1]):
        flags.add("punctuation")
    if not parts and not flags and first != second:
        flags.add("spacing")
    return "; ".join(parts + [flag for flag in _STEPS if flag in flags])
