"""The text column against the list of Python strings it stands for."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from tapaco.core.arrays import code_points
from tapaco.core.text_column import Take, TextColumn

PIECES = ["", "a", "Hi!", "é", "東京", "😀", " x ", "ß\u00a0q", "\U0010ffff"]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(PIECES, k=rng.randint(0, 4))) for _ in range(count)]


@pytest.mark.parametrize("count", [0, 1, 7, 300])
def test_a_column_reads_as_its_texts(count):
    texts = _texts(count, count)
    column = TextColumn.of(texts)
    assert len(column) == count and list(column) == texts and column == texts
    assert [column[row] for row in range(count)] == texts
    assert column.nonempty().tolist() == [text != "" for text in texts]
    back = pickle.loads(pickle.dumps(column))
    assert back == texts


def test_rows_taken_sliced_replaced_and_joined_are_those_of_the_list():
    texts = _texts(1, 200)
    column = TextColumn.of(texts)
    rows = np.random.default_rng(2).integers(-1, len(texts), 500)
    assert column.take(rows) == [texts[row] if row >= 0 else "" for row in rows.tolist()]
    assert column.strings(rows[rows >= 0]) == [texts[row] for row in rows[rows >= 0].tolist()]
    assert column[50:120] == texts[50:120] and column[50:120].take(np.array([3])) == [texts[53]]
    assert column[-1] == texts[-1] and column[10:5] == []
    replaced = list(texts)
    replaced[3], replaced[150] = "new", "東"
    assert column.with_rows([3, 150], ["new", "東"]) == replaced
    joined = TextColumn.concatenate([column[10:20], TextColumn.of([]), column])
    assert joined == texts[10:20] + texts
    assert TextColumn.concatenate([]) == []


def test_rows_past_the_end_are_taken_from_the_extra_column():
    texts, extra = _texts(3, 50), _texts(5, 20)
    rows = np.random.default_rng(4).integers(-1, len(texts) + len(extra), 300)
    both = texts + extra
    expected = [both[row] if row >= 0 else "" for row in rows.tolist()]
    assert TextColumn.of(texts).take(rows, TextColumn.of(extra)) == expected
    sliced = TextColumn.of(["x", *texts, "y"])[1:-1]  # offsets not starting at 0, for both
    assert sliced.take(rows, TextColumn.of(["z", *extra])[1:]) == expected


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_takes_gathered_into_one_column_are_the_lists_taken_one_after_another(workers):
    rng = np.random.default_rng(workers)
    takes, expected = [], []
    for seed in range(12):
        texts, extra = _texts(seed, int(rng.integers(0, 40))), _texts(seed + 50, seed % 3 * 4)
        both = texts + extra
        rows = rng.integers(-1, len(both), int(rng.integers(0, 60))) if both else np.zeros(0, int)
        # some columns sliced (offsets not starting at 0), some takes without an extra column
        column = TextColumn.of(["x", *texts])[1:] if seed % 2 else TextColumn.of(texts)
        takes.append(Take(column, rows, TextColumn.of(extra)) if extra else Take(column, rows))
        expected += [both[row] if row >= 0 else "" for row in rows.tolist()]
        assert takes[-1].lengths().tolist() == [len(both[row].encode()) if row >= 0 else 0
                                                for row in rows.tolist()]
    assert TextColumn.of_takes(takes, workers) == expected
    assert TextColumn.of_takes([], workers) == []


def test_code_points_are_those_of_the_strings_even_for_a_slice():
    texts = _texts(4, 100)
    whole = TextColumn.of(texts)
    for column, expected in ((whole, texts), (whole[30:70], texts[30:70])):
        codes, offsets = column.code_points()
        want_codes, want_offsets = code_points(expected)
        assert codes.tolist() == want_codes.tolist() and offsets.tolist() == want_offsets.tolist()


def test_an_indexed_column_reads_as_the_texts_of_its_rows():
    from tapaco.core.text_column import IndexedTexts

    values = _texts(6, 30)
    rows = np.random.default_rng(7).integers(-1, len(values), 200)
    expected = [values[row] if row >= 0 else "" for row in rows.tolist()]
    column = IndexedTexts(TextColumn.of(values), rows)
    assert len(column) == 200 and column == expected and column[-1] == expected[-1]
    picked = np.array([5, 0, 199, 5])
    assert column.take(picked) == [expected[row] for row in picked.tolist()]
