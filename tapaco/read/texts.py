"""The texts of the linked sentences, read from the release's documents (or the Moses lines that
linked them) document by document, from both ends of the list as the links are; each text
hashed as it is read by the caller's hasher, if given one."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import Forked, FromBothEnds, JoinedTexts
from tapaco.core.opus import Document, DocumentStore, preference
from tapaco.core.opus.documents import TextHasher
from tapaco.core.opus.sidekeys import SideTable
from tapaco.core.progress import Progress
from tapaco.read.links import LinkCollector, LinkedDocument, ReadCounts


@dataclass
class TextHashes:
    """Each text's hash by the caller's hasher (none: every hash 0), and the hash of ""."""

    def __init__(self, hasher: TextHasher | None) -> None:
        self.hasher = hasher
        self.empty = int(hasher.texts([""])[0]) if hasher is not None else 0

    def of(self, texts: list[str]) -> np.ndarray:
        return self.hasher.texts(texts) if self.hasher is not None else np.zeros(len(texts),
                                                                                   np.int64)


@dataclass
class DocumentTexts:
    """The texts of a document's sides, their lists and tags by row where not empty, whether
    each side was found, and the texts' hashes."""

    texts: list[str]
    lists: dict[int, str]
    tags: dict[int, str]
    valid: np.ndarray
    hashes: np.ndarray

    @classmethod
    def empty(cls, size: int, hashing: TextHashes) -> DocumentTexts:
        return cls([""] * size, {}, {}, np.zeros(size, bool),
                   np.full(size, hashing.empty, np.int64))

    def rehash(self, rows: list[int], hashing: TextHashes) -> None:
        """Hash again the texts of `rows` (filled after picking)."""
        if rows:
            self.hashes[rows] = hashing.of([self.texts[row] for row in rows])


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


def _document_texts(document: LinkedDocument, store: DocumentStore, table: SideTable,
                    log: BadInputLog, counts: ReadCounts, hashing: TextHashes) -> DocumentTexts:
    """Texts of the document's sides: from the document where one exists, else (per side)
    from the Moses line that linked it."""
    sides = document.sides
    try:
        found = store.find(document.name)
    except InputError as error:
        log.report(error)
        return DocumentTexts.empty(len(sides), hashing)
    if found is None:
        return _moses_texts(document, store, log, hashing)
    counts.documents += 1
    counts.document_sentences += len(found.sentences)
    sentences = found.sentences
    index = SentenceIndex(found.keys(table))
    positions = index.positions(sides)
    indexes = positions.tolist()
    result = DocumentTexts(_picked_values(sentences.texts, indexes),
                           _picked_nonempty(sentences.lists, positions),
                           _picked_nonempty(sentences.tags, positions),
                           np.ones(len(sides), bool),
                           _picked_hashes(sentences.hashes, positions, hashing.empty))
    unfound = np.flatnonzero(positions < 0).tolist()
    for number in unfound:
        _multi_id_side(result, number, table.text(sides[number]), index, found,
                       document.moses_texts.get(int(sides[number])), table, log, counts)
    result.rehash(unfound, hashing)
    return result


def _picked_nonempty(values: list[str], positions: np.ndarray) -> dict[int, str]:
    """values[p] by row for each position p (not -1) whose value is not empty."""
    if not any(values):
        return {}
    nonempty = np.fromiter(map(bool, values), bool, len(values))
    rows = np.flatnonzero(positions >= 0)
    rows = rows[nonempty[positions[rows]]]
    return dict(zip(rows.tolist(), map(values.__getitem__, positions[rows].tolist())))


def _picked_hashes(hashes: np.ndarray | None, positions: np.ndarray, empty: int) -> np.ndarray:
    """hashes[p] for each position, `empty` (the hash of "") where it is -1 (the caller fills
    those) or where the texts were not hashed."""
    picked = np.full(len(positions), empty, np.int64)
    if hashes is not None:
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


