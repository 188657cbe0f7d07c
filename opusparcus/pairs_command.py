"""The `opusparcus pairs` command: its parser and what it runs (:mod:`opusparcus.pairs`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.cutoffs import parse_levels
from opusparcus.pairs import make_pairs
from tapaco.core.errors import OptionError
from tapaco.core.options import Command
from tapaco.core.pairs.command_options import add_pairs_options, pairs_options, summary_line
from tapaco.core.progress import Progress


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    command = commands.add_parser(
        "pairs", help="training rows (anchor, positive, hard negatives) from a ranked file",
        description="Rows for sentence-embedding models from a ranked training file of "
                    "'opusparcus rank': each pair (anchor, positive) and, with --negatives K, "
                    "K sentences of the file that share words with the anchor and never share "
                    "a pivot translation with it in the bitexts the ranking read.")
    command.add_argument("--ranked", type=Path, required=True, metavar="FILE",
                         help="a ranked file (TSV or Parquet) inside an 'opusparcus rank' output "
                              "folder (its stats.json names the bitexts; read, never changed)")
    command.add_argument("--level", type=_level, metavar="P",
                         help="with --cutoffs: the pairs down to the cut of this quality level "
                              "(a percentage, as 'opusparcus cutoff --levels' gave it)")
    command.add_argument("--cutoffs", type=Path, metavar="FILE",
                         help="the cutoffs.json 'opusparcus cutoff' wrote for --ranked")
    add_pairs_options(command)
    return command


def _level(value: str) -> float:
    try:
        [level] = parse_levels(value)
    except (OptionError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"expected one percentage such as 90, got {value!r}"
                                         ) from error
    return level


def _run(arguments: argparse.Namespace) -> None:
    if (arguments.level is None) != (arguments.cutoffs is None):
        raise OptionError("--level", "--level and --cutoffs go together")
    stats = make_pairs(arguments.ranked, arguments.out, pairs_options(arguments),
                       arguments.overwrite, Progress(enabled=False if arguments.quiet else None),
                       arguments.level, arguments.cutoffs)
    if not arguments.quiet:
        print(summary_line(arguments.out, stats), file=sys.stderr)


PAIRS = Command(_add_parser, _run)
