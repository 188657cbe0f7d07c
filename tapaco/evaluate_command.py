"""The `evaluate` command of `tapaco`: options, and a thin run over
:func:`tapaco.triplets.evaluate_triplets`."""

from __future__ import annotations

import argparse
from pathlib import Path

from tapaco.core.options import Command, languages
from tapaco.core.score.command import add_model_arguments, add_report_options, model_choice
from tapaco.triplets import evaluate_triplets, summary


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    evaluate = commands.add_parser(
        "evaluate", help="triplet accuracy of a model on the rows tapaco pairs writes",
        description="Evaluate a model on the training rows `tapaco pairs` writes: the share "
                    "of (anchor, positive, negative) triples where the anchor's cosine with "
                    "the positive is above its cosine with the negative (each of a row's K "
                    "negatives is a triple), per language and over all. The model is run as "
                    "`score` runs it. Nothing is downloaded.")
    evaluate.add_argument("--pairs", type=Path, required=True, metavar="DIR",
                          help="an output folder of tapaco pairs with negatives "
                               "(DIR/data/<lang>.parquet)")
    evaluate.add_argument("--langs", type=languages, metavar="xx,yy",
                          help="evaluate these languages only (default: every language of DIR)")
    add_model_arguments(evaluate)
    add_report_options(evaluate, True,
                       "the figures and counts, per language and overall, and the model")
    return evaluate


def _run(arguments: argparse.Namespace) -> None:
    model = model_choice(arguments)
    report = evaluate_triplets(arguments.pairs, model, arguments.out, arguments.langs,
                               arguments.overwrite)
    if not arguments.quiet:
        print(summary(report, arguments.out))


EVALUATE = Command(_add_parser, _run)
