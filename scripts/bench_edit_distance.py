#!/usr/bin/env python3
"""Benchmark the edit-distance kernel against rapidfuzz and edlib, on one thread.

Typical pairs: subtitle-like sentences of 2-12 words, half of the pairs an edited copy, half two
unrelated sentences; the project's kernel takes them as one batch (its cost from Python strings
included), rapidfuzz both pair by pair and as a batch (`process.cpdist`), edlib pair by pair.
Long pairs: English-like text of 5,000 to 100,000 characters, an edited copy (a tenth of the
words changed) and an unrelated text; time per pair. Plain: the Levenshtein distance
(rapidfuzz, edlib "NW"); adjusted: the tails of the longer sentence free (edlib "HW"; rapidfuzz
has no such distance). Every method's distances are checked to be the same.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import edlib
import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from opusparcus.edit_distance import adjusted_edit_distances, edit_distances

_WORDS = ("the a to you I it is and of that what in me we this he do on for my your no not be "
          "have are was know just with can go all here get like there they out come now right "
          "so up want about think well yes good gonna how one why time see got back did oh "
          "Frankfurt Germany tomorrow something everything nothing people little".split())
_ENDINGS = (".", "?", "!", " ...")


def _sentence(rng: np.random.Generator, words: int) -> list[str]:
    return list(rng.choice(_WORDS, words))


def _edited(rng: np.random.Generator, words: list[str]) -> list[str]:
    edited = list(words)
    for _ in range(max(1, len(words) // 10)):
        edited[int(rng.integers(len(edited)))] = str(rng.choice(_WORDS))
    return edited


def typical_pairs(count: int, seed: int) -> tuple[list[str], list[str]]:
    """Subtitle-like pairs: an edited copy or an unrelated sentence, in turn."""
    rng = np.random.default_rng(seed)
    first, second = [], []
    for k in range(count):
        words = _sentence(rng, int(rng.integers(2, 13)))
        other = _edited(rng, words) if k % 2 else _sentence(rng, int(rng.integers(2, 13)))
        first.append(" ".join(words) + str(rng.choice(_ENDINGS)))
        second.append(" ".join(other) + str(rng.choice(_ENDINGS)))
    return first, second


def long_pair(characters: int, related: bool, seed: int) -> tuple[str, str]:
    """Two texts of about `characters`: an edited copy, or unrelated."""
    rng = np.random.default_rng(seed)
    words = _sentence(rng, characters // 5)
    other = _edited(rng, words) if related else _sentence(rng, characters // 5)
    return " ".join(words)[:characters], " ".join(other)[:characters]


def _edlib(mode: str) -> Callable[[list[str], list[str]], list[int]]:
    def distances(first: list[str], second: list[str]) -> list[int]:
        found = []
        for a, b in zip(first, second):
            short, long = (a, b) if len(a) <= len(b) else (b, a)
            found.append(edlib.align(short, long, mode=mode, task="distance")["editDistance"]
                         if short else 0 if mode == "HW" else len(long))
        return found
    return distances


METHODS: dict[str, dict[str, Callable[[list[str], list[str]], object]]] = {
    "plain": {
        "project kernel": edit_distances,
        "rapidfuzz cpdist": lambda a, b: process.cpdist(a, b, scorer=Levenshtein.distance,
                                                        workers=1),
        "rapidfuzz per pair": lambda a, b: [Levenshtein.distance(x, y) for x, y in zip(a, b)],
        "edlib NW per pair": _edlib("NW"),
    },
    "adjusted": {
        "project kernel": adjusted_edit_distances,
        "edlib HW per pair": _edlib("HW"),
    },
}


def _timed(method: Callable, first: list[str], second: list[str], repeats: int
           ) -> tuple[float, list[int]]:
    best, found = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        found = method(first, second)
        best = min(best, time.perf_counter() - start)
    return best, [int(value) for value in found]


def _compare(label: str, first: list[str], second: list[str], repeats: int, unit: str,
             scale: float) -> None:
    for kind, methods in METHODS.items():
        answers = {}
        for name, method in methods.items():
            seconds, answers[name] = _timed(method, first, second, repeats)
            print(f"{label:<28} {kind:<9} {name:<20} {seconds * scale:>12,.2f} {unit}",
                  flush=True)
        assert len({tuple(found) for found in answers.values()}) == 1, f"{label}: differ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--typical", type=int, default=200_000, help="typical pairs")
    parser.add_argument("--lengths", type=int, nargs="*", default=[5_000, 20_000, 100_000])
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    for method in (edit_distances, adjusted_edit_distances):
        method(["warm"], ["up the kernels"])
    first, second = typical_pairs(arguments.typical, arguments.seed)
    _compare(f"{len(first):,} typical pairs", first, second, 3, "µs a pair", 1e6 / len(first))
    for characters in arguments.lengths:
        for related in (True, False):
            a, b = long_pair(characters, related, arguments.seed)
            label = f"{characters:,} chars, {'edited copy' if related else 'unrelated'}"
            _compare(label, [a], [b], 1 if characters > 20_000 else 3, "ms", 1e3)


if __name__ == "__main__":
    main()
