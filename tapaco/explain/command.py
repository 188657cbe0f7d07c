"""The `tapaco explain` command: its parser and what it runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tapaco.core.errors import OptionError
from tapaco.core.files import json_text
from tapaco.core.options import Command, integer
from tapaco.core.progress import Progress
from tapaco.explain.build_output import BuildOutput
from tapaco.explain.explainer import MAX_PAIRS, Explainer
from tapaco.explain.picture import PICTURE_SUFFIXES, load_matplotlib, picture_file
from tapaco.explain.report import as_dict, text
from tapaco.explain.results import COMMAND, PairExplanation, SetExplanation


def _picture_path(value: str) -> Path:
    if Path(value).suffix.lower() not in PICTURE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"expected a .png or .svg file name, got {value!r}")
    return Path(value)


def add_explain_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `explain` subcommand (register it on `tapaco`'s subcommands)."""
    command = commands.add_parser(
        "explain", help="show the translation paths that put sentences into one set of a "
                        "build (and draw the set's graph)",
        description="Explain a set of a TaPaCo build: its component's languages, the pivot "
                    "languages and the shortest translation paths between its sentences, each "
                    "hop with language, sentence id, text and link kind (intra-lingual, "
                    "inter-lingual, surface).")
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--opus-dir", type=Path, metavar="DIR",
                        help="the OPUS release folder OUT was built from")
    source.add_argument("--tatoeba-export", type=Path, metavar="DIR",
                        help="instead: the folder of Tatoeba's exports OUT was built from")
    command.add_argument("--out", type=Path, required=True, metavar="OUT",
                         help="the output folder of 'tapaco build' (read, never changed)")
    what = command.add_mutually_exclusive_group(required=True)
    what.add_argument("--set", type=integer(0), dest="set_id", metavar="N",
                      help="explain set N (the first column of OUT/<lang>.txt)")
    what.add_argument("--sentence", action="append", dest="sentences", metavar="ID",
                      help="give twice with --lang: the shortest path between these two "
                           "sentences (ids as in OUT/<lang>.txt)")
    command.add_argument("--lang", metavar="xx",
                         help="with --set: explain this language only (default: every language "
                              "file holding the set); needed with --sentence")
    command.add_argument("--max-pairs", type=integer(0), default=MAX_PAIRS, metavar="N",
                         help="with --set: show the paths of this many pairs per language "
                              "(0: all)")
    command.add_argument("--json", action="store_true",
                         help="print the explanation as JSON instead of text")
    command.add_argument("--draw", type=_picture_path, metavar="FILE",
                         help="also draw the component, PNG or SVG by the suffix (needs the "
                              "'plot' extra)")
    command.add_argument("--overwrite", action="store_true",
                         help="replace an existing --draw file that explain did not draw")
    command.add_argument("--quiet", action="store_true", help="no progress line")
    return command


def _check_arguments(arguments: argparse.Namespace) -> None:
    sentences = arguments.sentences
    if sentences is not None:
        if len(sentences) != 2:
            raise OptionError("--sentence", f"give exactly two sentence ids, got "
                                            f"{len(sentences)}")
        if not arguments.lang:
            raise OptionError("--lang", "--sentence needs the language of the two sentences")


def run_explain(arguments: argparse.Namespace, stream: Any = None) -> None:
    """Run `tapaco explain`: print the explanation to `stream` (stdout), draw with --draw.

    Errors are InputError/OptionError/MissingDependency, to run under
    :func:`tapaco.core.errors.exit_status` (one line, exit status 2)."""
    stream = stream or sys.stdout
    _check_arguments(arguments)
    source = arguments.opus_dir or arguments.tatoeba_export
    output = BuildOutput(arguments.out)
    if arguments.set_id is not None:
        output.require_set(arguments.set_id, arguments.lang)
    if arguments.draw:
        picture_file(arguments.draw, (source, arguments.out), arguments.overwrite).check()
        load_matplotlib()
    progress = Progress(enabled=False if arguments.quiet else None)
    explainer = Explainer(source, output, progress,
                          tatoeba_export=arguments.tatoeba_export is not None)
    path = None
    if arguments.set_id is not None:
        result: SetExplanation | PairExplanation = explainer.explain_set(
            arguments.set_id, arguments.lang, arguments.max_pairs)
        drawn_set = arguments.set_id
    else:
        result = explainer.explain_sentences(arguments.lang, *arguments.sentences)
        drawn_set, path = result.sets[0], result.path
    stream.write(json_text(as_dict(result)) if arguments.json else text(result, str(output.path)))
    if arguments.draw:
        if isinstance(result, PairExplanation) and not result.connected:
            print(f"{COMMAND}: nothing drawn: the two sentences are not connected",
                  file=sys.stderr)
            return
        explainer.draw(drawn_set, arguments.draw, path, arguments.overwrite, arguments.lang)
        if not arguments.quiet:
            print(f"drew {arguments.draw}", file=sys.stderr)


EXPLAIN = Command(add_explain_parser, run_explain)
