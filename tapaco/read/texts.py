"""The texts of the linked sentences, read from the release's documents (or the Moses lines that
linked them) document by document, biggest first, by two threads. A document's texts are picked
from its sentences as a column (:mod:`tapaco.core.text_column`): no Python string per sentence;
its sides' lists and tags stay row numbers into the few values its sentences have, read only
for the rows written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import InTurn, map_on_threads, usable_cores
from tapaco.core.opus import Document, DocumentStore, preference
from tapaco.core.opus.sidekeys import SideTable
from tapaco.core.progress import Progress
from tapaco.core.text_column import NO_TEXTS, TextColumn
from tapaco.read.links import LinkCollector, LinkedDocument, ReadCounts


@dataclass
class DocumentTexts:
    """The texts of a document's sides and whether each side was found; each side's lists and
    tags as a row of `lists` and `tags` (`attributes`, -1 for none), which hold the values of
    the document's sentences that have any (and of its sides of several ids)."""

    texts: TextColumn
    valid: np.ndarray
    attributes: np.ndarray
    lists: TextColumn
    tags: TextColumn

    @classmethod
    def of_texts(cls, texts: list[str], valid: np.ndarray) -> DocumentTexts:
        """Sides with these texts and no lists or tags."""
        return cls(TextColumn.of(texts), valid, np.full(len(texts), -1, np.int32), NO_TEXTS,
                   NO_TEXTS)


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


@dataclass
class _Unfound:
    """What the sides not found by their key read as: each one's text, lists and tags, and
    whether it is valid."""

    texts: list[str]
    lists: list[str]
    tags: list[str]
    valid: list[bool]


def _document_texts(document: LinkedDocument, store: DocumentStore, table: SideTable,
                    log: BadInputLog, counts: ReadCounts) -> DocumentTexts:
    """Texts of the document's sides: from the document where one exists, else (per side)
    from the Moses line that linked it."""
    sides = document.sides
    try:
        found = store.find(document.name)
    except InputError as error:
        log.report(error)
        return DocumentTexts.of_texts([""] * len(sides), np.zeros(len(sides), bool))
    if found is None:
        return _moses_texts(document, store, log)
    counts.documents += 1
    counts.document_sentences += len(found.sentences)
    sentences = found.sentences
    index = SentenceIndex(found.keys(table))
    positions = index.positions(sides)
    unfound_rows = np.flatnonzero(positions < 0)
    unfound = _unfound_sides(document, unfound_rows, index, found, table, log, counts)
    valid = np.ones(len(sides), bool)
    valid[unfound_rows] = unfound.valid
    with_values = np.flatnonzero(sentences.lists.nonempty() | sentences.tags.nonempty())
    attribute_of = np.full(len(sentences) + 1, -1, np.int32)  # [-1]: not found
    attribute_of[with_values] = np.arange(len(with_values), dtype=np.int32)
    attributes = attribute_of[positions]
    joined = [row for row, (lists, tags) in enumerate(zip(unfound.lists, unfound.tags))
              if lists or tags]
    attributes[unfound_rows[joined]] = len(with_values) + np.arange(len(joined), dtype=np.int32)
    positions[unfound_rows] = len(sentences) + np.arange(len(unfound_rows))
    picked = np.concatenate([with_values, len(sentences) + np.arange(len(joined))])
    lists, tags = (column.take(picked, TextColumn.of([values[row] for row in joined]))
                   for column, values in ((sentences.lists, unfound.lists),
                                          (sentences.tags, unfound.tags)))
    return DocumentTexts(sentences.texts.take(positions, TextColumn.of(unfound.texts)), valid,
                         attributes, lists, tags)


def _moses_texts(document: LinkedDocument, store: DocumentStore,
                 log: BadInputLog) -> DocumentTexts:
    """Texts of a document no file holds: the Moses lines; a missing document otherwise."""
    known = document.moses_texts
    sides = document.sides.tolist()
    valid = np.array([side in known for side in sides], bool)
    if not valid.all():
        log.report(store.missing(document.name))
    return DocumentTexts.of_texts([known.get(side, "") for side in sides], valid)


