"""Command line: `python -m tapaco build --opus-dir DIR --out OUT [options]`, and `enrich`.

A thin layer over :func:`tapaco.build.build`: parse options, run, print a one-screen summary.
Bad input ends with a one-line error naming file and place, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tapaco.build import BuildOptions, build
from tapaco.errors import exit_status
from tapaco.export import write_json
from tapaco.filters import FilterOptions
from tapaco.progress import Progress


def _languages(value: str) -> tuple[str, ...]:
    return tuple(sorted({lang.strip() for lang in value.split(",") if lang.strip()}))


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="tapaco", description=__doc__.split("\n")[0])
    commands = main.add_subparsers(dest="command", required=True)
    build_command = commands.add_parser(
        "build", help="build TaPaCo paraphrase sets from an OPUS Tatoeba release")
    build_command.add_argument("--opus-dir", type=Path, required=True,
                               help="OPUS release folder (with xml/ and raw/ or moses/)")
    build_command.add_argument("--out", type=Path, required=True,
                               help="output folder: <lang>.txt, stats.json, stats.md")
    build_command.add_argument("--langs", type=_languages, default=(),
                               help="comma-separated output languages (all still pivot); "
                                    "default: all")
    build_command.add_argument("--max-set-size", type=_positive_int, default=100,
                               help="drop sets with more sentences (default 100)")
    build_command.add_argument("--bleu-max", type=float, default=50.0,
                               help="drop a sentence whose BLEU against an earlier kept one "
                                    "exceeds this (default 50)")
    build_command.add_argument("--min-sets", type=int, default=100,
                               help="drop languages with fewer sets (default 100)")
    build_command.add_argument("--skip-bad-input", action="store_true",
                               help="skip and count bad files, documents and links instead of "
                                    "stopping")
    build_command.add_argument("--timings", type=Path,
                               help="write per-stage seconds and peak memory as JSON here")
    build_command.add_argument("--quiet", action="store_true", help="no progress, no summary")
    from tapaco.enrich.command import add_parser

    add_parser(commands)
    return main


def summary(stats: dict, timings: dict) -> str:
    """A one-screen summary of a finished build."""
    languages = stats["languages"]
    graph = stats["graph"]
    lines = [
        f"read {stats['input']['links']} links from {stats['input']['alignment_sources']} "
        f"alignment files, {graph['vertices']} sentences in {stats['input']['languages']} "
        f"languages",
        f"graph: {graph['inter_lingual_links']} inter-lingual, {graph['intra_lingual_links']} "
        f"intra-lingual, {graph['surface_similarity_links']} surface-similarity links; "
        f"{graph['components']} components",
    ]
    lines += [f"  {step['step']}: {step['sets']} sets, {step['sentences']} sentences"
              for step in stats["funnel"]]
    top = sorted(languages.items(), key=lambda item: -item[1]["sentences"])[:10]
    lines.append(f"wrote {len(languages)} languages: " + ", ".join(
        f"{lang} {v['sentences']}" for lang, v in top) + (" ..." if len(languages) > 10 else ""))
    if stats["input"]["bad_input_skipped"]:
        lines.append(f"skipped bad input: {stats['bad_input']['skipped']}")
    lines.append(f"{timings['total_seconds']:.1f} s, peak memory {timings['peak_rss_mib']:.0f} MiB")
    return "\n".join(lines)


def _run_build(arguments: argparse.Namespace) -> None:
    options = BuildOptions(
        FilterOptions(arguments.max_set_size, arguments.bleu_max, arguments.min_sets),
        arguments.langs, arguments.skip_bad_input)
    progress = Progress(enabled=False if arguments.quiet else None)
    stats = build(arguments.opus_dir, arguments.out, options, progress)
    timings = progress.timings()
    if arguments.timings:
        write_json(arguments.timings, timings)
    if not arguments.quiet:
        print(summary(stats, timings), file=sys.stderr)


def _run(arguments: argparse.Namespace) -> None:
    if arguments.command == "enrich":
        from tapaco.enrich.command import run

        stats = run(arguments)
        print(f"enrich: {stats.get('sentences')} sentences, {stats.get('outputs')} outputs, "
              f"{stats.get('kept')} kept, {stats.get('sentences_per_second', 0):.1f} "
              "sentences/s", file=sys.stderr)
    else:
        _run_build(arguments)


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return exit_status("tapaco", lambda: _run(arguments))
