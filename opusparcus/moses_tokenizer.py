"""Moses tokenisation: exactly what sacremoses returns, in a compiled kernel.

Opusparcus identifies a raw sentence by its Moses-tokenised text,
``MosesTokenizer(lang).tokenize(text, escape=False, return_str=True)`` (defaults
``aggressive_dash_splits=False``, ``protected_patterns=None``). sacremoses runs a dozen regex
passes on each sentence, most with a template expanded in Python for every match, and a Python
loop over all tokens for the non-breaking prefixes. `moses_tokenize` runs the same
steps in :mod:`opusparcus.moses_kernels` over many sentences' code points at once, with tables
built here from sacremoses' own character sets and prefixes. The lines the kernel declines
(longer than its bound, and rare) go through sacremoses itself, which the tests compare the
kernel against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from sacremoses import MosesTokenizer

from opusparcus import moses_kernels as kernels
from tapaco.core.arrays import code_points
from tapaco.core.characters import WHITESPACE
from tapaco.core.hashing import hash_range
from tapaco.core.interruptible import in_background

#: Sentences tokenised by one kernel call (bounds memory; larger gains nothing).
CHUNK = 10_000
# What sacremoses' padding class leaves alone besides IsAlnum and whitespace.
_UNPADDED = ".'`,-"


@cache
def _sacremoses(lang: str) -> MosesTokenizer:
    return MosesTokenizer(lang=lang)


def _sacremoses_tokenize(text: str, lang: str) -> str:
    return _sacremoses(lang).tokenize(text, escape=False, return_str=True)


@dataclass(frozen=True)
class _KernelTables:
    """The kernel's view of a language: class bits per code point, its apostrophe rules, and
    its non-breaking prefixes (hashed, sorted by hash)."""

    classes: np.ndarray
    apostrophes: int
    prefix_hashes: np.ndarray
    prefix_kinds: np.ndarray
    prefix_offsets: np.ndarray
    prefix_codes: np.ndarray

    def arguments(self) -> tuple:
        return (self.classes, self.apostrophes, self.prefix_hashes, self.prefix_kinds,
                self.prefix_offsets, self.prefix_codes)


def _codes_of(characters: Iterable[str]) -> np.ndarray:
    return np.array(sorted({ord(c) for c in characters}), np.int64)


def _class_table(tokenizer: MosesTokenizer) -> np.ndarray:
    """The kernel's class bits of every code point, from sacremoses' sets: its IsN, IsAlpha,
    IsLower, and PAD_NOT_ISALNUM ``[^{IsAlnum}\\s\\.'\\`\\,\\-]``."""
    classes = np.zeros(0x110000, np.uint8)
    controls = {chr(code) for code in range(32)} - set(WHITESPACE)
    for characters, bit in ((WHITESPACE, kernels.WHITESPACE), (controls, kernels.JUNK),
                            (tokenizer.IsN, kernels.DIGIT), (tokenizer.IsAlpha, kernels.ALPHA),
                            (tokenizer.IsLower, kernels.LOWER), ("s", kernels.LETTER_S),
                            ("'", kernels.APOSTROPHE)):
        classes[_codes_of(characters)] |= bit
    padded = np.ones(0x110000, bool)
    padded[_codes_of(set(tokenizer.IsAlnum) | set(WHITESPACE) | set(_UNPADDED))] = False
    classes[padded] |= kernels.PADDED
    return classes


def _prefix_tables(tokenizer: MosesTokenizer) -> tuple[np.ndarray, ...]:
    numeric = set(tokenizer.NUMERIC_ONLY_PREFIXES)
    prefixes = sorted([(prefix, kernels.KEPT) for prefix in
                       set(tokenizer.NONBREAKING_PREFIXES) - numeric]
                      + [(prefix, kernels.NUMERIC_ONLY) for prefix in numeric])
    codes = [np.array([ord(c) for c in prefix], np.int32) for prefix, _ in prefixes]
    hashes = np.array([hash_range(code, 0, len(code)) for code in codes], np.int64)
    order = np.argsort(hashes, kind="stable")
    lengths = np.array([len(codes[i]) for i in order], np.int64)
    return (hashes[order], np.array([prefixes[i][1] for i in order], np.int64),
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            np.concatenate([np.zeros(0, np.int32), *(codes[i] for i in order)]))


@cache
def _kernel_tables(lang: str) -> _KernelTables:
    apostrophes = {"en": kernels.ENGLISH, "fr": kernels.FRENCH_ITALIAN,
                   "it": kernels.FRENCH_ITALIAN}.get(lang, kernels.ANY_APOSTROPHE)
    tokenizer = _sacremoses(lang)
    return _KernelTables(_class_table(tokenizer), apostrophes, *_prefix_tables(tokenizer))


def _kernel_chunk(texts: list[str], lang: str) -> list[str]:
    codes, offsets = code_points(texts)
    out, declined = in_background(kernels.tokenize_lines, codes, offsets,
                                  *_kernel_tables(lang).arguments(), size=len(codes))
    result = out.astype("<i4", copy=False).tobytes().decode("utf-32-le", "surrogatepass")
    lines = result.split("\n")
    for line in np.flatnonzero(declined).tolist():
        lines[line] = _sacremoses_tokenize(texts[line], lang)
    return lines


def moses_tokenize(texts: Sequence[str], lang: str) -> list[str]:
    """For every text, exactly sacremoses MosesTokenizer(lang=lang).tokenize(text, escape=False,
    return_str=True): by the compiled kernel, the lines it declines by sacremoses."""
    result: list[str] = []
    for start in range(0, len(texts), CHUNK):
        result += _kernel_chunk(list(texts[start:start + CHUNK]), lang)
    return result
