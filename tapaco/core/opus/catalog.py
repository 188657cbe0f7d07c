"""What an OPUS release holds, from the OPUS API, and where each file goes in a release folder.

The API (https://opus.nlpl.eu/opusapi/, Helsinki-NLP/OPUS-API) answers
`?corpus=C&version=V&preprocessing=P[&source=S&target=T]` with JSON `{"corpora": [...]}`, one
entry per file: `url`, `size` (KB), `source`, `target` (empty for a language's own file),
`version`, `preprocessing`, `alignment_pairs`. `version=latest` selects the newest release.
For `xml` and `raw` it lists the cesAlign alignments (always `xml/<a>-<b>.xml.gz`) and then the
sentence files of every language in them (`xml/<l>.zip` or `raw/<l>.zip`); for `moses` the
bitexts `moses/<a>-<b>.txt.zip`. Pairs are alphabetical (`en-fi`, never `fi-en`).

A file's place in the release folder is its URL's path after the version (`xml/en-fr.xml.gz`),
the layout `tapaco build` and `opusparcus rank` read; anything else in a URL is refused.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from tapaco.core.json_input import parse_json
from tapaco.core.transfer import DownloadError, Transfer, check_url

DEFAULT_API = "https://opus.nlpl.eu/opusapi/"
FORMS = ("raw", "xml", "moses")
# A file name may have 255 bytes on Linux file systems, and the download adds `.part`.
_LONGEST_NAME = 255 - len(".part")
_SUFFIXES = {"xml": (".xml.gz", ".zip"), "raw": (".zip",), "moses": (".txt.zip",)}
# OPUS's largest files are tens of GB: a size past 4 TiB comes from a broken answer
LARGEST_KB = 1 << 32


@dataclass(frozen=True)
class OpusFile:
    """One file of an OPUS release, as the API lists it."""

    url: str
    path: str
    size_kb: int
    version: str
    source: str
    target: str

    @property
    def languages(self) -> tuple[str, ...]:
        return (self.source, self.target) if self.target else (self.source,)


class OpusApi:
    """The OPUS API at `base_url` (a mirror, or a test server)."""

    def __init__(self, base_url: str = DEFAULT_API, transfer: Transfer | None = None) -> None:
        self.base_url = base_url if base_url.endswith(("/", "?")) else base_url + "/"
        self.transfer = transfer or Transfer()

    def query(self, **parameters: str) -> dict:
        url = self.base_url + "?" + urllib.parse.urlencode(parameters)
        answer = parse_json(self.transfer.read(url), url, kind="download")
        if not isinstance(answer, dict):
            raise DownloadError(url, "the OPUS API answered JSON that is not an object")
        return answer

    def files(self, corpus: str, release: str, form: str) -> list[OpusFile]:
        """Every file of `corpus` at `release` (`latest` or a version) in `form`."""
        answer = self.query(corpus=corpus, version=release, preprocessing=form)
        rows = answer.get("corpora")
        if not isinstance(rows, list):
            raise DownloadError(self.base_url, "the OPUS API answer has no 'corpora' list")
        files = [_opus_file(row, form, self.base_url) for row in rows]
        if not files:
            raise DownloadError(self.base_url, f"OPUS lists no {form} files of {corpus} "
                                f"{release}; check the corpus name and release (e.g. "
                                "Tatoeba latest, OpenSubtitles v2016)")
        versions = sorted({file.version for file in files})
        if len(versions) > 1:
            raise DownloadError(self.base_url, f"the OPUS API mixes releases {versions} for "
                                f"{corpus} {release}; name one release")
        return sorted(set(files), key=lambda file: file.path)


def _opus_file(row: object, form: str, where: str) -> OpusFile:
    if not isinstance(row, dict):
        raise DownloadError(where, "an OPUS API entry is not an object")
    try:
        url, size, version = str(row["url"]), row["size"], str(row["version"])
        source, target = str(row.get("source") or ""), str(row.get("target") or "")
    except KeyError as missing:
        raise DownloadError(where, f"an OPUS API entry lacks {missing}") from None
    if type(size) is not int or size < 0:  # a bool is an int to Python, not a size
        raise DownloadError(url, f"the OPUS API gives no size in KB ({size!r})")
    if size > LARGEST_KB:
        raise DownloadError(url, f"the OPUS API gives a size of {size:.3g} KB, over the "
                            f"{LARGEST_KB:,} KB (4 TiB) any OPUS file has: a broken answer")
    check_url(url)
    return OpusFile(url, release_path(url, version, form), size, version, source, target)


def release_path(url: str, version: str, form: str) -> str:
    """`xml/en-fr.xml.gz` for `https://.../OPUS-Tatoeba/v2/xml/en-fr.xml.gz`: the URL's path
    after the version, if it is a file the release layout has."""
    parts = PurePosixPath(urllib.parse.urlsplit(url).path).parts
    tail = parts[parts.index(version) + 1:] if version in parts else ()
    folder_ok = len(tail) == 2 and tail[0] in {"xml", "raw", "moses"}
    name_ok = folder_ok and tail[1].endswith(_SUFFIXES[tail[0]]) and not tail[1].startswith(".")
    if not name_ok or (tail[0] != form and not (form == "raw" and tail[0] == "xml")):
        raise DownloadError(url, f"not a {form} file of an OPUS release layout "
                            f"(<{version}>/{form}/<name>)")
    if len(tail[1].encode()) > _LONGEST_NAME:
        raise DownloadError(url, f"a file name of {len(tail[1].encode())} bytes, longer than the "
                            f"{_LONGEST_NAME} a download's file can have")
    return "/".join(tail)


def select(files: Iterable[OpusFile], languages: Iterable[str]) -> list[OpusFile]:
    """The alignments between `languages` and their own files; all files when empty."""
    wanted = set(languages)
    if not wanted:
        return list(files)
    return [file for file in files if set(file.languages) <= wanted]


def select_pivots(files: Iterable[OpusFile], lang: str, pivots: Iterable[str]) -> list[OpusFile]:
    """The alignments of `lang` with each pivot, and the files of those languages."""
    pairs = {tuple(sorted((lang, pivot))) for pivot in pivots}
    kept = [file for file in files if file.target and (file.source, file.target) in pairs]
    named = {lang for pair in pairs for lang in pair}
    return kept + [file for file in files if not file.target and file.source in named]


def missing_pairs(files: Iterable[OpusFile], lang: str, pivots: Iterable[str]) -> list[str]:
    """`lang-pivot` names of the pivots the release has no alignment with."""
    present = {(file.source, file.target) for file in files if file.target}
    return [f"{lang}-{pivot}" for pivot in pivots
            if tuple(sorted((lang, pivot))) not in present]
