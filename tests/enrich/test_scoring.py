"""Scores and filters of tapaco.enrich.scoring, checked by hand on small cases."""

from __future__ import annotations

import math

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

from tapaco.enrich.scoring import (
    FILTER_NAMES,
    OutputFilterOptions,
    compute_scores,
    ngram_overlap,
    output_bleu,
    score_output,
    tally,
    tokenize,
)

NO_FILTERS = OutputFilterOptions(drop_empty=False, drop_copies=False, max_length_ratio=None)


def test_tokenize_is_13a_then_split() -> None:
    assert tokenize("Hello, world!") == ["Hello", ",", "world", "!"]
    assert tokenize("  a  b ") == ["a", "b"]
    assert tokenize("") == []


def test_ngram_overlap_by_hand() -> None:
    out, ref = "the cat the cat".split(), "the cat sat".split()
    assert ngram_overlap(out, ref, 1) == pytest.approx(2 / 4)  # clipped: the 1, cat 1
    assert ngram_overlap(out, ref, 2) == pytest.approx(1 / 3)  # "the cat" once of 3
    assert ngram_overlap(out, ref, 3) == 0.0
    assert ngram_overlap(["cat"], ref, 2) == 0.0  # no bigrams in the output
    assert ngram_overlap([], ref, 1) == 0.0
    assert ngram_overlap(ref, ref, 3) == 1.0


def test_lengths_and_overlaps_in_scores() -> None:
    scores = compute_scores("The cat sat.", "A cat sat down.", -0.5)
    assert scores["ref_tokens"] == 4 and scores["out_tokens"] == 5
    assert scores["overlap1"] == pytest.approx(3 / 5)  # cat, sat, .
    assert scores["overlap2"] == pytest.approx(1 / 4)  # "cat sat"
    assert scores["overlap3"] == 0.0
    assert scores["logprob"] == -0.5


@pytest.mark.parametrize("out, ref", [("the cat sat on a mat", "the cat sat on the mat"),
                                      ("hello", "goodbye world"), ("", "x y"),
                                      ("A b c.", "A b c.")])
def test_bleu_matches_sacrebleu(out: str, ref: str) -> None:
    expected = BLEU(effective_order=True).sentence_score(out, [ref]).score
    assert output_bleu(out, ref) == pytest.approx(expected)
    assert output_bleu(out, ref) == pytest.approx(sacrebleu.sentence_bleu(out, [ref]).score)


def reason(ref: str, out: str, logprob: float = -1.0, **options: object) -> str:
    base = {"drop_empty": False, "drop_copies": False, "max_length_ratio": None}
    return score_output(ref, out, logprob, OutputFilterOptions(**{**base, **options}))["dropped_by"]


def test_defaults_drop_empty_copy_and_too_long_only() -> None:
    ref = "the cat sat on the mat"
    assert score_output(ref, "  ", -1.0)["dropped_by"] == "empty"
    assert score_output(ref, " the  cat sat on the\tmat ", -1.0)["dropped_by"] == "copy"
    assert score_output("a b", "a b c d e", -1.0)["dropped_by"] == "too_long"  # 5 > 2 * 2
    assert score_output("a b", "c d e f", -1.0)["dropped_by"] == ""  # 4 == 2 * 2
    assert score_output(ref, "the cat sat on a mat", -99.0)["dropped_by"] == ""


def test_each_filter_drops_only_what_it_says() -> None:
    ref = "the cat sat on the mat"
    assert reason(ref, "", drop_empty=True) == "empty"
    assert reason(ref, "a dog", drop_empty=True) == ""
    assert reason(ref, ref, drop_copies=True) == "copy"
    assert reason(ref, "the cat sat on a mat", drop_copies=True) == ""
    assert reason("a b", "a b c", max_tokens=2) == "too_long"
    assert reason("a b", "a b", max_tokens=2) == ""
    assert reason("a b", "a b c d e", max_length_ratio=2.0) == "too_long"
    assert reason("a b", "a b c d", max_length_ratio=2.0) == ""
    # overlap1 of "the cat sat on a mat" is 5/6
    assert reason(ref, "the cat sat on a mat", max_unigram_overlap=0.8) == "unigram_overlap"
    assert reason(ref, "the cat sat on a mat", max_unigram_overlap=0.9) == ""
    bleu = output_bleu("the cat sat on a mat", ref)
    assert reason(ref, "the cat sat on a mat", max_bleu=bleu - 0.01) == "bleu"
    assert reason(ref, "the cat sat on a mat", max_bleu=bleu) == ""
    assert reason(ref, "x", logprob=-2.0, min_logprob=-1.5) == "logprob"
    assert reason(ref, "x", logprob=-1.0, min_logprob=-1.5) == ""
    assert reason(ref, "x", logprob=math.nan, min_logprob=-1.5) == "logprob"
    assert reason(ref, "", logprob=-9.0) == ""  # nothing on, nothing dropped


def test_first_filter_in_order_wins() -> None:
    options = OutputFilterOptions(max_unigram_overlap=0.1, max_bleu=1.0, min_logprob=0.0)
    assert score_output("a b", "a b", -5.0, options)["dropped_by"] == "copy"


def test_tally_counts_kept_and_each_filter() -> None:
    results = [{"dropped_by": r} for r in ["", "", "copy", "empty", "copy", "bleu"]]
    counts = tally(results)
    assert counts["outputs"] == 6 and counts["kept"] == 2
    assert counts["dropped_copy"] == 2 and counts["dropped_empty"] == 1
    assert counts["dropped_bleu"] == 1 and counts["dropped_logprob"] == 0
    assert set(counts) == {"outputs", "kept", *(f"dropped_{n}" for n in FILTER_NAMES)}
    assert NO_FILTERS.drop_empty is False