def _moses_texts(document: LinkedDocument, store: DocumentStore, log: BadInputLog,
                 hashing: TextHashes) -> DocumentTexts:
    """Texts of a document no file holds: the Moses lines; a missing document otherwise."""
    result = DocumentTexts.empty(len(document.sides), hashing)
    known = document.moses_texts
    for number, side in enumerate(document.sides.tolist()):
        if side in known:
            result.texts[number] = known[side]
            result.valid[number] = True
    result.rehash(np.flatnonzero(result.valid).tolist(), hashing)
    if not result.valid.all():
        log.report(store.missing(document.name))
    return result


def _multi_id_side(result: DocumentTexts, number: int, side: str, index: SentenceIndex,
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
    result.texts[number] = " ".join(filter(None, (sentences.texts[i] for i in indexes)))
    for values, found_values in ((result.lists, sentences.lists), (result.tags, sentences.tags)):
        joined = _joined([found_values[i] for i in indexes], ";")
        if joined:
            values[number] = joined


@dataclass
class PackedTexts:
    """A document's texts for the pipe between processes (one joined string, not one object
    per sentence), its lists and tags by row where not empty."""

    texts: JoinedTexts
    lists: dict[int, str]
    tags: dict[int, str]
    valid: np.ndarray
    hashes: np.ndarray

    @classmethod
    def of(cls, part: DocumentTexts) -> PackedTexts:
        return cls(JoinedTexts(part.texts), part.lists, part.tags, part.valid, part.hashes)

    def unpacked(self) -> DocumentTexts:
        return DocumentTexts(list(self.texts), self.lists, self.tags, self.valid, self.hashes)


def _texts_of(documents: list[LinkedDocument], claimed: Iterable[int], opus_dir: Path,
              folder: str, table: SideTable, log: BadInputLog, counts: ReadCounts,
              progress: Progress, hasher: TextHasher | None) -> list[DocumentTexts]:
    """The texts of the claimed documents (increasing indexes), in that order."""
    hashing = TextHashes(hasher)
    with DocumentStore(opus_dir, preference(folder), hasher=hasher,
                       bad_sentence=log.report if log.skip else None) as store:
        parts = []
        for index in claimed:
            progress.update(documents[index].name, index + 1, len(documents))
            parts.append(_document_texts(documents[index], store, table, log, counts, hashing))
    return parts


def _texts_from_the_back(claims: FromBothEnds, documents: list[LinkedDocument], opus_dir: Path,
                         folder: str, table: SideTable, skip: bool, hasher: TextHasher | None
                         ) -> tuple[list[PackedTexts], ReadCounts, list[BadInputLog]]:
    """The documents claimed from the back, read in the second process: their texts packed in
    document order, its counts and each document's log (in document order, those with
    entries)."""
    counts, read = ReadCounts(), []
    current = [BadInputLog(skip)]
    hashing = TextHashes(hasher)
    with DocumentStore(opus_dir, preference(folder), hasher=hasher,
                       bad_sentence=(lambda error: current[0].report(error)) if skip else None
                       ) as store:
        for index in claims.back():
            current[0] = BadInputLog(skip)
            read.append((_document_texts(documents[index], store, table, current[0], counts,
                                         hashing), current[0]))
    read.reverse()
    return ([PackedTexts.of(part) for part, _ in read], counts,
            [log for _, log in read if log.total])


def read_documents(collector: LinkCollector, opus_dir: Path, folder: str, log: BadInputLog,
                   progress: Progress, hasher: TextHasher | None = None,
                   parallel: bool = True) -> list[DocumentTexts]:
    """The texts of every document's sides (hashed by `hasher`, if given); a forked process
    reads documents from the back of the list meanwhile, until the two meet."""
    documents = collector.documents
    counts = collector.counts
    claims = FromBothEnds(len(documents))
    with Forked(_texts_from_the_back, claims, documents, opus_dir, folder, collector.table,
                log.skip, hasher, parallel=parallel and len(documents) > 1) as second:
        parts = _texts_of(documents, claims.front(), opus_dir, folder, collector.table, log,
                          counts, progress, hasher)
        progress.update("waiting for the second reading process", len(parts), len(documents))
        packed, second_counts, second_logs = second.result()
    for name in ("documents", "document_sentences", "multi_id_sides"):
        setattr(counts, name, getattr(counts, name) + getattr(second_counts, name))
    for document_log in second_logs:
        log.merge(document_log)
    return parts + [part.unpacked() for part in packed]
