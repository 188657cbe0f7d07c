"""Command line of `python -m opusparcus`: download a release, rank, and the annotation workflow
around it.

A thin layer over the library: :func:`opusparcus.rank.rank`, :func:`opusparcus.sampling.
sample_pairs`, :func:`opusparcus.annotate.annotate`, :func:`opusparcus.web.serve.serve`,
:func:`opusparcus.combine.combine_file`,
:func:`opusparcus.cutoffs.cut_ranked`, :func:`opusparcus.plot.plot_ranked` and
:func:`opusparcus.gem.export_gem`. It parses options, checks every output before any work
starts, runs, and prints a summary. Bad input or options end with a one-line error naming file
and place, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.annotate import HELP as ANNOTATE_KEYS
from opusparcus.combine import agreement_report, combine_file
from opusparcus.cutoffs import cut_ranked, cutoff_table, parse_levels
from opusparcus.gem import FORMATS as GEM_FORMATS
from opusparcus.parquet_release import GEM_SCHEMAS
from opusparcus.rank import COMMAND as RANK
from opusparcus.rank import (
    languages_with_bitexts,
    output_folder,
    rank_languages,
)
from opusparcus.rank_inputs import ENGINES, RankOptions
from opusparcus.sampling import sample_pairs
from opusparcus.scores import SCHEMES
from tapaco.core.download_command import add_download_parser, run_download
from tapaco.core.errors import OptionError, exit_status
from tapaco.core.files import json_text
from tapaco.core.forked import usable_cores
from tapaco.core.memory import default_memory_limit, format_size
from tapaco.core.options import (
    Parser,
    add_version,
    integer,
    languages,
    number,
    output_formats,
    size,
    subcommands,
)
from tapaco.core.outputs import OutputFile
from tapaco.core.progress import Progress, timings_file_is_own

DESCRIPTION = ("Opusparcus: same-language paraphrase pairs ranked by the pivot translations they "
               "share\n(Creutz 2018), and the annotation workflow that cuts them at quality "
               "levels.")
OVERWRITE_HELP = ("replace an earlier output of this command even if it was changed since, or "
                  "a file it did not write (never an input, never labelled annotations)")


def _fanout(value: str) -> int:
    if value.lower() == "none":
        return 0
    return integer(0)(value)


def _language(value: str) -> tuple[str, ...]:
    chosen = languages(value)
    if len(chosen) > 1:
        raise argparse.ArgumentTypeError(f"one language code, got {value!r}; --langs takes "
                                         "several")
    return chosen


def _gem_formats(value: str) -> tuple[str, ...]:
    return output_formats(value, GEM_FORMATS)


def _levels(value: str) -> tuple[float, ...]:
    try:
        return parse_levels(value)
    except OptionError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def parser() -> argparse.ArgumentParser:
    main = Parser(prog="opusparcus", description=DESCRIPTION)
    add_version(main)
    commands = subcommands(main)
    add_download_parser(commands, corpus="OpenSubtitles", form="moses", pivots=True)
    for add in (_rank_parser, _sample_parser, _annotate_parser, _serve_parser, _combine_parser,
                _cutoff_parser, _plot_parser, _gem_parser):
        add(commands)
    return main


def _rank_parser(commands) -> None:
    command = commands.add_parser(
        "rank", help="rank same-language sentence pairs by the pivot translations they share",
        description="Rank the paraphrase candidates of one or more languages of an OPUS "
                    "release; write OUT/<lang>/ in the Opusparcus release layout.")
    command.add_argument("--opus-dir", type=Path, required=True, metavar="DIR",
                         help="OPUS release folder (xml/ and/or moses/)")
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument("--lang", type=_language, metavar="xx", help="the target language")
    target.add_argument("--langs", type=languages, metavar="xx,yy",
                        help="several target languages, comma-separated, or 'all' (every "
                             "language with a bitext); each bitext is read once for all")
    command.add_argument("--out", type=Path, required=True, metavar="OUT",
                         help="output folder: OUT/<lang>/ holds train/, dev/, test/, stats.json "
                              "and manifest.json")
    command.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    command.add_argument("--pivots", type=languages, default=(), metavar="xx,yy",
                         help="pivot languages, comma-separated (default: every language with "
                              "a bitext with the target)")
    command.add_argument("--score", choices=SCHEMES, default="summed-pmi",
                         help="ranking scheme; summed-pmi is the release's, the others add their "
                              "score as an eighth field of every row")
    command.add_argument("--max-pivot-fanout", type=_fanout, default=1000, metavar="N",
                         help="skip pivot sentences aligned to more than N distinct target "
                              "sentences (0 or none: no cap)")
    command.add_argument("--min-edit-ratio", type=number(0, 1), default=0.4, metavar="X",
                         help="dev/test: minimum character edit distance / length of the "
                              "shorter sentence")
    command.add_argument("--min-edit-ratio-short", type=number(0, 1), default=0.5, metavar="X",
                         help="the same for shorter sentences (see --short-length)")
    command.add_argument("--short-length", type=integer(1), default=24, metavar="N",
                         help="a sentence with fewer characters is short")
    command.add_argument("--workers", type=integer(1, 64), default=min(usable_cores(), 64),
                         metavar="N", help="worker processes for reading bitexts and writing "
                                           "(default: every usable core)")
    command.add_argument("--memory-limit", type=size, metavar="SIZE",
                         help="memory for the run, e.g. 8G; a split whose candidate pairs do "
                              "not fit beside what the run already holds is summed in hash "
                              "partitions on disk, with the same output (default: "
                              f"{format_size(default_memory_limit())}, half of this machine's)")
    command.add_argument("--temp-dir", type=Path, metavar="DIR",
                         help="where --memory-limit puts its partitions (default: the system's "
                              "temporary folder)")
    command.add_argument("--engine", choices=ENGINES, default="local",
                         help="local: this machine; spark: counting, pairing, scoring, splits, "
                              "filters and rendering as Spark jobs (the 'spark' extra), with "
                              "the same output")
    command.add_argument("--spark-master", default="local[*]", metavar="URL",
                         only_with=("--engine", "spark"),
                         help="with --engine spark: the master, e.g. local[2] or "
                              "spark://host:7077 (--temp-dir must then be shared storage)")
    command.add_argument("--documents", choices=("xml", "raw"), default="xml",
                         help="where a release has both, read sentence documents from xml/ "
                              "(tokenised, as the Opusparcus release) or raw/ (then "
                              "Moses-tokenised)")
    command.add_argument("--skip-bad-input", action="store_true",
                         help="skip and count bad documents and links instead of stopping")
    command.add_argument("--format", type=output_formats, default=("tsv",), metavar="tsv,parquet",
                         help="tsv: the release's text files; parquet: OUT/<lang>/data/*.parquet "
                              "with the same rows and a dataset card README.md")
    command.add_argument("--timings", type=Path, metavar="FILE",
                         help="write per-stage seconds and peak memory as JSON to this file "
                              "(its folder must exist)")
    command.add_argument("--quiet", action="store_true", help="no progress line, no summary")


def _sample_parser(commands) -> None:
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


def _annotate_parser(commands) -> None:
    annotate = commands.add_parser(
        "annotate", help="label the pairs of an annotation file in the terminal",
        description="Show one unlabelled pair at a time and read the label; the file is "
                    "saved after every answer, so a later run resumes.",
        epilog=ANNOTATE_KEYS)
    annotate.add_argument("--file", type=Path, required=True, metavar="FILE",
                          help="annotation file written by sample")
    annotate.add_argument("--annotator", type=int, choices=(1, 2), required=True,
                          help="which annotator's column to fill")


def _serve_parser(commands) -> None:
    serve = commands.add_parser(
        "serve", help="annotate in a web browser: one private link per annotator",
        description="Serve a web page on which annotators label the pairs of an annotation "
                    "file (or check TaPaCo sets), each through a private link. Answers are "
                    "saved at once in the file, as the terminal annotator saves them; once "
                    "both annotators are done the page shows their agreement. Needs the 'web' "
                    "extra.")
    serve.add_argument("--file", type=Path, required=True, metavar="FILE",
                       help="annotation file written by sample, or a TaPaCo language file "
                            "(OUT/<lang>.txt) or set annotation file: check sets")
    serve.add_argument("--annotators", type=int, choices=(1, 2), default=2,
                       help="links to print: annotator 1, or annotators 1 and 2 (default 2)")
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST",
                       help="address to listen on (default 127.0.0.1: this machine only; "
                            "another address warns)")
    serve.add_argument("--port", type=integer(0, 65535), default=8000, metavar="N",
                       help="port (default 8000; 0: any free port)")
    sets = serve.add_argument_group("TaPaCo sets (when --file is a language file)")
    sets.add_argument("--sets", type=integer(1), default=100, metavar="N",
                      help="sets to draw at random the first time (default 100)")
    sets.add_argument("--seed", type=integer(0), default=0, metavar="N",
                      help="random seed of that draw (default 0)")
    sets.add_argument("--labels", type=Path, metavar="FILE",
                      help="set annotation file to write, then resume (default "
                           "<name>-sets.tsv beside the language file, or OUT-<name>-sets.tsv "
                           "beside a build's folder OUT)")


def _combine_parser(commands) -> None:
    combine = commands.add_parser(
        "combine", help="combine two annotators' labels (agreement table, Cohen's kappa)",
        description="Combine the two annotators' labels as the paper does. Training pairs "
                    "(-N ids) give 'rank id sentence1 sentence2 score', the input of cutoff; "
                    "dev/test pairs give the release's 4-field file.")
    combine.add_argument("--annotations", type=Path, required=True, metavar="FILE",
                         help="annotation file labelled by both annotators")
    combine.add_argument("--out", type=Path, required=True, metavar="FILE",
                         help="combined file to write (never the annotation file)")
    combine.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def _cutoff_parser(commands) -> None:
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
    cutoff.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def _plot_parser(commands) -> None:
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
    plot.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def _gem_parser(commands) -> None:
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
    gem.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _usable_links(bitext: dict) -> int:
    """A bitext's 1:1 links with a known, non-empty sentence on both sides."""
    return (bitext["one_to_one"] - bitext.get("links_with_empty_text", 0)
            - bitext.get("links_to_unknown_sentences", 0))


