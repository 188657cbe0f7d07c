"""`rank --engine spark`, output: the release files written by the executors, in parts.

Each sorted partition of the rows written is saved by its task, and each segment of
`SEGMENT_ROWS` rows (:func:`opusparcus.spark_numbering.segments`) is rendered by the local
engine's formatter in a task, which writes its part of the file: compressed for the bz2 train
file (a segment's bz2 streams are the same whoever compresses it), plain for the others. The
driver concatenates the parts in order: each file is byte-identical to the local engine's.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import SPLITS
from opusparcus.counting import unpack_pairs
from opusparcus.export import SEGMENT_ROWS, format_rows, release_files
from opusparcus.spark_input import read_arrow, write_arrow
from opusparcus.spark_numbering import segments
from opusparcus.spark_session import run_tasks
from tapaco.core.bz2_blocks import EMPTY_FILE, compressed_segment
from tapaco.core.files import write_file_atomically
from tapaco.core.text_column import TextColumn

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SAVED_SCHEMA = "part int, split int, candidates long, kept long"


def save_sorted(scored: DataFrame, folder: Path) -> tuple[list[int], dict[int, dict[int, int]]]:
    """Sort the scored rows (split, best first, then key) and save each partition's rows
    kept; each split's candidate pairs, and each partition's rows kept per split."""
    from pyspark.sql import functions as F

    folder.mkdir(parents=True)
    scored = scored.persist()  # the sort's sampling job would score every bucket once more
    try:
        rows = scored.orderBy("split", F.col("score").desc(), "key").mapInArrow(
            lambda batches: _save_partition(batches, folder), SAVED_SCHEMA).collect()
    finally:
        scored.unpersist()
    candidates, sizes = [0] * len(SPLITS), {}
    for row in rows:
        candidates[row["split"]] += row["candidates"]
        sizes.setdefault(row["part"], {})[row["split"]] = row["kept"]
    return candidates, sizes


def write_parts(session: SparkSession, sorted_folder: Path, sizes: dict[int, dict[int, int]],
                lang: str, vocabulary: Path, scheme_field: bool,
                folder: Path) -> dict[int, list[Path]]:
    """Render and write every segment of every split in a task (`sizes`: the rows of each
    split in each saved partition); each split's parts in order."""
    files = release_files(lang)
    for split in files:
        (folder / str(split)).mkdir(parents=True)
    found = segments(sizes, SEGMENT_ROWS)
    plan = [(split, number, rows) for split, numbered in found.items()
            for number, rows in enumerate(numbered)]

    def render(place: int) -> None:
        split, number, rows = plan[place]
        _render(lang, files[split], vocabulary, scheme_field, number,
                [read_arrow(sorted_folder / f"{piece.part:05d}.arrow").slice(
                    piece.start, piece.stop - piece.start) for piece in rows],
                _part(folder, split, number))

    run_tasks(session, len(plan), render)
    return {split: [_part(folder, split, number) for number in range(len(numbered))]
            for split, numbered in found.items()}


def _save_partition(batches: Iterator[pa.RecordBatch], folder: Path
                    ) -> Iterator[pa.RecordBatch]:
    """Save a sorted partition's rows kept; its candidates and rows kept per split."""
    from pyspark import TaskContext

    saved = [batch for batch in batches if batch.num_rows]
    if not saved:
        return
    rows = pa.Table.from_batches(saved)
    part = TaskContext.get().partitionId()
    kept = rows.filter(rows.column("kept"))
    write_arrow(kept, folder / f"{part:05d}.arrow")
    yield pa.record_batch({
        "part": pa.array([part] * len(SPLITS), pa.int32()),
        "split": pa.array(range(len(SPLITS)), pa.int32()),
        "candidates": np.bincount(rows.column("split").to_numpy(), minlength=len(SPLITS)),
        "kept": np.bincount(kept.column("split").to_numpy(), minlength=len(SPLITS))})


def _render(lang: str, file: tuple[str, str], vocabulary: Path, scheme_field: bool,
            number: int, pieces: list[pa.Table], path: Path) -> None:
    """Render segment `number` of a split and write its part."""
    name, letter = file
    rows = pa.concat_tables(pieces)
    sentences = TextColumn.of_arrow(read_arrow(vocabulary).column("sentence").combine_chunks())
    left, right = unpack_pairs(rows.column("key").to_numpy().view(np.uint64))
    text = format_rows(lang, letter, number * SEGMENT_ROWS + 1, sentences.take(left),
                       sentences.take(right), rows.column("summed_pmi").to_numpy(),
                       rows.column("expected").to_numpy(), rows.column("pivots").to_numpy(),
                       rows.column("score").to_numpy() if scheme_field else None)
    write_file_atomically(path, compressed_segment(text) if name.endswith(".bz2") else text)


def concatenate_parts(parts: list[Path], path: Path) -> None:
    """A release file from its parts, in order (no rows in bz2: one empty stream)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for part in parts:
            with open(part, "rb") as data:
                shutil.copyfileobj(data, out, 1 << 20)
        if not parts and path.suffix == ".bz2":
            out.write(EMPTY_FILE)


def _part(folder: Path, split: int, segment: int) -> Path:
    return folder / str(split) / f"{segment:09d}"
