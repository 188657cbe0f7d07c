"""Read an OPUS release into link-side vertices, alignment edges and sentence texts.

Every link side (language, document, OPUS ids) becomes one vertex; its text is the document
sentences of those ids joined by a space. Vertices are numbered per document while reading
(first appearance), then laid out document after document, so ids are compact int32 arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.opus import (
    AlignmentSource,
    DocumentLocator,
    LinkBlock,
    find_alignment_sources,
    read_sentences,
)
from tapaco.core.progress import Progress

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
    name: str
    lang: int
    sides: dict[str, int] = field(default_factory=dict)
    moses_texts: dict[str, str] = field(default_factory=dict)


@dataclass
class Corpus:
    """Vertices (link sides) with their texts, and the alignment edges between them.

    `edges` is an (m, 2) int32 array of vertex ids, `edge_kind` says INTRA or INTER for each.
    """

    languages: list[str]
    documents: list[str]
    document_lang: np.ndarray
    vertex_lang: np.ndarray
    vertex_doc: np.ndarray
    sides: list[str]
    texts: list[str]
    lists: list[str]
    tags: list[str]
    edges: np.ndarray
    edge_kind: np.ndarray
    counts: ReadCounts

    @property
    def vertex_count(self) -> int:
        return len(self.sides)


class _LinkCollector:
    """Interns link sides per document and keeps the links as arrays of local side codes."""

    def __init__(self) -> None:
        self.languages: dict[str, int] = {}
        self.index: dict[str, int] = {}
        self.documents: list[_Document] = []
        self.links: list[tuple[int, np.ndarray, int, np.ndarray, int]] = []
        self.counts = ReadCounts()

    def add_source(self, source: AlignmentSource, blocks: list[LinkBlock]) -> None:
        kind = INTRA if source.intra_lingual else INTER
        self.counts.alignment_sources += 1
        self.counts.intra_lingual_sources += kind == INTRA
        for block in blocks:
            self._add_block(block, kind)

    def _add_block(self, block: LinkBlock, kind: int) -> None:
        self.counts.links += len(block)
        if "" in block.from_sides or "" in block.to_sides:
            linked = len(block)
            block = _without_empty_sides(block)
            self.counts.links_with_empty_side += linked - len(block)
        from_doc, from_codes = self._intern(block.from_doc, block.from_lang, block.from_sides,
                                            block.from_texts)
        to_doc, to_codes = self._intern(block.to_doc, block.to_lang, block.to_sides,
                                        block.to_texts)
        self.links.append((from_doc, from_codes, to_doc, to_codes, kind))

    def _intern(self, name: str, lang: str, sides: list[str], texts: list[str] | None):
        if name not in self.index:
            self.index[name] = len(self.documents)
            lang_id = self.languages.setdefault(lang, len(self.languages))
            self.documents.append(_Document(name, lang_id))
        document = self.documents[self.index[name]]
        table = document.sides
        codes = np.fromiter((table.setdefault(s, len(table)) for s in sides), np.int32, len(sides))
        if texts is not None:
            known = document.moses_texts
            known.update((s, t) for s, t in zip(sides, texts, strict=True) if s not in known)
        return self.index[name], codes


def _without_empty_sides(block: LinkBlock) -> LinkBlock:
    keep = [i for i, (a, b) in enumerate(zip(block.from_sides, block.to_sides)) if a and b]

    def pick(values: list[str] | None) -> list[str] | None:
        return None if values is None else [values[i] for i in keep]

    return LinkBlock(block.source, block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                     pick(block.from_sides), pick(block.to_sides), pick(block.from_texts),
                     pick(block.to_texts))


def _collect_links(sources: list[AlignmentSource], log: BadInputLog,
                   progress: Progress) -> _LinkCollector:
    collector = _LinkCollector()
    for number, source in enumerate(sources, 1):
        progress.update(source.path.name, number, len(sources))
        try:
            blocks = list(source.link_blocks())
        except InputError as error:
            log.report(error)
            continue
        collector.add_source(source, blocks)
    return collector


@dataclass
class _DocumentTexts:
    texts: list[str]
    lists: list[str]
    tags: list[str]
    valid: np.ndarray


def _joined(values: list[str], separator: str) -> str:
    return separator.join(dict.fromkeys(value for value in values if value))


def _document_texts(document: _Document, locator: DocumentLocator, log: BadInputLog,
                    counts: ReadCounts) -> _DocumentTexts:
    sides = list(document.sides)
    if document.moses_texts:
        return _DocumentTexts([document.moses_texts[s] for s in sides], [""] * len(sides),
                              [""] * len(sides), np.ones(len(sides), bool))
    invalid = _DocumentTexts([""] * len(sides), [""] * len(sides), [""] * len(sides),
                             np.zeros(len(sides), bool))
    try:
        ref = locator.locate(document.name)
        sentences = read_sentences(ref)
    except InputError as error:
        log.report(error)
        return invalid
    counts.documents += 1
    counts.document_sentences += len(sentences)
    position = dict(zip(sentences.ids, range(len(sentences))))
    indexes = [position.get(side, -1) for side in sides]
    texts, lists, tags = sentences.texts or [""], sentences.lists or [""], sentences.tags or [""]
    found = _DocumentTexts([texts[i] for i in indexes], [lists[i] for i in indexes],
                           [tags[i] for i in indexes], np.ones(len(sides), bool))
    for number in np.flatnonzero(np.array(indexes, np.int64) < 0).tolist():
        _multi_id_side(found, number, sides[number], sentences, position, ref, log, counts)
    return found


def _multi_id_side(found: _DocumentTexts, number: int, side: str, sentences,
                   position: dict[str, int], ref, log: BadInputLog, counts: ReadCounts) -> None:
    """Fill row `number` for a side of several ids, or mark it invalid if an id is unknown."""
    ids = side.split()
    indexes = [position.get(sentence_id) for sentence_id in ids]
    if None in indexes:
        missing = ids[indexes.index(None)]
        log.report(InputError(ref, f"sentence id {missing!r} is linked by an alignment but "
                              "is not in this document", kind="unknown sentence id"))
        found.valid[number] = False
        indexes = []
    counts.multi_id_sides += len(indexes) > 1
    found.texts[number] = " ".join(sentences.texts[i] for i in indexes)
    found.lists[number] = _joined([sentences.lists[i] for i in indexes], ";")
    found.tags[number] = _joined([sentences.tags[i] for i in indexes], ";")


def _edges(collector: _LinkCollector, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    parts = collector.links
    if not parts:
        return np.zeros((0, 2), np.int32), np.zeros(0, np.int8)
    sources = np.concatenate([offsets[f] + codes for f, codes, _, _, _ in parts])
    targets = np.concatenate([offsets[t] + codes for _, _, t, codes, _ in parts])
    kinds = np.concatenate([np.full(len(codes), k, np.int8) for _, codes, _, _, k in parts])
    return np.column_stack([sources, targets]).astype(np.int32), kinds


def read_corpus(opus_dir: Path, log: BadInputLog, progress: Progress) -> Corpus:
    """Read every alignment of the release and the texts of every linked sentence."""
    sources = find_alignment_sources(opus_dir)
    with progress.stage("read alignments"):
        collector = _collect_links(sources, log, progress)
    locator = DocumentLocator(opus_dir, ("raw", "xml"))
    with progress.stage("read documents"):
        parts = []
        for number, document in enumerate(collector.documents, 1):
            progress.update(document.name, number, len(collector.documents))
            parts.append(_document_texts(document, locator, log, collector.counts))
    return _assemble(collector, parts)


def _assemble(collector: _LinkCollector, parts: list[_DocumentTexts]) -> Corpus:
    sizes = np.array([len(document.sides) for document in collector.documents], np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    edges, kinds = _edges(collector, offsets)
    vertex_doc = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    doc_lang = np.array([document.lang for document in collector.documents], np.int32)
    valid = np.concatenate([part.valid for part in parts]) if parts else np.ones(0, bool)
    keep_edge = valid[edges[:, 0]] & valid[edges[:, 1]] if len(edges) else np.ones(0, bool)
    collector.counts.links_to_unknown_sentences = int((~keep_edge).sum())
    new_id = np.cumsum(valid) - 1
    edges = new_id[edges[keep_edge]].astype(np.int32)
    pick = np.flatnonzero(valid)

    def gather(name: str) -> list[str]:
        values = [value for part in parts for value in getattr(part, name)]
        return values if len(pick) == len(values) else [values[i] for i in pick]

    sides = [side for document in collector.documents for side in document.sides]
    return Corpus(
        languages=list(collector.languages), documents=[d.name for d in collector.documents],
        document_lang=doc_lang, vertex_lang=doc_lang[vertex_doc][pick], vertex_doc=vertex_doc[pick],
        sides=sides if len(pick) == len(sides) else [sides[i] for i in pick],
        texts=gather("texts"), lists=gather("lists"), tags=gather("tags"),
        edges=edges.reshape(-1, 2), edge_kind=kinds[keep_edge], counts=collector.counts,
    )
