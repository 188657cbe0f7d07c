"""TaPaCo's BLEU filter: sacrebleu 2 sentence BLEU, exact and fast for millions of sentences.

TaPaCo walks each paraphrase set in ascending sentence-id order and drops a sentence whose
sentence BLEU as hypothesis against an earlier kept sentence as reference exceeds 50 (sacrebleu
`BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)`, tokenizer "zh" for Chinese,
"13a" otherwise). :func:`sentence_bleu` is that computation itself and :func:`reference_keep_mask`
the walk written with it. :func:`bleu_keep_mask` gives the same decisions from compiled kernels
(:mod:`tapaco.bleu_kernels`) on chunks of whole sets, on several threads: the kernels tokenise
(13a or zh), count clipped n-gram matches and score with
sacrebleu's float operations; the few pairs scored within a hair of the threshold are scored
again by sacrebleu's own `BLEU.compute_bleu`, and a set where it decides otherwise is walked
again by the reference, so float rounding cannot flip a decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from sacrebleu.metrics import BLEU

from tapaco import bleu_kernels
from tapaco.core.arrays import group_chunks, group_offsets
from tapaco.core.forked import map_on_threads
from tapaco.core.interruptible import in_background
from tapaco.core.text_column import TextColumn
from tapaco.core.tokenize_13a import token_ids
from tapaco.core.tokenize_13a_kernels import TOKENIZERS

CHINESE_LANGUAGES: frozenset[str] = frozenset({"cmn", "wuu", "yue", "lzh", "zh"})

_SMOOTH_VALUE = bleu_kernels.SMOOTH_VALUE
_MAX_ORDER = bleu_kernels.MAX_ORDER
_CHUNK_ROWS = 1 << 14  # rows of whole sets per kernel call (a larger set is a chunk of its own)


def tokenizer_for(lang: str) -> str:
    """The sacrebleu tokenizer TaPaCo uses for a language code: "zh" for Chinese, else "13a"."""
    return "zh" if lang in CHINESE_LANGUAGES else "13a"


@cache
def _bleu(tokenizer: str) -> BLEU:
    """TaPaCo's sacrebleu BLEU object for a tokenizer."""
    return BLEU(tokenize=tokenizer, smooth_method="floor", smooth_value=_SMOOTH_VALUE,
                effective_order=True)


def sentence_bleu(hypothesis: str, reference: str, tokenizer: str = "13a") -> float:
    """sacrebleu's sentence BLEU of `hypothesis` against `reference` (the reference computation)."""
    return _bleu(tokenizer).sentence_score(hypothesis, [reference]).score


def tokenize(texts: Sequence[str], tokenizer: str) -> list[str]:
    """The tokens sacrebleu's BLEU sees in every text (its tokenizer `tokenizer` of the
    right-stripped text), joined by spaces."""
    texts = list(texts)
    tokenized: list[str] = []
    for lo in range(0, len(texts), _CHUNK_ROWS):
        found = token_ids(texts[lo:lo + _CHUNK_ROWS], tokenizer)
        tokens = np.array(found.tokens() or [""], dtype=object)
        tokenized += [" ".join(tokens[found.ids[a:b]].tolist())
                      for a, b in zip(found.offsets[:-1].tolist(), found.offsets[1:].tolist())]
    return tokenized


def bleu_keep_mask(groups: np.ndarray, texts: Sequence[str], tokenizer: str | np.ndarray,
                   max_bleu: float = 50.0, workers: int = 1,
                   rows: np.ndarray | None = None) -> np.ndarray:
    """TaPaCo's BLEU filter: False for every row whose sentence BLEU as hypothesis against an
    earlier kept row of its set, as reference, exceeds `max_bleu`.

    `groups` gives each row's set; every set's rows are contiguous and in walking order.
    Decisions are those of :func:`reference_keep_mask`. `tokenizer` is "13a" or "zh", or each
    row's (an array; one per set). `rows`: the rows of `texts` filtered (all by default).
    `workers` threads share the chunks, their kernels reading the texts' UTF-8 in place.
    """
    groups = np.asarray(groups)
    texts = TextColumn.of(texts)
    rows = np.arange(len(texts)) if rows is None else np.asarray(rows, np.int64)
    if groups.shape != rows.shape:
        raise ValueError(f"{len(rows)} texts but groups of shape {groups.shape}")
    set_offsets = group_offsets(groups)
    set_tokenizers = np.broadcast_to(np.asarray(tokenizer), groups.shape)[set_offsets[:-1]]

    def chunk_keep(chunk: tuple[int, int, str]) -> tuple[np.ndarray, np.ndarray]:
        first, last, name = chunk
        lo, hi = int(set_offsets[first]), int(set_offsets[last])
        keep, near = in_background(bleu_kernels.keep_walk, texts.offsets, texts.data,
                                   rows[lo:hi], set_offsets[first:last + 1] - lo,
                                   TOKENIZERS[name], float(max_bleu), size=hi - lo)
        near[:, :2] += lo
        return keep, near

    chunks = _chunks_by_tokenizer(set_offsets, set_tokenizers)
    keep = np.ones(len(groups), bool)
    near: dict[str, list[np.ndarray]] = {}
    for (first, last, name), (kept, pairs) in zip(
            chunks, map_on_threads(chunk_keep, chunks, workers)):
        keep[set_offsets[first]:set_offsets[last]] = kept
        near.setdefault(name, []).append(pairs)
    for name, pairs in near.items():
        _settle_near_pairs(keep, np.concatenate(pairs), set_offsets, texts, name, max_bleu, rows)
    return keep


