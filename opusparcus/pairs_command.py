"""The `opusparcus pairs` command: its parser and what it runs (:mod:`opusparcus.pairs`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.pairs import make_pairs
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
                         help="a ranked file inside an 'opusparcus rank' output folder (its "
                              "stats.json names the bitexts; read, never changed)")
    add_pairs_options(command)
    return command


def _run(arguments: argparse.Namespace) -> None:
    stats = make_pairs(arguments.ranked, arguments.out, pairs_options(arguments),
                       arguments.overwrite, Progress(enabled=False if arguments.quiet else None))
    if not arguments.quiet:
        print(summary_line(arguments.out, stats), file=sys.stderr)


PAIRS = Command(_add_parser, _run)
