"""The alignment files of a release read into link sides, document by document: this process
reads files from the front of the list, a forked one from the back, until the two meet; the
links are added in file order."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import Forked, FromBothEnds, map_on_threads
from tapaco.core.hashing import first_occurrences
from tapaco.core.interruptible import in_background
from tapaco.core.opus import AlignmentSource
from tapaco.core.opus.links import KeyedLinks
from tapaco.core.opus.sidekeys import EMPTY, STRING, SideTable
from tapaco.core.progress import Progress

INTRA, INTER = 0, 1


@dataclass
class ReadCounts:
    alignment_sources: int = 0
    intra_lingual_sources: int = 0
    links: int = 0
    links_with_empty_side: int = 0
    links_to_unknown_sentences: int = 0
    links_with_empty_text: int = 0
    multi_id_sides: int = 0
    documents: int = 0
    document_sentences: int = 0
    sentences_of_unknown_language: int | None = None  # Tatoeba exports only (`\N`)



@dataclass
class LinkedDocument:
    """A document's link sides: while reading, each block's side keys (`parts`); after
    :meth:`LinkCollector.number_sides`, its distinct sides (`sides`, in order of first use)
    and each part's codes into them."""

    name: str
    lang: int
    parts: list[np.ndarray] = field(default_factory=list)
    moses_texts: dict[int, str] = field(default_factory=dict)
    sides: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    part_codes: list[np.ndarray] = field(default_factory=list)



class LinkCollector:
    """Collects the links' side keys per document, then numbers each document's sides."""

    def __init__(self) -> None:
        self.table = SideTable()
        self.languages: dict[str, int] = {}
        self.index: dict[str, int] = {}
        self.documents: list[LinkedDocument] = []
        self.links: list[tuple[int, int, int, int, int]] = []
        self.counts = ReadCounts()

    def add_source(self, source: AlignmentSource, blocks: list[KeyedLinks]) -> None:
        kind = INTRA if source.intra_lingual else INTER
        self.counts.alignment_sources += 1
        self.counts.intra_lingual_sources += kind == INTRA
        for block in blocks:
            self._add_block(block, kind)

    def _add_block(self, block: KeyedLinks, kind: int) -> None:
        self.counts.links += len(block)
        empty = (block.from_keys == EMPTY) | (block.to_keys == EMPTY)
        if empty.any():
            block = _with_links_kept(block, ~empty)
            self.counts.links_with_empty_side += int(empty.sum())
        from_doc, from_part = self._intern(block.from_doc, block.from_lang, block.from_keys,
                                           block.from_texts)
        to_doc, to_part = self._intern(block.to_doc, block.to_lang, block.to_keys,
                                       block.to_texts)
        self.links.append((from_doc, from_part, to_doc, to_part, kind))

    def _intern(self, name: str, lang: str, keys: np.ndarray,
                texts: list[str] | None) -> tuple[int, int]:
        if name not in self.index:
            self.index[name] = len(self.documents)
            lang_id = self.languages.setdefault(lang, len(self.languages))
            self.documents.append(LinkedDocument(name, lang_id))
        document = self.documents[self.index[name]]
        document.parts.append(keys)
        if texts is not None:
            known = document.moses_texts
            known.update((k, t) for k, t in zip(keys.tolist(), texts, strict=True)
                         if k not in known)
        return self.index[name], len(document.parts) - 1

    def number_sides(self, workers: int = 1) -> None:
        """Each document's distinct sides in order of first use, and the links' codes (the
        documents on `workers` threads)."""
        def number(document: LinkedDocument) -> None:
            keys = np.concatenate(document.parts) if document.parts else np.zeros(0, np.uint64)
            codes, firsts = in_background(first_occurrences, keys, size=len(keys))
            document.sides = keys[firsts]
            bounds = np.cumsum([len(part) for part in document.parts])[:-1]
            document.part_codes = np.split(codes.astype(np.int32), bounds)
            document.parts = []

        map_on_threads(number, self.documents, workers)


def _with_links_kept(block: KeyedLinks, keep: np.ndarray) -> KeyedLinks:
    def pick(values: list[str] | None) -> list[str] | None:
        return None if values is None else [v for v, k in zip(values, keep.tolist()) if k]

    return KeyedLinks(block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                      block.from_keys[keep], block.to_keys[keep], pick(block.from_texts),
                      pick(block.to_texts))


SourceRead = tuple[list[KeyedLinks] | InputError, BadInputLog]


def _read_source(source: AlignmentSource, table: SideTable, skip: bool) -> SourceRead:
    """The source's links, or the error that stopped its reading; and the log of the bad
    lines skipped in it (with `skip`: a bad Moses line costs its link only)."""
    skipped = BadInputLog(skip)
    try:
        return list(source.keyed_blocks(table, skipped.report)), skipped
    except InputError as error:
        return error, skipped


def _sources_from_the_back(claims: FromBothEnds, sources: list[AlignmentSource],
                           skip: bool) -> tuple[list[SourceRead], list[str]]:
    """The sources claimed from the back, read in the second process with a table of its own:
    their links in source order, and the table's strings."""
    table = SideTable()
    read = [_read_source(sources[index], table, skip) for index in claims.back()]
    read.reverse()
    return read, table.strings


def _rekeyed(block: KeyedLinks, keys_of_strings: np.ndarray) -> KeyedLinks:
    """The block with string keys of another table turned into keys of this one."""
    def rekey(keys: np.ndarray) -> np.ndarray:
        strings = (keys & STRING) != 0
        if not strings.any():
            return keys
        keys = keys.copy()
        keys[strings] = keys_of_strings[(keys[strings] & ~STRING).astype(np.int64)]
        return keys

    return KeyedLinks(block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                      rekey(block.from_keys), rekey(block.to_keys), block.from_texts,
                      block.to_texts)


def collect_links(sources: list[AlignmentSource], log: BadInputLog, progress: Progress,
                  workers: int = 2) -> LinkCollector:
    """The links of every source, added in source order; with `workers` over one, a forked
    process reads sources from the back of the list meanwhile, until the two meet, and the
    documents' sides are numbered on `workers` threads."""
    collector = LinkCollector()

    def add(source: AlignmentSource, read: SourceRead) -> None:
        links, skipped = read
        log.merge(skipped)
        if isinstance(links, InputError):
            log.report(links)
        else:
            collector.add_source(source, links)

    claims = FromBothEnds(len(sources))
    front = 0
    with Forked(_sources_from_the_back, claims, sources, log.skip,
                parallel=workers > 1 and len(sources) > 1) as second:
        for index in claims.front():
            progress.update(sources[index].path.name, index + 1, len(sources))
            add(sources[index], _read_source(sources[index], collector.table, log.skip))
            front = index + 1
        progress.update("waiting for the second reading process", front, len(sources))
        read, strings = second.result()
    keys_of_strings = collector.table.keys(strings)
    for source, (links, skipped) in zip(sources[front:], read):
        add(source, (links if isinstance(links, InputError)
                     else [_rekeyed(block, keys_of_strings) for block in links], skipped))
    collector.number_sides(workers)
    return collector
