"""The one store of sentence documents that every OPUS reader asks for texts.

It finds the file holding a document such as `de/1994/1/2.xml.gz`: a member of the zip
`DIR/<folder>/<lang>.zip` (`<Corpus>/<folder>/de/1994/1/2.xml`, matched by that suffix since the
corpus name is not known in advance) or a file extracted under `DIR/<folder>/` (`.xml.gz` or
`.xml`), searching the folders in the order `prefer` gives: `raw` (untokenised) and `xml`
(`<w>`-tokenised). The zip is where the release's layout puts it (:mod:`.layout`: opus_get's
`<Corpus>_<version>_<folder>_<lang>.zip` too). Each zip is opened once and its member index
built once (an OpenSubtitles `xml/<lang>.zip` holds 100k+ members, so opening it per document
grows quadratically), and the `cache_size` documents read last are kept parsed, since
consecutive link blocks share documents.
"""

from __future__ import annotations

import zipfile
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tapaco.core.errors import InputError
from tapaco.core.opus.documents import Sentences, read_sentences
from tapaco.core.opus.layout import release_layout
from tapaco.core.opus.sidekeys import SideTable
from tapaco.core.opus.textstream import FileRef

FOLDERS = ("raw", "xml")
RAW, TOKENISED = "raw", "tokenised"


def preference(first: str) -> tuple[str, ...]:
    """The document folders in search order, `first` (`raw` or `xml`) before the other."""
    if first not in FOLDERS:
        raise ValueError(f"unknown document folder {first!r}; choose from {', '.join(FOLDERS)}")
    return (first, *(folder for folder in FOLDERS if folder != first))


@dataclass
class Document:
    """A parsed sentence document, the file it came from and a sentence index by id."""

    name: str
    ref: FileRef
    sentences: Sentences

    def __post_init__(self) -> None:
        self._keys: tuple[SideTable, np.ndarray] | None = None

    @cached_property
    def position(self) -> dict[str, int]:
        """Sentence index by id (the last sentence, if an id repeats)."""
        return dict(zip(self.sentences.ids, range(len(self.sentences))))

    def keys(self, table: SideTable) -> np.ndarray:
        """The sentence ids as keys of `table` (kept for the last table asked)."""
        if self._keys is None or self._keys[0] is not table:
            keys = self.sentences.keys.copy()
            for index, sentence_id in self.sentences.other_ids.items():
                keys[index] = table.key(sentence_id)
            self._keys = (table, keys)
        return self._keys[1]

    @cached_property
    def texts(self) -> list[str]:
        """The sentences' texts as Python strings, made once (for readers looking up many)."""
        return self.sentences.texts.strings()

    @property
    def kind(self) -> str:
        """`tokenised` if the texts are `<w>` tokens joined by spaces, else `raw`."""
        return TOKENISED if self.sentences.tokenised else RAW

    def side_text(self, side: str) -> str | None:
        """The text of a link side (ids separated by spaces), None if an id is not here."""
        texts = self.texts
        positions = [self.position.get(sentence_id) for sentence_id in side.split()]
        if not positions or None in positions:
            return None
        return " ".join(texts[at] for at in positions)


class _Archive:
    """An open zip of documents and its members by document path (without `.gz`)."""

    def __init__(self, path: Path, folder: str) -> None:
        self.path = path
        try:
            self.zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as error:
            raise InputError(path, f"not a readable zip file: {error}",
                             kind="corrupt file") from error
        marker = f"/{folder}/"
        self.members = {name.split(marker, 1)[1] if marker in name else name: name
                        for name in self.zip.namelist()}

    def ref(self, document: str) -> FileRef | None:
        member = self.members.get(document) or self.members.get(document.removesuffix(".gz"))
        return None if member is None else FileRef(self.path, member)


