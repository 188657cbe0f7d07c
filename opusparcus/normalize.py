"""Sentence identity as in the Opusparcus release: tokenised text with normalised final punctuation.

Tokenised (`<w>`) documents are taken as they are; raw and Moses text goes through the Moses
tokenizer (exactly sacremoses with `escape=False`, in the batch form of
:mod:`opusparcus.moses_tokenizer`), once per distinct sentence. Then a final run of
punctuation tokens (made only of `. ! ? … ; :`) becomes a single `?` if it holds a `?`, else a
single `.`; a sentence without final punctuation is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from opusparcus.moses_tokenizer import moses_tokenize

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


def normalize_sentences(texts: Sequence[str], lang: str, tokenized: bool) -> list[str]:
    """The release's normalisation of distinct sentences (raw ones are Moses-tokenised first)."""
    texts = list(texts) if tokenized else moses_tokenize(texts, lang)
    return [normalize_final_punctuation(text) for text in texts]
