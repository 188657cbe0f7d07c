import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opusparcus import edit_distance_kernels
from opusparcus.edit_distance import (
    adjusted_edit_distance,
    adjusted_edit_distances,
    differ_enough,
    differ_enough_mask,
)
from tapaco.core.arrays import code_points


def _textbook(short: str, long: str, tails_free: bool) -> int:
    """Textbook DP: `short` aligned to `long`, whose tails are free when `tails_free` (the top
    row stays 0, the best bottom cell wins); else the plain edit distance."""
    previous = [0] * (len(long) + 1) if tails_free else list(range(len(long) + 1))
    for i in range(1, len(short) + 1):
        current = [i] + [0] * len(long)
        for j in range(1, len(long) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (short[i - 1] != long[j - 1]))
        previous = current
    return min(previous) if tails_free else previous[-1]


def _semi_global(short: str, long: str) -> int:
    return _textbook(short, long, tails_free=True)


@pytest.mark.parametrize("first, second", [
    ("Frankfurt , Germany .", "Oh , Frankfurt , Germany ."),
    ("Je reviens de suite .", "Je reviens tout de suite ."),
    ("He is not your friend .", "He isn 't your friend ."),
    ("Да .", "Нет ."), ("", "abc"), ("abc", "abc"), ("kitten", "sitting"),
])
def test_adjusted_distance_matches_the_textbook_recurrence(first, second):
    short, long = sorted((first, second), key=len)
    assert adjusted_edit_distance(first, second) == _semi_global(short, long)
    assert adjusted_edit_distance(second, first) == _semi_global(short, long)


def test_frankfurt_example_is_zero():
    assert adjusted_edit_distance("Frankfurt , Germany .", "Oh , Frankfurt , Germany .") == 0


def test_dev_test_prefilter_thresholds():
    # 24 characters or more: 0.4; "He is not your friend ." is 23 characters: 0.5
    assert not differ_enough("He is not your friend .", "He isn 't your friend .", 0.4, 0.5)
    assert differ_enough("Have a seat .", "Sit down .", 0.4, 0.5)  # distance 9 >= 5
    long_a, long_b = "a" * 30, "a" * 18 + "b" * 12  # distance 12 = 0.4 x 30
    assert differ_enough(long_a, long_b, 0.4, 0.5)
    assert not differ_enough(long_a, "a" * 19 + "b" * 11, 0.4, 0.5)


def _cjk(rng, length: int, first: int, span: int) -> str:
    return "".join(chr(0x4E00 + first + int(code)) for code in rng.integers(0, span, length))


@pytest.mark.parametrize("span, shared_from, many_shared", [
    (600, 0, False), (400, 100, False), (20000, 0, True), (20000, 300, True)])
def test_any_alphabet_matches_the_textbook_recurrence(span, shared_from, many_shared):
    """More than 256 symbols (edlib's limit, which the kernels do not have), few or many
    shared; the second sentence is an edited copy of a part of the first."""
    import numpy as np

    rng = np.random.default_rng(span + shared_from)
    long = _cjk(rng, 420, 0, span)
    middle = list(long[shared_from // 3: shared_from // 3 + 300])
    for position in rng.integers(0, len(middle), 40).tolist():
        middle[position] = _cjk(rng, 1, span, 300)  # characters the long one lacks
    short = "".join(middle)
    assert len(set(short) | set(long)) > 256
    assert (len(set(short) & set(long)) > 254) == many_shared
    expected = _semi_global(short, long)
    assert adjusted_edit_distance(short, long) == expected
    assert adjusted_edit_distance(long, short) == expected


def _levenshtein(first: str, second: str) -> int:
    return _textbook(first, second, tails_free=False)


@pytest.mark.parametrize("length", [1, 2, 63, 64, 65, 130])
def test_both_kernel_paths_around_the_machine_word(length):
    """A shorter side of up to 64 code points runs bit-parallel, a longer one row by row."""
    import random

    rng = random.Random(length)
    pairs = [("".join(rng.choices("abcé😀 ", k=length)),
              "".join(rng.choices("abcé😀 ", k=length + rng.randint(0, 30))))
             for _ in range(40)]
    first, second = zip(*pairs)
    adjusted = adjusted_edit_distances(first, second).tolist()
    assert adjusted == [_semi_global(a, b) for a, b in pairs]
    plain = edit_distance_kernels.distances(*code_points(first), *code_points(second), False)
    assert plain.tolist() == [_levenshtein(a, b) for a, b in pairs]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=80), st.text(max_size=80)), max_size=6))
def test_kernels_equal_edlib_and_rapidfuzz(pairs):
    """The C libraries the kernels replaced, as references: edlib's infix alignment (its
    alphabet is small, so only for pairs it takes) and rapidfuzz's Levenshtein distance."""
    edlib = pytest.importorskip("edlib", reason="edlib (test extra) is the reference")
    levenshtein = pytest.importorskip("rapidfuzz.distance.Levenshtein",
                                      reason="rapidfuzz (test extra) is the reference")
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    adjusted = adjusted_edit_distances(first, second).tolist()
    for (a, b), found in zip(pairs, adjusted):
        short, long = sorted((a, b), key=len)
        if short and len(set(a + b)) <= 256:
            assert found == edlib.align(short, long, mode="HW", task="distance")["editDistance"]
    plain = edit_distance_kernels.distances(*code_points(first), *code_points(second), False)
    assert plain.tolist() == [levenshtein.distance(a, b) for a, b in pairs]
    for ratio, short_ratio in ((0.4, 0.5), (0.0, 1.0)):
        mask = differ_enough_mask(first, second, ratio, short_ratio)
        shorter = [min(len(a), len(b)) for a, b in pairs]
        assert mask.tolist() == [
            levenshtein.distance(a, b) >= (short_ratio if n < 24 else ratio) * n
            for (a, b), n in zip(pairs, shorter)]
