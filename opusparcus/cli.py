"""Command line of `python -m opusparcus`: the one place that lists its commands.

Each command's options and run live beside the code it drives: `download` (an OPUS release,
:mod:`tapaco.core.download_command`), `rank` (the ranked pairs of a release,
:mod:`opusparcus.rank_command`), `score` (ParaNMT's paraphrase score of the ranked pairs,
:mod:`tapaco.core.score.command`), `serve` (the annotation page,
:mod:`tapaco.core.annotation.serve_command`) and the annotation workflow around a ranked file,
`sample`, `annotate`, `combine`, `cutoff`, `plot` and `export-gem`
(:mod:`opusparcus.workflow_commands`), `pairs` (training rows with hard negatives,
:mod:`opusparcus.pairs_command`) and `evaluate` (a model on annotated pairs, as MTEB's pair
classification, :mod:`opusparcus.evaluate_command`).
"""

from __future__ import annotations

import argparse

from opusparcus.evaluate_command import EVALUATE
from opusparcus.pairs_command import PAIRS
from opusparcus.rank_command import RANK
from opusparcus.workflow_commands import ANNOTATE, COMBINE, CUTOFF, EXPORT_GEM, PLOT, SAMPLE
from tapaco.core.annotation.serve_command import serve_command
from tapaco.core.download_command import download_command
from tapaco.core.options import program_parser, run_parsed
from tapaco.core.score.command import SCORE

DESCRIPTION = ("Opusparcus: same-language paraphrase pairs ranked by the pivot translations they "
               "share\n(Creutz 2018), and the annotation workflow that cuts them at quality "
               "levels.")
COMMANDS = (download_command(corpus="OpenSubtitles", form="moses", pivots=True), RANK, SCORE,
            SAMPLE, ANNOTATE, serve_command("opusparcus"), COMBINE, CUTOFF, PLOT, EXPORT_GEM,
            PAIRS, EVALUATE)


def parser() -> argparse.ArgumentParser:
    return program_parser("opusparcus", DESCRIPTION, COMMANDS)


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return run_parsed("opusparcus", arguments)
