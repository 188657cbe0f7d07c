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

from opusparcus import row_kernels
from opusparcus.bitexts import DEV, TEST, TRAIN
from opusparcus.edit_distance import adjusted_edit_distances
from opusparcus.paraphrase_scores import ScoreTable
from opusparcus.parquet_release import RankedParquet, ranked_batch
from opusparcus.ranked_runs import RankedRuns
from tapaco.core.bz2_blocks import write_bz2_blocks
from tapaco.core.forked import SubmittedAhead, process_pool
from tapaco.core.text_column import TextColumn

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
    """A number as the release prints it (the kernels' reference, and their fallback)."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def number_column(values: np.ndarray) -> TextColumn:
    """The values printed as :func:`_number` prints them, by the kernel but for the few whose
    rounding it cannot be sure of."""
    slots, lengths = row_kernels.fixed6_slots(np.ascontiguousarray(values, np.float64))
    unsure = np.flatnonzero(lengths < 0)
    texts = [_number(value).encode() for value in values[unsure].tolist()]
    sizes = lengths.copy()
    sizes[unsure] = [len(text) for text in texts]
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    data = np.empty(offsets[-1], np.uint8)
    row_kernels.packed_slots(slots, lengths, offsets, data)
    for row, text in zip(unsure.tolist(), texts):
        data[offsets[row]:offsets[row + 1]] = np.frombuffer(text, np.uint8)
    return TextColumn(offsets, data)


def _ids(lang: str, letter: str, first_number: int, count: int) -> list[str]:
    return [f"{lang}-{letter}{number}" for number in range(first_number, first_number + count)]


def _lines(lang: str, letter: str, first_number: int, columns: list[TextColumn],
           pivots: np.ndarray, edit: np.ndarray) -> bytes:
    """Rows numbered from `first_number`: the columns (sentences, summed PMI, expected count,
    a scheme's score when there is a fifth) with the pivots and the edit distance."""
    texts = tuple((column.offsets, column.data) for column in columns)
    return row_kernels.rendered_rows(np.frombuffer(f"{lang}-{letter}".encode(), np.uint8),
                                     first_number, texts, pivots.astype(np.int64),
                                     edit.astype(np.int64)).tobytes()


def format_rows(lang: str, letter: str, first_number: int, first: Sequence[str],
                second: Sequence[str], summed_pmi: np.ndarray, expected: np.ndarray,
                pivots: np.ndarray, scheme_score: np.ndarray | None = None) -> bytes:
    """Seven-field lines numbered from `first_number` (eight with `scheme_score`), UTF-8; the
    edit distance is computed here."""
    first, second = TextColumn.of(first), TextColumn.of(second)
    numbers = [number_column(values) for values in (summed_pmi, expected, scheme_score)
               if values is not None]
    return _lines(lang, letter, first_number, [first, second, *numbers], pivots,
                  adjusted_edit_distances(first, second))


# The sentences of the language being written: set before worker processes fork, so chunks
# travel as integer codes instead of millions of pickled strings. A column over the Arrow
# array's buffers, so the forked workers share its pages (no reference counts to touch) and no
# sentence becomes a Python string.
_vocabulary: TextColumn = TextColumn.of([])


def _render(arguments: tuple) -> tuple[bytes, pa.RecordBatch | None]:
    """A chunk's release text, and its Parquet rows when `table` is asked for: the same
    fields, numbers as the text prints them."""
    table, lang, letter, first_number, first, second, summed_pmi, expected, pivots, extra = (
        arguments)
    left, right = _vocabulary.take(first), _vocabulary.take(second)
    numbers = [number_column(values) for values in (summed_pmi, expected, extra)
               if values is not None]
    edit = adjusted_edit_distances(left, right)
    text = _lines(lang, letter, first_number, [left, right, *numbers], pivots, edit)
    if not table:
        return text, None
    return text, ranked_batch(_ids(lang, letter, first_number, len(left)), left.arrow(),
                              right.arrow(), *(number.arrow() for number in numbers[:2]),
                              pivots, edit, numbers[2].arrow() if extra is not None else None)


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
                 vocabulary: pa.Array, rows: RankedRuns, workers: int,
                 scores: ScoreTable | None = None) -> None:
    """Write ranked rows (sentence codes into `vocabulary`, best first) to the release file
    `path` and the Parquet file `parquet` (either may be None), rendered by `workers`
    processes; a `.bz2` file is compressed by `workers` threads. Rows with a scheme's `score`
    get an eighth field, `scores` gives the Parquet rows' `paraphrase_score`."""
    global _vocabulary
    _vocabulary = TextColumn.of_arrow(vocabulary)
    step = ROWS_PER_CHUNK
    tasks = ((parquet is not None, lang, letter, number * step + 1, chunk["first"],
              chunk["second"], chunk["summed_pmi"], chunk["expected"], chunk["pivots"],
              chunk.get("score")) for number, chunk in enumerate(rows.chunks(step)))
    table = (nullcontext() if parquet is None else
             RankedParquet(parquet, "score" in rows.names, scores))
    try:
        with _rendered(tasks, workers, workers > 1 and len(rows) > step) as chunks, \
                table as written:
            texts = _texts(chunks, written)
            if path is not None:
                write_release_text(path, texts, workers)
            else:
                for _ in texts:  # rendered for the Parquet rows alone
                    pass
    finally:
        _vocabulary = TextColumn.of([])
