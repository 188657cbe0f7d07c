"""Read an OPUS release into link-side vertices, alignment edges and sentence texts.

Every link side (language, document, OPUS ids) becomes one vertex; its text is the document
sentences of those ids joined by a space, or, for a side whose document no file holds (a Moses
bitext without documents), the Moses line that linked it. Sides are integer keys
(:mod:`tapaco.core.opus.sidekeys`); vertices are numbered per document in order of first
appearance (`pd.factorize` of the document's side keys), then laid out document after document,
so ids are compact int32 arrays.

The alignment files, then the documents, are read from both ends of their list: this process
from the front, a forked one from the back, until the two meet (:mod:`tapaco.core.forked`).
Results are merged in list order alone, so the corpus, the errors raised and the skipped-input
log are the same whoever read what.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from pathlib import Path

import numpy as np
import pandas as pd

from tapaco.core.arrays import SparseStrings, taken
from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import Forked, FromBothEnds, JoinedTexts
from tapaco.core.opus import (
    AlignmentSource,
    Document,
    DocumentStore,
    find_alignment_sources,
    preference,
)
from tapaco.core.opus.links import KeyedLinks
from tapaco.core.opus.sidekeys import EMPTY, STRING, SideColumn, SideTable
from tapaco.core.progress import Progress
from tapaco.normalize import SurfaceHasher, SurfaceHashes, empty_key_hash, surface_hashes

INTRA, INTER = 0, 1


@dataclass
class ReadCounts:
    alignment_sources: int = 0
    intra_lingual_sources: int = 0
    links: int = 0
    links_with_empty_side: int = 0
    links_to_unknown_sentences: int = 0
    multi_id_sides: int = 0
    documents: int = 0
    document_sentences: int = 0


@dataclass
class _Document:
    """A document's link sides: while reading, each block's side keys (`parts`); after
    :meth:`_LinkCollector.number_sides`, its distinct sides (`sides`, in order of first use)
    and each part's codes into them."""

    name: str
    lang: int
    parts: list[np.ndarray] = field(default_factory=list)
    moses_texts: dict[int, str] = field(default_factory=dict)
    sides: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    part_codes: list[np.ndarray] = field(default_factory=list)


@dataclass
class Corpus:
    """Vertices (link sides) with their texts, and the alignment edges between them.

    `edges` is an (m, 2) int32 array of vertex ids, `edge_kind` says INTRA or INTER for each.
    `sides` reads as strings (a :class:`SideColumn` when read from OPUS).
    """

    languages: list[str]
    documents: list[str]
    document_lang: np.ndarray
    vertex_lang: np.ndarray
    vertex_doc: np.ndarray
    sides: Sequence[str]
    texts: list[str]
    lists: SparseStrings
    tags: SparseStrings
    edges: np.ndarray
    edge_kind: np.ndarray
    counts: ReadCounts
    surface: SurfaceHashes | None = None  # the texts' surface keys, hashed while reading

    @property
    def vertex_count(self) -> int:
        return len(self.sides)


class _LinkCollector:
    """Collects the links' side keys per document, then numbers each document's sides."""

    def __init__(self) -> None:
        self.table = SideTable()
        self.languages: dict[str, int] = {}
        self.index: dict[str, int] = {}
        self.documents: list[_Document] = []
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
            block = _picked(block, ~empty)
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
            self.documents.append(_Document(name, lang_id))
        document = self.documents[self.index[name]]
        document.parts.append(keys)
        if texts is not None:
            known = document.moses_texts
            known.update((k, t) for k, t in zip(keys.tolist(), texts, strict=True)
                         if k not in known)
        return self.index[name], len(document.parts) - 1

    def number_sides(self) -> None:
        """Each document's distinct sides in order of first use, and the links' codes."""
        for document in self.documents:
            keys = np.concatenate(document.parts) if document.parts else np.zeros(0, np.uint64)
            codes, document.sides = pd.factorize(keys)
            bounds = np.cumsum([len(part) for part in document.parts])[:-1]
            document.part_codes = np.split(codes.astype(np.int32), bounds)
            document.parts = []


def _picked(block: KeyedLinks, keep: np.ndarray) -> KeyedLinks:
    def pick(values: list[str] | None) -> list[str] | None:
        return None if values is None else [v for v, k in zip(values, keep.tolist()) if k]

    return KeyedLinks(block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                      block.from_keys[keep], block.to_keys[keep], pick(block.from_texts),
                      pick(block.to_texts))


def _read_source(source: AlignmentSource, table: SideTable) -> list[KeyedLinks] | InputError:
    """The source's links, or the error that stopped its reading."""
    try:
        return list(source.keyed_blocks(table))
    except InputError as error:
        return error


