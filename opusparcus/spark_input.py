"""`rank --engine spark`, input: a task per bitext reads, normalises, counts and pairs it.

The driver only lists the release (it opens no input file). A task, the largest bitext first,
reads with the local engine's reader and, for each side whose language is ranked, counts and
pairs its links split by split with the local engine's functions (S_L and PMI depend on the
bitext alone), keyed by local codes: ranks among the side's sentences, which order pivots and
pairs as language-wide codes do, so every sum runs in the same order. It writes Arrow files per
ranked side under the run's folder (shared storage on a cluster): its sentences, its pairs
(split, key, PMI, S_L) and, for a merged-bitext scheme, c_L(t); and returns its counts and
bad-input log, whose errors name files as given, as the local engine's do.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa

from opusparcus.aggregate import bitext_pairs
from opusparcus.bitexts import SPLITS, BitextCounts, Side, read_bitext
from opusparcus.counting import FanoutSkips, sum_by_pair, weighted_pairs
from opusparcus.rank_inputs import RankOptions, pivot_of
from opusparcus.rank_outputs import BitextRecord
from opusparcus.scores import bitext_pmi
from opusparcus.spark_session import run_tasks
from opusparcus.vocabulary import CHUNK, normalize_keys, sorted_distinct
from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.files import temporary_name
from tapaco.core.opus import AlignmentSource
from tapaco.core.provenance import Provenance, release_provenance

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_TASK_ROW = pa.schema([("number", pa.int32()), ("report", pa.string()), ("error", pa.string())])


class SplitCounts(NamedTuple):
    """One ranked side's links of a split, the fan-out cap's skips there, its pairs."""

    links: int
    skips: list[int]
    pairs: int


@dataclass
class BitextRead:
    """What a task reports of its bitext; `splits`: per ranked side (by number)."""

    source: str
    counts: BitextCounts
    log: dict
    without_year: tuple[int, int]
    splits: dict[int, list[SplitCounts]]


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
        self.folder = folder
        self.number = {source.path: number for number, source in enumerate(sources)}
        self.sides = {source.path: source.langs for source in sources}
        self.bitexts = _read_on_executors(session, opus_dir, sources, ranked, options, folder)

    def side(self, source: AlignmentSource, lang: str) -> int:
        return self.sides[source.path].index(lang)

    def records(self, sources: list[AlignmentSource], lang: str) -> list[BitextRecord]:
        """What `lang`'s statistics say of each of its bitexts."""
        return [BitextRecord(pivot_of(source, lang), self.bitexts[source.path].source,
                             self.bitexts[source.path].counts, self.bitexts[source.path].log,
                             self.bitexts[source.path].without_year[self.side(source, lang)])
                for source in sources]

    def split_stats(self, sources: list[AlignmentSource], lang: str,
                    candidates: list[int]) -> dict:
        """Per split: links per pivot, what the fan-out cap skipped, candidate pairs."""
        stats = {}
        for split, name in enumerate(SPLITS):
            counts = [self.split_counts(source, lang)[split] for source in sources]
            stats[name] = {
                "links_per_pivot": {pivot_of(source, lang): count.links
                                    for source, count in zip(sources, counts)},
                "fanout_skips": dict(zip(asdict(FanoutSkips()),
                                         np.sum([count.skips for count in counts], 0).tolist())),
                "candidate_pairs": candidates[split]}
        return stats

    def split_counts(self, source: AlignmentSource, lang: str) -> list[SplitCounts]:
        return self.bitexts[source.path].splits[self.side(source, lang)]

    def file(self, kind: str, source: AlignmentSource, lang: str) -> Path:
        """`lang`'s side of `source`: its `sentences`, `pairs` or `counts` file."""
        return _side_file(self.folder, kind, self.number[source.path], self.side(source, lang))


def _side_file(folder: Path, kind: str, number: int, side: int) -> Path:
    return folder / kind / f"{number:05d}-{side}.arrow"


