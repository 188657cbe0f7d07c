"""Sentence identity as in the Opusparcus release: tokenised text with normalised final punctuation.

Tokenised (`<w>`) documents are taken as they are; raw and Moses text goes through the Moses
tokenizer (sacremoses, `escape=False`), once per distinct sentence. Then a final run of
punctuation tokens (made only of `. ! ? … ; :`) becomes a single `?` if it holds a `?`, else a
single `.`; a sentence without final punctuation is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

_FINAL_PUNCTUATION = frozenset(".!?…;:")


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


@cache
def _moses_tokenizer(lang: str):
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=lang)


def moses_tokenize(texts: Sequence[str], lang: str) -> list[str]:
    """sacremoses tokenisation of raw sentences (no XML escaping)."""
    tokenizer = _moses_tokenizer(lang)
    return [tokenizer.tokenize(text, escape=False, return_str=True) for text in texts]


def normalize_sentences(texts: Sequence[str], lang: str, tokenized: bool) -> list[str]:
    """The release's normalisation of distinct sentences (raw ones are Moses-tokenised first)."""
    if not tokenized:
        texts = moses_tokenize(texts, lang)
    return [normalize_final_punctuation(text) for text in texts]
