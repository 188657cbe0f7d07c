"""`rank --engine spark`, input: the bitexts are read, normalised and coded inside Spark tasks.

The driver only lists the release (names and sizes; it opens none of the input files) and
starts one task per bitext, the largest first. The task reads its bitext with the local
engine's reader (:func:`opusparcus.bitexts.read_bitext`), normalises each side's distinct
sentence keys (:func:`opusparcus.vocabulary.normalize_keys`) and writes to the run's folder,
which on a cluster must be storage every executor and the driver share:
- `links/NNNNN.parquet`: for every link, each side's split and sentence code, a code being the
  sentence's rank in code-point order among that side's sentences;
- `sentences/NNNNN-S.parquet`, for a side whose language is ranked: those sentences in order.
It returns its counts and bad-input log as one small row. Paths reach the tasks absolute (a
cluster's executors have another working folder), and their errors name files as given, as the
local engine's do.

A side's own codes serve as its pivot codes: the sums run in pivot order within each bitext,
and ranks within a bitext order its sentences as the local engine's language-wide ranks do. A
ranked language's codes must be language-wide: its sentences over all its bitexts are sorted
and numbered by Spark (:func:`opusparcus.spark_numbering.numbered`), and each side's codes are
mapped to them by a join. No vocabulary is ever built on the driver.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from opusparcus.bitexts import BitextCounts, read_bitext
from opusparcus.rank_inputs import RankOptions
from opusparcus.spark_numbering import numbered
from opusparcus.vocabulary import CHUNK, normalize_keys, sorted_distinct
from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.files import temporary_name
from tapaco.core.opus import AlignmentSource
from tapaco.core.provenance import Provenance, release_provenance

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TASK_SCHEMA = "number int, counts string, log string, without_year array<long>, error string"
_TASK_ROW = pa.schema([("number", pa.int32()), ("counts", pa.string()), ("log", pa.string()),
                       ("without_year", pa.list_(pa.int64())), ("error", pa.string())])


@dataclass
class BitextRead:
    """What a task reports of its bitext: counts, bad-input log, links without a year per
    side."""

    source: str
    counts: BitextCounts
    log: dict
    without_year: tuple[int, int]


def input_bytes(sources: list[AlignmentSource]) -> int:
    """The size of the alignment files (a folder: of the files under it), from the listing."""
    total = 0
    for source in sources:
        paths = source.path.rglob("*") if source.path.is_dir() else [source.path]
        total += sum(path.stat().st_size for path in paths if path.is_file())
    return total


class ExecutorInput:
    """The bitexts of a run, read by Spark tasks into `folder`; what each task reported, by
    path (`bitexts`)."""

    def __init__(self, session: SparkSession, opus_dir: Path, sources: list[AlignmentSource],
                 ranked: set[str], options: RankOptions, folder: Path) -> None:
        self.session, self.folder = session, folder
        self.number = {source.path: number for number, source in enumerate(sources)}
        self.sides = {source.path: source.langs for source in sources}
        self.bitexts = _read_on_executors(session, opus_dir, sources, ranked, options, folder)

    def _links(self, lang: str, sources: list[AlignmentSource]) -> DataFrame:
        """The links of `lang`'s bitexts: bitext (its place in `sources`), split, target
        (the side's code), pivot."""
        from pyspark.sql import functions as F

        frames = []
        for place, source in enumerate(sources):
            side = self.sides[source.path].index(lang)
            frames.append(self.session.read.parquet(str(self._links_file(source))).select(
                F.lit(place).alias("bitext"), F.col(f"split{side}").cast("int").alias("split"),
                F.col(f"code{side}").alias("local"), F.col(f"code{1 - side}").alias("pivot")))
        return _union(frames)

    def coded(self, lang: str, sources: list[AlignmentSource],
              folder: Path) -> tuple[DataFrame, DataFrame]:
        """`lang`'s links with language-wide target codes (bitext, split, target, pivot), and
        its sentences (code, sentence); `folder` (new) holds the numbering."""
        from pyspark.sql import functions as F

        local = _union([self.session.read.parquet(str(self._sentences_file(source, lang)))
                        .select(F.lit(place).alias("bitext"), "local", "sentence")
                        for place, source in enumerate(sources)])
        distinct = local.select("sentence").distinct().withColumn("everything", F.lit(0))
        codes, _ = numbered(self.session, distinct, "everything", ["sentence"], folder)
        sentences = codes.select(F.col("row").alias("code"), "sentence")
        code_of_local = local.join(sentences, "sentence").select("bitext", "local", "code")
        links = self._links(lang, sources).join(code_of_local, ["bitext", "local"]).select(
            "bitext", "split", F.col("code").alias("target"), "pivot")
        return links, sentences

    def _links_file(self, source: AlignmentSource) -> Path:
        return self.folder / "links" / f"{self.number[source.path]:05d}.parquet"

    def _sentences_file(self, source: AlignmentSource, lang: str) -> Path:
        side = self.sides[source.path].index(lang)
        return self.folder / "sentences" / f"{self.number[source.path]:05d}-{side}.parquet"


def _union(frames: list[DataFrame]) -> DataFrame:
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    return union


@dataclass(frozen=True)
class _Release:
    """The release folder as given, and as tasks open it (absolute)."""

    given: Path
    absolute: Path

    def as_given(self, error: InputError) -> InputError:
        """`error` naming its file as the local engine would."""
        path = Path(error.path)
        if not path.is_relative_to(self.absolute):
            return error
        return InputError(self.given / path.relative_to(self.absolute), error.message,
                          error.position, error.kind)


class _LogAsGiven(BadInputLog):
    """A task's bad-input log, naming files as given."""

    def __init__(self, skip: bool, release: _Release) -> None:
        super().__init__(skip)
        self.release = release

    def report(self, error: InputError) -> None:
        super().report(self.release.as_given(error))


def provenance_on_executor(session: SparkSession, opus_dir: Path) -> Provenance:
    """What the release is (:func:`~tapaco.core.provenance.release_provenance`), read in a task:
    the driver opens no input file."""
    absolute = os.path.abspath(opus_dir)
    [found] = session.sparkContext.parallelize([absolute], 1).map(
        lambda path: release_provenance(Path(path)).as_dict()).collect()
    return Provenance(found["corpus"], found["form"])


def _read_on_executors(session: SparkSession, opus_dir: Path, sources: list[AlignmentSource],
                       ranked: set[str], options: RankOptions,
                       folder: Path) -> dict[Path, BitextRead]:
    """Read every bitext in a task of its own; one line of error for bad input (unless it is
    skipped)."""
    for name in ("links", "sentences"):
        (folder / name).mkdir(parents=True)
    largest_first = sorted(range(len(sources)), key=lambda n: -input_bytes([sources[n]]))
    release = _Release(opus_dir, Path(os.path.abspath(opus_dir)))
    readable = [replace(source, path=Path(os.path.abspath(source.path))) for source in sources]

    def tasks(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for place in batch.column(0).to_pylist():
                number = largest_first[place]
                row = _read_task(release, readable[number], number, ranked, options, folder)
                yield pa.RecordBatch.from_pylist([row], _TASK_ROW)

    count = len(sources)
    rows = session.range(0, count, 1, count).mapInArrow(tasks, TASK_SCHEMA).collect()
    errors = sorted((row["number"], row["error"]) for row in rows if row["error"])
    if errors:
        raise InputError(*json.loads(errors[0][1]))
    return {sources[row["number"]].path: BitextRead(
        str(sources[row["number"]].path), BitextCounts(**json.loads(row["counts"])),
        json.loads(row["log"]), tuple(row["without_year"])) for row in rows}


def _read_task(release: _Release, source: AlignmentSource, number: int, ranked: set[str],
               options: RankOptions, folder: Path) -> dict:
    """Inside a task: read one bitext, write its links and its ranked sides' sentences."""
    log = _LogAsGiven(options.skip_bad_input, release)
    try:
        bitext = read_bitext(release.absolute, source, log, options.documents,
                             options.max_sentence_length)
    except InputError as raised:
        error = release.as_given(raised)
        return {"number": number, "counts": None, "log": None, "without_year": None,
                "error": json.dumps([error.path, error.message, error.position, error.kind])}
    columns = {}
    for side_number, side in enumerate(bitext.sides):
        sentences, rank = sorted_distinct([normalize_keys(side.keys.slice(start, CHUNK),
                                                          side.lang)
                                           for start in range(0, len(side.keys), CHUNK)])
        columns[f"split{side_number}"] = side.splits
        columns[f"code{side_number}"] = rank[side.codes]
        if side.lang in ranked:
            _write_atomically(pa.table({"local": np.arange(len(sentences), dtype=np.int32),
                                        "sentence": sentences}),
                              folder / "sentences" / f"{number:05d}-{side_number}.parquet")
    _write_atomically(pa.table(columns), folder / "links" / f"{number:05d}.parquet")
    return {"number": number, "counts": json.dumps(asdict(bitext.counts)),
            "log": json.dumps(log.as_dict()),
            "without_year": [side.without_year for side in bitext.sides], "error": None}


def _write_atomically(table: pa.Table, path: Path) -> None:
    """A task may run twice (a retry, a speculative copy): each writes the same table, renamed
    into place when whole."""
    partial = temporary_name(path, "tmp")
    pq.write_table(table, partial)
    partial.replace(path)
