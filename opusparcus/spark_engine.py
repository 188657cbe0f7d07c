"""`rank --engine spark`: a whole run as Spark jobs, from the release to the release files.

A task per bitext reads, normalises, counts and pairs it (:mod:`opusparcus.spark_input`); a task
per language makes its language-wide codes (:mod:`opusparcus.spark_numbering`). The pairs of
every bitext meet in one shuffle (bucket: key modulo the buckets), and one Arrow function per
bucket combines them over the bitexts, scores, holds out and filters them by edit distance with
the local engine's functions, in its order (a pair's sums run over its values alone, in bitext
order; its copies in every split share its bucket). Spark sorts the rows (split, score, key: the
local engine's stable sort of key-sorted pairs), and tasks render and write them in parts
(:mod:`opusparcus.spark_output`). No Python code runs per row; the driver lists the input,
gathers a few rows of counts and concatenates the parts.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from opusparcus.bitexts import DEV, SPLITS, TEST, TRAIN
from opusparcus.counting import pack_pairs, unpack_pairs
from opusparcus.export import release_files
from opusparcus.held_out import held_out
from opusparcus.rank_inputs import RankOptions
from opusparcus.rank_outputs import formats_from_text, statistics
from opusparcus.scores import ScoredPairs, combine_bitexts, merged_score
from opusparcus.spark_input import ExecutorInput, input_bytes, provenance_on_executor, read_arrow
from opusparcus.spark_numbering import LanguageFiles, number_sentences
from opusparcus.spark_output import concatenate_parts, save_sorted, write_parts
from opusparcus.spark_session import ship_code, shuffle_partitions, spark_session
from tapaco.core.arrays import lexicographic_order
from tapaco.core.files import write_json
from tapaco.core.opus import AlignmentSource
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress
from tapaco.core.provenance import Provenance
from tapaco.core.scratch import scratch_folder

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS_PER_BUCKET = 1_000_000
MIN_BUCKETS = 8
BATCH_ROWS = 1 << 20
PAIR_ROWS = "split int, key long, bitext int, pmi double, shared double, bucket int"
SCORED_ROWS = ("split int, key long, summed_pmi double, expected double, pivots long, "
               "score double, kept boolean")


class SparkEngine:
    """Ranks a run's languages as Spark jobs, one session for all of them."""

    def __init__(self, options: RankOptions) -> None:
        self.options = options
        self.session = spark_session(options.spark_master, options.memory_budget(),
                                     options.quiet)

    def rank_languages(self, opus_dir: Path, plan: dict[str, list[AlignmentSource]],
                       outputs: dict[str, OutputFolder], progress: Progress) -> dict[str, dict]:
        """Rank every language of `plan` (its bitexts) into its output; their statistics."""
        sources = list({source.path: source for chosen in plan.values() for source in chosen}
                       .values())
        merged = self.options.score != "summed-pmi"
        with scratch_folder("opusparcus-spark-", self.options.temp_dir) as folder:
            ship_code(self.session)
            provenance = provenance_on_executor(self.session, opus_dir)
            shuffle_partitions(self.session, input_bytes(sources))
            with progress.stage(f"{','.join(plan)}: read bitexts on Spark"):
                read = ExecutorInput(self.session, opus_dir, sources, set(plan), self.options,
                                     folder / "input")
            with progress.stage(f"{','.join(plan)}: number sentences on Spark"):
                files = {lang: LanguageFiles(
                    [read.file("sentences", source, lang) for source in chosen],
                    [read.file("counts", source, lang) for source in chosen] if merged else None,
                    folder / lang) for lang, chosen in plan.items()}
                number_sentences(self.session, list(files.values()))
            return {lang: self._rank(lang, plan[lang], read, files[lang], outputs[lang],
                                     progress, provenance) for lang in plan}

    def _rank(self, lang: str, sources: list[AlignmentSource], read: ExecutorInput,
              files: LanguageFiles, output: OutputFolder, progress: Progress,
              provenance: Provenance) -> dict:
        options = self.options
        with progress.stage(f"{lang}: rank on Spark"):
            sorted_folder = files.folder / "sorted"
            candidates, sizes = save_sorted(
                _scored(self.session, lang, sources, read, files, options), sorted_folder)
        written = {SPLITS[split]: sum(found.get(split, 0) for found in sizes.values())
                   for split in (TRAIN, DEV, TEST)}
        stats = statistics(lang, read.records(sources, lang), read.split_stats(
            sources, lang, candidates), written, options, provenance)
        with progress.stage(f"{lang}: render and write on Spark"):
            parts = write_parts(self.session, sorted_folder, sizes, lang, files.vocabulary,
                                options.score != "summed-pmi", files.folder / "parts")
            output.write(lambda out: _write(out, lang, parts, stats, options))
        return stats


