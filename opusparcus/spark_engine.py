"""`rank --engine spark`: counting, pairing, scoring, the splits, the held-out exclusion, the
edit-distance filter and the rendering of the release files as Spark jobs.

The bitexts are read and the vocabularies built as in the local engine (the columnar reader runs
at decompression speed); the links (bitext, split, target code, pivot code) and each language's
sentences then go to Parquet intermediates under `--temp-dir`, which on a cluster must be shared
storage, and everything after runs on `--spark-master`.

Identical output rests on doing every floating-point step as the local engine does it:
- a pair's contributions c(l,f) c(r,f) / c(f) are computed by Spark (integer products, one
  IEEE division, as numpy), but summed in a pandas UDF per hash bucket of pair keys, sorted by
  pivot code, with the local engine's own function (a reduction over each pair's values alone,
  which gives the same bits whatever else is in the bucket);
- PMI and the scheme scores are computed by the local engine's numpy functions in a UDF over
  each bucket's rows sorted by (pair, bitext);
- release rows are numbered in rank order and rendered by the local engine's formatter in
  chunks of `ROWS_PER_CHUNK` rows; the driver writes the files from them as the local writer
  does (the training file compressed in blocks cut by the text alone, whatever the chunks).
Skew: a pivot's pairs come from a self-join of its targets; a pivot with more than `SALT_ROWS`
targets has its left side spread over several buckets (its right side copied to each), so no
task holds more than `SALT_ROWS` x fan-out pairs of one pivot. The fan-out cap applies before
the join.
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import regex

from opusparcus.bitexts import DEV, SPLITS, TEST, TRAIN
from opusparcus.counting import FanoutSkips
from opusparcus.counting import sum_by_pair as _sum_by_pair
from opusparcus.edit_distance import differ_enough_mask
from opusparcus.export import ROWS_PER_CHUNK, format_rows, release_files, write_release_text
from opusparcus.scores import bitext_pmi, combine_bitexts, merged_score
from tapaco.core.errors import OptionError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from opusparcus.rank_inputs import PivotLinks, RankOptions
    from opusparcus.vocabulary import Vocabulary

SALT_ROWS = 64
# Shuffle partitions of a local master: a few per thread (Spark's default, 200, makes each of
# the dozens of stages of a small ranking cost seconds).
SHUFFLES_PER_THREAD = 4
ROWS_PER_BUCKET = 1_000_000
MIN_BUCKETS = 8
_LOW_BITS = 0xFFFFFFFF
NO_PYSPARK = "spark needs pyspark: pip install 'pivot-paraphrase-miner[spark]' (and Java 17)"


def check_available() -> None:
    """Refuse `--engine spark` before any work when pyspark or Java is missing."""
    if importlib.util.find_spec("pyspark") is None:
        raise OptionError("--engine", NO_PYSPARK)
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise OptionError("--engine", "spark needs Java 17 (no java on PATH, no JAVA_HOME)")


def spark_session(master: str, memory_limit: int, quiet: bool = False) -> SparkSession:
    """The Spark session to rank on (an active one is reused). On a local master, the driver
    gets `memory_limit` and Python workers run this interpreter. `quiet`: the JVM prints
    nothing."""
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                            FutureWarning)
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise OptionError("--engine", NO_PYSPARK) from None
    builder = (SparkSession.builder.master(master).appName("opusparcus rank")
               .config("spark.ui.showConsoleProgress", "false"))
    threads = local_threads(master)
    if threads:
        builder = (builder.config("spark.driver.memory", f"{max(memory_limit >> 20, 1024)}m")
                   .config("spark.pyspark.python", sys.executable)
                   .config("spark.pyspark.driver.python", sys.executable)
                   .config("spark.sql.shuffle.partitions", str(SHUFFLES_PER_THREAD * threads))
                   .config("spark.ui.enabled", "false"))
    try:
        with (workers_run_this_python() if threads else nullcontext(),
              output_of_children_discarded() if quiet else nullcontext()):
            session = builder.config("spark.sql.execution.arrow.pyspark.enabled",
                                     "true").getOrCreate()
    except Exception as error:  # pyspark raises plain exceptions when Java or the master fails
        raise OptionError("--spark-master", f"cannot start Spark on {master}: "
                          f"{str(error).splitlines()[0]}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


@contextmanager
def workers_run_this_python() -> Iterator[None]:
    """While a session starts: PYSPARK_PYTHON and PYSPARK_DRIVER_PYTHON name this interpreter,
    unless the user set them. PySpark starts its Python workers with PYSPARK_PYTHON (default:
    `python3` on PATH), not with the `spark.pyspark.python` setting, so a run through a virtual
    environment's python by its path, the environment not activated, would start workers
    without this package."""
    added = [name for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
             if name not in os.environ]
    for name in added:
        os.environ[name] = sys.executable
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@contextmanager
def output_of_children_discarded() -> Iterator[None]:
    """Processes started inside (the JVM, through spark-submit) write their stdout and stderr
    to the null device for as long as they live: the JVM warns there before any log level can
    be set, and some of its lines (incubator modules) are no log messages."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in saved:
            os.dup2(null, fd)
        yield
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def local_threads(master: str) -> int:
    """The threads of a local master (`local`, `local[4]`, `local[*]`, `local[4,2]`); 0 for a
    cluster."""
    match = regex.fullmatch(r"local(?:\[(\*|\d+)(?:,\d+)?\])?", master.strip())
    if not match:
        return 0
    return os.cpu_count() or 1 if match[1] == "*" else int(match[1] or 1)


