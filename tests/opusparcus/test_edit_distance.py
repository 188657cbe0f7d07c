"""The edit distances against the textbook recurrence, a vectorised dynamic programme and the C
libraries (edlib, rapidfuzz), around the kernel's machine words and strips, on any alphabet,
cut into pieces anywhere; and their cost, which must stay ceil(m / 64) x n word steps."""

import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opusparcus import edit_distance_kernels
from opusparcus.edit_distance import adjusted_edit_distances, differ_enough_mask, edit_distances
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


def adjusted_edit_distance(first: str, second: str) -> int:
    """The kernel's adjusted distance of one pair."""
    return int(adjusted_edit_distances([first], [second])[0])


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
    # "Have a seat ." / "Sit down .": distance 9 >= 5; the "a" pairs: 12 = 0.4 x 30, then 11
    long_a = "a" * 30
    first = ["He is not your friend .", "Have a seat .", long_a, long_a]
    second = ["He isn 't your friend .", "Sit down .", "a" * 18 + "b" * 12, "a" * 19 + "b" * 11]
    assert differ_enough_mask(first, second, 0.4, 0.5).tolist() == [False, True, True, False]


def _cjk(rng, length: int, first: int, span: int) -> str:
    return "".join(chr(0x4E00 + first + int(code)) for code in rng.integers(0, span, length))


@pytest.mark.parametrize("span, shared_from, many_shared", [
    (600, 0, False), (400, 100, False), (20000, 0, True), (20000, 300, True)])
def test_any_alphabet_matches_the_textbook_recurrence(span, shared_from, many_shared):
    """More than 256 symbols (edlib's limit, which the kernels do not have), few or many
    shared; the second sentence is an edited copy of a part of the first."""
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
    """A shorter side of one machine word, of two, and one word and one more code point."""
    rng = random.Random(length)
    pairs = [("".join(rng.choices("abcé😀 ", k=length)),
              "".join(rng.choices("abcé😀 ", k=length + rng.randint(0, 30))))
             for _ in range(40)]
    first, second = zip(*pairs)
    adjusted = adjusted_edit_distances(first, second).tolist()
    assert adjusted == [_semi_global(a, b) for a, b in pairs]
    assert edit_distances(first, second).tolist() == [_levenshtein(a, b) for a, b in pairs]


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
    assert edit_distances(first, second).tolist() == [levenshtein.distance(a, b)
                                                      for a, b in pairs]
    for ratio, short_ratio in ((0.4, 0.5), (0.0, 1.0)):
        mask = differ_enough_mask(first, second, ratio, short_ratio)
        shorter = [min(len(a), len(b)) for a, b in pairs]
        assert mask.tolist() == [
            levenshtein.distance(a, b) >= (short_ratio if n < 24 else ratio) * n
            for (a, b), n in zip(pairs, shorter)]


def _dynamic_programme(short: str, long: str, tails_free: bool) -> int:
    """The textbook recurrence a row at a time in numpy: a cell is the least of the row above
    (+1, or the diagonal +0/1), then of its left neighbours (+1 per step), a running minimum."""
    a = np.array([ord(c) for c in short], np.int64)
    b = np.array([ord(c) for c in long], np.int64)
    positions = np.arange(len(b) + 1)
    row = np.zeros(len(b) + 1, np.int64) if tails_free else positions.copy()
    for i in range(1, len(a) + 1):
        candidate = np.empty_like(row)
        candidate[0] = i
        candidate[1:] = np.minimum(row[1:] + 1, row[:-1] + (a[i - 1] != b))
        row = np.minimum.accumulate(candidate - positions) + positions
    return int(row.min() if tails_free else row[-1])