def _sources_from_the_back(claims: FromBothEnds,
                          sources: list[AlignmentSource]) -> tuple[list, list[str]]:
    """The sources claimed from the back, read in the second process with a table of its own:
    their links in source order, and the table's strings."""
    table = SideTable()
    read = [_read_source(sources[index], table) for index in claims.back()]
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


def _collect_links(sources: list[AlignmentSource], log: BadInputLog, progress: Progress,
                   parallel: bool = True) -> _LinkCollector:
    """The links of every source, added in source order; a forked process reads sources from
    the back of the list meanwhile, until the two meet."""
    collector = _LinkCollector()

    def add(source: AlignmentSource, read: list[KeyedLinks] | InputError) -> None:
        if isinstance(read, InputError):
            log.report(read)
        else:
            collector.add_source(source, read)

    claims = FromBothEnds(len(sources))
    front = 0
    with Forked(_sources_from_the_back, claims, sources,
                parallel=parallel and len(sources) > 1) as second:
        for index in claims.front():
            progress.update(sources[index].path.name, index + 1, len(sources))
            add(sources[index], _read_source(sources[index], collector.table))
            front = index + 1
        progress.update("waiting for the second reading process", front, len(sources))
        read, strings = second.result()
    keys_of_strings = collector.table.keys(strings)
    for source, links in zip(sources[front:], read):
        add(source, links if isinstance(links, InputError)
            else [_rekeyed(block, keys_of_strings) for block in links])
    collector.number_sides()
    return collector


@dataclass
class _DocumentTexts:
    """The texts of a document's sides, their lists and tags by row where not empty, whether
    each side was found, and the hashes of the texts' surface keys."""

    texts: list[str]
    lists: dict[int, str]
    tags: dict[int, str]
    valid: np.ndarray
    surface: np.ndarray

    @classmethod
    def empty(cls, size: int) -> _DocumentTexts:
        return cls([""] * size, {}, {}, np.zeros(size, bool),
                   np.full(size, empty_key_hash(), np.int64))

    def rehash(self, rows: list[int]) -> None:
        """Hash again the surface keys of the texts of `rows` (filled after picking)."""
        if rows:
            self.surface[rows] = surface_hashes([self.texts[row] for row in rows])


def _joined(values: list[str], separator: str) -> str:
    return separator.join(dict.fromkeys(value for value in values if value))


class SentenceIndex:
    """Finds sentences of a document by key (the last one, if an id repeats)."""

    def __init__(self, sentence_keys: np.ndarray) -> None:
        if len(sentence_keys) < 2 or (sentence_keys[1:] > sentence_keys[:-1]).all():
            self.order, self.ordered = None, sentence_keys
        else:
            self.order = np.argsort(sentence_keys, kind="stable")
            self.ordered = sentence_keys[self.order]

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Index of each key's sentence, -1 where no sentence has it."""
        at = np.searchsorted(self.ordered, keys, side="right") - 1
        found = at >= 0
        found[found] = self.ordered[at[found]] == keys[found]
        at[~found] = -1
        if self.order is not None:
            at[found] = self.order[at[found]]
        return at


def _document_texts(document: _Document, store: DocumentStore, table: SideTable,
                    log: BadInputLog, counts: ReadCounts) -> _DocumentTexts:
    """Texts of the document's sides: from the document where one exists, else (per side)
    from the Moses line that linked it."""
    sides = document.sides
    try:
        found = store.find(document.name)
    except InputError as error:
        log.report(error)
        return _DocumentTexts.empty(len(sides))
    if found is None:
        return _moses_texts(document, store, log)
    counts.documents += 1
    counts.document_sentences += len(found.sentences)
    sentences = found.sentences
    index = SentenceIndex(found.keys(table))
    positions = index.positions(sides)
    indexes = positions.tolist()
    result = _DocumentTexts(_picked_values(sentences.texts, indexes),
                            _picked_nonempty(sentences.lists, positions),
                            _picked_nonempty(sentences.tags, positions),
                            np.ones(len(sides), bool), _picked_hashes(sentences.hashes, positions))
    unfound = np.flatnonzero(positions < 0).tolist()
    for number in unfound:
        _multi_id_side(result, number, table.text(sides[number]), index, found,
                       document.moses_texts.get(int(sides[number])), table, log, counts)
    result.rehash(unfound)
    return result


def _picked_nonempty(values: list[str], positions: np.ndarray) -> dict[int, str]:
    """values[p] by row for each position p (not -1) whose value is not empty."""
    if not any(values):
        return {}
    nonempty = np.fromiter(map(bool, values), bool, len(values))
    rows = np.flatnonzero(positions >= 0)
    rows = rows[nonempty[positions[rows]]]
    return dict(zip(rows.tolist(), map(values.__getitem__, positions[rows].tolist())))


