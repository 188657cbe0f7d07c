"""`tapaco build`: its options, and a thin run over :func:`tapaco.pipeline.build` that prints
a one-screen summary. Bad input or options end with a one-line error naming file and place, and
exit status 2, before anything is written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tapaco.communities import OBJECTIVES, OVERSIZED, SplitOptions
from tapaco.core.errors import OptionError
from tapaco.core.files import json_text
from tapaco.core.options import Command, integer, languages, output_formats
from tapaco.core.opus import FOLDERS
from tapaco.core.outputs import OVERWRITE_FOLDER_HELP, OutputFile
from tapaco.core.progress import Progress, plural, timings_file_is_own
from tapaco.filters import FilterOptions
from tapaco.pipeline import COMMAND, BuildOptions, build

SPLIT = ("--oversized", "split")  # the options of Leiden apply only with it


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    command = commands.add_parser(
        "build", help="read an OPUS release, join sentences linked by translations into sets, "
                      "filter them, write one TSV per language (the released TaPaCo layout)",
        description="Build TaPaCo paraphrase sets from an OPUS Tatoeba release.")
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--opus-dir", type=Path, metavar="DIR",
                        help="OPUS release folder (xml/ with raw/ or xml/ documents, or moses/)")
    source.add_argument("--tatoeba-export", type=Path, metavar="DIR",
                        help="instead: a folder of Tatoeba's own exports (sentences.csv, "
                             "links.csv, optional tags.csv and sentences_in_lists.csv); "
                             "sentence ids are Tatoeba's")
    command.add_argument("--language-codes", choices=("opus", "export"), default="opus",
                         help="with --tatoeba-export: name languages as OPUS and TaPaCo do "
                              "(eng -> en, fra -> fr; cmn stays cmn), or keep the export's "
                              "ISO 639-3 codes")
    command.add_argument("--out", type=Path, required=True, metavar="OUT",
                         help="output folder: <lang>.txt, stats.json, stats.md, manifest.json; "
                              "an existing one is replaced only if an earlier build wrote it")
    command.add_argument("--overwrite", action="store_true", help=OVERWRITE_FOLDER_HELP)
    command.add_argument("--langs", type=languages, default=(), metavar="xx,yy",
                         help="comma-separated output languages (all still pivot); default: all")
    command.add_argument("--max-set-size", type=int, default=100, metavar="N",
                         help="filter (b): drop sets with more sentences")
    command.add_argument("--oversized", choices=OVERSIZED, default="drop",
                         help="filter (b)'s sets: drop them (as the paper), or split each "
                              "component holding one into Leiden communities that go through "
                              "the remaining filters")
    command.add_argument("--leiden-objective", choices=OBJECTIVES, default="modularity",
                         only_with=SPLIT,
                         help="with --oversized split: the quality Leiden optimises")
    command.add_argument("--leiden-resolution", type=float, default=1.0, metavar="X",
                         only_with=SPLIT,
                         help="with --oversized split: higher gives more, smaller communities")
    command.add_argument("--seed", type=int, default=0, metavar="N",
                         only_with=SPLIT,
                         help="with --oversized split: the seed of Leiden's random choices")
    command.add_argument("--marks", action="store_true",
                         help="also write marks/<lang>.tsv: pairs inside kept sets that differ "
                              "only trivially (case, punctuation, contractions, digits) or by "
                              "morphological neutralisation (gender, politeness, number)")
    command.add_argument("--language-id", action="store_true",
                         help="drop sentences written in another language than their file's "
                              "(heliport: the langid extra; see docs/language_id.md)")
    command.add_argument("--bleu-max", type=float, default=50.0, metavar="X",
                         help="filter (d): drop a sentence whose BLEU against an earlier kept "
                              "one exceeds this (0-100)")
    command.add_argument("--min-sets", type=int, default=100, metavar="N",
                         help="filter (e): drop languages with fewer sets")
    command.add_argument("--documents", choices=FOLDERS, default=BuildOptions().documents,
                         help="where a release has both, read sentence documents from raw/ "
                              "(untokenised, as TaPaCo 1.0) or xml/ (tokenised) first")
    command.add_argument("--skip-bad-input", action="store_true",
                         help="skip and count bad files, documents and links instead of "
                              "stopping")
    command.add_argument("--format", type=output_formats, default=("tsv",), metavar="tsv,parquet",
                         help="tsv: the released <lang>.txt files; parquet: data/<lang>.parquet "
                              "in the columns of the Hugging Face tapaco dataset, with a "
                              "dataset card README.md that datasets.load_dataset(OUT) reads")
    command.add_argument("--workers", type=integer(1, 256), default=0, metavar="N",
                         help="cores to use (default: every usable core); the output is the "
                              "same whatever N")
    command.add_argument("--timings", type=Path, metavar="FILE",
                         help="write per-stage seconds and peak memory as JSON to this file")
    command.add_argument("--quiet", action="store_true", help="no progress line, no summary")
    return command


def summary(stats: dict, timings: dict) -> str:
    """A one-screen summary of a finished build."""
    languages_kept = stats["languages"]
    graph = stats["graph"]
    lines = [
        f"read {plural(stats['input']['links'], 'link')} from "
        f"{plural(stats['input']['alignment_sources'], 'alignment file')}, "
        f"{plural(graph['vertices'], 'sentence')} in "
        f"{plural(stats['input']['languages'], 'language')}",
        f"graph: {graph['inter_lingual_links']} inter-lingual, {graph['intra_lingual_links']} "
        f"intra-lingual, {graph['surface_similarity_links']} surface-similarity links; "
        f"{plural(graph['components'], 'component')}",
    ]
    first, *filters = stats["funnel"]
    lines.append(f"  {first['step']}: {plural(first['sets'], 'set')}, "
                 f"{plural(first['sentences'], 'sentence')}")
    lines += [_step_line(step) for step in filters]
    top = sorted(languages_kept.items(), key=lambda item: -item[1]["sentences"])[:10]
    lines.append(f"wrote {plural(len(languages_kept), 'language')}"
                 + (": " + ", ".join(f"{lang} {v['sentences']}" for lang, v in top)
                    + (" ..." if len(languages_kept) > 10 else "") if top else ""))
    if not languages_kept:
        lines.append(_empty_hint(stats))
    skipped = stats["bad_input"]["skipped"]
    if skipped:
        lines.append("skipped bad input: " + ", ".join(f"{kind} ({count})"
                                                      for kind, count in skipped.items()))
    if empty := stats["bad_input"].get("languages_left_empty"):
        lines.append(f"  no sentence of {', '.join(empty)} was read: all skipped as bad input")
    lines.append(f"{timings['total_seconds']:.1f} s, peak memory {timings['peak_rss_mib']:.0f} MiB")
    return "\n".join(lines)


def _step_line(step: dict) -> str:
    """What a step of the funnel did and what is left: '(d) ...: removed 4 sentences and 2
    sets; left 13 sets, 33 sentences' (the Leiden split: 'split 3 components into 5
    communities; now ...')."""
    left = f"{plural(step['sets'], 'set')}, {plural(step['sentences'], 'sentence')}"
    if "communities" in step:
        return (f"  {step['step']}: split {plural(step['components_split'], 'component')} "
                f"into {plural(step['communities'], 'community', 'communities')}; now {left}")
    removed = [plural(count, noun) for count, noun in ((step["sentences_removed"], "sentence"),
                                                        (step["sets_dissolved"], "set")) if count]
    return f"  {step['step']}: removed {' and '.join(removed) or 'nothing'}; left {left}"


