"""Find what an OPUS release folder holds: one alignment source per language pair.

Alignments: `xml/<a>-<b>.xml.gz`, `xml/<a>-<b>.xml`, per-document folders `xml/<a>-<b>/`, then
Moses bitexts `moses/<a>-<b>.txt.zip` or `moses/<a>-<b>/` (or the Moses forms first, on
request), in either layout of :mod:`.layout` (`Tatoeba_v2_xml_en-fr.xml.gz` as opus_get names
`xml/en-fr.xml.gz`). A pair may be named in either order; exactly one source is read per pair,
the first that exists in that order (canonical `a <= b` name first), so a release that ships a
pair in several forms is not counted twice. Names of more than two languages (`sv-de-en.xml`)
are not pairs and are ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.opus.cesalign import read_cesalign, read_cesalign_keys
from tapaco.core.opus.layout import LAYOUTS, Layout, release_layout
from tapaco.core.opus.links import KeyedLinks, LinkBlock
from tapaco.core.opus.moses import read_moses
from tapaco.core.opus.sidekeys import SideTable
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

    def _cesalign_files(self) -> list[FileRef]:
        if self.form == "cesAlign folder":
            return [FileRef(path) for path in sorted(
                p for p in self.path.rglob("*") if p.name.endswith((".xml", ".gz")))]
        return [FileRef(self.path)]

    def link_blocks(self, bad_line: Callable[[InputError], None] | None = None
                    ) -> Iterator[LinkBlock]:
        """The links, sides as strings (a Moses line too long, not UTF-8 or holding a control
        character goes to `bad_line`, raised by default, and reads as empty)."""
        if self.form.startswith("Moses"):
            yield from read_moses(self.path, self.langs, bad_line)
            return
        for ref in self._cesalign_files():
            yield from read_cesalign(ref, self.langs)

    def keyed_blocks(self, table: SideTable, bad_line: Callable[[InputError], None] | None = None
                     ) -> Iterator[KeyedLinks]:
        """The links, sides as keys of `table` (cesAlign sides are parsed by numpy; a bad Moses
        line goes to `bad_line`, as in :meth:`link_blocks`)."""
        if not self.form.startswith("Moses"):
            for ref in self._cesalign_files():
                yield from read_cesalign_keys(ref, self.langs, table)
            return
        for block in read_moses(self.path, self.langs, bad_line):
            yield KeyedLinks(block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                             table.keys(block.from_sides), table.keys(block.to_sides),
                             block.from_texts, block.to_texts)


def _pair_of(name: str) -> tuple[str, str] | None:
    langs = name.split("-")
    if len(langs) != 2 or not all(langs) or "." in name:
        return None
    return langs[0], langs[1]


def _candidates(layout: Layout, prefer_moses: bool) -> Iterator[tuple[tuple, AlignmentSource]]:
    for rank, (folder, suffix, is_directory, form) in enumerate(_FORMS):
        if prefer_moses:
            rank = (rank + 3) % len(_FORMS)
        for name, entry in layout.entries(folder):
            if entry.is_dir() != is_directory or not name.endswith(suffix):
                continue
            pair = _pair_of(name[: len(name) - len(suffix)])
            if pair is not None:
                yield (rank, pair != tuple(sorted(pair))), AlignmentSource(pair, entry, form)


def find_alignment_sources(opus_dir: Path, prefer_moses: bool = False) -> list[AlignmentSource]:
    """One alignment source per unordered language pair, sorted by pair.

    `prefer_moses` puts the Moses forms first (Opusparcus's fast path; TaPaCo wants cesAlign).
    """
    layout = release_layout(opus_dir)
    if layout.folders and not (opus_dir / "xml").is_dir() and not (opus_dir / "moses").is_dir():
        raise InputError(opus_dir, f"not an OPUS release: it has {LAYOUTS}",
                         kind="missing file")
    chosen: dict[tuple[str, str], tuple[tuple, AlignmentSource]] = {}
    for priority, source in _candidates(layout, prefer_moses):
        key = tuple(sorted(source.langs))
        if key not in chosen or priority < chosen[key][0]:
            chosen[key] = (priority, source)
    return [chosen[key][1] for key in sorted(chosen)]
