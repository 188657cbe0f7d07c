import pytest

from opusparcus.edit_distance import adjusted_edit_distance, differ_enough


def _semi_global(short: str, long: str) -> int:
    """Textbook DP: the shorter string aligned inside the longer, its tails free."""
    previous = [0] * (len(long) + 1)
    for i in range(1, len(short) + 1):
        current = [i] + [0] * len(long)
        for j in range(1, len(long) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (short[i - 1] != long[j - 1]))
        previous = current
    return min(previous)


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
    """More than edlib's 256 symbols: few shared characters (recoded for edlib) and more than
    254 (the numpy programme); the second sentence is an edited copy of a part of the first."""
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


def test_numpy_programme_agrees_on_small_cases():
    from opusparcus.edit_distance import infix_distance

    for short, long in [("Frankfurt , Germany .", "Oh , Frankfurt , Germany ."),
                        ("kitten", "sitting"), ("abc", "xyz"), ("ab", "ba"), ("a", "a")]:
        assert infix_distance(short, long) == _semi_global(short, long)
