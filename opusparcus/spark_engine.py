"""`rank --engine spark`: a whole run as Spark jobs, from the release to the release files.

The bitexts are read, normalised and coded inside tasks (:mod:`opusparcus.spark_input`); the
counting, pairing, scoring, splits, held-out exclusion and edit-distance filter below run as
Spark jobs; the release files are rendered and written in parts by tasks
(:mod:`opusparcus.spark_output`). The driver lists the input, gathers a few rows of counts, and
concatenates the parts. The run's folder (under `--temp-dir`) must, on a cluster, be storage
that every executor and the driver share.

Identical output rests on doing every floating-point step as the local engine does it:
- a pair's contributions c(l,f) c(r,f) / c(f) are computed by Spark (integer products, one
  IEEE division, as numpy), but summed in a pandas UDF per hash bucket of pair keys, sorted by
  pivot code, with the local engine's own function (a reduction over each pair's values alone,
  which gives the same bits whatever else is in the bucket);
- PMI and the scheme scores are computed by the local engine's numpy functions in a UDF over
  each bucket's rows sorted by (pair, bitext);
- release rows are numbered in rank order and rendered by the local engine's formatter.
Skew: a pivot's pairs come from a self-join of its targets; a pivot with more than `SALT_ROWS`
targets has its left side spread over several buckets (its right side copied to each), so no
task holds more than `SALT_ROWS` x fan-out pairs of one pivot. The fan-out cap applies before
the join.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from opusparcus.bitexts import DEV, SPLITS, TEST, TRAIN
from opusparcus.counting import FanoutSkips
from opusparcus.counting import sum_by_pair as _sum_by_pair
from opusparcus.edit_distance import differ_enough_mask
from opusparcus.export import release_files
from opusparcus.rank_inputs import RankOptions, pivot_of
from opusparcus.rank_outputs import BitextRecord, formats_from_text, statistics
from opusparcus.scores import bitext_pmi, combine_bitexts, merged_score
from opusparcus.spark_input import ExecutorInput, input_bytes, provenance_on_executor
from opusparcus.spark_numbering import numbered
from opusparcus.spark_output import concatenate_parts, write_parts
from opusparcus.spark_session import ship_code, shuffle_partitions, spark_session
from tapaco.core.files import write_json
from tapaco.core.opus import AlignmentSource
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress
from tapaco.core.provenance import Provenance
from tapaco.core.scratch import scratch_folder

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SALT_ROWS = 64
ROWS_PER_BUCKET = 1_000_000
MIN_BUCKETS = 8
_LOW_BITS = 0xFFFFFFFF


class SparkEngine:
    """Ranks a run's languages as Spark jobs, one session for all of them."""

    def __init__(self, options: RankOptions) -> None:
        self.options = options
        self.session = spark_session(options.spark_master, options.memory_budget(),
                                     options.quiet)

    def rank_languages(self, opus_dir: Path, plan: dict[str, list[AlignmentSource]],
                       outputs: dict[str, OutputFolder], progress: Progress) -> dict[str, dict]:
        """Rank every language of `plan` (its bitexts) into its output folder; each language's
        statistics."""
        sources = list({source.path: source for chosen in plan.values() for source in chosen}
                       .values())
        with scratch_folder("opusparcus-spark-", self.options.temp_dir) as folder:
            ship_code(self.session)
            provenance = provenance_on_executor(self.session, opus_dir)
            shuffle_partitions(self.session, input_bytes(sources))
            with progress.stage(f"{','.join(plan)}: read bitexts on Spark"):
                read = ExecutorInput(self.session, opus_dir, sources, set(plan), self.options,
                                     folder / "input")
            return {lang: self._rank(lang, plan[lang], read, outputs[lang], progress,
                                     folder / lang, provenance) for lang in plan}

    def _rank(self, lang: str, sources: list[AlignmentSource], read: ExecutorInput,
              output: OutputFolder, progress: Progress, folder: Path,
              provenance: Provenance) -> dict:
        options = self.options
        with progress.stage(f"{lang}: rank on Spark"):
            links, sentences = read.coded(lang, sources, folder / "codes")
            pivots = [pivot_of(source, lang) for source in sources]
            ranking = _rank_on_spark(self.session, links, sentences, pivots, options, folder)
        try:
            reported = [read.bitexts[source.path] for source in sources]
            records = [BitextRecord(pivot, bitext.source, bitext.counts, bitext.log,
                                    bitext.without_year[source.langs.index(lang)])
                       for pivot, source, bitext in zip(pivots, sources, reported)]
            stats = statistics(lang, records, ranking.split_stats, ranking.pairs_written,
                               options, provenance)
            with progress.stage(f"{lang}: render and write on Spark"):
                parts = write_parts(ranking.numbered, lang, options.score != "summed-pmi",
                                    folder / "parts")
                output.write(lambda out: _write(out, lang, parts, stats, options))
        finally:
            ranking.unpersist()
        return stats


