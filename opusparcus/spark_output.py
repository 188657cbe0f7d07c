"""`rank --engine spark`, output: the release files written by the executors, in parts.

The ranked rows of each split are numbered in rank order (:mod:`opusparcus.spark_numbering`),
and each segment of `SEGMENT_ROWS` rows is rendered by the local engine's formatter inside a
task, which writes its part of the file under the run's folder: compressed for the bz2 train
file (a segment's bz2 streams are the same whoever compresses it,
:func:`tapaco.core.bz2_blocks.compressed_segment`), plain for the others. The driver only
concatenates the parts in order, so each file is byte-identical to the local engine's.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from opusparcus.export import SEGMENT_ROWS, format_rows, release_files
from tapaco.core.bz2_blocks import EMPTY_FILE, compressed_segment
from tapaco.core.files import write_file_atomically

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

PART_SCHEMA = "split int, segment long, bytes long"


def write_parts(numbered: DataFrame, lang: str, scheme_field: bool, folder: Path
                ) -> dict[int, list[Path]]:
    """Render and write every segment of every split in a task; each split's parts in order.
    `numbered` has the rows (split, row, a, b, summed_pmi, expected, pivots, score)."""
    from pyspark.sql import functions as F

    files = release_files(lang)
    for split in files:
        (folder / str(split)).mkdir(parents=True)

    def render(rows: pd.DataFrame) -> pd.DataFrame:
        rows = rows.sort_values("row")
        split = int(rows["split"].iloc[0])
        segment = int(rows["row"].iloc[0]) // SEGMENT_ROWS
        name, letter = files[split]
        text = format_rows(lang, letter, segment * SEGMENT_ROWS + 1, rows["a"].tolist(),
                           rows["b"].tolist(), rows["summed_pmi"].to_numpy(np.float64),
                           rows["expected"].to_numpy(np.float64),
                           rows["pivots"].to_numpy(np.int64),
                           rows["score"].to_numpy(np.float64) if scheme_field else None
                           ).encode("utf-8")
        data = compressed_segment(text) if name.endswith(".bz2") else text
        write_file_atomically(_part(folder, split, segment), data)
        return pd.DataFrame({"split": [split], "segment": [segment], "bytes": [len(data)]})

    segmented = numbered.withColumn("segment", F.floor(F.col("row") / SEGMENT_ROWS))
    written = segmented.select("split", "segment", "row", "a", "b", "summed_pmi", "expected",
                               "pivots", "score").groupBy("split", "segment").applyInPandas(
        render, PART_SCHEMA).collect()
    segments: dict[int, list[int]] = {split: [] for split in files}
    for row in written:
        segments[row["split"]].append(row["segment"])
    return {split: [_part(folder, split, segment) for segment in sorted(numbers)]
            for split, numbers in segments.items()}


def concatenate_parts(parts: list[Path], path: Path) -> None:
    """A release file from its parts, in order (a bz2 file with no rows is one empty
    stream)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for part in parts:
            with open(part, "rb") as data:
                shutil.copyfileobj(data, out, 1 << 20)
        if not parts and path.suffix == ".bz2":
            out.write(EMPTY_FILE)


def _part(folder: Path, split: int, segment: int) -> Path:
    return folder / str(split) / f"{segment:09d}"