class DocumentStore:
    """Sentence documents of the OPUS release in `opus_dir`, found in the `prefer` order.

    Use it as a context manager (or call `close`) to close the zips it opened. `bad_sentence`:
    where a sentence that is not UTF-8 is reported (a log that skips bad input) and left out;
    by default it makes its document bad.
    """

    def __init__(self, opus_dir: Path, prefer: tuple[str, ...] = FOLDERS,
                 cache_size: int = 8,
                 bad_sentence: Callable[[InputError], None] | None = None) -> None:
        if not prefer or not set(prefer) <= set(FOLDERS) or len(set(prefer)) != len(prefer):
            raise ValueError(f"prefer must order folders of {FOLDERS}, got {prefer!r}")
        if cache_size < 1:
            raise ValueError(f"cache_size must be at least 1, got {cache_size}")
        self.opus_dir = opus_dir
        self.layout = release_layout(opus_dir)
        self.prefer = tuple(prefer)
        self.cache_size = cache_size
        self.bad_sentence = bad_sentence
        self._places: dict[tuple[str, str], tuple[_Archive | None, bool]] = {}
        self._parsed: OrderedDict[str, Document] = OrderedDict()

    def __enter__(self) -> DocumentStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for archive, _ in self._places.values():
            if archive is not None:
                archive.zip.close()
        self._places.clear()
        self._parsed.clear()

    def _place(self, folder: str, lang: str) -> tuple[_Archive | None, bool]:
        """The zip of `lang` in `folder` (None if absent), and whether `folder/lang/` exists."""
        key = (folder, lang)
        if key not in self._places:
            path, unpacked = self.layout.file(folder, f"{lang}.zip"), self.layout.unpacked(folder)
            archive = _Archive(path, folder) if path.is_file() else None
            self._places[key] = (archive, unpacked is not None and (unpacked / lang).is_dir())
        return self._places[key]

    def has_documents(self, lang: str) -> bool:
        """Whether any document folder holds documents of `lang` (a zip or a folder)."""
        return self.first_folder(lang) is not None

    def first_folder(self, lang: str) -> str | None:
        """The first folder searched that holds documents of `lang` (a zip or a folder)."""
        return next((folder for folder in self.prefer if any(self._place(folder, lang))), None)

    def locate(self, name: str) -> tuple[FileRef, zipfile.ZipFile | None] | None:
        """The file of document `name` and its open zip (None for a plain file), or None."""
        lang, separator, _ = name.partition("/")
        for folder in self.prefer:
            archive, extracted = self._place(folder, lang)
            if archive is not None and (ref := archive.ref(name)) is not None:
                return ref, archive.zip
            unpacked = self.layout.unpacked(folder)
            if unpacked is None or (not extracted and separator):
                continue
            for candidate in (name, name.removesuffix(".gz")):
                if (unpacked / candidate).is_file():
                    return FileRef(unpacked / candidate), None
        return None

    def find(self, name: str) -> Document | None:
        """Document `name` parsed, or None if no file holds it; InputError if it is bad."""
        if name in self._parsed:
            self._parsed.move_to_end(name)
            return self._parsed[name]
        located = self.locate(name)
        if located is None:
            return None
        document = Document(name, located[0], read_sentences(*located, self.bad_sentence))
        self._parsed[name] = document
        if len(self._parsed) > self.cache_size:
            self._parsed.popitem(last=False)
        return document

    def document(self, name: str) -> Document:
        """Document `name` parsed; an InputError saying where it was looked for if missing."""
        found = self.find(name)
        if found is None:
            raise self.missing(name)
        return found

    def missing(self, name: str) -> InputError:
        """The error for a document that no file holds."""
        lang = name.split("/", 1)[0]
        places = ", ".join(f"{self.layout.shown(folder, f'{lang}.zip')}"
                           + (f", {folder}/{name}" if self.layout.folders else "")
                           for folder in self.prefer)
        return InputError(self.opus_dir, f"sentence document {name} not found (looked in "
                          f"{places})", kind="missing document")
