"""IDF and ParaBank-style choice of suppressed words (tapaco.enrich.constraints)."""

from __future__ import annotations

import math

import pytest

from tapaco.enrich.constraints import (
    ConstraintOptions,
    Idf,
    choose_suppressed,
    compute_idf,
    is_number,
    is_punctuation,
    lower_tokens,
)

SENTENCES = ["The cat sat.", "The dog sat.", "A cat ran 3 times!", "The bird flew."]
NONE = ConstraintOptions(top_frequent=None, max_df_ratio=None)


def test_idf_by_hand() -> None:
    idf = compute_idf(SENTENCES)
    assert idf.n == 4
    assert idf.df["the"] == 3 and idf.df["."] == 3 and idf.df["cat"] == 2
    assert idf.idf("the") == pytest.approx(math.log(4 / 3))
    assert idf.idf("cat") == pytest.approx(math.log(2))
    assert idf.idf("dog") == pytest.approx(math.log(4))
    assert idf.idf("unseen") == pytest.approx(math.log(4))  # df counted as 1


def test_df_counts_a_word_once_per_sentence_and_streams() -> None:
    idf = Idf()
    for sentence in ["a a a b", "A c"]:
        idf.add(sentence)
    assert idf.df == {"a": 2, "b": 1, "c": 1}
    assert compute_idf(iter(["a a a b", "A c"])).df == idf.df


def test_chooses_highest_idf_content_words_with_alphabetical_ties() -> None:
    idf = compute_idf(SENTENCES)
    tokens = lower_tokens("A cat ran 3 times!")
    assert choose_suppressed(tokens, idf, 1, NONE) == ["a"]
    assert choose_suppressed(tokens, idf, 3, NONE) == ["a", "ran", "times"]
    assert choose_suppressed(tokens, idf, 10, NONE) == ["a", "ran", "times", "cat"]  # no 3, !
    assert choose_suppressed(tokens, idf, 0, NONE) == []


def test_never_punctuation_symbols_or_numbers() -> None:
    idf = compute_idf(["1,000 $ « rare » 3.5 !", "x"])
    assert choose_suppressed(lower_tokens("1,000 $ « rare » 3.5 !"), idf, 9, NONE) == ["rare"]
    assert all(is_punctuation(t) for t in ["!", "«", "$", "...", "-"])
    assert all(is_number(t) for t in ["42", "3.5", "1,000", "-7", "½"])
    assert not any(is_number(t) or is_punctuation(t) for t in ["mp3", "cat", "l'eau"])


def test_frequent_words_excluded_both_ways() -> None:
    idf = compute_idf(SENTENCES)
    tokens = lower_tokens("The cat sat.")
    assert choose_suppressed(tokens, idf, 5, NONE) == ["cat", "sat", "the"]
    top2 = ConstraintOptions(top_frequent=2, max_df_ratio=None)  # "." and "the" (df 3)
    assert idf.frequent(top2) == {".", "the"}
    assert choose_suppressed(tokens, idf, 5, top2) == ["cat", "sat"]
    ratio = ConstraintOptions(top_frequent=None, max_df_ratio=0.5)  # df/N > 0.5
    assert choose_suppressed(tokens, idf, 5, ratio) == ["cat", "sat"]
    ratio_low = ConstraintOptions(top_frequent=None, max_df_ratio=0.4)
    assert choose_suppressed(tokens, idf, 5, ratio_low) == []


def test_deterministic_and_prefix_of_each_other() -> None:
    idf = compute_idf(SENTENCES)
    a = choose_suppressed(lower_tokens("times ran A cat"), idf, 4, NONE)
    b = choose_suppressed(lower_tokens("cat A ran times"), idf, 4, NONE)
    assert a == b
    for k in range(1, 4):
        assert choose_suppressed(lower_tokens("cat A ran times"), idf, k, NONE) == a[:k]
