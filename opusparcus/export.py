"""Write a ranked language in the Opusparcus release layout.

`OUT/<lang>/train/<lang>-train.txt.bz2`: tab-separated, best first: `<lang>-N<n>`, sentence 1,
sentence 2 (sentence 1 < sentence 2 by code point), summed PMI, expected co-alignment count,
number of pivots with a common translation, adjusted edit distance. Dev and test candidates
(`<lang>-D<n>`, `<lang>-T<n>`) are plain text in the same seven fields. A ranking by another
scheme than summed PMI (`rank --score`) adds an eighth field, the score the rows are ordered by.
Rows are rendered in chunks by worker processes; the bz2 file is compressed by worker threads
in independent streams, fixed-size blocks of segments of `SEGMENT_ROWS` rows
(:mod:`tapaco.core.bz2_blocks`), so it is the same whatever the number of workers or the
engine. The Parquet copy is written from the same rendered chunks (with `--scores`, each
chunk's rows get their `paraphrase_score` on the way).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import DEV, TEST, TRAIN
from opusparcus.edit_distance import adjusted_edit_distances
from opusparcus.paraphrase_scores import ScoreTable
from opusparcus.parquet_release import RankedParquet, ranked_batch
from tapaco.core.bz2_blocks import write_bz2_blocks
from tapaco.core.forked import SubmittedAhead, process_pool

# rows a worker renders at a time; the files do not depend on it
ROWS_PER_CHUNK = 50_000
# rows of each segment of the train file compressed on its own (its bz2 streams never span two
# segments), so whoever renders a segment can compress its part of the file: the file depends
# on it
SEGMENT_ROWS = 50_000


def release_files(lang: str) -> dict[int, tuple[str, str]]:
    """Each split's file in OUT/<lang>/ and the letter of its pair ids."""
    return {TRAIN: (f"train/{lang}-train.txt.bz2", "N"),
            DEV: (f"dev/{lang}-dev-candidates.txt", "D"),
            TEST: (f"test/{lang}-test-candidates.txt", "T")}


def _number(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _numbers(values: np.ndarray) -> list[str]:
    return [_number(value) for value in values.tolist()]


def _lines(ids: list[str], first: Sequence[str], second: Sequence[str], summed_pmi: list[str],
           expected: list[str], pivots: np.ndarray, edit: np.ndarray,
           scheme_score: list[str] | None) -> str:
    extra = [""] * len(ids) if scheme_score is None else ["\t" + value for value in scheme_score]
    return "".join(f"{i}\t{a}\t{b}\t{p}\t{e}\t{n}\t{d}{x}\n" for i, a, b, p, e, n, d, x in zip(
        ids, first, second, summed_pmi, expected, pivots.tolist(), edit.tolist(), extra))


def _ids(lang: str, letter: str, first_number: int, count: int) -> list[str]:
    return [f"{lang}-{letter}{number}" for number in range(first_number, first_number + count)]


def format_rows(lang: str, letter: str, first_number: int, first: Sequence[str],
                second: Sequence[str], summed_pmi: np.ndarray, expected: np.ndarray,
                pivots: np.ndarray, scheme_score: np.ndarray | None = None) -> str:
    """Seven-field lines numbered from `first_number` (eight with `scheme_score`); the edit
    distance is computed here."""
    return _lines(_ids(lang, letter, first_number, len(first)), first, second,
                  _numbers(summed_pmi), _numbers(expected), pivots,
                  adjusted_edit_distances(first, second),
                  None if scheme_score is None else _numbers(scheme_score))


# The sentences of the language being written: set before worker processes fork, so chunks
# travel as integer codes instead of millions of pickled strings. An Arrow array, so the forked
# workers share its pages (no reference counts to touch) and only a chunk's own sentences
# become Python strings.
_vocabulary: pa.Array = pa.array([], pa.large_string())


def sentences_of(vocabulary: pa.Array, codes: np.ndarray) -> list[str]:
    """The sentences with these codes, as Python strings."""
    return vocabulary.take(pa.array(codes)).to_pylist()


def _render(arguments: tuple) -> tuple[bytes, pa.RecordBatch | None]:
    """A chunk's release text, and its Parquet rows when `table` is asked for: the same
    fields, numbers as the text prints them."""
    table, lang, letter, first_number, first, second, summed_pmi, expected, pivots, extra = (
        arguments)
    left, right = _vocabulary.take(pa.array(first)), _vocabulary.take(pa.array(second))
    a, b = left.to_pylist(), right.to_pylist()
    ids = _ids(lang, letter, first_number, len(a))
    pmi, expected_count = _numbers(summed_pmi), _numbers(expected)
    score = None if extra is None else _numbers(extra)
    edit = adjusted_edit_distances(a, b)
    text = _lines(ids, a, b, pmi, expected_count, pivots, edit, score).encode("utf-8")
    if not table:
        return text, None
    return text, ranked_batch(ids, left, right, pmi, expected_count, pivots, edit, score)


@contextmanager
def _rendered(tasks: Iterable[tuple], workers: int, parallel: bool
              ) -> Iterator[Iterator[tuple[bytes, pa.RecordBatch | None]]]:
    """The chunks rendered in order, by `workers` processes when `parallel` (at most two
    chunks per worker ahead), else here."""
    if not parallel:
        yield map(_render, tasks)
        return
    with process_pool(workers) as pool:
        yield SubmittedAhead(pool, _render, tasks, 2 * workers)


def write_release_text(path: Path, pieces: Iterable[bytes], workers: int) -> None:
    """A release file from its text in pieces: bz2 for a `.bz2` path (compressed by `workers`
    threads), else plain."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        if path.suffix == ".bz2":
            write_bz2_blocks(out, pieces, workers, SEGMENT_ROWS)
        else:
            out.writelines(pieces)


def _texts(chunks: Iterable[tuple[bytes, pa.RecordBatch | None]],
           table: RankedParquet | None) -> Iterator[bytes]:
    """The chunks' text; their rows go to `table` on the way."""
    for text, batch in chunks:
        if table is not None:
            table.add(text, batch)
        yield text


def write_ranked(path: Path | None, parquet: Path | None, lang: str, letter: str,
                 vocabulary: pa.Array, first: np.ndarray, second: np.ndarray,
                 summed_pmi: np.ndarray, expected: np.ndarray, pivots: np.ndarray, workers: int,
                 scheme_score: np.ndarray | None = None, scores: ScoreTable | None = None) -> None:
    """Write ranked rows (sentence codes into `vocabulary`) to the release file `path` and the
    Parquet file `parquet` (either may be None), rendered by `workers` processes; a `.bz2`
    file is compressed by `workers` threads. `scheme_score` adds an eighth field, `scores` the
    Parquet rows' `paraphrase_score`."""
    global _vocabulary
    _vocabulary = vocabulary
    step = ROWS_PER_CHUNK
    tasks = ((parquet is not None, lang, letter, start + 1, first[start:start + step],
              second[start:start + step], summed_pmi[start:start + step],
              expected[start:start + step], pivots[start:start + step],
              None if scheme_score is None else scheme_score[start:start + step])
             for start in range(0, len(first), step))
    table = (nullcontext() if parquet is None else
             RankedParquet(parquet, scheme_score is not None, scores))
    try:
        with _rendered(tasks, workers, workers > 1 and len(first) > step) as chunks, \
                table as rows:
            texts = _texts(chunks, rows)
            if path is not None:
                write_release_text(path, texts, workers)
            else:
                for _ in texts:  # rendered for the Parquet rows alone
                    pass
    finally:
        _vocabulary = pa.array([], pa.large_string())