def _write(folder: Path, lang: str, parts: dict[int, list[Path]], stats: dict,
           options: RankOptions) -> None:
    for split, (name, _) in release_files(lang).items():
        concatenate_parts(parts[split], folder / name)
    write_json(folder / "stats.json", stats)
    formats_from_text(folder, lang, stats, options)


@dataclass
class _Ranking:
    """One language ranked on Spark: its split statistics, pair counts, numbered rows."""

    split_stats: dict
    pairs_written: dict[str, int]
    numbered: DataFrame
    cached: list[DataFrame]

    def unpersist(self) -> None:
        """Drop what this ranking cached, so the next language starts empty."""
        for frame in self.cached:
            frame.unpersist()


def _rank_on_spark(session: SparkSession, links: DataFrame, sentences: DataFrame,
                   pivots: list[str], options: RankOptions, folder: Path) -> _Ranking:
    """Rank one language's coded links; `folder` (new) holds the ordered rows."""
    from pyspark.sql import functions as F

    counts = _Counts(links.persist(), options.max_pivot_fanout, options.score)
    buckets = _bucket_count(counts.expanded_pairs())
    shared = _shared(counts, buckets)
    scored = _scored(counts, shared, options.score, buckets).persist()
    train = scored.filter(F.col("split") == TRAIN)
    dev = _held_out(scored.filter(F.col("split") == DEV), [train], sentences, options)
    test = _held_out(scored.filter(F.col("split") == TEST), [train, dev], sentences, options)
    chosen = _with_sentences(train, sentences).unionByName(dev).unionByName(test)
    rows, written = numbered(session, chosen, "split",
                             [F.col("score").desc(), "l", "r"], folder / "ranked")
    return _Ranking(_split_stats(counts, scored, pivots),
                    {SPLITS[split]: written.get(split, 0) for split in (TRAIN, DEV, TEST)},
                    rows, [counts.links, counts.pivots, scored, dev, test])


class _Counts:
    """c(t,f), c(f), c(t), N per bitext and split, and the pivots within the fan-out cap."""

    def __init__(self, links: DataFrame, max_fanout: int | None, scheme: str) -> None:
        from pyspark.sql import functions as F

        self.links = links
        self.pair = links.groupBy("split", "bitext", "pivot", "target").agg(
            F.count("*").alias("c"))
        pivot = links.groupBy("split", "bitext", "pivot").agg(F.count("*").alias("cf"))
        width = self.pair.groupBy("split", "bitext", "pivot").agg(F.count("*").alias("d"))
        self.pivots = width.join(pivot, ["split", "bitext", "pivot"]).withColumn(
            "too_wide", F.col("d") > max_fanout if max_fanout else F.lit(False)).persist()
        self.target = links.groupBy("split", "bitext", "target").agg(F.count("*").alias("ct"))
        self.bitext_links = links.groupBy("split", "bitext").agg(F.count("*").alias("n"))
        self.merged = scheme != "summed-pmi"

    def kept_pivots(self) -> DataFrame:
        from pyspark.sql import functions as F

        return self.pivots.filter((F.col("d") >= 2) & ~F.col("too_wide"))

    def expanded_pairs(self) -> int:
        from pyspark.sql import functions as F

        total = self.kept_pivots().agg(F.sum(F.col("d") * (F.col("d") - 1) / 2)).first()[0]
        return int(total or 0)


