"""Vocabularies: every side's links get the code-point rank of their normalised sentence among
all the language's sentences, as a plain set-and-sort computes it, whatever the order the
sides come in; the sides are consumed."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import opusparcus.vocabulary as vocabulary_module
from opusparcus.bitexts import RAW, TOKENIZED, Side
from opusparcus.normalize import normalize_sentences
from opusparcus.vocabulary import Vocabulary, VocabularyMerger, merged, side_vocabulary

# Raw texts that Moses-tokenise alike ("Yes!" / "Yes !"), tokenised texts equal to a raw one
# once normalised, final punctuation runs, accents and a right-to-left script.
TEXTS = ["Yes!", "Yes !", "Yes.", "No...", "No .", "Été, déjà?", "été , déjà ?", "Zoo.",
         "«Quoi?»", "שלום!", "A", "a", "Don't.", "Don 't ."]


def _side(keys: list[str], codes: list[int]) -> Side:
    return Side("fr", pa.array(keys, pa.large_string()), np.array(codes, np.int32),
                np.zeros(len(codes), np.int8))


def _sides(seed: int, sizes: tuple[int, ...] = (9, 0, 12)) -> dict[tuple, Side]:
    """Sides (an empty one among them) whose distinct keys overlap, links drawn at random."""
    rng = np.random.default_rng(seed)
    keys = [RAW + text for text in TEXTS] + [TOKENIZED + text for text in TEXTS[1::3]]
    sides = {}
    for number, size in enumerate(sizes):
        chosen = [keys[i] for i in rng.choice(len(keys), size, replace=False)]
        sides["bitext", number] = _side(chosen, rng.integers(0, max(size, 1), 30 * bool(size)))
    return sides


def _expected(sides: dict[tuple, Side]) -> tuple[list[str], dict[tuple, list[int]]]:
    """Set-and-sort over the normalised text of every key."""
    def normalized(key: str) -> str:
        return normalize_sentences([key[1:]], "fr", key[0] == TOKENIZED)[0]

    texts = {name: [normalized(key) for key in side.keys.to_pylist()]
             for name, side in sides.items()}
    sentences = sorted({text for side in texts.values() for text in side})
    rank = {text: i for i, text in enumerate(sentences)}
    return sentences, {name: [rank[texts[name][code]] for code in side.codes.tolist()]
                       for name, side in sides.items()}


def _language(sides: dict[tuple, Side], order: list[tuple]) -> Vocabulary:
    merger = VocabularyMerger()
    for name in order:
        merger.add(side_vocabulary(sides[name], name))
    return merger.result()


@pytest.mark.parametrize(("seed", "sizes"), [(0, (9, 0, 12)), (1, (9, 0, 12)),
                                             (2, (5, 7, 3, 11, 0, 9, 6))])
def test_codes_are_ranks_of_the_normalised_sentences(seed, sizes, monkeypatch):
    monkeypatch.setattr(vocabulary_module, "CHUNK", 4)  # several normalising chunks
    sides = _sides(seed, sizes)
    sentences, codes = _expected(sides)
    assert len(sentences) < sum(len(side.keys) for side in sides.values()), "keys merge"
    order = list(np.random.default_rng(seed).permutation(len(sides)))
    found = _language(sides, [list(sides)[i] for i in order])
    assert found.sentences.to_pylist() == sentences
    assert {name: array.tolist() for name, array in found.codes.items()} == codes
    assert all(len(side.keys) == 0 and len(side.codes) == 0 for side in sides.values()), (
        "the sides' keys and key codes were let go")


def _strings(rng: np.random.Generator, count: int) -> list[str]:
    """Strings sharing prefixes, of one- to four-byte characters, the empty one among them."""
    alphabet = ["a", "b", "é", "ж", "中", "😀", " ", "\x7f", "\x80"]
    return [""] + ["".join(rng.choice(alphabet, rng.integers(0, 5))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(5))
def test_a_merge_is_the_sorted_union_and_each_sides_ranks_in_it(seed):
    rng = np.random.default_rng(seed)
    first, second = (sorted(set(rng.choice(_strings(rng, 60), rng.integers(0, 40))))
                     for _ in range(2))
    # a slice of a larger array: the merge reads past the array's offset
    sliced = pa.array(["zzz", *first, "zzz"], pa.large_string()).slice(1, len(first))
    union = sorted(set(first) | set(second))
    vocabulary = merged(Vocabulary("fr", sliced, {"a": np.arange(len(first), dtype=np.int32)}),
                        Vocabulary("fr", pa.array(second, pa.large_string()),
                                   {"b": np.arange(len(second), dtype=np.int32)[::-1]}))
    assert vocabulary.sentences.to_pylist() == union
    assert vocabulary.codes["a"].tolist() == [union.index(text) for text in first]
    assert vocabulary.codes["b"].tolist() == [union.index(text) for text in second[::-1]]


def test_an_empty_language_has_an_empty_vocabulary():
    found = _language({("b", 0): _side([], []), ("c", 0): _side([], [])}, [("b", 0), ("c", 0)])
    assert len(found) == 0 and found.codes["b", 0].tolist() == []