def read_arrow(path: Path) -> pa.Table:
    """An Arrow file written by a task, memory-mapped: only what is used is read."""
    return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def write_arrow(table: pa.Table, path: Path) -> None:
    """Renamed into place when whole: a task may run twice (a retry, a speculative copy)."""
    partial = temporary_name(path, "tmp")
    with pa.ipc.new_file(str(partial), table.schema) as out:
        out.write_table(table)
    partial.replace(path)


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
    for name in ("sentences", "pairs", "counts"):
        (folder / name).mkdir(parents=True)
    largest_first = sorted(range(len(sources)), key=lambda n: -input_bytes([sources[n]]))
    release = _Release(opus_dir, Path(os.path.abspath(opus_dir)))
    readable = [replace(source, path=Path(os.path.abspath(source.path))) for source in sources]

    def task(place: int) -> dict:
        number = largest_first[place]
        return _read_task(release, readable[number], number, ranked, options, folder)

    rows = run_tasks(session, len(sources), task, _TASK_ROW)
    errors = sorted((row["number"], row["error"]) for row in rows if row["error"])
    if errors:
        raise InputError(*json.loads(errors[0][1]))
    return {sources[row["number"]].path: _reported(str(sources[row["number"]].path), row)
            for row in rows}


def _reported(source: str, row) -> BitextRead:
    report = json.loads(row["report"])
    return BitextRead(source, BitextCounts(**report["counts"]), report["log"],
                      tuple(report["without_year"]),
                      {int(side): [SplitCounts(*split) for split in splits]
                       for side, splits in report["splits"].items()})


def _read_task(release: _Release, source: AlignmentSource, number: int, ranked: set[str],
               options: RankOptions, folder: Path) -> dict:
    """Inside a task: read one bitext; for each ranked side, write its sentences and pairs."""
    log = _LogAsGiven(options.skip_bad_input, release)
    try:
        bitext = read_bitext(release.absolute, source, log, options.documents,
                             options.max_sentence_length)
    except InputError as raised:
        error = release.as_given(raised)
        return {"number": number, "error": json.dumps([error.path, error.message,
                                                       error.position, error.kind])}
    coded = [_local_codes(side) for side in bitext.sides]
    splits = {side_number: _pair_side(side, *coded[side_number], coded[1 - side_number][1],
                                      options, folder, number, side_number)
              for side_number, side in enumerate(bitext.sides) if side.lang in ranked}
    return {"number": number, "error": None, "report": json.dumps({
        "counts": asdict(bitext.counts), "log": log.as_dict(), "splits": splits,
        "without_year": [side.without_year for side in bitext.sides]})}


def _local_codes(side: Side) -> tuple[pa.Array, np.ndarray]:
    """A side's sentences in code-point order, and each link's sentence code among them."""
    sentences, rank = sorted_distinct([normalize_keys(side.keys.slice(start, CHUNK), side.lang)
                                       for start in range(0, len(side.keys), CHUNK)])
    return sentences, rank[side.codes]


def _pair_side(side: Side, sentences: pa.Array, codes: np.ndarray, pivots: np.ndarray,
               options: RankOptions, folder: Path, number: int, side_number: int) -> list:
    """Write a ranked side's sentences, its pairs of every split (and c_L(t) for a
    merged-bitext scheme); each split's links, fan-out skips and pairs."""
    write_arrow(pa.table({"sentence": sentences}),
                _side_file(folder, "sentences", number, side_number))
    tables, reported, target_counts = [], [], []
    for split in range(len(SPLITS)):
        chosen = side.splits == split
        bitext = bitext_pairs(codes[chosen], pivots[chosen], len(sentences),
                              options.max_pivot_fanout)
        counts, pairs = bitext.counts, sum_by_pair(*weighted_pairs(bitext.counts, bitext.groups))
        pmi = bitext_pmi(counts.links, pairs.shared, counts.target_count[pairs.left],
                         counts.target_count[pairs.right])
        tables.append(pa.table({"split": np.full(len(pairs.keys), split, np.int8),
                                "key": pairs.keys, "pmi": pmi, "shared": pairs.shared}))
        reported.append([counts.links, list(asdict(bitext.skips).values()), len(pairs.keys)])
        target_counts.append(counts.target_count)
    write_arrow(pa.concat_tables(tables), _side_file(folder, "pairs", number, side_number))
    if options.score != "summed-pmi":
        write_arrow(pa.table(dict(zip(SPLITS, target_counts))),
                    _side_file(folder, "counts", number, side_number))
    return reported
