"""The `score` command of `tapaco` and `opusparcus` (one implementation, as `download`):
options, and a thin run over :mod:`tapaco.core.score.scoring`."""

from __future__ import annotations

import argparse
from pathlib import Path

from tapaco.core.errors import OptionError
from tapaco.core.options import Command, integer, number
from tapaco.core.progress import Progress
from tapaco.core.score.embedders import BACKENDS, DEVICES
from tapaco.core.score.evaluation import ModelChoice
from tapaco.core.score.scoring import ScoreOptions, score_pairs, score_sets


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    score = commands.add_parser(
        "score", help="ParaNMT's paraphrase score: embedding cosine of pairs or set members",
        description="Score paraphrases by meaning, as ParaNMT-50M does (Wieting & Gimpel "
                    "2018): the cosine of the two sentences' vectors. With a word-vector file "
                    "a sentence's vector is the mean of its words' vectors (lowercased, "
                    "sacrebleu's 13a tokens); with a sentence-transformers model folder, the "
                    "model's embedding. Writes the input's rows unchanged with a "
                    "paraphrase_score column appended (empty where no score exists), and "
                    "FILE.stats.json. Nothing is downloaded.")
    what = score.add_argument_group("what to score (one of)")
    what.add_argument("--pairs", type=Path, metavar="FILE",
                      help="a TSV of pairs (plain, .gz or .bz2): one the project writes "
                           "(enrich, rank, cutoff, sample, combine), or any TSV with --columns")
    what.add_argument("--columns", type=columns, metavar="A,B",
                      help="the two sentence columns of --pairs, counted from 1")
    what.add_argument("--header", action="store_true",
                      help="the first line of --pairs is a header (kept, the new column named)")
    what.add_argument("--sets", type=Path, metavar="DIR",
                      help="a TaPaCo build's output folder: each sentence of --lang is scored "
                           "against the mean of the other sentences of its set")
    what.add_argument("--lang", metavar="xx", help="the language file of --sets (DIR/xx.txt)")
    add_model_arguments(score)
    out = score.add_argument_group("output")
    out.add_argument("--out", type=Path, required=True, metavar="FILE",
                     help="the scored file (.bz2 or .gz: compressed), and FILE.stats.json")
    out.add_argument("--folds", type=integer(2, 1000), metavar="K",
                     help="append the fold of each scored row: 1 holds the lowest K-th")
    out.add_argument("--min-score", type=number(-1.0, 1.0), metavar="X",
                     help="keep only the rows scoring at least X")
    out.add_argument("--overwrite", action="store_true",
                     help="replace an existing --out that score did not write")
    out.add_argument("--quiet", action="store_true", help="no progress, no summary")
    return score


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """The options naming a model and how to run it: those of `score`, shared by `evaluate`."""
    model = parser.add_argument_group("model")
    model.add_argument("--model", type=Path, required=True, metavar="PATH",
                       help="a word-vector file (word2vec/fastText text, .vec/.txt, may be .gz) "
                            "or a sentence-transformers model folder (holding modules.json)")
    model.add_argument("--backend", choices=BACKENDS,
                       help="force a backend (default: as --model calls for)")
    model.add_argument("--device", choices=DEVICES, default="auto",
                       help="sentence-transformers device (default auto: a GPU when present); "
                            "word vectors are scored on the CPU")
    model.add_argument("--vectors-cache", type=Path, metavar="DIR",
                       help="keep a converted copy of a word-vector file in DIR and memory-map "
                            "it on later runs instead of parsing the text again (a copy that "
                            "does not match its record is refused)")
    model.add_argument("--batch-size", type=integer(1), default=256, metavar="N",
                       help="sentences per sentence-transformers batch (default 256)")


def add_report_options(parser: argparse.ArgumentParser, required: bool, help: str) -> None:
    """The output options of both `evaluate` commands: the JSON report (`help`) and the rest."""
    out = parser.add_argument_group("output")
    out.add_argument("--out", type=Path, required=required, metavar="FILE.json", help=help)
    out.add_argument("--overwrite", action="store_true",
                     help="replace an existing --out that evaluate did not write")
    out.add_argument("--quiet", action="store_true", help="no summary")


def model_choice(arguments: argparse.Namespace) -> ModelChoice:
    """The model and how to run it, as the options of :func:`add_model_arguments` name them."""
    return ModelChoice(arguments.model, arguments.backend, arguments.device,
                       arguments.batch_size, arguments.vectors_cache)


def columns(value: str) -> tuple[int, int]:
    """An argument type: `A,B`, two different column numbers counted from 1, as 0-based
    field indexes."""
    parts = value.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"{value!r}: give two column numbers, like 2,3")
    first, second = (int(part) for part in parts)
    if min(first, second) < 1 or first == second:
        raise argparse.ArgumentTypeError(f"{value!r}: two different columns, counted from 1")
    return first - 1, second - 1


def _run(arguments: argparse.Namespace) -> None:
    _check_what(arguments)
    options = ScoreOptions(arguments.model, arguments.out, arguments.backend, arguments.device,
                           arguments.batch_size, arguments.folds, arguments.min_score,
                           arguments.overwrite, arguments.vectors_cache)
    progress = Progress(enabled=False if arguments.quiet else None)
    if arguments.pairs is not None:
        summary = score_pairs(arguments.pairs, options, arguments.columns, arguments.header,
                              progress)
    else:
        summary = score_sets(arguments.sets, arguments.lang, options, progress)
    if not arguments.quiet:
        print(summary.text())


def _check_what(arguments: argparse.Namespace) -> None:
    if (arguments.pairs is None) == (arguments.sets is None):
        raise OptionError("--pairs", "give --pairs FILE, or --sets DIR --lang xx")
    if arguments.sets is not None and not arguments.lang:
        raise OptionError("--sets", "needs --lang xx: the language file to score")
    if arguments.sets is not None and (arguments.columns or arguments.header):
        raise OptionError("--columns", "--columns and --header are for --pairs")
    if arguments.pairs is not None and arguments.lang:
        raise OptionError("--lang", "is for --sets")


SCORE = Command(_add_parser, _run)
