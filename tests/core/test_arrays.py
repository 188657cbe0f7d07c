import math

import numpy as np
import pyarrow as pa

from tapaco.core.arrays import (
    dictionary_encoded,
    group_starts,
    grouped_order,
    lexicographic_order,
    ordered_group_sums,
    string_codes,
)


def test_lexicographic_order_matches_sorted_tuples():
    rng = np.random.default_rng(1)
    for high in (4, 1000, 2**40):
        a = rng.integers(0, 5, 500)
        b = rng.integers(0, high, 500)
        c = rng.integers(-3, 3, 500)
        expected = sorted(range(500), key=lambda i: (a[i], b[i], c[i], i))
        assert lexicographic_order(a, b, c).tolist() == expected


def test_lexicographic_order_of_keys_wider_than_a_word_matches_sorted_tuples():
    """Five keys of 30-40 bits: sorted in blocks; ties (few distinct values) by row index."""
    rng = np.random.default_rng(2)
    keys = [rng.integers(0, 3, 2000), rng.integers(0, 2**30, 2000) // 2**27,
            rng.integers(0, 2**40, 2000) // 2**37, rng.integers(0, 2**35, 2000),
            rng.integers(0, 2, 2000)]
    keys[3][::3] = 2**35 - 1  # one wide key with many ties
    expected = sorted(range(2000), key=lambda i: (*(int(k[i]) for k in keys), i))
    assert lexicographic_order(*keys).tolist() == expected
    wide = rng.integers(0, 2**60, 2000)
    expected = sorted(range(2000), key=lambda i: (int(wide[i]), int(keys[0][i]), i))
    assert lexicographic_order(wide, keys[0]).tolist() == expected


def test_grouped_order_sorts_rows_stably_by_two_keys_and_numbers_the_groups():
    """Rows in a shuffled order come out as the sorted tuples (major, minor, position given),
    rows whose major key is -1 left out; groups numbered where (major, minor) changes, packed
    and gathered on 1 to 3 threads. Keys too wide to pack with the positions take the
    lexicographic order instead."""
    rng = np.random.default_rng(4)
    for major_count, minor_count in [(1, 1), (3, 50), (40, 5000), (2, 3), (0, 9), (5, 2**60)]:
        major = rng.integers(-1, major_count, 900)
        minor = rng.integers(0, minor_count, 900)
        order = rng.permutation(900)
        expected = sorted((major[row], minor[row], at, row) for at, row in enumerate(order)
                          if major[row] >= 0)
        pairs = [(int(a), int(b)) for a, b, _, _ in expected]
        numbers = [sorted(set(pairs)).index(pair) for pair in pairs]
        for workers in (1, 2, 3):
            rows, row_major, group = grouped_order(order, major, minor, workers)
            assert rows.tolist() == [int(row) for *_, row in expected]
            assert row_major.tolist() == [a for a, _ in pairs]
            assert group.tolist() == numbers
    empty = np.zeros(0, np.int64)
    for workers in (1, 2):
        assert [part.tolist() for part in grouped_order(empty, empty, empty, workers)] == [
            [], [], []]


def test_group_starts():
    a = np.array([1, 1, 2, 2, 2])
    b = np.array([0, 1, 1, 1, 3])
    assert group_starts(a).tolist() == [True, False, True, False, False]
    assert group_starts(a, b).tolist() == [True, True, True, False, True]


def test_group_offsets_and_chunks_of_whole_runs():
    from tapaco.core.arrays import group_chunks, group_offsets

    groups = np.array([5, 5, 5, 2, 7, 7, 7, 7, 7, 7, 1, 1])
    offsets = group_offsets(groups)
    assert offsets.tolist() == [0, 3, 4, 10, 12]
    assert group_offsets(np.zeros(0, np.int64)).tolist() == [0]
    # about 4 rows a chunk: runs 0-1 (4 rows), run 2 alone (6 rows, larger than a chunk), run 3
    assert group_chunks(offsets, 4) == [(0, 2), (2, 3), (3, 4)]
    assert group_chunks(offsets, 100) == [(0, 4)]
    assert group_chunks(offsets, 1) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert group_chunks(group_offsets(np.zeros(0, np.int64)), 4) == []


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


def test_ordered_group_sums_of_a_key_do_not_depend_on_the_other_keys():
    """pandas' groupby sum gives these five values 14.637331296154827 alone and
    14.637331296154825 beside other keys; a key's sum here is the same either way."""
    values = np.array([3.8823529411764706, 3.142857142857143, 2.5454545454545454,
                       2.6666666666666665, 2.4])
    alone = ordered_group_sums(np.full(5, 7, np.uint64), values)[2][0]
    rng = np.random.default_rng(0)
    others = rng.integers(10, 10**12, 1000).astype(np.uint64)
    keys = np.concatenate([others[:400], np.full(5, 7, np.uint64), others[400:]])
    mixed = np.concatenate([rng.random(400), values, rng.random(600)])
    distinct, sizes, (sums,) = ordered_group_sums(keys, mixed)
    assert distinct[0] == 7 and sizes[0] == 5
    assert sums[0].tobytes() == alone.tobytes()
    assert abs(alone - math.fsum(values)) < 1e-12


def test_ordered_group_sums_keep_each_keys_row_order():
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 50, 5000).astype(np.uint64)
    values = rng.random(5000) * 10.0 ** rng.integers(-8, 8, 5000)
    distinct, sizes, (sums,) = ordered_group_sums(keys, values)
    assert distinct.tolist() == sorted(set(keys.tolist()))
    for key, size, total in zip(distinct.tolist(), sizes.tolist(), sums.tolist()):
        own = values[keys == key]
        assert size == len(own)
        for offset in range(9):  # the key's values alone, in row order, wherever they lie
            padded = np.concatenate([rng.random(offset), own, rng.random(2)])
            assert total == np.add.reduceat(padded, [0, offset, offset + size])[1]
        assert abs(total - math.fsum(own)) <= 1e-12 * abs(total)
    assert ordered_group_sums(keys[:0], values[:0])[0].tolist() == []


def test_dictionary_encoded_across_chunks_as_first_appearance():
    texts = [["b", "a", "é"], [], ["a", "c", "b"], [""], ["é"]]
    chunks = [pa.array(chunk, pa.large_string()) for chunk in texts]
    flat = [text for chunk in texts for text in chunk]
    first = list(dict.fromkeys(flat))
    distinct, codes = dictionary_encoded(chunks)
    assert distinct.to_pylist() == first
    assert codes.tolist() == [first.index(text) for text in flat]
    empty, none = dictionary_encoded([pa.array([], pa.large_string())] * 2)
    assert len(empty) == 0 and none.tolist() == []


def test_sorted_distinct_is_the_sorted_set():
    import numpy as np

    from tapaco.core.arrays import sorted_distinct

    values = np.random.default_rng(3).integers(0, 50, (40, 2)).astype(np.uint64)
    assert sorted_distinct(values).tolist() == sorted(set(values.ravel().tolist()))
    assert sorted_distinct(np.zeros(0, np.int64)).tolist() == []

