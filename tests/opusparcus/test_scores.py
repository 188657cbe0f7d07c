"""Counting and scoring checked against the paper's example and a dictionary implementation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from reference import scores as reference_scores

from opusparcus.counting import (
    count_links,
    count_type,
    pack_pairs,
    pivot_groups,
    sum_by_pair,
    unpack_pairs,
    weighted_pairs,
)
from opusparcus.ranked_runs import ordered_rows
from opusparcus.scores import SCHEMES, ScoredPairs, score_pairs


def _encode(bitexts: dict[str, list[tuple[str, str]]]):
    vocabulary = sorted({t for links in bitexts.values() for t, _ in links})
    code = {t: i for i, t in enumerate(vocabulary)}
    per_bitext = []
    for links in bitexts.values():
        pivots = {f: i for i, f in enumerate(sorted({f for _, f in links}))}
        target = np.array([code[t] for t, _ in links], np.int64)
        pivot = np.array([pivots[f] for _, f in links], np.int64)
        per_bitext.append((target, pivot))
    return vocabulary, per_bitext


def shared_pairs(counts, max_fanout):
    """All target pairs with a common pivot, and what the fan-out cap skipped, as aggregate
    sums them."""
    groups, skips = pivot_groups(counts, max_fanout)
    return sum_by_pair(*weighted_pairs(counts, groups)), skips


def _scored(bitexts, scheme, max_fanout=None):
    vocabulary, encoded = _encode(bitexts)
    per_bitext = []
    for target, pivot in encoded:
        counts = count_links(target, pivot, len(vocabulary))
        per_bitext.append((shared_pairs(counts, max_fanout)[0], counts))
    scored = score_pairs(per_bitext, scheme)
    left = (scored.keys >> np.uint64(32)).astype(int)
    right = (scored.keys & np.uint64(0xFFFFFFFF)).astype(int)
    return {(vocabulary[a], vocabulary[b]): (s, p, e, n) for a, b, s, p, e, n in zip(
        left, right, scored.score, scored.summed_pmi, scored.expected, scored.pivots)}


def test_paper_conditional_probability_example():
    # e1 aligned once to f1, e2 21 times: P(f1|e1) = 1, P(e2|f1) = 21/22
    links = [("e1 .", "f1 .")] + [("e2 .", "f1 .")] * 21
    result = _scored({"fr": links}, "conditional")
    score, summed_pmi, expected, pivots = result["e1 .", "e2 ."]
    count_e1, count_e2 = 1, 21
    assert expected / count_e1 == pytest.approx(21 / 22)  # P(e2|e1) = P(e2|f1) P(f1|e1)
    assert expected / count_e2 == pytest.approx(1 / 22)   # P(e1|e2) = P(e1|f1) P(f1|e2)
    assert score == pytest.approx(1 / 22)                 # the symmetric form: the minimum
    assert summed_pmi == pytest.approx(math.log(22 * (21 / 22) / (1 * 21)))
    assert pivots == 1


def test_misaligned_rare_pair_high_on_pmi_low_on_joint():
    links = ([("We 're staying in the army .", "Aah .")] + [("Aah .", "Aah .")] * 140
             + [("Yes .", "Oui .")] * 300 + [("Yeah .", "Oui .")] * 200
             + [("Sure .", "D'accord .")] * 50 + [("Of course .", "D'accord .")] * 50)
    rare, frequent = ("Aah .", "We 're staying in the army ."), ("Yeah .", "Yes .")
    for scheme, rare_wins in (("pmi", True), ("joint", False)):
        result = _scored({"fr": links}, scheme)
        assert (result[rare][0] > result[frequent][0]) == rare_wins, scheme


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("max_fanout", [None, 6])
def test_every_scheme_matches_dictionary_counting(scheme, max_fanout):
    rng = random.Random(7)
    targets = [f"t{i} ." for i in range(40)]
    bitexts = {}
    for pivot in ("de", "fi", "fr"):
        pivots = [f"{pivot}{i} ." for i in range(60)]
        bitexts[pivot] = [(rng.choice(targets[: rng.randint(5, 40)]), rng.choice(pivots))
                          for _ in range(400)]
    expected = reference_scores(bitexts, max_fanout)
    got = _scored(bitexts, scheme, max_fanout)
    assert set(got) == set(expected) and len(got) > 100
    if max_fanout:
        assert len(got) < len(reference_scores(bitexts))
    for pair, (score, summed_pmi, shared, pivots) in got.items():
        want = expected[pair]
        assert score == pytest.approx(want[scheme], rel=1e-9, abs=1e-12)
        assert summed_pmi == pytest.approx(want["summed-pmi"], rel=1e-9, abs=1e-12)
        assert shared == pytest.approx(want["expected"], rel=1e-9)
        assert pivots == want["pivots"]


def test_counts_are_int32_up_to_the_int32_limit_of_links():
    assert count_type(2**31 - 1) is np.int32
    assert count_type(2**31) is np.int64
    counts = count_links(np.array([0, 1, 1]), np.array([0, 0, 1]), 3)
    assert {counts.pair_count.dtype, counts.target_count.dtype, counts.pivot_count.dtype} == {
        np.dtype(np.int32)}
    assert counts.target_count.tolist() == [1, 2, 0] and counts.pivot_count.tolist() == [2, 1]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_products_of_int32_counts_do_not_overflow(scheme):
    # c(a,x) = c(b,x) = 70,000: their product, and c(a) c(b), exceed 2^31
    links = [("a .", "x .")] * 70_000 + [("b .", "x .")] * 70_000
    score, summed_pmi, expected, pivots = _scored({"fr": links}, scheme)["a .", "b ."]
    assert expected == 70_000 * 70_000 / 140_000
    assert summed_pmi == 0.0  # ln(140,000 * 35,000 / (70,000 * 70,000))
    assert score == {"summed-pmi": 0.0, "pmi": 0.0, "joint-pmi": 0.0, "joint": 0.25,
                     "conditional": 0.5}[scheme]


def test_fanout_cap_counts_what_it_skips():
    links = [(f"t{i} .", "Oui .") for i in range(5)] + [("t0 .", "Non ."), ("t1 .", "Non .")]
    vocabulary, [(target, pivot)] = _encode({"fr": links})
    counts = count_links(target, pivot, len(vocabulary))
    pairs, skips = shared_pairs(counts, 4)
    assert len(pairs.keys) == 1  # only t0-t1 through "Non ."
    assert (skips.pivots, skips.links, skips.pairs) == (1, 5, 10)


@pytest.mark.parametrize("same_score", [True, False])
def test_ordering_breaks_ties_by_the_sentences_and_releases_the_input(same_score):
    rng = np.random.default_rng(4)
    left = rng.integers(0, 300, 5000)
    right = left + 1 + rng.integers(0, 300, 5000)
    keys = np.unique(pack_pairs(left, right))
    pmi = rng.integers(0, 6, len(keys)) / 4  # many exact ties
    score = pmi if same_score else -pmi * 3
    pairs = ScoredPairs(keys, pmi, rng.random(len(keys)), rng.integers(1, 5, len(keys)), score)
    first, second = unpack_pairs(keys)
    expected = np.lexsort((second, first, -score))  # the order by its definition
    copies = {name: getattr(pairs, name).copy() for name in ("keys", "expected", "pivots")}
    ordered = ordered_rows(pairs, with_score=not same_score)
    assert ordered["expected"].tolist() == copies["expected"][expected].tolist()
    assert ordered["pivots"].tolist() == copies["pivots"][expected].tolist()
    assert (ordered["first"].tolist(), ordered["second"].tolist()) == (
        first[expected].tolist(), second[expected].tolist())
    assert ("score" in ordered) != same_score
    assert len(pairs.keys) == len(pairs.score) == 0, "the input's arrays were let go"
