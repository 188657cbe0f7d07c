import numpy as np

from tapaco.core.arrays import group_starts, lexicographic_order, string_codes


def test_lexicographic_order_matches_sorted_tuples():
    rng = np.random.default_rng(1)
    for high in (4, 1000, 2**40):
        a = rng.integers(0, 5, 500)
        b = rng.integers(0, high, 500)
        c = rng.integers(-3, 3, 500)
        expected = sorted(range(500), key=lambda i: (a[i], b[i], c[i], i))
        assert lexicographic_order(a, b, c).tolist() == expected


def test_group_starts():
    a = np.array([1, 1, 2, 2, 2])
    b = np.array([0, 1, 1, 1, 3])
    assert group_starts(a).tolist() == [True, False, True, False, False]
    assert group_starts(a, b).tolist() == [True, True, True, False, True]


def test_string_codes_group_exactly_equal_strings():
    strings = ["b", "a", "b", "c", "a", "b"]
    assert string_codes(strings).tolist() == [0, 1, 0, 2, 1, 0]
    assert string_codes([]).tolist() == []


def test_string_codes_survive_hash_collisions():
    class Colliding(str):
        def __hash__(self) -> int:
            return 7

    strings = [Colliding("x"), Colliding("y"), Colliding("x")]
    assert string_codes(strings).tolist() == [0, 1, 0]
