"""`rank --engine spark`, numbering: the language-wide sentence codes, and the rows' numbers in
rank order.

Sentence codes: a task per ranked language reads the sorted sentences of each of its bitexts
(:mod:`opusparcus.spark_input`), merges them into the language's sentences in code-point order
(a code is the index, as the local engine's vocabulary) and writes, under `LANG/`:
- `sentences.arrow`: the sentences, which the tasks that hold pairs out and render rows
  memory-map;
- `codes-P.npy`: for the language's P-th bitext, the code of each local code (both are ranks,
  so the map keeps every order);
- `merged.npy`, for a merged-bitext scheme: c(t) over all bitexts, per split and code.
Its memory is the language's distinct sentences, as the local engine's vocabulary.

Row numbers: the ranked rows are sorted by Spark and each sorted partition saved by its task
with its row count per split; a partition's first row number in a split is the count of that
split's rows in the partitions before it (:func:`segments`), so the rows of each release
segment are found without another shuffle.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import SPLITS
from opusparcus.spark_input import read_arrow, write_array, write_arrow
from opusparcus.vocabulary import sorted_distinct

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class LanguageFiles:
    """What a language's numbering task reads (its bitexts' sentences and, for a merged-bitext
    scheme, target counts) and where it writes."""

    sentences: list[Path]
    counts: list[Path] | None
    folder: Path

    def codes(self, place: int) -> Path:
        return self.folder / f"codes-{place}.npy"

    @property
    def vocabulary(self) -> Path:
        return self.folder / "sentences.arrow"

    @property
    def merged(self) -> Path:
        return self.folder / "merged.npy"


def number_sentences(session: SparkSession, languages: list[LanguageFiles]) -> None:
    """Make every language's sentence codes, a task per language."""
    def tasks(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for place in batch.column(0).to_pylist():
                _number_language(languages[place])
                yield pa.record_batch({"done": [place]})

    count = len(languages)
    session.range(0, count, 1, count).mapInArrow(tasks, "done long").collect()


def _number_language(files: LanguageFiles) -> None:
    files.folder.mkdir(parents=True, exist_ok=True)
    chunks = [read_arrow(path).column("sentence").combine_chunks() for path in files.sentences]
    sentences, codes = sorted_distinct(chunks)
    write_arrow(pa.table({"sentence": sentences}), files.vocabulary)
    start = 0
    for place, chunk in enumerate(chunks):
        write_array(codes[start:start + len(chunk)], files.codes(place))
        start += len(chunk)
    if files.counts is not None:
        merged = np.zeros((len(SPLITS), len(sentences)), np.int64)
        for place, path in enumerate(files.counts):
            merged[:, np.load(files.codes(place))] += np.load(path)
        write_array(merged, files.merged)


@dataclass(frozen=True)
class Slice:
    """Rows [start, stop) of a saved sorted partition."""

    part: int
    start: int
    stop: int


def segments(sizes: dict[int, dict[int, int]], rows_per_segment: int
             ) -> dict[int, list[list[Slice]]]:
    """Per split, each segment's rows as slices of the sorted partitions. `sizes`: the rows of
    each split in each partition (a partition holds its splits in split order)."""
    found: dict[int, list[list[Slice]]] = {}
    for split in range(len(SPLITS)):
        found[split] = []
        filled = rows_per_segment
        for part in sorted(sizes):
            start = sum(count for earlier, count in sizes[part].items() if earlier < split)
            stop = start + sizes[part].get(split, 0)
            while start < stop:
                if filled == rows_per_segment:
                    found[split].append([])
                    filled = 0
                taken = min(stop - start, rows_per_segment - filled)
                found[split][-1].append(Slice(part, start, start + taken))
                filled += taken
                start += taken
    return found