def _write(folder: Path, lang: str, parts: dict[int, list[Path]], stats: dict,
           options: RankOptions) -> None:
    for split, (name, _) in release_files(lang).items():
        concatenate_parts(parts[split], folder / name)
    write_json(folder / "stats.json", stats)
    formats_from_text(folder, lang, stats, options)


def _scored(session: SparkSession, lang: str, sources: list[AlignmentSource],
            read: ExecutorInput, files: LanguageFiles, options: RankOptions) -> DataFrame:
    """Every pair of every split scored over its bitexts, and whether it is written."""
    pair_files = [read.file("pairs", source, lang) for source in sources]
    rows = sum(split.pairs for source in sources for split in read.split_counts(source, lang))
    buckets = max(MIN_BUCKETS, math.ceil(rows / ROWS_PER_BUCKET))

    def load(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for place in batch.column(0).to_pylist():
                yield from _bitext_rows(place, pair_files[place], files.codes(place), buckets)

    links = [sum(read.split_counts(source, lang)[split].links for source in sources)
             for split in range(len(SPLITS))]
    bucket = _Bucket(options, links, files)
    count = len(sources)
    return session.range(0, count, 1, count).mapInArrow(load, PAIR_ROWS).groupBy(
        "bucket").applyInArrow(lambda rows: bucket.scored(rows), SCORED_ROWS)


def _bitext_rows(place: int, pairs: Path, codes: Path,
                 buckets: int) -> Iterator[pa.RecordBatch]:
    """A bitext's pairs with language-wide keys and their bucket."""
    code = read_arrow(codes).column("code").to_numpy()
    for batch in read_arrow(pairs).to_batches(BATCH_ROWS):
        left, right = unpack_pairs(batch.column("key").to_numpy())
        keys = pack_pairs(code[left], code[right])
        yield pa.record_batch({
            "split": batch.column("split").cast(pa.int32()), "key": keys.view(np.int64),
            "bitext": np.full(len(keys), place, np.int32), "pmi": batch.column("pmi"),
            "shared": batch.column("shared"),
            "bucket": (keys % np.uint64(buckets)).astype(np.int32)})


@dataclass
class _Bucket:
    """What scoring a bucket needs: the options, N per split, the language's files."""

    options: RankOptions
    links: list[int]
    files: LanguageFiles

    def scored(self, rows: pa.Table) -> pa.Table:
        """A bucket's pairs combined over their bitexts, scored and held out per split."""
        rows = rows.take(lexicographic_order(
            *(rows.column(name).to_numpy() for name in ("split", "key", "bitext"))))
        bounds = np.searchsorted(rows.column("split").to_numpy(), np.arange(len(SPLITS) + 1))
        scored = [self._scored_split(rows.slice(bounds[split], bounds[split + 1] - bounds[split]),
                                     split) for split in range(len(SPLITS))]
        vocabulary = read_arrow(self.files.vocabulary).column("sentence").combine_chunks()
        train = scored[TRAIN].keys
        dev = held_out(scored[DEV], [train], vocabulary, self.options).keys
        kept = [train, dev, held_out(scored[TEST], [train, dev], vocabulary, self.options).keys]
        return pa.concat_tables([pa.table({
            "split": np.full(len(pairs), split, np.int32), "key": pairs.keys.view(np.int64),
            "summed_pmi": pairs.summed_pmi, "expected": pairs.expected, "pivots": pairs.pivots,
            "score": pairs.score, "kept": np.isin(pairs.keys, kept[split], assume_unique=True)})
            for split, pairs in enumerate(scored)])

    def _scored_split(self, rows: pa.Table, split: int) -> ScoredPairs:
        keys, summed_pmi, shared, pivots = combine_bitexts(
            rows.column("key").to_numpy().view(np.uint64), rows.column("pmi").to_numpy(),
            rows.column("shared").to_numpy())
        score = summed_pmi
        if self.options.score != "summed-pmi":
            counts = read_arrow(self.files.merged).column(split).to_numpy()
            left, right = unpack_pairs(keys)
            score = merged_score(self.options.score, shared, counts[left], counts[right],
                                 self.links[split])
        return ScoredPairs(keys, summed_pmi, shared, pivots, score)
