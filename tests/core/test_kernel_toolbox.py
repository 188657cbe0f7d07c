"""The kernels' toolbox (:mod:`tapaco.core.hashing`, :mod:`tapaco.core.ranges`,
:mod:`tapaco.core.utf8`, :func:`tapaco.core.characters.is_whitespace`) against Python's own:
FNV-1a written out here, slices, `bytes.decode`, `str.isspace`, a dict."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from tapaco.core.characters import is_whitespace
from tapaco.core.hashing import first_occurrences, hash_range, mixed, repeats, slot_of, slots_for
from tapaco.core.ranges import compare_ranges, equal_ranges, starts_with
from tapaco.core.utf8 import code_point_at

_MASK = (1 << 64) - 1


def _fnv1a_mixed(items: list[int]) -> int:
    """FNV-1a (64-bit offset basis and prime) over the items, then the mix, as a signed int."""
    value = 0xcbf29ce484222325
    for item in items:
        value = ((value ^ item) * 0x100000001b3) & _MASK
    value ^= value >> 29
    value = (value * 0x9E3779B97F4A7C15) & _MASK
    value ^= value >> 32
    return value - (1 << 64) if value >> 63 else value


@pytest.mark.parametrize("text", ["", "a", "hello", "ça va ?", "日本語", "\U0001f600x", "a" * 300])
def test_hash_range_is_fnv1a_over_code_points_and_over_bytes(text):
    codes = np.array([ord(c) for c in "<" + text + ">"], np.int32)
    assert hash_range(codes, 1, len(codes) - 1) == _fnv1a_mixed([ord(c) for c in text])
    data = np.frombuffer(text.encode(), np.uint8)
    assert hash_range(data, 0, len(data)) == _fnv1a_mixed(list(text.encode()))


def test_mixed_is_one_to_one_on_neighbours():
    values = [mixed(np.uint64(v)) for v in range(1 << 12)]
    assert len(set(values)) == len(values)


@pytest.mark.parametrize("colliding", [False, True])
def test_a_table_numbers_keys_as_a_dict_does_in_order_of_first_appearance(colliding):
    """Also when every key has the same hash: keys are then told apart by their ranges."""
    rng = random.Random(5)
    words = ["".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) for _ in range(1000)]
    codes = np.array([ord(c) for c in "".join(words)], np.int32)
    bounds = np.cumsum([0] + [len(w) for w in words])
    keys = np.empty(len(codes), np.int32)
    starts, ends = np.zeros(len(words), np.int64), np.zeros(len(words), np.int64)
    hashes = np.zeros(len(words), np.int64)
    slots, count, ids = np.full(8, -1, np.int64), 0, []
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        value = np.int64(0) if colliding else hash_range(codes, start, end)
        slot = slot_of(slots, hashes, keys, starts, ends, value, codes, start, end)
        found = int(slots[slot])
        if found < 0:
            found = count
            starts[count] = ends[count - 1] if count else 0
            ends[count] = starts[count] + end - start
            keys[starts[count]:ends[count]] = codes[start:end]
            hashes[count], slots[slot] = value, count
            count += 1
            if 2 * count > len(slots):
                slots = slots_for(hashes, count, 2 * len(slots))
        ids.append(found)
    expected: dict[str, int] = {}
    assert ids == [expected.setdefault(word, len(expected)) for word in words]


def _unmixed(value: int) -> int:
    """The key whose :func:`mixed` hash is `value` (the mix written out backwards)."""
    value ^= value >> 32
    value = (value * pow(0x9E3779B97F4A7C15, -1, 1 << 64)) & _MASK
    return value ^ (value >> 29) ^ (value >> 58)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_first_occurrences_number_keys_as_a_dict_does(dtype):
    """Also when every key falls in the same slot (hashes multiples of 2**24) and past 2**63."""
    rng = np.random.default_rng(3)
    pool = np.array([_unmixed(i << 24) for i in range(1, 120)], np.uint64)
    assert (np.array([int(mixed(key)) for key in pool]) % (1 << 24) == 0).all()
    keys = pool[rng.integers(0, len(pool), 2000)].astype(dtype)
    numbers: dict[int, int] = {}
    expected = [numbers.setdefault(int(key), len(numbers)) for key in keys.tolist()]
    firsts_expected = [expected.index(number) for number in range(len(numbers))]
    codes, firsts = first_occurrences(keys)
    assert codes.tolist() == expected and firsts.tolist() == firsts_expected
    empty_codes, empty_firsts = first_occurrences(np.zeros(0, dtype))
    assert len(empty_codes) == len(empty_firsts) == 0


def _repeats_by_dict(keys: list[int]) -> tuple[list[int], list[int]]:
    firsts: dict[int, int] = {}
    later = [row for row, key in enumerate(keys) if firsts.setdefault(key, row) != row]
    return later, [firsts[keys[row]] for row in later]


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_repeats_are_the_rows_a_dict_has_seen_the_key_of(dtype):
    """Keys in one slot of every table (hashes multiples of 2**24), past 2**63, and enough rows
    for many buckets."""
    rng = np.random.default_rng(4)
    pool = np.array([_unmixed(i << 24) for i in range(1, 120)], np.uint64)
    crowded = pool[rng.integers(0, len(pool), 2000)]
    many = rng.integers(0, 2**64 - 1, 30_000, np.uint64, endpoint=True)
    many = many[rng.integers(0, len(many), 60_000)]
    for keys in (crowded.astype(dtype), many.astype(dtype), np.zeros(0, dtype),
                 np.array([5, 5, 5], dtype)):
        later, first = repeats(keys)
        assert (later.tolist(), first.tolist()) == _repeats_by_dict(keys.tolist())


def test_a_table_of_integer_keys_uses_empty_ranges():
    keys = [7, 3, 7, 1 << 40, 3, -5, -5]
    empty = np.zeros(0, np.int64)
    hashes, slots, count, ids = np.zeros(len(keys), np.int64), np.full(16, -1, np.int64), 0, []
    for key in keys:
        value = mixed(np.uint64(key & _MASK))
        slot = slot_of(slots, hashes, empty, np.zeros(16, np.int64), np.zeros(16, np.int64),
                       value, empty, 0, 0)
        if slots[slot] < 0:
            hashes[count], slots[slot] = value, count
            count += 1
        ids.append(int(slots[slot]))
    assert ids == [0, 1, 0, 2, 1, 3, 3]


def test_equal_ranges_is_slice_equality_and_a_range_past_the_end_is_equal_to_none():
    a = np.array([1, 2, 3, 1, 2], np.int32)
    b = np.array([9, 1, 2], np.int32)
    for a_start in range(7):
        for a_end in range(a_start, 8):
            for b_start in range(5):
                for b_end in range(b_start, 6):
                    inside = a_end <= len(a) and b_end <= len(b)
                    expected = inside and a[a_start:a_end].tolist() == b[b_start:b_end].tolist()
                    assert equal_ranges(a, a_start, a_end, b, b_start, b_end) == expected


@pytest.mark.parametrize("data, at, prefix", [
    (b"<link xtargets", 0, b"<link"), (b"<lin", 0, b"<link"), (b"a<link", 1, b"<link"),
    (b"a<linx", 1, b"<link"), (b"abc", 3, b""), (b"abc", 2, b"cd")])
def test_starts_with_is_bytes_startswith(data, at, prefix):
    assert starts_with(np.frombuffer(data, np.uint8), at,
                       np.frombuffer(prefix, np.uint8)) == data.startswith(prefix, at)


def test_compare_ranges_orders_utf8_as_python_orders_the_strings():
    """UTF-8 byte order is code-point order: the kernel sorts as Python compares the strings,
    prefixes and empty ranges included."""
    words = ["", "a", "ab", "abc", "b", "é", "e\u0301", "日本", "日", "\U0001F600", "~", "Z"]
    data = "".join(words).encode("utf-8")
    bounds = np.cumsum([0] + [len(word.encode("utf-8")) for word in words])
    array = np.frombuffer(data, np.uint8)
    for i, first in enumerate(words):
        for j, second in enumerate(words):
            expected = (first > second) - (first < second)
            assert compare_ranges(array, bounds[i], bounds[i + 1], array, bounds[j],
                                  bounds[j + 1]) == expected, (first, second)


def test_code_point_at_decodes_as_bytes_decode():
    chars = [chr(code) for code in [*range(0x800), *range(0x800, 0xD800, 7),
                                    *range(0xE000, 0x10000, 5), *range(0x10000, 0x110000, 997),
                                    0x10FFFF]]
    data = np.frombuffer("".join(chars).encode(), np.uint8)
    at = 0
    for char in chars:
        code, width = code_point_at(data, at)
        assert (chr(code), width) == (char, len(char.encode()))
        at += width


def test_is_whitespace_is_str_isspace():
    found = [code for code in range(sys.maxunicode + 1) if is_whitespace(code)]
    assert found == [code for code in range(sys.maxunicode + 1) if chr(code).isspace()]
