"""Write a ranked language in the Opusparcus release layout.

`OUT/<lang>/train/<lang>-train.txt.bz2`: tab-separated, best first: `<lang>-N<n>`, sentence 1,
sentence 2 (sentence 1 < sentence 2 by code point), summed PMI, expected co-alignment count,
number of pivots with a common translation, adjusted edit distance. Dev and test candidates
(`<lang>-D<n>`, `<lang>-T<n>`) are plain text in the same seven fields. A ranking by another
scheme than summed PMI (`rank --score`) adds an eighth field, the score the rows are ordered by.
Compression runs in independent bz2 streams, in parallel; a multi-stream bz2 file reads as one,
and an empty ranking is still a valid (empty) bz2 file.
"""

from __future__ import annotations

import bz2
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import DEV, TEST, TRAIN
from opusparcus.edit_distance import adjusted_edit_distances
from tapaco.core.forked import process_pool

ROWS_PER_STREAM = 500_000


def release_files(lang: str) -> dict[int, tuple[str, str]]:
    """Each split's file in OUT/<lang>/ and the letter of its pair ids."""
    return {TRAIN: (f"train/{lang}-train.txt.bz2", "N"),
            DEV: (f"dev/{lang}-dev-candidates.txt", "D"),
            TEST: (f"test/{lang}-test-candidates.txt", "T")}


def _number(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_rows(lang: str, letter: str, first_number: int, first: Sequence[str],
                second: Sequence[str], summed_pmi: np.ndarray, expected: np.ndarray,
                pivots: np.ndarray, scheme_score: np.ndarray | None = None) -> str:
    """Seven-field lines numbered from `first_number` (eight with `scheme_score`); the edit
    distance is computed here."""
    edit = adjusted_edit_distances(first, second).tolist()
    extra = ([""] * len(edit) if scheme_score is None
             else ["\t" + _number(value) for value in scheme_score.tolist()])
    return "".join(
        f"{lang}-{letter}{first_number + i}\t{a}\t{b}\t{_number(p)}\t{_number(e)}\t{n}\t{d}{x}\n"
        for i, (a, b, p, e, n, d, x) in enumerate(zip(first, second, summed_pmi.tolist(),
                                                      expected.tolist(), pivots.tolist(), edit,
                                                      extra)))


# The sentences of the language being written: set before worker processes fork, so chunks
# travel as integer codes instead of millions of pickled strings. An Arrow array, so the forked
# workers share its pages (no reference counts to touch) and only a chunk's own sentences
# become Python strings.
_vocabulary: pa.Array = pa.array([], pa.large_string())


def sentences_of(vocabulary: pa.Array, codes: np.ndarray) -> list[str]:
    """The sentences with these codes, as Python strings."""
    return vocabulary.take(pa.array(codes)).to_pylist()


def _render(arguments: tuple) -> bytes:
    compress, lang, letter, first_number, first, second, summed_pmi, expected, pivots, extra = (
        arguments)
    text = format_rows(lang, letter, first_number, sentences_of(_vocabulary, first),
                       sentences_of(_vocabulary, second), summed_pmi, expected, pivots, extra)
    data = text.encode("utf-8")
    return bz2.compress(data, 9) if compress else data


def write_ranked(path: Path, lang: str, letter: str, vocabulary: pa.Array, first: np.ndarray,
                 second: np.ndarray, summed_pmi: np.ndarray, expected: np.ndarray,
                 pivots: np.ndarray, workers: int, scheme_score: np.ndarray | None = None) -> None:
    """Write ranked rows (sentence codes into `vocabulary`); bz2 for `.bz2` paths, in
    independent streams rendered by `workers` processes. `scheme_score` adds an eighth field."""
    global _vocabulary
    _vocabulary = vocabulary
    compress = path.suffix == ".bz2"
    step = ROWS_PER_STREAM
    tasks = [(compress, lang, letter, start + 1, first[start:start + step],
              second[start:start + step], summed_pmi[start:start + step],
              expected[start:start + step], pivots[start:start + step],
              None if scheme_score is None else scheme_score[start:start + step])
             for start in range(0, len(first), step)]
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "wb") as out:
            if workers > 1 and len(tasks) > 1:
                with process_pool(workers) as pool:
                    for data in pool.map(_render, tasks):
                        out.write(data)
            else:
                for task in tasks:
                    out.write(_render(task))
            if compress and not tasks:
                out.write(bz2.compress(b""))
    finally:
        _vocabulary = pa.array([], pa.large_string())