@dataclass
class SparkRanking:
    """One language ranked on Spark: its split statistics, pair counts and rendered files."""

    split_stats: dict
    pairs_written: dict[str, int]
    rendered: DataFrame
    cached: list[DataFrame]

    def write(self, paths: dict[int, Path], workers: int) -> None:
        """Write every split's file from its rendered chunks, in rank order (train compressed
        by `workers` threads); then drop what this ranking cached in Spark, so the next
        language of the session starts empty."""
        rows = self.rendered.orderBy("split", "chunk").toLocalIterator()
        try:
            written = set()
            for split, chunks in groupby(rows, key=lambda row: row["split"]):
                write_release_text(paths[split], (row["data"] for row in chunks), workers)
                written.add(split)
            for split in paths.keys() - written:
                write_release_text(paths[split], (), workers)
        finally:
            for frame in self.cached:
                frame.unpersist()


def rank_on_spark(session: SparkSession, lang: str, links: list[PivotLinks],
                  vocabulary: Vocabulary, options: RankOptions, folder: Path) -> SparkRanking:
    """Rank one language on Spark; intermediates go to `folder`."""
    from pyspark.sql import functions as F

    frames = _intermediates(session, links, vocabulary, folder)
    counts = _Counts(frames["links"], options.max_pivot_fanout, options.score)
    buckets = _bucket_count(counts.expanded_pairs())
    shared = _shared(counts, buckets)
    scored = _scored(counts, shared, options.score, buckets).persist()
    sentences = frames["sentences"]
    train = scored.filter(F.col("split") == TRAIN)
    dev = _held_out(scored.filter(F.col("split") == DEV), [train], sentences, options)
    test = _held_out(scored.filter(F.col("split") == TEST), [train, dev], sentences, options)
    chosen = _with_sentences(train, sentences).unionByName(dev).unionByName(test)
    numbered, written = _numbered(session, chosen, folder / "ranked")
    rendered = _rendered(numbered, lang, options.score != "summed-pmi")
    return SparkRanking(_split_stats(counts, scored, links),
                        {SPLITS[split]: written.get(split, 0) for split in (TRAIN, DEV, TEST)},
                        rendered, [counts.pivots, scored, dev, test])


