"""The kernels of `pairs` against hand-worked cases and a brute-force reference: the words of a
sentence, positive pairs of groups, hard negatives (the best-scoring unrelated sentence by
inverse document frequency, with the caps high enough to read every posting), the relation
(components, unknown components, pivots) and the overlap figures."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tapaco.core.pairs.negatives import hard_negatives, random_negatives
from tapaco.core.pairs.overlap import overlaps, summary
from tapaco.core.pairs.positives import positive_pairs
from tapaco.core.pairs.words import word_sets
from tapaco.core.text_column import TextColumn


def word_lists(texts: list[str]) -> list[list[int]]:
    found = word_sets(TextColumn.of(texts))
    return [found.ids[found.offsets[k]:found.offsets[k + 1]].tolist() for k in range(len(texts))]


def test_words_split_on_spaces_and_punctuation_and_fold_case():
    ids = word_lists(["Hello, World!", "world   hello", "HELLO", "C' est quoi ?", "c'EST",
                      "ÀB Ёж", "àb ёж", "猫が好き", "好"])
    assert ids[0] == ids[1] and len(ids[0]) == 2 and set(ids[2]) < set(ids[0])
    assert len(ids[3]) == 3 and set(ids[4]) < set(ids[3])
    assert ids[5] == ids[6] and len(ids[5]) == 2
    assert len(ids[7]) == 4 and set(ids[8]) < set(ids[7])
    assert all(words == sorted(set(words)) for words in ids)


def test_positive_pairs_of_groups_and_the_cap():
    starts = np.array([0, 2, 5, 10, 11])  # groups of 2, 3, 5 and 1 sentences
    anchors, positives = positive_pairs(starts, 0, 0)
    pairs = {frozenset(pair) for pair in zip(anchors.tolist(), positives.tolist())}
    expected = {frozenset((i, j)) for start, end in zip(starts, starts[1:])
                for i in range(start, end) for j in range(i + 1, end)}
    assert len(anchors) == 1 + 3 + 10 and pairs == expected
    capped_a, capped_p = positive_pairs(starts, 3, 5)
    capped = [frozenset(pair) for pair in zip(capped_a.tolist(), capped_p.tolist())]
    assert len(capped) == 1 + 3 + 3 and len(set(capped)) == 7 and set(capped) <= expected
    again = positive_pairs(starts, 3, 5)
    assert all(np.array_equal(x, y) for x, y in zip(again, (capped_a, capped_p)))


def reference_scores(texts: list[list[str]], component: list[int], anchor: int) -> dict[int, float]:
    n = len(texts)
    frequency: dict[str, int] = {}
    for words in texts:
        for word in set(words):
            frequency[word] = frequency.get(word, 0) + 1
    scores = {}
    for c in range(n):
        if c == anchor or component[c] == component[anchor] or min(component[c],
                                                                   component[anchor]) < 0 \
                and max(component[c], component[anchor]) < 0:
            continue
        shared = set(texts[anchor]) & set(texts[c])
        if shared:
            scores[c] = sum(math.log((n + 1) / frequency[w]) for w in shared)
    return scores


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_negatives_are_the_best_scoring_unrelated_sentences(seed):
    draw = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(40)]
    texts = [draw.sample(vocabulary, draw.randint(1, 6)) for _ in range(300)]
    component = np.array([draw.randrange(60) - 2 for _ in texts], np.int64)  # some -1, -2
    component[component < 0] = -1
    found = hard_negatives(word_sets(TextColumn.of([" ".join(t) for t in texts])),
                           np.arange(len(texts)), 2, seed, component, cap=10**6,
                           budget=10**6)
    for anchor, chosen in enumerate(found.tolist()):
        scores = reference_scores(texts, component.tolist(), anchor)
        best = sorted(scores.values(), reverse=True)
        expected_found = min(2, len(best))
        assert sum(c >= 0 for c in chosen) == expected_found
        for rank, c in enumerate(chosen[:expected_found]):
            assert c in scores and math.isclose(scores[c], best[rank])


def test_unknown_components_and_shared_pivots_are_not_negatives():
    words = word_sets(TextColumn.of(["red cat", "red cat sat", "red cat ran", "red dog"]))
    unknown = np.array([-1, -1, 5, 6], np.int64)
    assert hard_negatives(words, np.array([0]), 3, 0, unknown).tolist() == [[2, 3, -1]]
    # pivots: 0 -> {7}, 1 -> {7, 8}, 2 -> {9}, 3 -> {}
    pivot_offsets, pivots = np.array([0, 1, 3, 4, 4]), np.array([7, 7, 8, 9])
    distinct = np.arange(4, dtype=np.int64)
    assert hard_negatives(words, np.array([0]), 3, 0, distinct, pivot_offsets,
                          pivots).tolist() == [[2, 3, -1]]
    randoms = random_negatives(4, np.array([0, 0, 1]), 3, distinct, pivot_offsets, pivots)
    assert set(randoms.tolist()) <= {2, 3}


def test_overlaps_by_hand():
    words = word_sets(TextColumn.of(["a b c", "b c d e", "x", "A, B"]))
    shared, jaccard = overlaps(words, np.array([0, 0, 0]), np.array([1, 2, 3]))
    assert shared.tolist() == [2, 0, 2]
    assert jaccard.tolist() == [2 / 5, 0.0, 2 / 3]
    assert summary(shared, jaccard)["share_with_a_shared_word"] == round(2 / 3, 4)
