"""The `evaluate` command of `opusparcus`: options, and a thin run over
:func:`opusparcus.evaluate.evaluate_annotated`."""

from __future__ import annotations

import argparse
from pathlib import Path

from opusparcus.evaluate import evaluate_annotated, summary
from tapaco.core.options import Command
from tapaco.core.score.command import add_model_arguments, add_report_options, model_choice


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    evaluate = commands.add_parser(
        "evaluate", help="how well a model's cosine separates annotated paraphrases (as MTEB)",
        description="Evaluate a model on annotated pairs as MTEB evaluates OpusparcusPC (pair "
                    "classification): annot_score above 2.5 is a paraphrase, below 2.5 is "
                    "not, 2.5 is dropped. Reports the average precision of the cosine (as "
                    "scikit-learn's average_precision_score), and the best accuracy and F1 "
                    "with their thresholds (as MTEB searches them). The model is run as "
                    "`score` runs it. Nothing is downloaded.")
    evaluate.add_argument("--pairs", type=Path, required=True, metavar="FILE",
                          help="combine's output (training or dev/test lines), or a GEM split "
                               "as JSONL or Parquet (sent1/sent2 or input/target, "
                               "annot_score)")
    add_model_arguments(evaluate)
    add_report_options(evaluate, False, "also write the figures, counts and model as JSON")
    return evaluate


def _run(arguments: argparse.Namespace) -> None:
    model = model_choice(arguments)
    report = evaluate_annotated(arguments.pairs, model, arguments.out, arguments.overwrite)
    if not arguments.quiet:
        print(summary(report, arguments.out))


EVALUATE = Command(_add_parser, _run)