def _unfound_sides(document: LinkedDocument, rows: np.ndarray, index: SentenceIndex,
                   found: Document, table: SideTable, log: BadInputLog,
                   counts: ReadCounts) -> _Unfound:
    """The sides at `rows` of the document, which no sentence id is: a side of several ids
    joins their sentences' texts, lists and tags; for an id not in the document, the side's
    Moses line, or nothing and the side invalid."""
    side_ids = [table.text(side).split() for side in document.sides[rows].tolist()]
    at = index.positions(table.keys([one for ids in side_ids for one in ids]))
    sentences = found.sentences
    texts, lists, tags = (column.strings(at) for column in
                          (sentences.texts, sentences.lists, sentences.tags))
    unfound = _Unfound([], [], [], [])
    start = 0
    for side, ids in zip(document.sides[rows].tolist(), side_ids):
        picked = range(start, start + len(ids))
        start += len(ids)
        missing = [ids[k - picked.start] for k in picked if at[k] < 0]
        moses_text = document.moses_texts.get(side)
        if missing and moses_text is not None:
            _add(unfound, moses_text, "", "", True)
            continue
        if missing:
            log.report(InputError(found.ref, f"sentence id {missing[0]!r} is linked by an "
                                  "alignment but is not in this document",
                                  kind="unknown sentence id"))
            _add(unfound, "", "", "", False)
            continue
        counts.multi_id_sides += len(ids) > 1
        _add(unfound, " ".join(filter(None, (texts[k] for k in picked))),
             _joined([lists[k] for k in picked], ";"), _joined([tags[k] for k in picked], ";"),
             True)
    return unfound


def _add(unfound: _Unfound, text: str, lists: str, tags: str, valid: bool) -> None:
    unfound.texts.append(text)
    unfound.lists.append(lists)
    unfound.tags.append(tags)
    unfound.valid.append(valid)


@dataclass
class _Read:
    """What one reader read of the documents it claimed: each one's index, texts and log (in
    the order read), the counts, and its first input error by document order (reading
    strictly: the documents after it in that order are left unread)."""

    documents: list[tuple[int, DocumentTexts, BadInputLog]]
    counts: ReadCounts
    error: tuple[int, InputError] | None = None


def _read_claimed(turns: InTurn, documents: list[LinkedDocument], opus_dir: Path, folder: str,
                  table: SideTable, skip: bool, progress: Progress | None = None) -> _Read:
    """Read the documents this reader claims (each reading thread runs this)."""
    read = _Read([], ReadCounts())
    current = [BadInputLog(skip)]
    with DocumentStore(opus_dir, preference(folder), cache_size=1,  # each is read once
                       bad_sentence=(lambda error: current[0].report(error)) if skip else None
                       ) as store:
        for index in turns.claims():
            if read.error is not None and index > read.error[0]:
                continue  # (an earlier error is the one raised)
            if progress is not None:
                progress.update(documents[index].name, len(read.documents) + 1, len(documents))
            current[0] = BadInputLog(skip)
            try:
                part = _document_texts(documents[index], store, table, current[0], read.counts)
            except InputError as error:  # reading strictly
                read.error = (index, error)
                continue
            read.documents.append((index, part, current[0]))
    return read


def read_documents(collector: LinkCollector, opus_dir: Path, folder: str, log: BadInputLog,
                   progress: Progress, parallel: bool = True) -> list[DocumentTexts]:
    """The texts of every document's sides, in document order; with `parallel` (and two
    cores), read by two threads (the kernels, decompression and numpy release the GIL), each
    taking the biggest document (most sides) left. Each document's log is merged in document
    order, and, reading strictly, the error raised is the first by document order, as reading
    alone in that order finds it."""
    documents = collector.documents
    turns = InTurn(np.argsort([-len(document.sides) for document in documents],
                              kind="stable").tolist())
    readers = 2 if parallel and len(documents) > 1 and usable_cores() > 1 else 1
    reads = map_on_threads(
        lambda first: _read_claimed(turns, documents, opus_dir, folder, collector.table,
                                    log.skip, progress if first else None),
        [True, False][:readers], readers)
    errors = [read.error for read in reads if read.error is not None]
    if errors:
        raise min(errors, key=lambda found: found[0])[1]
    counts = collector.counts
    for name in ("documents", "document_sentences", "multi_id_sides"):
        setattr(counts, name, getattr(counts, name)
                + sum(getattr(read.counts, name) for read in reads))
    parts = []
    for _, part, document_log in sorted((document for read in reads
                                         for document in read.documents),
                                        key=lambda document: document[0]):
        log.merge(document_log)
        parts.append(part)
    return parts
