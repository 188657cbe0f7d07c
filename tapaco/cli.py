"""Command line of `python -m tapaco`: the one place that lists its commands.

Each command's options and run live beside the code it drives: `build` (TaPaCo from an OPUS
Tatoeba release, :mod:`tapaco.build_command`), `download` (an OPUS release into the folder
`build` reads, :mod:`tapaco.core.download_command`), `enrich` (NMT back-translation paraphrase
candidates, :mod:`tapaco.enrich.command`), `score` (ParaNMT's paraphrase score of pairs or
sets, :mod:`tapaco.core.score.command`), `explain` (why sentences share a set,
:mod:`tapaco.explain.command`), `pairs` (training rows with hard negatives,
:mod:`tapaco.pairs_command`), `evaluate` (a model's triplet accuracy on `pairs`'s rows,
:mod:`tapaco.evaluate_command`) and `serve` (check sets on the annotation page,
:mod:`tapaco.core.annotation.serve_command`).
"""

from __future__ import annotations

import argparse

from tapaco.build_command import BUILD
from tapaco.core.annotation.serve_command import serve_command
from tapaco.core.download_command import download_command
from tapaco.core.options import program_parser, run_parsed
from tapaco.core.score.command import SCORE
from tapaco.enrich.command import ENRICH
from tapaco.evaluate_command import EVALUATE
from tapaco.explain.command import EXPLAIN
from tapaco.pairs_command import PAIRS

DESCRIPTION = ("TaPaCo: paraphrase sets from the translation graph of an OPUS Tatoeba release\n"
               "(Scherrer 2020), and NMT back-translation paraphrase candidates.")
COMMANDS = (BUILD, download_command(corpus="Tatoeba", form="raw", pivots=False), ENRICH, SCORE,
            EXPLAIN, PAIRS, EVALUATE, serve_command("tapaco"))


def parser() -> argparse.ArgumentParser:
    return program_parser("tapaco", DESCRIPTION, COMMANDS)


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return run_parsed("tapaco", arguments)
