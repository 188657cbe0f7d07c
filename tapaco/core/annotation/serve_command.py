"""The `serve` command of `tapaco` and `opusparcus`: options, and a thin run over
:func:`tapaco.core.annotation.web.serve.serve` (the annotation page, in the `web` extra)."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from tapaco.core.options import Command, integer


def serve_command(program: str) -> Command:
    """`serve` as `program` (`tapaco` or `opusparcus`) runs it: the same page and files."""
    return Command(_add_parser, partial(_run, program=program))


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    serve = commands.add_parser(
        "serve", help="annotate in a web browser: one private link per annotator",
        description="Serve a web page on which annotators label the pairs of an annotation "
                    "file (or check TaPaCo sets), each through a private link. Answers are "
                    "saved at once in the file, as the terminal annotator saves them; once "
                    "both annotators are done the page shows their agreement. Needs the 'web' "
                    "extra.")
    serve.add_argument("--file", type=Path, required=True, metavar="FILE",
                       help="annotation file written by opusparcus sample, or a TaPaCo "
                            "language file (OUT/<lang>.txt) or set annotation file: check sets")
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
    return serve


def _run(arguments: argparse.Namespace, program: str) -> None:
    from tapaco.core.annotation.web import require_web_extra

    require_web_extra()
    from tapaco.core.annotation.web.serve import ServeOptions, serve

    serve(ServeOptions(arguments.file, arguments.annotators, arguments.host, arguments.port,
                       arguments.labels, arguments.sets, arguments.seed, program))