def summary(stats: dict) -> str:
    """The one-line summary of a ranked language."""
    written = stats["pairs_written"]
    skips = stats["splits"]["train"]["fanout_skips"]
    undated = (f" ({stats['links_without_year']} without a year, counted as train)"
               if stats["links_without_year"] else "")
    skipped = stats["bad_input"]["skipped"]
    bad = ("; skipped bad input: " + ", ".join(f"{kind} ({count})"
                                               for kind, count in skipped.items())
           if skipped else "")
    empty = sum(bitext.get("links_with_empty_text", 0) for bitext in stats["bitexts"].values())
    empty_text = f", {_plural(empty, 'link')} with an empty sentence left out" if empty else ""
    unused = [pivot for pivot, bitext in stats["bitexts"].items() if not _usable_links(bitext)]
    pivots = _plural(len(stats["bitexts"]) - len(unused), "pivot")
    if unused:
        pivots += f" (no usable link through {', '.join(unused)})"
    capped = (f"; fan-out cap skipped {_plural(skips['pivots'], 'pivot sentence')} "
              f"({_plural(skips['pairs'], 'pair')})" if skips["pivots"] else "")
    return (f"{stats['language']}: {_plural(stats['links_read'], 'link')} read from "
            f"{pivots}, {stats['one_to_one_links']} "
            f"one-to-one{undated}{empty_text}; pairs written: train {written['train']}, "
            f"dev {written['dev']}, test {written['test']}{capped}{bad}")


