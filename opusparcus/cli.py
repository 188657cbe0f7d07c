"""Command line: `python -m opusparcus rank --opus-dir DIR --lang en --out OUT [options]`.

A thin layer over :func:`opusparcus.rank.rank`. Bad input ends with a one-line error naming
file and place, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opusparcus.rank import RankOptions, rank
from opusparcus.scores import SCHEMES
from tapaco.errors import exit_status
from tapaco.export import write_json
from tapaco.progress import Progress


def _languages(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(lang.strip() for lang in value.split(",") if lang.strip()))


def _fanout(value: str) -> int | None:
    if value.lower() in ("none", "0"):
        return None
    number = int(value)
    if number < 2:
        raise argparse.ArgumentTypeError("must be at least 2, or 0/none for no cap")
    return number


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="opusparcus", description=__doc__.split("\n")[0])
    commands = main.add_subparsers(dest="command", required=True)
    command = commands.add_parser("rank", help="rank same-language pairs sharing pivots")
    command.add_argument("--opus-dir", type=Path, required=True,
                         help="OPUS release folder (xml/ and/or moses/)")
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument("--lang", help="target language")
    target.add_argument("--langs", type=_languages,
                        help="several target languages, comma-separated")
    command.add_argument("--out", type=Path, required=True, help="output folder")
    command.add_argument("--pivots", type=_languages, default=(),
                         help="pivot languages, comma-separated (default: every language with a "
                              "bitext with the target)")
    command.add_argument("--score", choices=SCHEMES, default="summed-pmi",
                         help="ranking scheme (default summed-pmi, the release's)")
    command.add_argument("--max-pivot-fanout", type=_fanout, default=1000,
                         help="skip pivot sentences aligned to more distinct target sentences "
                              "(default 1000; 0 or none: no cap)")
    command.add_argument("--min-edit-ratio", type=float, default=0.4,
                         help="dev/test: minimum edit distance / shorter length (default 0.4)")
    command.add_argument("--min-edit-ratio-short", type=float, default=0.5,
                         help="the same for sentences under 24 characters (default 0.5)")
    command.add_argument("--workers", type=int, default=2,
                         help="worker processes for reading bitexts and writing (default 2)")
    command.add_argument("--skip-bad-input", action="store_true",
                         help="skip and count bad documents and links instead of stopping")
    command.add_argument("--timings", type=Path, help="write per-stage seconds and memory here")
    command.add_argument("--quiet", action="store_true", help="no progress, no summary")
    return main


def summary(stats: dict) -> str:
    written = stats["pairs_written"]
    skips = stats["splits"]["train"]["fanout_skips"]
    undated = (f" ({stats['links_without_year']} without a year, counted as train)"
               if stats["links_without_year"] else "")
    return (f"{stats['language']}: {stats['links_read']} links read, "
            f"{stats['one_to_one_links']} 1:1 links over {len(stats['bitexts'])} pivots{undated}; "
            f"train {written['train']}, dev {written['dev']}, test {written['test']} pairs; "
            f"fan-out cap skipped {skips['pivots']} pivot sentences ({skips['pairs']} pairs)")


def _run(arguments: argparse.Namespace) -> None:
    options = RankOptions(arguments.pivots, arguments.score, arguments.max_pivot_fanout,
                          arguments.min_edit_ratio, arguments.min_edit_ratio_short,
                          workers=max(1, arguments.workers),
                          skip_bad_input=arguments.skip_bad_input)
    progress = Progress(enabled=False if arguments.quiet else None)
    for lang in arguments.langs or (arguments.lang,):
        stats = rank(arguments.opus_dir, lang, arguments.out, options, progress)
        if not arguments.quiet:
            print(summary(stats), file=sys.stderr)
    if arguments.timings:
        write_json(arguments.timings, progress.timings())


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return exit_status("opusparcus", lambda: _run(arguments))
