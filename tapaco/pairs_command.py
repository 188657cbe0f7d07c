"""The `tapaco pairs` command: its parser and what it runs (:mod:`tapaco.pairs`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tapaco.core.options import Command, integer, languages
from tapaco.core.pairs.command_options import add_pairs_options, pairs_options, summary_line
from tapaco.core.progress import Progress
from tapaco.pairs import make_pairs

MAX_PAIRS_PER_SET = 10


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    command = commands.add_parser(
        "pairs", help="training rows (anchor, positive, hard negatives) from a build's sets",
        description="Rows for sentence-embedding models from a TaPaCo build: two sentences of "
                    "one set (anchor, positive) and, with --negatives K, K sentences of the "
                    "same language that share words with the anchor and lie in another "
                    "component of the translation graph (no translation path links them).")
    command.add_argument("--build", type=Path, required=True, metavar="OUT",
                         help="the output folder of 'tapaco build' (read, never changed)")
    command.add_argument("--langs", type=languages, metavar="xx,yy",
                         help="these languages only (default: every language of the build)")
    command.add_argument("--max-pairs-per-set", type=integer(0), default=MAX_PAIRS_PER_SET,
                         metavar="N", help="pairs drawn from a set at most (seeded; 0: all; "
                                           f"default {MAX_PAIRS_PER_SET})")
    add_pairs_options(command)
    return command


def _run(arguments: argparse.Namespace) -> None:
    options = pairs_options(arguments, arguments.max_pairs_per_set)
    stats = make_pairs(arguments.build, arguments.out, options, arguments.langs,
                       arguments.overwrite, Progress(enabled=False if arguments.quiet else None))
    if not arguments.quiet:
        print(summary_line(arguments.out, stats), file=sys.stderr)


PAIRS = Command(_add_parser, _run)
