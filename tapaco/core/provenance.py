"""What an output was built from, for its statistics and dataset card: the corpus, its licence.

The corpus is read from the input, never guessed: the name opus_get gave the release's files
(`Tatoeba_v2_xml_en-fr.xml.gz`), else the corpus `download` recorded in `manifest.json`, else
the names inside the release's archives (a Moses bitext's `Tatoeba.en-fr.en`, a document zip's
first member `Tatoeba/xml/en/...`). A release whose files name none is of an unknown corpus.

Licences, as their sources state them:

- Tatoeba: its sentences are CC BY 2.0 FR (Tatoeba's terms of use); the Hub's nearest licence
  id is `cc-by-2.0`.
- OpenSubtitles: OPUS states no licence, and asks that work using it cite Lison and Tiedemann
  (2016) and link to http://www.opensubtitles.org/; Opusparcus, ranked from it, is licensed CC
  BY-NC 4.0 (its README), so a ranking of it is too.
- any other corpus, or an unknown one: `unknown` (its OPUS page says which applies).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.opus.layout import Layout, release_layout
from tapaco.core.opus.moses import moses_files
from tapaco.core.opus.sources import find_alignment_sources
from tapaco.core.outputs import read_manifest

OPUS_RELEASE, TATOEBA_EXPORT = "OPUS release", "Tatoeba export"
_TATOEBA_LICENCE = ("cc-by-2.0", "Tatoeba's sentences are licensed CC BY 2.0 FR (Tatoeba's terms "
                    "of use, https://tatoeba.org/terms_of_use): credit their authors.")
_OPENSUBTITLES_LICENCE = (
    "cc-by-nc-4.0", "The sentences are subtitles from http://www.opensubtitles.org/ as OPUS "
    "publishes them. OPUS states no licence for them; it asks that work using them cite Lison "
    "and Tiedemann (2016), OpenSubtitles2016: Extracting Large Parallel Corpora from Movie and "
    "TV Subtitles (LREC 2016), and link to http://www.opensubtitles.org/. The licence given "
    "here is that of Opusparcus (CC BY-NC 4.0, its README), ranked from the same subtitles.")


@dataclass(frozen=True)
class Provenance:
    """The corpus an output comes from (None: its input does not name one) and the form it was
    read in (`OPUS_RELEASE` or `TATOEBA_EXPORT`)."""

    corpus: str | None
    form: str = OPUS_RELEASE

    def as_dict(self) -> dict:
        return {"corpus": self.corpus, "form": self.form}

    @classmethod
    def recorded(cls, stats: dict) -> Provenance:
        """The provenance `stats.json` records (`source`)."""
        return cls(stats["source"]["corpus"], stats["source"]["form"])

    def described(self) -> str:
        """`an OPUS release of Tatoeba`, for a sentence saying what the data was built from."""
        if self.form == TATOEBA_EXPORT:
            return "Tatoeba's own exports (https://tatoeba.org/downloads)"
        if self.corpus is None:
            return "an OPUS release whose files do not name its corpus"
        return f"an OPUS release of {self.corpus}"

    def licence(self) -> tuple[str, str]:
        """The licence id for a card's header and a sentence saying where it comes from."""
        if self.corpus == "Tatoeba":
            return _TATOEBA_LICENCE
        if self.corpus is not None and self.corpus.startswith("OpenSubtitles"):
            return _OPENSUBTITLES_LICENCE
        named = "a corpus its files do not name" if self.corpus is None else self.corpus
        return ("unknown", f"The sentences come from {named}; this project does not know its "
                "licence, which applies to this data: see the corpus's page on OPUS "
                "(https://opus.nlpl.eu/).")


def release_provenance(opus_dir: Path) -> Provenance:
    """The provenance of the OPUS release in `opus_dir` (see the module's notes)."""
    layout = release_layout(opus_dir)
    if not layout.folders:
        return Provenance(layout.corpus)
    manifest = read_manifest(opus_dir)
    if manifest and manifest.get("written_by") == "download" and manifest.get("corpus"):
        return Provenance(str(manifest["corpus"]))
    return Provenance(_named_in_files(layout))


def _named_in_files(layout: Layout) -> str | None:
    """The corpus the first Moses bitext's or document zip's names give, if any."""
    for source in find_alignment_sources(layout.root):
        if source.form.startswith("Moses"):
            try:
                first = moses_files(source.path, source.langs)[0]
            except InputError:  # reported when the bitext is read
                continue
            suffix = f".{source.langs[0]}-{source.langs[1]}.{source.langs[0]}"
            name = Path(first.member or first.path.name).name
            if len(name) > len(suffix):
                return name.removesuffix(suffix)
    for folder in ("raw", "xml"):
        for name, path in layout.entries(folder):
            member = _first_member(path) if name.endswith(".zip") and path.is_file() else ""
            if f"/{folder}/" in member and not member.startswith("/"):
                return member.split(f"/{folder}/", 1)[0]
    return None


def _first_member(path: Path) -> str:
    """The name in a zip's first local header (an OPUS zip's `<Corpus>/xml/en/...`), read
    without its central directory, which for an OpenSubtitles zip lists 100k+ members."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(30)
            if len(header) < 30 or header[:4] != b"PK\x03\x04":
                return ""
            return handle.read(int.from_bytes(header[26:28], "little")).decode("utf-8",
                                                                                "replace")
    except OSError:  # reported when the documents are read
        return ""
