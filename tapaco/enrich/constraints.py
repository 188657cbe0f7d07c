"""ParaBank-style negative lexical constraints chosen by IDF.

IDF is computed over the references, one document per sentence: ``idf(w) = ln(N / df(w))``
where tokens are lowercased 13a tokens (see ``scoring.tokenize``) and ``df`` counts each
distinct token once per sentence. Sentences can be fed incrementally (``Idf.add``), so a
corpus is read in one streaming pass. Variant ``j`` of a reference suppresses its ``j``
highest-IDF content words (never punctuation/symbols, numbers or very frequent words).
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tapaco.core.errors import require
from tapaco.core.options import check_range
from tapaco.enrich.scoring import tokenize


@dataclass
class ConstraintOptions:
    """Which words are never suppressed because they are frequent (``None`` disables a rule).

    ``top_frequent``: the N words with the highest df (ties broken by the word; 0 is the same
    as ``None``); ``max_df_ratio``: any word with df/N above this (0 < ratio <= 1). Both are on
    by default; on a tiny corpus they exclude nearly everything, so set them to ``None`` there.
    """

    top_frequent: int | None = 100
    max_df_ratio: float | None = 0.05

    def __post_init__(self) -> None:
        if self.top_frequent is not None:
            check_range("--never-suppress-top", self.top_frequent, 0, whole=True)
            if self.top_frequent == 0:
                self.top_frequent = None
        if self.max_df_ratio is not None:
            check_range("--never-suppress-df-ratio", self.max_df_ratio, 0, 1)
            require(self.max_df_ratio > 0, "--never-suppress-df-ratio",
                    "must be above 0 (use 'none' to turn this rule off), got 0")


@dataclass
class Idf:
    """Document frequencies over sentences, built incrementally."""

    n: int = 0
    df: Counter = field(default_factory=Counter)
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def add(self, sentence: str) -> None:
        """Count one sentence (document)."""
        self.n += 1
        self.df.update(set(lower_tokens(sentence)))

    def update(self, sentences: Iterable[str]) -> Idf:
        for sentence in sentences:
            self.add(sentence)
        return self

    def idf(self, word: str) -> float:
        """ln(N / df(w)); a word never seen counts as df = 1 (N at least 1)."""
        return math.log(max(self.n, 1) / max(self.df.get(word, 0), 1))

    def frequent(self, options: ConstraintOptions) -> frozenset[str]:
        """Words excluded as too frequent under ``options`` (cached per options)."""
        key = (options.top_frequent, options.max_df_ratio, self.n, len(self.df))
        if key not in self._cache:
            self._cache.clear()
            self._cache[key] = self._frequent(options)
        return self._cache[key]

    def _frequent(self, options: ConstraintOptions) -> frozenset[str]:
        words: set[str] = set()
        if options.top_frequent:
            ranked = sorted(self.df.items(), key=lambda item: (-item[1], item[0]))
            words.update(word for word, _ in ranked[:options.top_frequent])
        if options.max_df_ratio is not None and self.n:
            words.update(w for w, df in self.df.items() if df / self.n > options.max_df_ratio)
        return frozenset(words)


def lower_tokens(sentence: str) -> list[str]:
    """Lowercased 13a tokens, the unit of IDF and of suppression."""
    return [token.lower() for token in tokenize(sentence)]


def compute_idf(references: Iterable[str]) -> Idf:
    """Stream the references once and return their IDF table."""
    return Idf().update(references)


def _categories(token: str) -> list[str]:
    return [unicodedata.category(char)[0] for char in token]


def is_punctuation(token: str) -> bool:
    """Every character is punctuation (P*) or a symbol (S*)."""
    return all(cat in "PS" for cat in _categories(token))


def is_number(token: str) -> bool:
    """Has a digit (N*) and otherwise only punctuation/symbols: '42', '3.5', '1,000', '-7'."""
    cats = _categories(token)
    return "N" in cats and all(cat in "NPS" for cat in cats)


def is_content(token: str, frequent: frozenset[str]) -> bool:
    return bool(token) and not is_punctuation(token) and not is_number(token) \
        and token not in frequent


def rank_content_words(reference_tokens: Sequence[str], idf: Idf,
                       options: ConstraintOptions | None = None) -> list[str]:
    """Distinct lowercased content words of the reference, highest IDF first (ties: word)."""
    frequent = idf.frequent(options or ConstraintOptions())
    words = {token.lower() for token in reference_tokens}
    content = [word for word in words if is_content(word, frequent)]
    return sorted(content, key=lambda word: (-idf.idf(word), word))


def choose_suppressed(reference_tokens: Sequence[str], idf: Idf, k: int,
                      options: ConstraintOptions | None = None) -> list[str]:
    """The ``k`` highest-IDF content words (lowercased) of the reference, to suppress.

    Fewer than ``k`` when the reference has fewer content words. Deterministic: ties in IDF
    are broken alphabetically, so variant j's list is a prefix of variant j+1's.
    """
    return rank_content_words(reference_tokens, idf, options)[:max(k, 0)]