def _run_rank(arguments: argparse.Namespace) -> None:
    options = RankOptions(arguments.pivots, arguments.score, arguments.max_pivot_fanout,
                          arguments.min_edit_ratio, arguments.min_edit_ratio_short,
                          arguments.short_length, arguments.workers, arguments.skip_bad_input,
                          arguments.documents, arguments.memory_limit, arguments.temp_dir,
                          arguments.engine, arguments.spark_master, arguments.format,
                          quiet=arguments.quiet)
    langs = arguments.langs or arguments.lang
    if langs == ("all",):
        langs = languages_with_bitexts(arguments.opus_dir)
    for lang in langs:
        output_folder(arguments.out, lang, arguments.opus_dir, arguments.overwrite).check()
    timings_file = None
    if arguments.timings:
        timings_file = OutputFile(arguments.timings, RANK, (arguments.opus_dir,),
                                  arguments.overwrite, timings_file_is_own, option="--timings")
        timings_file.check()
    progress = Progress(enabled=False if arguments.quiet else None)
    ranked = rank_languages(arguments.opus_dir, langs, arguments.out, options, progress,
                            arguments.overwrite)
    if not arguments.quiet:
        for stats in ranked.values():
            print(summary(stats), file=sys.stderr)
    if timings_file:
        timings_file.write(json_text(progress.timings(RANK)))