def _chunks_by_tokenizer(set_offsets: np.ndarray,
                         set_tokenizers: np.ndarray) -> list[tuple[int, int, str]]:
    """Chunks (first set, last set + 1, tokenizer) of whole sets of one tokenizer."""
    chunks = []
    runs = group_offsets(set_tokenizers)
    for start, end in zip(runs[:-1].tolist(), runs[1:].tolist()):
        name = str(set_tokenizers[start])
        chunks += [(start + first, start + last, name) for first, last
                   in group_chunks(set_offsets[start:end + 1], _CHUNK_ROWS)]
    return chunks


def reference_keep_mask(groups: np.ndarray, texts: Sequence[str], tokenizer: str,
                        max_bleu: float = 50.0) -> np.ndarray:
    """:func:`bleu_keep_mask` computed pair by pair with :func:`sentence_bleu` (slow)."""
    keep = bytearray(b"\x01") * len(texts)
    texts = list(texts)
    bounds = group_offsets(groups).tolist()
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        _walk_pairwise(keep, texts, tokenizer, max_bleu, lo, hi)
    return np.frombuffer(keep, np.uint8).astype(bool)


def _settle_near_pairs(keep: np.ndarray, near: np.ndarray, set_offsets: np.ndarray,
                       texts: Sequence[str], tokenizer: str, max_bleu: float,
                       rows: np.ndarray | None = None) -> None:
    """Score the pairs the kernels scored within a hair of `max_bleu` with sacrebleu (once per
    distinct statistics); walk a set again by the reference where sacrebleu decides one of its
    pairs otherwise (`rows`: the rows of `texts` walked, when not all)."""
    statistics, pair_statistics = np.unique(near[:, 2:8], axis=0, return_inverse=True)
    over = np.array([_sacrebleu_score(correct, hyp_len, ref_len) > max_bleu
                     for *correct, hyp_len, ref_len in statistics.tolist()], bool)
    wrong = over[pair_statistics.reshape(-1)] != near[:, 8].astype(bool)
    redo = np.unique(np.searchsorted(set_offsets, near[wrong, 1], "right") - 1).tolist()
    if not redo:
        return
    texts = texts if rows is None else TextColumn.of(texts).take(rows)
    flags = bytearray(keep.astype(np.uint8).tobytes())
    for k in redo:
        lo, hi = int(set_offsets[k]), int(set_offsets[k + 1])
        flags[lo:hi] = b"\x01" * (hi - lo)
        _walk_pairwise(flags, texts, tokenizer, max_bleu, lo, hi)
    keep[:] = np.frombuffer(flags, np.uint8).astype(bool)


def _walk_pairwise(keep: bytearray, texts: Sequence[str], tokenizer: str, max_bleu: float,
                   lo: int, hi: int) -> None:
    """The BLEU filter on the set of rows [lo, hi) with sacrebleu, pair by pair."""
    for hyp in range(lo + 1, hi):
        if any(keep[ref] and sentence_bleu(texts[hyp], texts[ref], tokenizer) > max_bleu
               for ref in range(lo, hyp)):
            keep[hyp] = 0


def _sacrebleu_score(matches: list[int], hyp_len: int, ref_len: int) -> float:
    """sacrebleu's own score of a pair from its statistics (its float operations, exactly)."""
    totals = [max(hyp_len - order, 0) for order in range(_MAX_ORDER)]
    return BLEU.compute_bleu(matches, totals, hyp_len, ref_len, smooth_method="floor",
                             smooth_value=_SMOOTH_VALUE, effective_order=True).score