def _edited(rng: random.Random, text: str, alphabet: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        at = rng.randrange(len(chars) + 1)
        kind = rng.randrange(3)
        if kind == 0 and at < len(chars):
            chars[at] = rng.choice(alphabet)
        elif kind == 1 and at < len(chars):
            del chars[at]
        else:
            chars.insert(at, rng.choice(alphabet))
    return "".join(chars)


_WORDS = "the house is green and we went there yesterday Frankfurt".split()
_ALPHABETS = {
    "two letters": "ab",
    "words": "",
    "astral": "a😀𝔸𐍈 é\U0010fffd",
    "cjk": "".join(map(chr, range(0x4E00, 0x4E00 + 700))),
}
# Around one machine word, two, a strip of the kernel (32 words), and three strips.
_LENGTHS = [63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 4097]


def _text(rng: random.Random, alphabet: str, length: int) -> str:
    if not alphabet:  # words: spaces, so blocks and strips end inside and between words
        text = ""
        while len(text) < length:
            text += rng.choice(_WORDS) + " "
        return text[:length]
    return "".join(rng.choices(alphabet, k=length))


@pytest.mark.parametrize("kind", list(_ALPHABETS))
@pytest.mark.parametrize("length", _LENGTHS)
def test_long_pairs_match_a_dynamic_programme(kind, length):
    """Both distances of related and unrelated pairs whose shorter side is about `length`
    code points, against the vectorised programme (every alphabet) and edlib and rapidfuzz."""
    rng = random.Random(f"{kind} {length}")
    alphabet = _ALPHABETS[kind] or " abcdefghijklmnopqrstuvwxyzFH"
    short = _text(rng, _ALPHABETS[kind], length)
    longer = [_edited(rng, short, alphabet, rng.randrange(1, 60)) + _text(rng, _ALPHABETS[kind],
                                                                      rng.randrange(0, 300)),
              _text(rng, _ALPHABETS[kind], length + rng.randrange(0, 300))]
    longer[0] = _text(rng, _ALPHABETS[kind], rng.randrange(0, 200)) + longer[0]
    pairs = [(short, other) for other in longer] + [(other, short) for other in longer]
    adjusted = adjusted_edit_distances(*zip(*pairs)).tolist()
    plain = edit_distances(*zip(*pairs)).tolist()
    for (a, b), found_adjusted, found_plain in zip(pairs, adjusted, plain):
        first, second = sorted((a, b), key=len)
        assert found_adjusted == _dynamic_programme(first, second, tails_free=True)
        assert found_plain == _dynamic_programme(first, second, tails_free=False)


def test_the_vectorised_programme_is_the_textbook_one():
    rng = random.Random(7)
    for _ in range(200):
        a = "".join(rng.choices("abc", k=rng.randrange(0, 12)))
        b = "".join(rng.choices("abc", k=rng.randrange(len(a), 16)))
        for tails_free in (True, False):
            assert _dynamic_programme(a, b, tails_free) == _textbook(a, b, tails_free)


@pytest.mark.parametrize("length", [5_000, 20_000])
@pytest.mark.parametrize("related", [True, False])
def test_long_pairs_equal_edlib_and_rapidfuzz(length, related):
    edlib = pytest.importorskip("edlib", reason="edlib (test extra) is the reference")
    levenshtein = pytest.importorskip("rapidfuzz.distance.Levenshtein",
                                      reason="rapidfuzz (test extra) is the reference")
    rng = random.Random(length)
    a = _text(rng, "", length)
    b = (_edited(rng, a, " abcdefgh", length // 20) if related
         else _text(rng, "", length - 300))
    assert edit_distances([a], [b])[0] == levenshtein.distance(a, b)
    short, long = sorted((a, b), key=len)
    expected = edlib.align(short, long, mode="HW", task="distance")["editDistance"]
    assert adjusted_edit_distances([a], [b])[0] == expected
    assert adjusted_edit_distances([b], [a])[0] == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text("ab😀", max_size=300), st.text("ab😀", max_size=300)),
                min_size=1, max_size=5), st.integers(1, 3000))
def test_any_cut_into_pieces_gives_the_same_distances(pairs, budget):
    """The kernel stopped after any number of word steps (inside a pair, a strip) and
    resumed from its workspace gives what one call gives."""
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    (codes_a, offsets_a), (codes_b, offsets_b) = code_points(first), code_points(second)
    longest = max(max(len(a), len(b)) for a, b in pairs)
    for infix in (True, False):
        workspace = edit_distance_kernels.Workspace(len(pairs), longest)
        calls = 1
        while not edit_distance_kernels.advance(codes_a, offsets_a, codes_b, offsets_b, infix,
                                                *workspace.arrays(), budget):
            calls += 1
        steps = sum(16 + len(a) + len(b) - (-min(len(a), len(b)) // 64) * max(len(a), len(b))
                    for a, b in pairs)
        assert calls - 1 <= steps // budget  # each call but the last did its budget
        assert workspace.found.tolist() == [_textbook(*sorted(pair, key=len), infix)
                                            for pair in pairs]


@pytest.mark.parametrize("budget", [997, 40_000, 1 << 20])
def test_pairs_of_several_strips_cut_into_pieces(budget):
    """Cut inside strips of a pattern of three (the middle one reading and writing the deltas
    handed down), among short pairs."""
    rng = random.Random(budget)
    long_a = _text(rng, "", 4_200)
    pairs = [("Oui .", "Non ."), (long_a, _edited(rng, long_a, "abc ", 300)),
             (_text(rng, "", 4_500), long_a), ("", "abc")]
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    (codes_a, offsets_a), (codes_b, offsets_b) = code_points(first), code_points(second)
    for infix in (True, False):
        workspace = edit_distance_kernels.Workspace(len(pairs), 4_500)
        while not edit_distance_kernels.advance(codes_a, offsets_a, codes_b, offsets_b, infix,
                                                *workspace.arrays(), budget):
            pass
        whole = (adjusted_edit_distances if infix else edit_distances)(first, second)
        assert workspace.found.tolist() == whole.tolist()
        assert whole.tolist() == [_dynamic_programme(*sorted(pair, key=len), infix)
                                  for pair in pairs]


def test_a_pair_of_long_sentences_costs_what_the_c_libraries_take():
    """The distance is ceil(m / 64) x n word steps, as rapidfuzz's (the kernel that ran the
    dynamic programme row by row past 64 code points took 100x rapidfuzz's time at 20,000,
    75 s at 100,000)."""
    levenshtein = pytest.importorskip("rapidfuzz.distance.Levenshtein",
                                      reason="rapidfuzz (test extra) is the yardstick")
    rng = random.Random(3)
    a, b = _text(rng, "", 100_000), _text(rng, "", 100_000)
    adjusted_edit_distances([a[:100]], [b[:200]])  # compiled before it is timed

    def seconds(function) -> float:  # noqa: ANN001 - () -> object
        start = time.perf_counter()
        function()
        return time.perf_counter() - start

    ours = min(seconds(lambda: edit_distances([a], [b])),
               seconds(lambda: adjusted_edit_distances([a], [b])))
    theirs = min(seconds(lambda: levenshtein.distance(a, b)) for _ in range(2))
    assert ours < 5 * theirs + 0.5, (ours, theirs)
