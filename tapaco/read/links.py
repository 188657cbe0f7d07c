"""The alignment files of a release read into link sides, document by document: `workers`
threads read the files (decompressing and scanning without the GIL), and this thread takes
their links in file order, numbering each document's sides as they come."""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from contextlib import closing
from dataclasses import dataclass, field

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import map_on_threads
from tapaco.core.hashing import first_occurrences
from tapaco.core.interruptible import MOMENT, in_background
from tapaco.core.opus import AlignmentSource
from tapaco.core.opus.links import KeyedLinks
from tapaco.core.opus.sidekeys import EMPTY, SideTable
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
        documents on `workers` threads, biggest first)."""
        def number(document: LinkedDocument) -> None:
            keys = np.concatenate(document.parts) if document.parts else np.zeros(0, np.uint64)
            codes, firsts = in_background(first_occurrences, keys, size=len(keys))
            document.sides = keys[firsts]
            bounds = np.cumsum([len(part) for part in document.parts])[:-1]
            document.part_codes = np.split(codes.astype(np.int32), bounds)
            document.parts = []

        biggest_first = sorted(self.documents, key=lambda document: -sum(map(len, document.parts)))
        map_on_threads(number, biggest_first, workers)


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


AHEAD_BYTES = 64 << 20  # input read ahead of the source taken: ~1.1x that in link keys


def _input_bytes(source: AlignmentSource) -> int:
    """What a source weighs in the reading ahead: its file's size (a folder: a share of it)."""
    try:
        return source.path.stat().st_size if source.path.is_file() else AHEAD_BYTES >> 3
    except OSError:
        return 0  # (reading it reports why)


class _ReadAhead:
    """The sources read by `workers` daemon threads, each taking the next source left while the
    sources read ahead of the one taken here (:meth:`results`, in source order) hold under
    `ahead` bytes of input: a large file read by one thread lets the other read on past it.
    A thread is never waited for: one blocked on a file that never ends (a named pipe) does not
    keep an interrupted or failed command from ending."""

    def __init__(self, sources: list[AlignmentSource], table: SideTable, skip: bool,
                 workers: int, ahead: int) -> None:
        self.sources, self.table, self.skip = sources, table, skip
        self.done = [threading.Event() for _ in sources]
        self.outcomes: list[tuple[bool, object] | None] = [None] * len(sources)
        self.sizes = [_input_bytes(source) for source in sources]
        self.room = threading.Condition()
        self.claimed = self.waiting = 0  # sources claimed; bytes of those not yet taken
        self.ahead = ahead
        self.stopped = False
        for _ in range(workers):
            threading.Thread(target=self._read, name="alignments", daemon=True).start()

    def _claim(self) -> int | None:
        with self.room:
            self.room.wait_for(lambda: self.stopped or self.waiting < self.ahead)
            if self.stopped or self.claimed == len(self.sources):
                return None
            index, self.claimed = self.claimed, self.claimed + 1
            self.waiting += self.sizes[index]
            return index

    def _read(self) -> None:
        while (index := self._claim()) is not None:
            try:
                self.outcomes[index] = (True, _read_source(self.sources[index], self.table,
                                                           self.skip))
            except BaseException as error:  # noqa: BLE001 - raised again in the caller
                self.outcomes[index] = (False, error)
            self.done[index].set()

    def results(self) -> Iterator[SourceRead]:
        """Each source's reading, in source order."""
        for index, done in enumerate(self.done):
            while not done.wait(MOMENT):  # a signal's handler runs between two waits
                pass
            read, self.outcomes[index] = self.outcomes[index], None
            with self.room:
                self.waiting -= self.sizes[index]
                self.room.notify_all()
            ok, value = read
            if not ok:
                raise value
            yield value

    def stop(self) -> None:
        """Let the threads end once their source is read."""
        with self.room:
            self.stopped = True
            self.room.notify_all()


def _sources_read(sources: list[AlignmentSource], table: SideTable, skip: bool,
                  workers: int) -> Generator[SourceRead, None, None]:
    """What :func:`_read_source` gives of each source, in source order: read here, or by
    `workers` threads up to :data:`AHEAD_BYTES` of input ahead of the source taken."""
    if workers <= 1 or len(sources) <= 1:
        for source in sources:
            yield _read_source(source, table, skip)
        return
    reading = _ReadAhead(sources, table, skip, workers, AHEAD_BYTES)
    try:
        yield from reading.results()
    finally:
        reading.stop()


def collect_links(sources: list[AlignmentSource], log: BadInputLog, progress: Progress,
                  workers: int = 2) -> LinkCollector:
    """The links of every source, added in source order (sources read on `workers` threads),
    each document's sides numbered in order of first use."""
    collector = LinkCollector()
    with closing(_sources_read(sources, collector.table, log.skip, workers)) as read:
        for number, (source, (links, skipped)) in enumerate(zip(sources, read), 1):
            progress.update(source.path.name, number, len(sources))
            log.merge(skipped)
            if isinstance(links, InputError):
                log.report(links)
            else:
                collector.add_source(source, links)
    collector.number_sides(workers)
    return collector
