"""The commands around a ranked file, the annotation workflow of the paper: `sample` (pairs to
annotate), `annotate` (in the terminal), `combine` (two annotators: scores, agreement, kappa),
`cutoff` (the training set cut at quality levels), `plot` (Figure 1, or schemes compared) and
`export-gem` (the GEM/opusparcus subsets). Each is its options and a thin run over the library:
:func:`opusparcus.sampling.sample_pairs`, :func:`opusparcus.annotate.annotate`,
:func:`opusparcus.combine.combine_file`, :func:`opusparcus.cutoffs.cut_ranked`,
:func:`opusparcus.plot.plot_ranked`, :func:`opusparcus.gem.export_gem`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.annotate import HELP as ANNOTATE_KEYS
from opusparcus.combine import agreement_report, combine_file
from opusparcus.cutoffs import cut_ranked, cutoff_table, parse_levels
from opusparcus.gem import FORMATS as GEM_FORMATS
from opusparcus.parquet_release import GEM_SCHEMAS
from opusparcus.sampling import sample_pairs
from tapaco.core.errors import OptionError
from tapaco.core.options import Command, integer, output_formats
from tapaco.core.outputs import OVERWRITE_FOLDER_HELP
from tapaco.core.progress import plural

OVERWRITE_FILE_HELP = ("replace the output file even if this command did not write it (never an "
                       "input, never labelled annotations)")


def _gem_formats(value: str) -> tuple[str, ...]:
    return output_formats(value, GEM_FORMATS)


def _levels(value: str) -> tuple[float, ...]:
    try:
        return parse_levels(value)
    except OptionError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _sample_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    sample = commands.add_parser(
        "sample", help="draw pairs at random from a ranked file, for annotation",
        description="Write an annotation file (rank id sentence1 sentence2 annotator1 "
                    "annotator2) of pairs drawn uniformly at random from a ranked file.")
    sample.add_argument("--ranked", type=Path, required=True, metavar="FILE",
                        help="ranked file (.bz2 training file or dev/test candidates)")
    size = sample.add_mutually_exclusive_group(required=True)
    size.add_argument("--n", type=integer(1), metavar="N", help="number of pairs to draw")
    size.add_argument("--all", action="store_true", help="every pair (dev/test candidates)")
    sample.add_argument("--seed", type=integer(0), default=0, metavar="N",
                        help="random seed: the same seed draws the same pairs")
    sample.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="annotation file to write; one holding labels is never replaced")
    sample.add_argument("--overwrite", action="store_true",
                        help="replace a file sample did not write (never one with labels)")
    return sample


def _run_sample(arguments: argparse.Namespace) -> None:
    chosen = sample_pairs(arguments.ranked, None if arguments.all else arguments.n,
                          arguments.seed, arguments.out, arguments.overwrite)
    print(f"wrote {plural(len(chosen), 'pair')} to annotate to {arguments.out}", file=sys.stderr)


SAMPLE = Command(_sample_parser, _run_sample)


def _annotate_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    annotate = commands.add_parser(
        "annotate", help="label the pairs of an annotation file in the terminal",
        description="Show one unlabelled pair at a time and read the label; the file is "
                    "saved after every answer, so a later run resumes.",
        epilog=ANNOTATE_KEYS)
    annotate.add_argument("--file", type=Path, required=True, metavar="FILE",
                          help="annotation file written by sample")
    annotate.add_argument("--annotator", type=int, choices=(1, 2), required=True,
                          help="which annotator's column to fill")
    return annotate


def _run_annotate(arguments: argparse.Namespace) -> None:
    from opusparcus.annotate import annotate

    annotate(arguments.file, arguments.annotator)


ANNOTATE = Command(_annotate_parser, _run_annotate)


def _combine_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    combine = commands.add_parser(
        "combine", help="combine two annotators' labels (agreement table, Cohen's kappa)",
        description="Combine the two annotators' labels as the paper does. Training pairs "
                    "(-N ids) give 'rank id sentence1 sentence2 score', the input of cutoff; "
                    "dev/test pairs give the release's 4-field file.")
    combine.add_argument("--annotations", type=Path, required=True, metavar="FILE",
                         help="annotation file labelled by both annotators")
    combine.add_argument("--out", type=Path, required=True, metavar="FILE",
                         help="combined file to write (never the annotation file)")
    combine.add_argument("--overwrite", action="store_true", help=OVERWRITE_FILE_HELP)
    return combine


def _run_combine(arguments: argparse.Namespace) -> None:
    combined = combine_file(arguments.annotations, arguments.out, arguments.overwrite)
    print(agreement_report(combined))


COMBINE = Command(_combine_parser, _run_combine)


def _cutoff_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    cutoff = commands.add_parser(
        "cutoff", help="cut a ranked training set where the acceptable share falls below levels",
        description="Estimate the share of acceptable pairs among the top r ranked pairs from "
                    "combined annotations and cut the training set at each level.")
    cutoff.add_argument("--ranked", type=Path, required=True, metavar="FILE",
                        help="ranked training file")
    cutoff.add_argument("--annotations", type=Path, required=True, metavar="FILE",
                        help="combined annotations of pairs sampled from it (combine's output)")
    cutoff.add_argument("--levels", type=_levels, default="95,90,75", metavar="P,P",
                        help="quality levels: percentages, comma-separated")
    cutoff.add_argument("--conservative", action="store_true",
                        help="cut where the 95 %% interval's lower bound reaches the level")
    cutoff.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="folder for <lang>-train-<level>.txt.bz2 and cutoffs.json")
    cutoff.add_argument("--overwrite", action="store_true", help=OVERWRITE_FOLDER_HELP)
    return cutoff


def _run_cutoff(arguments: argparse.Namespace) -> None:
    cuts, total_rows = cut_ranked(arguments.ranked, arguments.annotations, arguments.levels,
                                  arguments.out, arguments.conservative, arguments.overwrite)
    print(cutoff_table(cuts, total_rows), file=sys.stderr)


CUTOFF = Command(_cutoff_parser, _run_cutoff)


def _plot_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    plot = commands.add_parser(
        "plot", help="draw the paper's Figure 1, or compare ranking schemes",
        description="One ranked file: the cumulative category shares by rank (Figure 1). "
                    "Several: their acceptable-share curves, and each one's area under it.")
    plot.add_argument("--ranked", type=Path, nargs="+", required=True, metavar="FILE",
                      help="ranked file(s) holding the annotated pairs, one per ranking scheme")
    plot.add_argument("--label", nargs="+", metavar="NAME",
                      help="curve names, one per ranked file (default: the scheme in the "
                           "ranking's stats.json, else the file name)")
    plot.add_argument("--annotations", type=Path, required=True, metavar="FILE",
                      help="combined annotations (combine's output)")
    plot.add_argument("--out", type=Path, required=True, metavar="STEM",
                      help="picture path without suffix: STEM.png and STEM.svg are written")
    plot.add_argument("--overwrite", action="store_true", help=OVERWRITE_FILE_HELP)
    return plot


def _run_plot(arguments: argparse.Namespace) -> None:
    from opusparcus.plot import plot_ranked

    paths, areas = plot_ranked(arguments.ranked, arguments.annotations, arguments.out,
                               arguments.label, arguments.overwrite)
    for name, area in sorted(areas.items(), key=lambda item: -item[1]):
        print(f"{name}: acceptable-share AUC {area:.4f}", file=sys.stderr)
    print("wrote " + ", ".join(map(str, paths)), file=sys.stderr)


PLOT = Command(_plot_parser, _run_plot)


def _gem_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    gem = commands.add_parser(
        "export-gem", help="write the GEM/opusparcus quality-level subsets as JSONL",
        description="Write OUT/<lang>/ in the GEM/opusparcus layout: train.<level>.jsonl for "
                    "levels 60-100 and the annotated validation and test splits.")
    gem.add_argument("--ranked", type=Path, required=True, metavar="FILE",
                     help="ranked training file")
    gem.add_argument("--annotations", type=Path, required=True, metavar="FILE",
                     help="combined annotations of training pairs (for the cut-offs)")
    gem.add_argument("--dev", type=Path, required=True, metavar="FILE",
                     help="annotated 4-field dev file (combine's output)")
    gem.add_argument("--test", type=Path, required=True, metavar="FILE",
                     help="annotated 4-field test file (combine's output)")
    gem.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    gem.add_argument("--format", type=_gem_formats, default=("jsonl",), metavar="jsonl,parquet",
                     help="jsonl: the GEM card's files; parquet: data/<split>.parquet and a "
                          "dataset card README.md with the configs <lang>.<level>")
    gem.add_argument("--parquet-schema", choices=GEM_SCHEMAS, default="hub",
                     help="hub: the fields datasets users load from the Hub's GEM/opusparcus "
                          "(lang, input, target, annot_score, gem_id; detokenised text); "
                          "card: the GEM data card's (sent1, sent2 tokenised; training files "
                          "also with the ranked fields and quality levels)")
    gem.add_argument("--scores", type=Path, nargs="+", default=(), metavar="FILE",
                     help="files opusparcus score wrote from the ranked training file and/or "
                          "the dev and test files (candidates or annotated; one per split): "
                          "every record gains paraphrase_score (matched by id, the sentences "
                          "checked; null where none) and the Parquet card names the model")
    gem.add_argument("--overwrite", action="store_true", help=OVERWRITE_FOLDER_HELP)
    return gem


def _run_export_gem(arguments: argparse.Namespace) -> None:
    from opusparcus.gem import export_gem

    paths = export_gem(arguments.ranked, arguments.annotations, arguments.dev, arguments.test,
                       arguments.out, arguments.overwrite, arguments.format,
                       arguments.parquet_schema, tuple(arguments.scores))
    print(f"wrote {plural(len(paths), 'file')} under {paths[0].parent}", file=sys.stderr)


EXPORT_GEM = Command(_gem_parser, _run_export_gem)
