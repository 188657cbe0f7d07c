"""Number the rows of a Spark frame in one global order, from 0 within each group.

A window over the whole order would pull every row into one task. Instead the sorted rows are
written to Parquet with their partition and position in it, so the numbering sees one fixed
order; each partition's first row number is then the count of the rows before it (a few rows
per partition, gathered on the driver), and a row's number its position shifted by it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


def numbered(session: SparkSession, frame: DataFrame, group: str, order: list[str | Column],
             folder: Path) -> tuple[DataFrame, dict[int, int]]:
    """`frame` with `row`, each row's index in the order `order` among the rows of its `group`
    (an integer column), and how many rows each group has. `folder` (new) holds the sorted
    rows."""
    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    ordered = frame.orderBy(group, *order).select(
        "*", F.spark_partition_id().alias("part"),
        F.monotonically_increasing_id().alias("position"))
    ordered.write.parquet(str(folder))
    fixed = session.read.parquet(str(folder))
    sizes = fixed.groupBy(group, "part").agg(F.count("*").alias("size"),
                                             F.min("position").alias("first"))
    earlier = Window.partitionBy(group).orderBy("part").rowsBetween(
        Window.unboundedPreceding, -1)
    offsets = sizes.select(group, "part", "first", "size",
                           F.coalesce(F.sum("size").over(earlier), F.lit(0)).alias("before"))
    offsets = offsets.collect()
    counts: dict[int, int] = {}
    for row in offsets:
        counts[row[group]] = counts.get(row[group], 0) + row["size"]
    shifts = session.createDataFrame(
        [(row[group], row["part"], row["before"] - row["first"]) for row in offsets],
        f"{group} int, part int, shift long")
    rows = fixed.join(F.broadcast(shifts), [group, "part"]).withColumn(
        "row", F.col("position") + F.col("shift")).drop("part", "position", "shift")
    return rows, counts
