"""`rank --engine spark`, numbering: language-wide sentence codes, and rows' numbers in rank order.

A task per ranked language merges its bitexts' sorted sentences (the memory of the local
vocabulary) and writes under `LANG/` its sentences in code-point order, per bitext the code of
each local code (both are ranks: the map keeps every order) and, for a merged-bitext scheme,
c(t) per split. A sorted partition's first row in a split follows the rows before it
(:func:`segments`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import SPLITS
from opusparcus.spark_input import read_arrow, write_arrow
from opusparcus.spark_session import run_tasks
from opusparcus.vocabulary import sorted_distinct

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class LanguageFiles:
    """A language's numbering: the files it reads, the folder it writes."""

    sentences: list[Path]
    counts: list[Path] | None
    folder: Path

    def codes(self, place: int) -> Path:
        return self.folder / f"codes-{place}.arrow"

    @property
    def vocabulary(self) -> Path:
        return self.folder / "sentences.arrow"

    @property
    def merged(self) -> Path:
        return self.folder / "merged.arrow"


def number_sentences(session: SparkSession, languages: list[LanguageFiles]) -> None:
    """Make every language's sentence codes, a task per language."""
    run_tasks(session, len(languages), lambda place: _number_language(languages[place]))


def _number_language(files: LanguageFiles) -> None:
    files.folder.mkdir(parents=True, exist_ok=True)
    chunks = [read_arrow(path).column("sentence").combine_chunks() for path in files.sentences]
    sentences, codes = sorted_distinct(chunks)
    write_arrow(pa.table({"sentence": sentences}), files.vocabulary)
    by_bitext = np.split(codes, np.cumsum([len(chunk) for chunk in chunks])[:-1])
    for place, bitext_codes in enumerate(by_bitext):
        write_arrow(pa.table({"code": bitext_codes}), files.codes(place))
    if files.counts is not None:
        merged = np.zeros((len(SPLITS), len(sentences)), np.int64)
        for bitext_codes, path in zip(by_bitext, files.counts):
            merged[:, bitext_codes] += np.stack([column.to_numpy()
                                                 for column in read_arrow(path).columns])
        write_arrow(pa.table(dict(zip(SPLITS, merged))), files.merged)


@dataclass(frozen=True)
class Slice:
    """Rows [start, stop) of a saved sorted partition."""

    part: int
    start: int
    stop: int


def segments(sizes: dict[int, dict[int, int]], rows_per_segment: int
             ) -> dict[int, list[list[Slice]]]:
    """Per split, each segment's rows as slices of the sorted partitions (`sizes`: the rows
    of each split in each partition, which holds its splits in split order)."""
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
