"""Scores and filters for one back-translated output paired with its reference.

Tokens are sacrebleu's 13a tokenisation (punctuation split off) followed by a whitespace
split; case is kept. For each output we compute the token lengths of reference and output,
the clipped unigram/bigram/trigram overlap of the output with the reference (ParaNMT-style
"trivial paraphrase" detection), sentence BLEU and the model's length-normalised log-prob.
Filters are applied in a fixed order; the first that fires is recorded as ``dropped_by``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from tapaco.core.errors import require
from tapaco.core.options import check_range

# Order in which filters are tried; the first that fires names the drop reason.
FILTER_NAMES = ("empty", "copy", "too_long", "unigram_overlap", "bleu", "logprob")
SCORE_NAMES = ("ref_tokens", "out_tokens", "overlap1", "overlap2", "overlap3", "bleu", "logprob")

_TOKENIZER = Tokenizer13a()


@dataclass
class OutputFilterOptions:
    """Which outputs to drop. ``None`` disables an optional filter; ranges are checked on
    creation (the command line's option names in the messages)."""

    drop_empty: bool = True
    drop_copies: bool = True
    max_length_ratio: float | None = 2.0
    max_tokens: int | None = None
    max_unigram_overlap: float | None = None
    max_bleu: float | None = None
    min_logprob: float | None = None

    def __post_init__(self) -> None:
        if self.max_length_ratio is not None:
            check_range("--max-length-ratio", self.max_length_ratio, 0)
            require(self.max_length_ratio > 0, "--max-length-ratio",
                    f"must be above 0, got {self.max_length_ratio:g}")
        if self.max_tokens is not None:
            check_range("--max-tokens", self.max_tokens, 1, whole=True)
        if self.max_unigram_overlap is not None:
            check_range("--max-unigram-overlap", self.max_unigram_overlap, 0, 1)
        if self.max_bleu is not None:
            check_range("--max-bleu", self.max_bleu, 0, 100)
        if self.min_logprob is not None:
            check_range("--min-logprob", self.min_logprob, -math.inf)
            require(self.min_logprob <= 0, "--min-logprob", "must be at most 0 (a mean "
                    f"log-probability), got {self.min_logprob:g}")


def tokenize(text: str) -> list[str]:
    """sacrebleu 13a tokenisation, then a whitespace split (case kept)."""
    return _TOKENIZER(text.strip()).split()


def ngrams(tokens: list[str], n: int) -> Counter:
    """Counts of the n-grams (as tuples) of ``tokens``."""
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def ngram_overlap(out_tokens: list[str], ref_tokens: list[str], n: int) -> float:
    """|ngrams(out) ∩ ngrams(ref)| / |ngrams(out)| with clipped counts; 0 when out has none."""
    out = ngrams(out_tokens, n)
    total = sum(out.values())
    if total == 0:
        return 0.0
    return sum((out & ngrams(ref_tokens, n)).values()) / total


@lru_cache(maxsize=1)
def _bleu() -> BLEU:
    return BLEU(effective_order=True)


def output_bleu(output: str, reference: str) -> float:
    """sacrebleu ``BLEU(effective_order=True).sentence_score`` (default 'exp' smoothing), 0-100."""
    return _bleu().sentence_score(output, [reference]).score


def normalize_space(text: str) -> str:
    """Collapse runs of whitespace to one space and strip the ends."""
    return " ".join(text.split())


def compute_scores(reference: str, output: str, logprob: float) -> dict[str, float]:
    """All scores of one output against its reference (see ``SCORE_NAMES``)."""
    ref_tokens, out_tokens = tokenize(reference), tokenize(output)
    scores: dict[str, float] = {"ref_tokens": len(ref_tokens), "out_tokens": len(out_tokens)}
    for n in (1, 2, 3):
        scores[f"overlap{n}"] = ngram_overlap(out_tokens, ref_tokens, n)
    scores["bleu"] = output_bleu(output, reference)
    scores["logprob"] = float(logprob)
    return scores


def _too_long(scores: dict[str, float], options: OutputFilterOptions) -> bool:
    out_len = scores["out_tokens"]
    if options.max_length_ratio is not None and out_len > options.max_length_ratio * scores[
            "ref_tokens"]:
        return True
    return options.max_tokens is not None and out_len > options.max_tokens


def drop_reason(reference: str, output: str, scores: dict[str, float],
                options: OutputFilterOptions) -> str:
    """Name of the first filter (in ``FILTER_NAMES`` order) that drops the output, or ''."""
    if options.drop_empty and not output.strip():
        return "empty"
    if options.drop_copies and normalize_space(output) == normalize_space(reference):
        return "copy"
    if _too_long(scores, options):
        return "too_long"
    if options.max_unigram_overlap is not None and scores["overlap1"] > options.max_unigram_overlap:
        return "unigram_overlap"
    if options.max_bleu is not None and scores["bleu"] > options.max_bleu:
        return "bleu"
    logprob = scores["logprob"]
    if options.min_logprob is not None and (math.isnan(logprob) or logprob < options.min_logprob):
        return "logprob"
    return ""


def score_output(reference: str, output: str, logprob: float,
                 options: OutputFilterOptions | None = None) -> dict:
    """Scores of one output plus ``dropped_by`` (the filter that dropped it, '' when kept)."""
    options = options or OutputFilterOptions()
    scores: dict = compute_scores(reference, output, logprob)
    scores["dropped_by"] = drop_reason(reference, output, scores, options)
    return scores


def new_counts() -> dict[str, int]:
    """Zeroed tally: ``outputs``, ``kept`` and ``dropped_<filter>`` for every filter."""
    counts = {"outputs": 0, "kept": 0}
    counts.update({f"dropped_{name}": 0 for name in FILTER_NAMES})
    return counts


def tally(results: list[dict], counts: dict[str, int] | None = None) -> dict[str, int]:
    """Add scored outputs to ``counts``: how many were kept and how many each filter dropped."""
    counts = counts if counts is not None else new_counts()
    for result in results:
        counts["outputs"] += 1
        reason = result["dropped_by"]
        key = f"dropped_{reason}" if reason else "kept"
        counts[key] = counts.get(key, 0) + 1
    return counts