def _bucket_count(expanded_pairs: int) -> int:
    return max(MIN_BUCKETS, math.ceil(expanded_pairs / ROWS_PER_BUCKET))


def _bucket(column: str, buckets: int):
    from pyspark.sql import functions as F

    return F.pmod(F.xxhash64(column), F.lit(buckets))


def _shared(counts: _Counts, buckets: int) -> DataFrame:
    """S_L of every pair of every bitext and split: the self-join of each kept pivot's targets
    (salted), each pair's contributions summed in pivot order by the local engine's sum."""
    from pyspark.sql import functions as F

    kept = counts.kept_pivots().withColumn(
        "salts", F.greatest(F.lit(1), F.ceil(F.col("d") / SALT_ROWS)).cast("long"))
    members = counts.pair.join(kept.select("split", "bitext", "pivot", "cf", "salts"),
                               ["split", "bitext", "pivot"])
    left = members.withColumn("salt", F.pmod(F.col("target"), F.col("salts"))).select(
        "split", "bitext", "pivot", "salt", F.col("target").alias("l"), F.col("c").alias("cl"),
        "cf")
    salts = F.sequence(F.lit(0).cast("long"), F.col("salts") - 1)
    right = members.withColumn("salt", F.explode(salts)).select(
        "split", "bitext", "pivot", "salt", F.col("target").alias("r"), F.col("c").alias("cr"))
    pairs = left.join(right, ["split", "bitext", "pivot", "salt"]).filter(F.col("l") < F.col("r"))
    rows = pairs.select(
        "split", "bitext", "pivot",
        F.shiftleft(F.col("l"), 32).bitwiseOR(F.col("r")).alias("key"),
        (F.col("cl") * F.col("cr") / F.col("cf")).alias("weight"))
    return rows.withColumn("bucket", _bucket("key", buckets)).groupBy(
        "split", "bitext", "bucket").applyInPandas(
        _sum_bucket, "split int, bitext int, key long, shared double")


def _sum_bucket(rows: pd.DataFrame) -> pd.DataFrame:
    """Sum a bucket's contributions per pair, in pivot order (as the local engine)."""
    rows = rows.sort_values(["key", "pivot"], kind="stable")
    pairs = _sum_by_pair(rows["key"].to_numpy(np.int64).view(np.uint64),
                         rows["weight"].to_numpy(np.float64))
    return pd.DataFrame({"split": rows["split"].iloc[:1].repeat(len(pairs.keys)).to_numpy(),
                         "bitext": rows["bitext"].iloc[:1].repeat(len(pairs.keys)).to_numpy(),
                         "key": pairs.keys.view(np.int64), "shared": pairs.shared})


def _scored(counts: _Counts, shared: DataFrame, scheme: str, buckets: int) -> DataFrame:
    """Every pair of every split scored over its bitexts (the local engine's numpy)."""
    from pyspark.sql import functions as F

    target = counts.target
    rows = (shared
            .withColumn("l", F.shiftright(F.col("key"), 32))
            .withColumn("r", F.col("key").bitwiseAND(F.lit(_LOW_BITS)))
            .join(target.select("split", "bitext", F.col("target").alias("l"),
                                F.col("ct").alias("cl")), ["split", "bitext", "l"])
            .join(target.select("split", "bitext", F.col("target").alias("r"),
                                F.col("ct").alias("cr")), ["split", "bitext", "r"])
            .join(counts.bitext_links, ["split", "bitext"]))
    if counts.merged:
        merged = counts.links.groupBy("split", "target").agg(F.count("*").alias("mt"))
        totals = counts.links.groupBy("split").agg(F.count("*").alias("total"))
        rows = (rows.join(merged.select("split", F.col("target").alias("l"),
                                        F.col("mt").alias("ml")), ["split", "l"])
                .join(merged.select("split", F.col("target").alias("r"),
                                    F.col("mt").alias("mr")), ["split", "r"])
                .join(totals, "split"))
    else:
        rows = rows.select("*", *(F.lit(0).cast("long").alias(name)
                                  for name in ("ml", "mr", "total")))
    schema = ("split int, key long, l long, r long, summed_pmi double, expected double, "
              "pivots long, score double")
    return rows.withColumn("bucket", _bucket("key", buckets)).groupBy("split", "bucket")\
        .applyInPandas(lambda frame: _score_bucket(frame, scheme), schema)