def _run_sample(arguments: argparse.Namespace) -> None:
    chosen = sample_pairs(arguments.ranked, None if arguments.all else arguments.n,
                          arguments.seed, arguments.out, arguments.overwrite)
    print(f"wrote {_plural(len(chosen), 'pair')} to annotate to {arguments.out}", file=sys.stderr)


def _run_annotate(arguments: argparse.Namespace) -> None:
    from opusparcus.annotate import annotate

    annotate(arguments.file, arguments.annotator)


def _run_serve(arguments: argparse.Namespace) -> None:
    from opusparcus.web import require_web_extra

    require_web_extra()
    from opusparcus.web.serve import ServeOptions, serve

    serve(ServeOptions(arguments.file, arguments.annotators, arguments.host, arguments.port,
                       arguments.labels, arguments.sets, arguments.seed))


def _run_combine(arguments: argparse.Namespace) -> None:
    combined = combine_file(arguments.annotations, arguments.out, arguments.overwrite)
    print(agreement_report(combined))


def _run_cutoff(arguments: argparse.Namespace) -> None:
    cuts, total_rows = cut_ranked(arguments.ranked, arguments.annotations, arguments.levels,
                                  arguments.out, arguments.conservative, arguments.overwrite)
    print(cutoff_table(cuts, total_rows), file=sys.stderr)


def _run_plot(arguments: argparse.Namespace) -> None:
    from opusparcus.plot import plot_ranked

    paths, areas = plot_ranked(arguments.ranked, arguments.annotations, arguments.out,
                               arguments.label, arguments.overwrite)
    for name, area in sorted(areas.items(), key=lambda item: -item[1]):
        print(f"{name}: acceptable-share AUC {area:.4f}", file=sys.stderr)
    print("wrote " + ", ".join(map(str, paths)), file=sys.stderr)


def _run_export_gem(arguments: argparse.Namespace) -> None:
    from opusparcus.gem import export_gem

    paths = export_gem(arguments.ranked, arguments.annotations, arguments.dev, arguments.test,
                       arguments.out, arguments.overwrite, arguments.format,
                       arguments.parquet_schema)
    print(f"wrote {_plural(len(paths), 'file')} under {paths[0].parent}", file=sys.stderr)


COMMANDS = {"download": run_download, "rank": _run_rank, "sample": _run_sample,
            "annotate": _run_annotate, "serve": _run_serve, "combine": _run_combine,
            "cutoff": _run_cutoff, "plot": _run_plot, "export-gem": _run_export_gem}


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return exit_status("opusparcus", lambda: COMMANDS[arguments.command](arguments))
