"""The texts of the linked sentences, read from the release's documents (or the Moses lines that
linked them) document by document, from both ends of the list as the links are. A document's
texts, lists and tags are picked from its sentences as columns (:mod:`tapaco.core.text_column`):
no Python string per sentence."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import Forked, FromBothEnds
from tapaco.core.opus import Document, DocumentStore, preference
from tapaco.core.opus.sidekeys import SideTable
from tapaco.core.progress import Progress
from tapaco.core.text_column import TextColumn
from tapaco.read.links import LinkCollector, LinkedDocument, ReadCounts


@dataclass
class DocumentTexts:
    """The texts of a document's sides, their lists and tags, and whether each side was
    found."""

    texts: TextColumn
    lists: TextColumn
    tags: TextColumn
    valid: np.ndarray

    @classmethod
    def empty(cls, size: int) -> DocumentTexts:
        empty = TextColumn(np.zeros(size + 1, np.int64), np.zeros(0, np.uint8))
        return cls(empty, empty, empty, np.zeros(size, bool))

    def fill(self, rows: list[int], values: list[tuple[str, str, str]]) -> None:
        """Set the text, lists and tags of `rows` (not picked from the document)."""
        if rows:
            texts, lists, tags = zip(*values)
            self.texts = self.texts.with_rows(rows, texts)
            self.lists = self.lists.with_rows(rows, lists)
            self.tags = self.tags.with_rows(rows, tags)


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
        """Index of each key's sentence, -1 where no sentence has it (the keys are looked up
        in increasing order: a search in order walks the sentences' keys once)."""
        order = np.argsort(keys)
        at = np.empty(len(keys), np.int64)
        at[order] = np.searchsorted(self.ordered, keys[order], side="right") - 1
        found = at >= 0
        found[found] = self.ordered[at[found]] == keys[found]
        at[~found] = -1
        if self.order is not None:
            at[found] = self.order[at[found]]
        return at


def _document_texts(document: LinkedDocument, store: DocumentStore, table: SideTable,
                    log: BadInputLog, counts: ReadCounts) -> DocumentTexts:
    """Texts of the document's sides: from the document where one exists, else (per side)
    from the Moses line that linked it."""
    sides = document.sides
    try:
        found = store.find(document.name)
    except InputError as error:
        log.report(error)
        return DocumentTexts.empty(len(sides))
    if found is None:
        return _moses_texts(document, store, log)
    counts.documents += 1
    counts.document_sentences += len(found.sentences)
    sentences = found.sentences
    index = SentenceIndex(found.keys(table))
    positions = index.positions(sides)
    result = DocumentTexts(sentences.texts.take(positions), sentences.lists.take(positions),
                           sentences.tags.take(positions), np.ones(len(sides), bool))
    unfound = np.flatnonzero(positions < 0).tolist()
    result.fill(unfound, [_multi_id_side(result, number, table.text(sides[number]), index, found,
                                         document.moses_texts.get(int(sides[number])), table,
                                         log, counts)
                          for number in unfound])
    return result


def _moses_texts(document: LinkedDocument, store: DocumentStore,
                 log: BadInputLog) -> DocumentTexts:
    """Texts of a document no file holds: the Moses lines; a missing document otherwise."""
    result = DocumentTexts.empty(len(document.sides))
    known = document.moses_texts
    sides = document.sides.tolist()
    rows = [number for number, side in enumerate(sides) if side in known]
    result.valid[rows] = True
    result.fill(rows, [(known[sides[row]], "", "") for row in rows])
    if not result.valid.all():
        log.report(store.missing(document.name))
    return result


def _multi_id_side(result: DocumentTexts, number: int, side: str, index: SentenceIndex,
                   found: Document, moses_text: str | None, table: SideTable, log: BadInputLog,
                   counts: ReadCounts) -> tuple[str, str, str]:
    """The text, lists and tags of row `number`, a side of several ids; for an id not in the
    document, the side's Moses line, or nothing and the row marked invalid."""
    ids = side.split()
    indexes = index.positions(table.keys(ids)).tolist()
    sentences = found.sentences
    if -1 in indexes:
        if moses_text is not None:
            return moses_text, "", ""
        missing = ids[indexes.index(-1)]
        log.report(InputError(found.ref, f"sentence id {missing!r} is linked by an alignment "
                              "but is not in this document", kind="unknown sentence id"))
        result.valid[number] = False
        indexes = []
    counts.multi_id_sides += len(indexes) > 1
    rows = np.array(indexes, np.int64)
    return (" ".join(filter(None, sentences.texts.strings(rows))),
            _joined(sentences.lists.strings(rows), ";"), _joined(sentences.tags.strings(rows), ";"))


def _texts_of(documents: list[LinkedDocument], claimed: Iterable[int], opus_dir: Path,
              folder: str, table: SideTable, log: BadInputLog, counts: ReadCounts,
              progress: Progress) -> list[DocumentTexts]:
    """The texts of the claimed documents (increasing indexes), in that order."""
    with DocumentStore(opus_dir, preference(folder),
                       bad_sentence=log.report if log.skip else None) as store:
        parts = []
        for index in claimed:
            progress.update(documents[index].name, index + 1, len(documents))
            parts.append(_document_texts(documents[index], store, table, log, counts))
    return parts


def _texts_from_the_back(claims: FromBothEnds, documents: list[LinkedDocument], opus_dir: Path,
                         folder: str, table: SideTable, skip: bool
                         ) -> tuple[list[DocumentTexts], ReadCounts, list[BadInputLog]]:
    """The documents claimed from the back, read in the second process: their texts in
    document order, its counts and each document's log (in document order, those with
    entries)."""
    counts, read = ReadCounts(), []
    current = [BadInputLog(skip)]
    with DocumentStore(opus_dir, preference(folder),
                       bad_sentence=(lambda error: current[0].report(error)) if skip else None
                       ) as store:
        for index in claims.back():
            current[0] = BadInputLog(skip)
            read.append((_document_texts(documents[index], store, table, current[0], counts),
                         current[0]))
    read.reverse()
    return ([part for part, _ in read], counts,
            [log for _, log in read if log.total])


def read_documents(collector: LinkCollector, opus_dir: Path, folder: str, log: BadInputLog,
                   progress: Progress, parallel: bool = True) -> list[DocumentTexts]:
    """The texts of every document's sides; a forked process reads documents from the back of
    the list meanwhile, until the two meet."""
    documents = collector.documents
    counts = collector.counts
    claims = FromBothEnds(len(documents))
    with Forked(_texts_from_the_back, claims, documents, opus_dir, folder, collector.table,
                log.skip, parallel=parallel and len(documents) > 1) as second:
        parts = _texts_of(documents, claims.front(), opus_dir, folder, collector.table, log,
                          counts, progress)
        progress.update("waiting for the second reading process", len(parts), len(documents))
        second_parts, second_counts, second_logs = second.result()
    for name in ("documents", "document_sentences", "multi_id_sides"):
        setattr(counts, name, getattr(counts, name) + getattr(second_counts, name))
    for document_log in second_logs:
        log.merge(document_log)
    return parts + second_parts
