"""Download an OPUS release into the folder layout `tapaco build` and `opusparcus rank` read.

One downloader for both commands: the files come from the OPUS API (:mod:`.catalog`), each is
fetched to `NAME.part` and resumed (:mod:`tapaco.core.transfer`), then checked before it is
renamed into place: its size against the API's (KB, rounded either way), and its archive
(every gzip member and zip CRC read through). `DIR/manifest.json` records the corpus, the
release, and the URL, size and SHA-256 of every file, rewritten after each one, so an
interrupted run resumes where it stopped and a rerun fetches nothing.

Files the downloader did not write are never replaced: a file already at a release path is
kept when its size agrees with OPUS's and it reads through (a hand-made download counts), and
refused otherwise.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import os
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.disk import check_folder
from tapaco.core.errors import InputError, OptionError, printable, usage_error
from tapaco.core.files import json_text, write_file_atomically
from tapaco.core.opus.catalog import FORMS, OpusApi, OpusFile, missing_pairs, select, select_pivots
from tapaco.core.outputs import MANIFEST, read_manifest
from tapaco.core.transfer import BLOCK, DownloadError, Rate, Transfer
from tapaco.core.versions import package_version

WRITTEN_BY = "download"


@dataclass(frozen=True)
class DownloadRequest:
    """What to fetch: a corpus release in one form, for some languages.

    `languages`: the alignments between these languages and their files (all when empty).
    `lang` with `pivots`: the alignments of `lang` with each pivot (Opusparcus's bitexts).
    """

    corpus: str
    release: str = "latest"
    form: str = "raw"
    languages: tuple[str, ...] = ()
    lang: str = ""
    pivots: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise OptionError("--form", f"expected one of {', '.join(FORMS)}, got {self.form!r}")
        if not self.corpus or not self.release:
            raise OptionError("--corpus", "a corpus and a release are needed")
        if bool(self.lang) != bool(self.pivots):
            raise OptionError("--pivots", "--lang and --pivots go together")
        if self.lang in self.pivots:
            raise OptionError("--pivots", f"{self.lang} cannot be its own pivot")


def plan(api: OpusApi, request: DownloadRequest) -> list[OpusFile]:
    """The files `request` needs, from the API."""
    files = api.files(request.corpus, request.release, request.form)
    if request.lang:
        missing = missing_pairs(files, request.lang, request.pivots)
        if missing:
            raise DownloadError(api.base_url, f"{request.corpus} {files[0].version} has no "
                                f"{request.form} alignment {', '.join(missing)}")
        return select_pivots(files, request.lang, request.pivots)
    chosen = select(files, request.languages)
    if not any(file.target for file in chosen):
        raise DownloadError(api.base_url, f"{request.corpus} {files[0].version} has no "
                            f"{request.form} alignment between {', '.join(request.languages)}")
    return chosen


def listing(files: list[OpusFile], out: Path) -> str:
    """What a download would fetch: size and release path per file, the total, and what
    is already in `out`."""
    manifest = read_manifest(out) or {"files": {}}
    lines = []
    for file in files:
        present = _recorded(out, manifest, file)
        lines.append(f"{_listed_size(file.size_kb):>10}  {printable(file.path)}"
                     + ("  (already downloaded)" if present else ""))
    total = _listed_size(sum(file.size_kb for file in files)) if files else "0 B"
    left = [file.size_kb for file in files if not _recorded(out, manifest, file)]
    remaining = _listed_size(sum(left)) if left else "nothing"
    version = printable(files[0].version) if files else "?"
    lines.append(f"{total:>10}  total, {len(files)} files of release {version}; "
                 f"{remaining} still to fetch into {printable(str(out))}")
    return "\n".join(lines)


def _listed_size(size_kb: int) -> str:
    """A size as OPUS lists it, in KB (0: under 1 KB)."""
    return _size(size_kb * 1024) if size_kb else "under 1 KB"


def _size(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if count < 1000 or unit == "PB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")


def download(request: DownloadRequest, out: Path, api: OpusApi | None = None,
             rate: Rate | None = None, log: Callable[[str], None] | None = None) -> dict:
    """Fetch what `request` needs into `out`; the manifest written there."""
    api = api or OpusApi()
    log = log or (lambda line: print(printable(line), file=sys.stderr))
    earlier = _earlier_download(out)
    check_folder(out)
    files = plan(api, request)
    created = _Folders()
    try:
        return _download_files(request, out, api, files, created, earlier, rate, log)
    except BaseException:
        created.remove_empty()
        raise


def _download_files(request: DownloadRequest, out: Path, api: OpusApi, files: list[OpusFile],
                    created: _Folders, earlier: dict | None, rate: Rate | None,
                    log: Callable[[str], None]) -> dict:
    version = files[0].version
    manifest = _open_folder(out, earlier, request, version, api.base_url, created)
    fetched = 0
    for number, file in enumerate(files, 1):
        if _recorded(out, manifest, file):
            continue
        target = out / file.path
        if target.exists():
            log(f"[{number}/{len(files)}] {file.path}: already there, checking it")
            manifest["files"][file.path] = _adopt(file, target)
        else:
            log(f"[{number}/{len(files)}] {file.path} ({_listed_size(file.size_kb)})")
            created.make(target.parent)
            manifest["files"][file.path] = _get(file, target, api.transfer, rate)
            fetched += 1
        manifest["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        write_file_atomically(out / MANIFEST, json_text(_sorted(manifest)))
    log(f"{request.corpus} {version} ({request.form}): {fetched} fetched, "
        f"{len(files) - fetched} already there, in {out}")
    return manifest


def _sorted(manifest: dict) -> dict:
    """The manifest with its files last, by path."""
    rest = {key: value for key, value in manifest.items() if key != "files"}
    return {**rest, "files": dict(sorted(manifest["files"].items()))}


def _earlier_download(out: Path) -> dict | None:
    """The manifest of an earlier download into `out` (None: none yet); a usage error, before
    the API is asked, when `out` is a file or holds another tool's manifest."""
    if out.exists() and not out.is_dir():
        raise usage_error(out, "is a file, but --out names a folder")
    if not (out / MANIFEST).exists():
        return None
    manifest = read_manifest(out)
    if manifest is None or manifest.get("written_by") != WRITTEN_BY:
        raise usage_error(out, f"holds a {MANIFEST} that the downloader did not write; "
                          "choose another folder")
    return manifest


class _Folders:
    """The folders a download made, so that a failed one leaves none of them empty."""

    def __init__(self) -> None:
        self.made: list[Path] = []

    def make(self, folder: Path) -> None:
        missing = [parent for parent in (folder, *folder.parents) if not parent.exists()]
        for parent in reversed(missing):
            parent.mkdir()
            self.made.append(parent)

    def remove_empty(self) -> None:
        """Remove the folders made here that are empty, the deepest first."""
        for folder in reversed(self.made):
            try:
                folder.rmdir()
            except OSError:  # not empty (a kept part, or someone else's file)
                pass


def _open_folder(out: Path, manifest: dict | None, request: DownloadRequest, version: str,
                 api: str, created: _Folders) -> dict:
    """The folder's manifest, new or from an earlier download of the same release."""
    if manifest and (manifest.get("corpus"), manifest.get("release")) != (request.corpus,
                                                                          version):
        raise usage_error(out, f"holds {manifest.get('corpus')} {manifest.get('release')}, "
                          f"not {request.corpus} {version}; choose another folder")
    created.make(out)
    manifest = manifest or {"written_by": WRITTEN_BY, "corpus": request.corpus,
                            "release": version, "files": {}}
    forms = sorted({*manifest.get("forms", []), request.form})
    manifest.update(package_version=package_version(), requested=request.release,
                    forms=forms, api=api)
    return manifest


def _recorded(out: Path, manifest: dict, file: OpusFile) -> bool:
    """Whether the manifest lists `file` as downloaded and it is still there, whole."""
    entry = manifest["files"].get(file.path)
    target = out / file.path
    return (entry is not None and entry.get("url") == file.url and target.is_file()
            and target.stat().st_size == entry.get("bytes"))


def largest_size(size_kb: int) -> int:
    """The most bytes a file OPUS lists as `size_kb` KB can have (see :func:`size_agrees`)."""
    return (size_kb + 1) * 1024


def size_agrees(size: int, size_kb: int) -> bool:
    """Whether `size` bytes is what OPUS lists as `size_kb` KB: bytes / 1,000 or / 1,024,
    rounded down or up. (Truncation is caught exactly by the transfer and the archive check;
    this catches a URL that serves another file.)"""
    return (size_kb - 1) * 1000 < size <= largest_size(size_kb)


def _get(file: OpusFile, target: Path, transfer: Transfer, rate: Rate | None) -> dict:
    """Download `file` to `target` through `target.part`, checked before the rename."""
    part = target.with_name(target.name + ".part")
    size = transfer.fetch(file.url, part, rate, limit=largest_size(file.size_kb))
    try:
        if not size_agrees(size, file.size_kb):
            raise DownloadError(file.url, f"received {size} bytes, but OPUS lists "
                                f"{file.size_kb} KB; the partial file was removed")
        sha256 = archive_sha256(part)
    except InputError:
        part.unlink(missing_ok=True)
        raise
    os.replace(part, target)
    return _entry(file, size, sha256)


def _adopt(file: OpusFile, target: Path) -> dict:
    """Keep a file someone else put at `target` when it is the one OPUS lists; else refuse."""
    size = target.stat().st_size
    if not target.is_file() or not size_agrees(size, file.size_kb):
        raise usage_error(target, f"exists, was not downloaded here, and is not OPUS's file "
                          f"({size} bytes, OPUS lists {file.size_kb} KB); move it away")
    return _entry(file, size, archive_sha256(target))


def _entry(file: OpusFile, size: int, sha256: str) -> dict:
    return {"url": file.url, "bytes": size, "opus_size_kb": file.size_kb, "sha256": sha256}


def archive_sha256(path: Path) -> str:
    """The SHA-256 of a `.gz` or `.zip` file, once all of it decompressed with valid
    checksums; an InputError names what is wrong otherwise."""
    try:
        with open(path, "rb") as handle:
            sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
        if path.name.endswith(".gz") or path.name.endswith(".gz.part"):
            _check_gzip(path)
        else:
            _check_zip(path)
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile, gzip.BadGzipFile) as error:
        raise DownloadError(str(path), f"is not a whole, valid archive ({error})") from None
    return sha256


def _check_gzip(path: Path) -> None:
    with gzip.open(path, "rb") as stream:  # every member, each with its CRC and length
        while stream.read(BLOCK):
            pass


def _check_zip(path: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
    if bad is not None:
        raise zipfile.BadZipFile(f"member {bad} fails its CRC check")
