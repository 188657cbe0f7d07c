"""The options both `pairs` commands share: negatives per row, the seed, the formats and the
second check by a `score` model; and the summary line they print."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from tapaco.core.options import integer, number, output_formats
from tapaco.core.outputs import OVERWRITE_FOLDER_HELP
from tapaco.core.pairs.output import FORMATS
from tapaco.core.pairs.rows import SCORE_MAX, PairsOptions
from tapaco.core.progress import plural

MAX_NEGATIVES = 64


def add_pairs_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--out", type=Path, required=True, metavar="DIR",
                         help="the folder to write: data/<lang>.parquet, README.md (a dataset "
                              "card), stats.json")
    command.add_argument("--negatives", type=integer(0, MAX_NEGATIVES), default=0, metavar="K",
                         help="hard negatives per row: a column 'negative' (K=1) or "
                              "'negative_1'..'negative_K' (default 0: anchor, positive only)")
    command.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, metavar="S",
                         help="the seed of every random choice (the same seed, the same files)")
    command.add_argument("--format", dest="formats", default=("parquet",), metavar="parquet,jsonl",
                         type=functools.partial(output_formats, allowed=FORMATS),
                         help="parquet (always written: the card's configurations name it) and "
                              "jsonl")
    command.add_argument("--score-model", type=Path, metavar="PATH",
                         help="also drop negatives this `score` model (a word-vector file or a "
                              "sentence-transformers folder) scores above --score-max")
    command.add_argument("--score-max", type=number(-1.0, 1.0), default=SCORE_MAX, metavar="X",
                         help=f"with --score-model: the highest score a negative may have "
                              f"(default {SCORE_MAX})")
    command.add_argument("--overwrite", action="store_true", help=OVERWRITE_FOLDER_HELP)
    command.add_argument("--quiet", action="store_true", help="no progress line")


def pairs_options(arguments: argparse.Namespace, max_pairs_per_group: int = 0) -> PairsOptions:
    formats = tuple(name for name in FORMATS if name == "parquet" or name in arguments.formats)
    return PairsOptions(arguments.negatives, max_pairs_per_group, arguments.seed, formats,
                        arguments.score_model, arguments.score_max)


def summary_line(out: Path, stats: dict) -> str:
    overlap = stats["overlap"]
    parts = [f"wrote {stats['rows']:,} rows over {plural(len(stats['languages']), 'language')} "
             f"to {out}"]
    jaccards = [f"{kind.replace('_', ' ')} {found['mean_jaccard']}"
                for kind, found in overlap.items() if found.get("pairs")]
    if jaccards:
        parts.append("mean word Jaccard with the anchor: " + ", ".join(jaccards))
    return "; ".join(parts)
