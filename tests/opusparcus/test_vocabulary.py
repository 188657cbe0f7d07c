"""Vocabularies: every side's links get the code-point rank of their normalised sentence among
all the language's sentences, as a plain set-and-sort computes it, and the sides are consumed."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pyarrow as pa
import pytest

import opusparcus.vocabulary as vocabulary_module
from opusparcus.bitexts import RAW, TOKENIZED, Side
from opusparcus.normalize import normalize_sentences
from opusparcus.vocabulary import build_vocabularies

# Raw texts that Moses-tokenise alike ("Yes!" / "Yes !"), tokenised texts equal to a raw one
# once normalised, final punctuation runs, accents and a right-to-left script.
TEXTS = ["Yes!", "Yes !", "Yes.", "No...", "No .", "Été, déjà?", "été , déjà ?", "Zoo.",
         "«Quoi?»", "שלום!", "A", "a", "Don't.", "Don 't ."]


def _side(keys: list[str], codes: list[int]) -> Side:
    return Side("fr", pa.array(keys, pa.large_string()), np.array(codes, np.int32),
                np.zeros(len(codes), np.int8))


def _sides(seed: int) -> dict[tuple, Side]:
    """Three sides (one empty) whose distinct keys overlap, links drawn at random."""
    rng = np.random.default_rng(seed)
    keys = [RAW + text for text in TEXTS] + [TOKENIZED + text for text in TEXTS[1::3]]
    sides = {}
    for number, size in enumerate((9, 0, 12)):
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


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_codes_are_ranks_of_the_normalised_sentences(seed, monkeypatch):
    monkeypatch.setattr(vocabulary_module, "CHUNK", 4)  # several normalising tasks
    sides = _sides(seed)
    sentences, codes = _expected(sides)
    assert len(sentences) < sum(len(side.keys) for side in sides.values()), "keys merge"
    found = build_vocabularies({"fr": dict(sides)})["fr"]
    assert found.sentences.to_pylist() == sentences
    assert {name: array.tolist() for name, array in found.codes.items()} == codes
    assert all(len(side.keys) == 0 and len(side.codes) == 0 for side in sides.values()), (
        "the sides' keys and key codes were let go")


def test_a_pool_and_a_window_give_the_same_vocabularies(monkeypatch):
    monkeypatch.setattr(vocabulary_module, "CHUNK", 3)
    languages = {lang: _sides(seed) for seed, lang in enumerate(("de", "fr", "sv"))}
    alone = {lang: build_vocabularies({lang: dict(sides)})[lang]
             for lang, sides in {lang: _sides(seed) for seed, lang
                                 in enumerate(("de", "fr", "sv"))}.items()}
    with ProcessPoolExecutor(2, mp_context=get_context("fork")) as pool:
        together = build_vocabularies(languages, pool.map, window=2)
    for lang, vocabulary in alone.items():
        assert together[lang].sentences.equals(vocabulary.sentences)
        assert {k: v.tolist() for k, v in together[lang].codes.items()} == (
            {k: v.tolist() for k, v in vocabulary.codes.items()})


def test_an_empty_language_has_an_empty_vocabulary():
    found = build_vocabularies({"fr": {("b", 0): _side([], [])}})["fr"]
    assert len(found) == 0 and found.codes["b", 0].tolist() == []
