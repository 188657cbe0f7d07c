"""The `download` command of `tapaco` and `opusparcus`: options, and a thin run over
:func:`tapaco.core.opus.download.download`."""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from tapaco.core.options import Command, integer, languages
from tapaco.core.opus.catalog import DEFAULT_API, FORMS, OpusApi
from tapaco.core.opus.download import DownloadRequest, download, listing, plan
from tapaco.core.transfer import Rate, Transfer

OPUSPARCUS_LANGUAGES = ("de", "en", "fi", "fr", "ru", "sv")


def download_command(corpus: str, form: str, pivots: bool) -> Command:
    """`download` for TaPaCo (`--langs`) or Opusparcus (`--lang` and `--pivots`): a release of
    `corpus` in `form` by default."""
    return Command(partial(_add_parser, corpus=corpus, form=form, pivots=pivots), run_download)


def _add_parser(commands: argparse._SubParsersAction, corpus: str, form: str,
                pivots: bool) -> argparse.ArgumentParser:
    reads = "opusparcus rank" if pivots else "tapaco build"
    command = commands.add_parser(
        "download", help=f"fetch an OPUS release into the folder layout {reads} reads "
                         "(resumable, checked, with a manifest)",
        description=f"Download an OPUS {corpus} release (or another corpus) through the OPUS "
                    f"API into DIR as {reads} --opus-dir reads it: xml/<l1>-<l2>.xml.gz, "
                    "raw/<l>.zip, moses/<l1>-<l2>.txt.zip. Interrupted transfers resume; "
                    "every file is checked (size, archive) before it is renamed into place; "
                    "DIR/manifest.json records URL, size and SHA-256 of each.")
    command.add_argument("--corpus", default=corpus, help="OPUS corpus name")
    command.add_argument("--release", default="latest",
                         help="OPUS release, e.g. v2023-04-12, v2016, or latest")
    command.add_argument("--out", type=Path, required=True, metavar="DIR",
                         help="release folder to fill (created; files already downloaded "
                              "there are kept)")
    if pivots:
        command.add_argument("--lang", required=True, help="target language")
        command.add_argument("--pivots", type=languages, metavar="xx,yy",
                             help="pivot languages (default: the other Opusparcus languages, "
                                  f"{','.join(OPUSPARCUS_LANGUAGES)})")
    else:
        command.add_argument("--langs", type=languages, default=(), metavar="xx,yy",
                             help="only the alignments between these languages and their "
                                  "sentence files (default: every language)")
    command.add_argument("--form", choices=FORMS, default=form,
                         help="raw: xml alignments with untokenised sentence files; xml: "
                              "with tokenised ones; moses: plain-text bitexts (OpenSubtitles' "
                              "with .ids)")
    command.add_argument("--list", action="store_true",
                         help="print the files with their sizes and the total; fetch nothing")
    command.add_argument("--api", default=DEFAULT_API, metavar="URL",
                         help="OPUS API base URL (a mirror)")
    command.add_argument("--attempts", type=integer(1), default=Transfer.attempts,
                         help="tries per request before giving up (waits 1, 2, 4... s)")
    command.add_argument("--quiet", action="store_true", help="no progress, no summary")
    return command


def request_of(arguments: argparse.Namespace) -> DownloadRequest:
    if hasattr(arguments, "pivots"):
        pivots = arguments.pivots or tuple(lang for lang in OPUSPARCUS_LANGUAGES
                                           if lang != arguments.lang)
        return DownloadRequest(arguments.corpus, arguments.release, arguments.form,
                               lang=arguments.lang, pivots=pivots)
    return DownloadRequest(arguments.corpus, arguments.release, arguments.form,
                           languages=arguments.langs)


def run_download(arguments: argparse.Namespace) -> None:
    request = request_of(arguments)
    api = OpusApi(arguments.api, Transfer(attempts=arguments.attempts))
    if arguments.list:
        print(listing(plan(api, request), arguments.out))
        return
    quiet = arguments.quiet
    download(request, arguments.out, api, Rate(enabled=False if quiet else None),
             (lambda line: None) if quiet else None)