def _picked_hashes(hashes: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """hashes[p] for each position, the hash of "" where it is -1 (the caller fills those)."""
    picked = np.full(len(positions), empty_key_hash(), np.int64)
    found = positions >= 0
    picked[found] = hashes[positions[found]]
    return picked


def _picked_values(values: list[str], indexes: list[int]) -> list[str]:
    """values[i] for each index (-1: the last value, or "" if there is none; the caller
    fills those rows)."""
    if not indexes:
        return []
    if not values or not any(values):
        return [""] * len(indexes)
    picked = itemgetter(*indexes)(values)
    return list(picked) if len(indexes) > 1 else [picked]


def _moses_texts(document: _Document, store: DocumentStore, log: BadInputLog) -> _DocumentTexts:
    """Texts of a document no file holds: the Moses lines; a missing document otherwise."""
    result = _DocumentTexts.empty(len(document.sides))
    known = document.moses_texts
    for number, side in enumerate(document.sides.tolist()):
        if side in known:
            result.texts[number] = known[side]
            result.valid[number] = True
    result.rehash(np.flatnonzero(result.valid).tolist())
    if not result.valid.all():
        log.report(store.missing(document.name))
    return result


def _multi_id_side(result: _DocumentTexts, number: int, side: str, index: SentenceIndex,
                   found: Document, moses_text: str | None, table: SideTable, log: BadInputLog,
                   counts: ReadCounts) -> None:
    """Fill row `number` for a side of several ids; for an id not in the document, the side's
    Moses line, or mark it invalid."""
    ids = side.split()
    indexes = index.positions(table.keys(ids)).tolist()
    sentences = found.sentences
    if -1 in indexes:
        if moses_text is not None:
            result.texts[number] = moses_text
            return
        missing = ids[indexes.index(-1)]
        log.report(InputError(found.ref, f"sentence id {missing!r} is linked by an alignment "
                              "but is not in this document", kind="unknown sentence id"))
        result.valid[number] = False
        indexes = []
    counts.multi_id_sides += len(indexes) > 1
    result.texts[number] = " ".join(sentences.texts[i] for i in indexes)
    for values, found_values in ((result.lists, sentences.lists), (result.tags, sentences.tags)):
        joined = _joined([found_values[i] for i in indexes], ";")
        if joined:
            values[number] = joined


def _edges(collector: _LinkCollector, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    parts = collector.links
    if not parts:
        return np.zeros((0, 2), np.int32), np.zeros(0, np.int8)
    documents = collector.documents
    sources = np.concatenate([offsets[f] + documents[f].part_codes[p] for f, p, _, _, _ in parts])
    targets = np.concatenate([offsets[t] + documents[t].part_codes[p] for _, _, t, p, _ in parts])
    kinds = np.concatenate([np.full(len(documents[f].part_codes[p]), k, np.int8)
                            for f, p, _, _, k in parts])
    edges = np.empty((len(sources), 2), np.int32)
    edges[:, 0], edges[:, 1] = sources, targets
    return edges, kinds


@dataclass
class _Packed:
    """A document's texts for the pipe between processes (one joined string, not one object
    per sentence), its lists and tags by row where not empty."""

    texts: JoinedTexts
    lists: dict[int, str]
    tags: dict[int, str]
    valid: np.ndarray
    surface: np.ndarray

    @classmethod
    def of(cls, part: _DocumentTexts) -> _Packed:
        return cls(JoinedTexts(part.texts), part.lists, part.tags, part.valid, part.surface)

    def unpacked(self) -> _DocumentTexts:
        return _DocumentTexts(list(self.texts), self.lists, self.tags, self.valid, self.surface)


def _texts_of(documents: list[_Document], claimed: Iterable[int], opus_dir: Path, folder: str,
              table: SideTable, log: BadInputLog, counts: ReadCounts,
              progress: Progress) -> list[_DocumentTexts]:
    """The texts of the claimed documents (increasing indexes), in that order."""
    with DocumentStore(opus_dir, preference(folder), hasher=SurfaceHasher(),
                       bad_sentence=log.report if log.skip else None) as store:
        parts = []
        for index in claimed:
            progress.update(documents[index].name, index + 1, len(documents))
            parts.append(_document_texts(documents[index], store, table, log, counts))
    return parts


def _surface_of(parts: list[_DocumentTexts]) -> SurfaceHashes:
    starts = np.cumsum([0, *(len(part.texts) for part in parts)]).tolist()

    def text_at(row: int) -> str:
        number = bisect_right(starts, row) - 1
        return parts[number].texts[row - starts[number]]

    hashes = (np.concatenate([part.surface for part in parts]) if parts
              else np.zeros(0, np.int64))
    return SurfaceHashes.of_hashes(hashes, text_at)


def _texts_from_the_back(claims: FromBothEnds, documents: list[_Document], opus_dir: Path,
                         folder: str, table: SideTable, skip: bool
                         ) -> tuple[list[_Packed], SurfaceHashes, ReadCounts, list[BadInputLog]]:
    """The documents claimed from the back, read in the second process: their texts packed in
    document order, their surface hashes, its counts and each document's log (in document
    order, those with entries)."""
    counts, read = ReadCounts(), []
    current = [BadInputLog(skip)]
    with DocumentStore(opus_dir, preference(folder), hasher=SurfaceHasher(),
                       bad_sentence=(lambda error: current[0].report(error)) if skip else None
                       ) as store:
        for index in claims.back():
            current[0] = BadInputLog(skip)
            read.append((_document_texts(documents[index], store, table, current[0], counts),
                         current[0]))
    read.reverse()
    parts = [part for part, _ in read]
    return ([_Packed.of(part) for part in parts], _surface_of(parts), counts,
            [log for _, log in read if log.total])


def _read_documents(collector: _LinkCollector, opus_dir: Path, folder: str, log: BadInputLog,
                    progress: Progress,
                    parallel: bool = True) -> tuple[list[_DocumentTexts], SurfaceHashes]:
    """The texts of every document's sides and their surface hashes; a forked process reads
    documents from the back of the list meanwhile, until the two meet."""
    documents = collector.documents
    counts = collector.counts
    claims = FromBothEnds(len(documents))
    with Forked(_texts_from_the_back, claims, documents, opus_dir, folder, collector.table,
                log.skip, parallel=parallel and len(documents) > 1) as second:
        parts = _texts_of(documents, claims.front(), opus_dir, folder, collector.table, log,
                          counts, progress)
        surface = _surface_of(parts)
        progress.update("waiting for the second reading process", len(parts), len(documents))
        packed, second_surface, second_counts, second_logs = second.result()
    for name in ("documents", "document_sentences", "multi_id_sides"):
        setattr(counts, name, getattr(counts, name) + getattr(second_counts, name))
    for document_log in second_logs:
        log.merge(document_log)
    return (parts + [part.unpacked() for part in packed],
            SurfaceHashes.concatenate([surface, second_surface]))


def read_corpus(opus_dir: Path, log: BadInputLog, progress: Progress,
                documents: str = "raw", parallel: bool = True) -> Corpus:
    """Read every alignment of the release and the texts of every linked sentence.

    `documents` (`raw` or `xml`) is the folder of sentence documents searched first.
    `parallel`: a forked process reads alignments, then documents, from the back of their lists
    while this one reads from the front (where the system can fork and two cores are free);
    the corpus is the same.
    """
    sources = find_alignment_sources(opus_dir)
    with progress.stage("read alignments"):
        collector = _collect_links(sources, log, progress, parallel)
    with progress.stage("read documents"):
        parts, surface = _read_documents(collector, opus_dir, documents, log, progress,
                                         parallel)
        return _assemble(collector, parts, surface)


def _assemble(collector: _LinkCollector, parts: list[_DocumentTexts],
              surface: SurfaceHashes) -> Corpus:
    documents = collector.documents
    sizes = np.array([len(document.sides) for document in documents], np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    edges, kinds = _edges(collector, offsets)
    vertex_doc = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    doc_lang = np.array([document.lang for document in collector.documents], np.int32)
    valid = np.concatenate([part.valid for part in parts]) if parts else np.ones(0, bool)
    keep_edge = valid[edges[:, 0]] & valid[edges[:, 1]] if len(edges) else np.ones(0, bool)
    collector.counts.links_to_unknown_sentences = int((~keep_edge).sum())
    if not valid.all():
        edges = (np.cumsum(valid) - 1)[edges[keep_edge]].astype(np.int32)
    pick = np.flatnonzero(valid)

    texts = list(chain.from_iterable(part.texts for part in parts))
    if len(pick) < len(texts):
        texts = taken(texts, pick)

    def sparse(name: str) -> SparseStrings:
        column = SparseStrings.of_parts([getattr(part, name) for part in parts], sizes.tolist())
        return column if len(pick) == len(valid) else column.kept(valid)

    keys = (np.concatenate([document.sides for document in documents]) if documents
            else np.zeros(0, np.uint64))
    return Corpus(
        languages=list(collector.languages), documents=[d.name for d in collector.documents],
        document_lang=doc_lang, vertex_lang=doc_lang[vertex_doc][pick], vertex_doc=vertex_doc[pick],
        sides=SideColumn(keys if len(pick) == len(keys) else keys[pick], collector.table),
        texts=texts, lists=sparse("lists"), tags=sparse("tags"),
        edges=edges.reshape(-1, 2), edge_kind=kinds[keep_edge], counts=collector.counts,
        surface=surface if len(pick) == len(valid) else surface.take(pick),
    )
