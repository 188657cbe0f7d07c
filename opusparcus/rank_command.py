"""`opusparcus rank`: its options, and a thin run over :func:`opusparcus.rank.rank_languages`
that checks every output before any work starts and prints a summary line per language. Bad
input or options end with a one-line error naming file and place, and exit status 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.rank import COMMAND, languages_with_bitexts, output_folder, rank_languages
from opusparcus.rank_inputs import ENGINES, RankOptions
from opusparcus.scores import SCHEMES
from tapaco.core.files import json_text
from tapaco.core.forked import usable_cores
from tapaco.core.memory import default_memory_limit, format_size
from tapaco.core.options import Command, integer, languages, number, output_formats, size
from tapaco.core.outputs import OVERWRITE_FOLDER_HELP, OutputFile
from tapaco.core.progress import Progress, plural, timings_file_is_own


def _limit(value: str) -> int:
    if value.lower() == "none":
        return 0
    return integer(0)(value)


def _language(value: str) -> tuple[str, ...]:
    chosen = languages(value)
    if len(chosen) > 1:
        raise argparse.ArgumentTypeError(f"one language code, got {value!r}; --langs takes "
                                         "several")
    return chosen


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    command.add_argument("--overwrite", action="store_true", help=OVERWRITE_FOLDER_HELP)
    command.add_argument("--pivots", type=languages, default=(), metavar="xx,yy",
                         help="pivot languages, comma-separated (default: every language with "
                              "a bitext with the target)")
    command.add_argument("--score", choices=SCHEMES, default="summed-pmi",
                         help="ranking scheme; summed-pmi is the release's, the others add their "
                              "score as an eighth field of every row")
    command.add_argument("--max-pivot-fanout", type=_limit, default=1000, metavar="N",
                         help="skip pivot sentences aligned to more than N distinct target "
                              "sentences (0 or none: no cap)")
    command.add_argument("--max-sentence-length", type=_limit, default=10_000, metavar="N",
                         help="leave out links with a sentence of more than N characters on "
                              "either side, counted in stats.json (0 or none: no limit)")
    command.add_argument("--min-edit-ratio", type=number(0, 1), default=0.4, metavar="X",
                         help="dev/test: minimum character edit distance / length of the "
                              "shorter sentence")
    command.add_argument("--min-edit-ratio-short", type=number(0, 1), default=0.5, metavar="X",
                         help="the same for shorter sentences (see --short-length)")
    command.add_argument("--short-length", type=integer(1), default=24, metavar="N",
                         help="a sentence with fewer characters is short")
    command.add_argument("--language-id", action="store_true",
                         help="drop pairs holding a sentence written in another language "
                              "(heliport: the langid extra; see docs/language_id.md)")
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
    command.add_argument("--scores", type=Path, nargs="+", default=(), metavar="FILE",
                         help="with --format parquet: files opusparcus score wrote from this "
                              "ranking's train, dev or test files (one per language and split); "
                              "the Parquet rows gain their paraphrase_score (matched by id, the "
                              "sentences checked; null where none) and the card names the model")
    command.add_argument("--timings", type=Path, metavar="FILE",
                         help="write per-stage seconds and peak memory as JSON to this file "
                              "(its folder must exist)")
    command.add_argument("--quiet", action="store_true", help="no progress line, no summary")
    return command


def _usable_links(bitext: dict) -> int:
    """A bitext's 1:1 links with a known, non-empty sentence on both sides."""
    return (bitext["one_to_one"] - bitext.get("links_with_empty_text", 0)
            - bitext.get("links_with_long_text", 0) - bitext.get("links_to_unknown_sentences", 0))


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
    empty_text = f", {plural(empty, 'link')} with an empty sentence left out" if empty else ""
    long = sum(bitext.get("links_with_long_text", 0) for bitext in stats["bitexts"].values())
    if long:
        limit = stats["options"]["max_sentence_length"]
        empty_text += f", {plural(long, 'link')} with a sentence over {limit} characters left out"
    unused = [pivot for pivot, bitext in stats["bitexts"].items() if not _usable_links(bitext)]
    pivots = plural(len(stats["bitexts"]) - len(unused), "pivot")
    if unused:
        pivots += f" (no usable link through {', '.join(unused)})"
    capped = (f"; fan-out cap skipped {plural(skips['pivots'], 'pivot sentence')} "
              f"({plural(skips['pairs'], 'pair')})" if skips["pivots"] else "")
    return (f"{stats['language']}: {plural(stats['links_read'], 'link')} read from "
            f"{pivots}, {stats['one_to_one_links']} "
            f"one-to-one{undated}{empty_text}; pairs written: train {written['train']}, "
            f"dev {written['dev']}, test {written['test']}{capped}{bad}")


def _run(arguments: argparse.Namespace) -> None:
    options = RankOptions(arguments.pivots, arguments.score, arguments.max_pivot_fanout,
                          arguments.min_edit_ratio, arguments.min_edit_ratio_short,
                          arguments.short_length, arguments.workers, arguments.skip_bad_input,
                          arguments.documents, arguments.memory_limit, arguments.temp_dir,
                          arguments.engine, arguments.spark_master, arguments.format,
                          quiet=arguments.quiet, scores=tuple(arguments.scores),
                          max_sentence_length=arguments.max_sentence_length,
                          language_id=arguments.language_id)
    langs = arguments.langs or arguments.lang
    if langs == ("all",):
        langs = languages_with_bitexts(arguments.opus_dir)
    for lang in langs:
        output_folder(arguments.out, lang, arguments.opus_dir, arguments.overwrite,
                      options.scores).check()
    timings_file = None
    if arguments.timings:
        timings_file = OutputFile(arguments.timings, COMMAND, (arguments.opus_dir,),
                                  is_own=timings_file_is_own, option="--timings")
        timings_file.check()
    progress = Progress(enabled=False if arguments.quiet else None)
    ranked = rank_languages(arguments.opus_dir, langs, arguments.out, options, progress,
                            arguments.overwrite)
    if not arguments.quiet:
        for stats in ranked.values():
            print(summary(stats), file=sys.stderr)
    if timings_file:
        timings_file.write(json_text(progress.timings(COMMAND)))


RANK = Command(_add_parser, _run)