def _empty_hint(stats: dict) -> str:
    """Which step emptied the output, and the option that sets it."""
    steps = stats["funnel"]
    emptied = next((step for step in steps if step["sentences"] == 0), None)
    if emptied is None or emptied is steps[0]:
        return "  no paraphrase sets: the release links no two sentences of one language"
    if emptied["step"].startswith("(e)"):
        before = steps[steps.index(emptied) - 1]
        most = max(stats["funnel_per_language"][before["step"]].values(),
                   key=lambda v: v["sets"], default={"sets": 0})["sets"]
        return (f"  every language has fewer sets than --min-sets {stats['options']['min_sets']} "
                f"(the most: {most}); lower --min-sets for a small corpus")
    return f"  the filter '{emptied['step']}' removed every set"


def _run(arguments: argparse.Namespace) -> None:
    options = BuildOptions(
        FilterOptions(arguments.max_set_size, arguments.bleu_max, arguments.min_sets),
        arguments.langs, arguments.skip_bad_input, arguments.documents,
        SplitOptions(arguments.oversized, arguments.leiden_objective,
                     arguments.leiden_resolution, arguments.seed), arguments.marks,
        arguments.language_codes == "export", arguments.workers, arguments.language_id)
    if options.export_language_codes and arguments.tatoeba_export is None:
        raise OptionError("--language-codes", "only applies with --tatoeba-export (an OPUS "
                          "release names its languages itself)")
    source = arguments.opus_dir or arguments.tatoeba_export
    timings_file = None
    if arguments.timings:
        timings_file = OutputFile(arguments.timings, COMMAND, (source,),
                                  is_own=timings_file_is_own, option="--timings")
        timings_file.check()
    progress = Progress(enabled=False if arguments.quiet else None)
    stats = build(source, arguments.out, options, progress, arguments.overwrite,
                  arguments.format, tatoeba_export=arguments.tatoeba_export is not None)
    timings = progress.timings(COMMAND)
    if timings_file:
        timings_file.write(json_text(timings))
    if not arguments.quiet:
        print(summary(stats, timings), file=sys.stderr)


BUILD = Command(_add_parser, _run)