def _intermediates(session: SparkSession, links: list[PivotLinks], vocabulary: Vocabulary,
                   folder: Path) -> dict[str, DataFrame]:
    """The links and the sentences as Parquet, read back as Spark frames."""
    (folder / "links").mkdir(parents=True)
    for number, bitext in enumerate(links):
        pq.write_table(pa.table({
            "bitext": np.full(len(bitext.target), number, np.int32),
            "split": bitext.split.astype(np.int32),
            "target": bitext.target.astype(np.int64),
            "pivot": bitext.pivot_codes.astype(np.int64),
        }), folder / "links" / f"part-{number:05d}.parquet")
    pq.write_table(pa.table({"code": np.arange(len(vocabulary), dtype=np.int64),
                             "sentence": vocabulary.sentences}), folder / "sentences.parquet")
    return {"links": session.read.parquet(str(folder / "links")),
            "sentences": session.read.parquet(str(folder / "sentences.parquet"))}


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


def _numbered(session: SparkSession, pairs: DataFrame,
              folder: Path) -> tuple[DataFrame, dict[int, int]]:
    """The pairs of every split in rank order (score down, then the sentence codes) with their
    row index in their split from 0, and how many each split has. The sorted pairs are written
    to Parquet with their partition and position before they are numbered, so the numbering
    sees one fixed order."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    ordered = pairs.orderBy("split", F.col("score").desc(), "l", "r").select(
        "*", F.spark_partition_id().alias("part"),
        F.monotonically_increasing_id().alias("position"))
    ordered.write.parquet(str(folder))
    fixed = session.read.parquet(str(folder))
    sizes = fixed.groupBy("split", "part").agg(F.count("*").alias("size"),
                                               F.min("position").alias("first"))
    earlier = Window.partitionBy("split").orderBy("part").rowsBetween(
        Window.unboundedPreceding, -1)
    offsets = sizes.select("split", "part", "first", "size",
                           F.coalesce(F.sum("size").over(earlier), F.lit(0)).alias("before"))
    offsets = offsets.collect()
    written: dict[int, int] = {}
    for row in offsets:
        written[row["split"]] = written.get(row["split"], 0) + row["size"]
    table = session.createDataFrame(
        [(row["split"], row["part"], row["before"] - row["first"]) for row in offsets],
        "split int, part int, shift long")
    numbered = fixed.join(F.broadcast(table), ["split", "part"]).withColumn(
        "row", F.col("position") + F.col("shift"))
    return numbered, written


def _rendered(numbered: DataFrame, lang: str, scheme_field: bool) -> DataFrame:
    """One row per split and chunk of `ROWS_PER_CHUNK` ranked rows: its text, rendered by the
    local engine's formatter."""
    from pyspark.sql import functions as F

    letters = {split: letter for split, (_, letter) in release_files(lang).items()}

    def render(rows: pd.DataFrame) -> pd.DataFrame:
        rows = rows.sort_values("row")
        split = int(rows["split"].iloc[0])
        chunk = int(rows["row"].iloc[0]) // ROWS_PER_CHUNK
        text = format_rows(lang, letters[split], chunk * ROWS_PER_CHUNK + 1, rows["a"].tolist(),
                           rows["b"].tolist(), rows["summed_pmi"].to_numpy(np.float64),
                           rows["expected"].to_numpy(np.float64),
                           rows["pivots"].to_numpy(np.int64),
                           rows["score"].to_numpy(np.float64) if scheme_field else None)
        return pd.DataFrame({"split": [split], "chunk": [chunk], "data": [text.encode("utf-8")]})

    chunked = numbered.withColumn("chunk", F.floor(F.col("row") / ROWS_PER_CHUNK))
    return chunked.select("split", "chunk", "row", "a", "b", "summed_pmi", "expected", "pivots",
                          "score").groupBy("split", "chunk").applyInPandas(
        render, "split int, chunk long, data binary")


def _split_stats(counts: _Counts, scored: DataFrame, links: list[PivotLinks]) -> dict:
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
        "links_per_pivot": {bitext.pivot: int(per_bitext.get((split, number), 0))
                            for number, bitext in enumerate(links)},
        "fanout_skips": asdict(skips.get(split, FanoutSkips())),
        "candidate_pairs": int(candidates.get(split, 0))} for split in (TRAIN, DEV, TEST)}


def spark_folder(temp_dir: Path | None) -> tempfile.TemporaryDirectory:
    """A fresh folder for one run's Parquet intermediates (removed afterwards)."""
    return tempfile.TemporaryDirectory(prefix="opusparcus-spark-", dir=temp_dir)