def _score_bucket(rows: pd.DataFrame, scheme: str) -> pd.DataFrame:
    rows = rows.sort_values(["key", "bitext"], kind="stable")
    keys = rows["key"].to_numpy(np.int64).view(np.uint64)
    pmi = bitext_pmi(rows["n"].to_numpy(np.int64), rows["shared"].to_numpy(np.float64),
                     rows["cl"].to_numpy(np.int64), rows["cr"].to_numpy(np.int64))
    distinct, summed_pmi, shared, pivots = combine_bitexts(keys, pmi,
                                                           rows["shared"].to_numpy(np.float64))
    first = np.unique(keys, return_index=True)[1]
    if scheme == "summed-pmi":
        score = summed_pmi
    else:
        score = merged_score(scheme, shared, rows["ml"].to_numpy(np.int64)[first],
                             rows["mr"].to_numpy(np.int64)[first],
                             rows["total"].to_numpy(np.int64)[first])
    signed = distinct.view(np.int64)
    return pd.DataFrame({"split": rows["split"].iloc[:1].repeat(len(signed)).to_numpy(),
                         "key": signed, "l": signed >> 32, "r": signed & _LOW_BITS,
                         "summed_pmi": summed_pmi, "expected": shared, "pivots": pivots,
                         "score": score})


def _with_sentences(pairs: DataFrame, sentences: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    return (pairs.join(sentences.select(F.col("code").alias("l"), F.col("sentence").alias("a")),
                       "l")
            .join(sentences.select(F.col("code").alias("r"), F.col("sentence").alias("b")), "r"))


def _held_out(pairs: DataFrame, excluded: list[DataFrame], sentences: DataFrame,
              options: RankOptions) -> DataFrame:
    """Pairs of a held-out split not in `excluded` whose sentences differ enough."""
    for earlier in excluded:
        pairs = pairs.join(earlier.select("key"), "key", "left_anti")
    ratio, short_ratio, short = (options.min_edit_ratio, options.min_edit_ratio_short,
                                 options.short_length)

    def keep(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            yield batch[differ_enough_mask(batch["a"].tolist(), batch["b"].tolist(), ratio,
                                           short_ratio, short)]

    named = _with_sentences(pairs, sentences)
    return named.mapInPandas(keep, named.schema).persist()


def _split_stats(counts: _Counts, scored: DataFrame, pivots: list[str]) -> dict:
    """Per split: links per pivot, what the fan-out cap skipped, candidate pairs."""
    from pyspark.sql import functions as F

    per_bitext = {(row["split"], row["bitext"]): row["n"]
                  for row in counts.bitext_links.collect()}
    skips = {row["split"]: FanoutSkips(int(row["pivots"]), int(row["links"]), int(row["pairs"]))
             for row in counts.pivots.filter("too_wide").groupBy("split").agg(
                 F.count("*").alias("pivots"), F.sum("cf").alias("links"),
                 F.sum(F.col("d") * (F.col("d") - 1) / 2).cast("long").alias("pairs")).collect()}
    candidates = {row["split"]: row["count"] for row in scored.groupBy("split").count().collect()}
    return {SPLITS[split]: {
        "links_per_pivot": {pivot: int(per_bitext.get((split, number), 0))
                            for number, pivot in enumerate(pivots)},
        "fanout_skips": asdict(skips.get(split, FanoutSkips())),
        "candidate_pairs": int(candidates.get(split, 0))} for split in (TRAIN, DEV, TEST)}
