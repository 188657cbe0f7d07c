"""Find what an OPUS release folder holds: one alignment source per language pair, documents.

Alignments: `xml/<a>-<b>.xml.gz`, `xml/<a>-<b>.xml`, per-document folders `xml/<a>-<b>/`, then
Moses bitexts `moses/<a>-<b>.txt.zip` or `moses/<a>-<b>/` (or the Moses forms first, on
request). A pair may be named in either order; exactly one source is read per pair, the first
that exists in that order (canonical `a <= b` name first), so a release that ships a pair in
several forms is not counted twice. Names of more than two languages (`sv-de-en.xml`) are not
pairs and are ignored.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.opus.cesalign import read_cesalign
from tapaco.core.opus.links import LinkBlock
from tapaco.core.opus.moses import read_moses
from tapaco.core.opus.textstream import FileRef

_FORMS = (  # (folder, suffix, is_directory, form); earlier forms win
    ("xml", ".xml.gz", False, "cesAlign"),
    ("xml", ".xml", False, "cesAlign"),
    ("xml", "", True, "cesAlign folder"),
    ("moses", ".txt.zip", False, "Moses zip"),
    ("moses", "", True, "Moses folder"),
)


@dataclass(frozen=True)
class AlignmentSource:
    """The one file or folder read for a language pair, languages in the order of its name."""

    langs: tuple[str, str]
    path: Path
    form: str

    @property
    def intra_lingual(self) -> bool:
        return self.langs[0] == self.langs[1]

    def link_blocks(self) -> Iterator[LinkBlock]:
        if self.form.startswith("Moses"):
            yield from read_moses(self.path, self.langs)
        elif self.form == "cesAlign folder":
            for path in sorted(p for p in self.path.rglob("*") if p.name.endswith((".xml", ".gz"))):
                yield from read_cesalign(FileRef(path), self.langs)
        else:
            yield from read_cesalign(FileRef(self.path), self.langs)


def _pair_of(name: str) -> tuple[str, str] | None:
    langs = name.split("-")
    if len(langs) != 2 or not all(langs) or "." in name:
        return None
    return langs[0], langs[1]


def _candidates(opus_dir: Path, prefer_moses: bool) -> Iterator[tuple[tuple, AlignmentSource]]:
    for rank, (folder, suffix, is_directory, form) in enumerate(_FORMS):
        if prefer_moses:
            rank = (rank + 3) % len(_FORMS)
        base = opus_dir / folder
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            if entry.is_dir() != is_directory or not entry.name.endswith(suffix):
                continue
            pair = _pair_of(entry.name[: len(entry.name) - len(suffix)])
            if pair is not None:
                yield (rank, pair != tuple(sorted(pair))), AlignmentSource(pair, entry, form)


def find_alignment_sources(opus_dir: Path, prefer_moses: bool = False) -> list[AlignmentSource]:
    """One alignment source per unordered language pair, sorted by pair.

    `prefer_moses` puts the Moses forms first (Opusparcus's fast path; TaPaCo wants cesAlign).
    """
    if not opus_dir.is_dir():
        raise InputError(opus_dir, "OPUS folder not found", kind="missing file")
    if not (opus_dir / "xml").is_dir() and not (opus_dir / "moses").is_dir():
        raise InputError(opus_dir, "not an OPUS release: it has neither xml/ nor moses/",
                         kind="missing file")
    chosen: dict[tuple[str, str], tuple[tuple, AlignmentSource]] = {}
    for priority, source in _candidates(opus_dir, prefer_moses):
        key = tuple(sorted(source.langs))
        if key not in chosen or priority < chosen[key][0]:
            chosen[key] = (priority, source)
    return [chosen[key][1] for key in sorted(chosen)]


class DocumentLocator:
    """Finds the file (or zip member) holding a sentence document such as `de/tatoeba.xml.gz`.

    `kinds` orders the folders searched: TaPaCo prefers untokenised `raw`, Opusparcus `xml`.
    Zips are `DIR/<kind>/<lang>.zip` with members `<Corpus>/<kind>/<document without .gz>`.
    """

    def __init__(self, opus_dir: Path, kinds: tuple[str, ...] = ("raw", "xml")) -> None:
        self.opus_dir = opus_dir
        self.kinds = kinds
        self._zip_members: dict[Path, dict[str, str]] = {}

    def _members(self, archive: Path) -> dict[str, str]:
        if archive not in self._zip_members:
            try:
                with zipfile.ZipFile(archive) as opened:
                    names = opened.namelist()
            except (OSError, zipfile.BadZipFile) as error:
                raise InputError(archive, f"not a readable zip file: {error}",
                                 kind="corrupt file") from error
            kind = f"/{archive.parent.name}/"
            self._zip_members[archive] = {
                name.split(kind, 1)[1] if kind in name else name: name for name in names
            }
        return self._zip_members[archive]

    def _in_zip(self, archive: Path, document: str) -> FileRef | None:
        members = self._members(archive)
        for key in (document, document.removesuffix(".gz")):
            if key in members:
                return FileRef(archive, members[key])
        return None

    def locate(self, document: str) -> FileRef:
        """The file of `document`, or an InputError saying where it was looked for."""
        return self.find(document)[0]

    def find(self, document: str) -> tuple[FileRef, str]:
        """The file of `document` and the folder kind it was found in (`raw` or `xml`)."""
        lang = document.split("/", 1)[0]
        for kind in self.kinds:
            archive = self.opus_dir / kind / f"{lang}.zip"
            if archive.is_file() and (ref := self._in_zip(archive, document)) is not None:
                return ref, kind
            for name in (document, document.removesuffix(".gz")):
                if (self.opus_dir / kind / name).is_file():
                    return FileRef(self.opus_dir / kind / name), kind
        places = ", ".join(f"{kind}/{lang}.zip, {kind}/{document}" for kind in self.kinds)
        raise InputError(self.opus_dir, f"sentence document {document} not found (looked in "
                         f"{places})", kind="missing document")
