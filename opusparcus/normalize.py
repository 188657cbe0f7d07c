"""Sentence identity as in the Opusparcus release: tokenised text with normalised final punctuation.

Tokenised (`<w>`) documents are taken as they are; raw and Moses text goes through the Moses
tokenizer (sacremoses, `escape=False`), once per distinct sentence. Then a final run of
punctuation tokens (made only of `. ! ? … ; :`) becomes a single `?` if it holds a `?`, else a
single `.`; a sentence without final punctuation is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import cache

_FINAL_PUNCTUATION = frozenset(".!?…;:")
PARALLEL_MINIMUM = 20_000


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


def _normalize_chunk(arguments: tuple[list[str], str, bool]) -> list[str]:
    texts, lang, tokenized = arguments
    if not tokenized:
        texts = moses_tokenize(texts, lang)
    return [normalize_final_punctuation(text) for text in texts]


def normalize_sentences(texts: Sequence[str], lang: str, tokenized: bool,
                        workers: int = 1) -> list[str]:
    """The release's normalisation of distinct sentences (raw ones are Moses-tokenised first).

    Moses tokenisation costs ~40 µs a sentence, so large inputs are split over `workers`
    processes.
    """
    texts = list(texts)
    if workers <= 1 or tokenized or len(texts) < PARALLEL_MINIMUM:
        return _normalize_chunk((texts, lang, tokenized))
    size = -(-len(texts) // (workers * 4))
    chunks = [(texts[i:i + size], lang, tokenized) for i in range(0, len(texts), size)]
    with ProcessPoolExecutor(workers) as pool:
        return [text for chunk in pool.map(_normalize_chunk, chunks) for text in chunk]
