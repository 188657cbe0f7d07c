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
