"""The corpus a release reads into: vertices (link sides) with their texts, and the alignment
edges between them; :func:`read_corpus` reads it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.errors import BadInputLog
from tapaco.core.memory import release_freed_memory
from tapaco.core.opus import find_alignment_sources
from tapaco.core.opus.sidekeys import SideColumn
from tapaco.core.progress import Progress
from tapaco.core.text_column import IndexedTexts, Take, TextColumn
from tapaco.read.links import LinkCollector, ReadCounts, collect_links
from tapaco.read.texts import DocumentTexts, read_documents


@dataclass
class Corpus:
    """Vertices (link sides) with their texts, and the alignment edges between them.

    `edges` is an (m, 2) int32 array of vertex ids, `edge_kind` says INTRA or INTER for each.
    `sides` reads as strings (a :class:`SideColumn` when read from OPUS).
    `texts` is a :class:`TextColumn` (a list of strings given is made one); `lists` and `tags`
    are columns of strings with `take(rows)` (an :class:`IndexedTexts` when read from OPUS).
    """

    languages: list[str]
    documents: list[str]
    document_lang: np.ndarray
    vertex_lang: np.ndarray
    vertex_doc: np.ndarray
    sides: Sequence[str]
    texts: TextColumn
    lists: Sequence[str]
    tags: Sequence[str]
    edges: np.ndarray
    edge_kind: np.ndarray
    counts: ReadCounts

    def __post_init__(self) -> None:
        self.texts = TextColumn.of(self.texts)

    @property
    def vertex_count(self) -> int:
        return len(self.sides)


def _edges(collector: LinkCollector, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The links as (m, 2) vertex ids and their kinds, each block's codes written in place."""
    documents = collector.documents
    lengths = [len(documents[f].part_codes[p]) for f, p, _, _, _ in collector.links]
    edges = np.empty((sum(lengths), 2), np.int32)
    start = 0
    for (f, p, t, q, _), length in zip(collector.links, lengths):
        np.add(documents[f].part_codes[p], np.int32(offsets[f]), out=edges[start:start + length, 0])
        np.add(documents[t].part_codes[q], np.int32(offsets[t]), out=edges[start:start + length, 1])
        start += length
    kinds = np.repeat(np.array([k for *_, k in collector.links], np.int8), lengths)
    return edges, kinds


def read_corpus(opus_dir: Path, log: BadInputLog, progress: Progress,
                documents: str = "raw", workers: int = 2) -> Corpus:
    """Read every alignment of the release and the texts of every linked sentence (an empty
    text is no sentence: the links of a side without one are left out, and counted).

    `documents` (`raw` or `xml`) is the folder of sentence documents searched first.
    `workers` over one: `workers` threads read the alignment files and number the documents'
    sides; two threads read the documents, biggest first; the corpus is the same.
    """
    sources = find_alignment_sources(opus_dir)
    with progress.stage("read alignments"):
        collector = collect_links(sources, log, progress, workers)
    release_freed_memory()  # else what the reading threads freed stays held through the build
    with progress.stage("read documents"):
        parts = read_documents(collector, opus_dir, documents, log, progress, workers > 1)
        return _assemble(collector, parts, workers)


def _attributes(parts: list[DocumentTexts]) -> tuple[TextColumn, TextColumn, np.ndarray]:
    """The lists and tags of all parts, and the row of every side's in them (-1: none)."""
    lists, tags = (TextColumn.concatenate([getattr(part, name) for part in parts])
                   for name in ("lists", "tags"))
    starts = np.cumsum([0] + [len(part.lists) for part in parts[:-1]])
    attributes = (np.concatenate([np.where(part.attributes >= 0, part.attributes + start, -1)
                                  for part, start in zip(parts, starts.tolist())])
                  if parts else np.zeros(0, np.int32))
    return lists, tags, attributes.astype(np.int32)


def _assemble(collector: LinkCollector, parts: list[DocumentTexts], workers: int) -> Corpus:
    documents = collector.documents
    sizes = np.array([len(document.sides) for document in documents], np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    edges, kinds = _edges(collector, offsets)
    vertex_doc = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    doc_lang = np.array([document.lang for document in collector.documents], np.int32)
    lists, tags, attributes = _attributes(parts)
    known = np.concatenate([part.valid for part in parts]) if parts else np.ones(0, bool)
    valid = known & (np.concatenate([part.texts.nonempty() for part in parts]) if parts
                     else known)
    if not valid.all():
        keep_edge = valid[edges[:, 0]] & valid[edges[:, 1]]
        unknown = ~(known[edges[:, 0]] & known[edges[:, 1]])
        collector.counts.links_to_unknown_sentences = int(unknown.sum())
        collector.counts.links_with_empty_text = int((~keep_edge & ~unknown).sum())
        edges, kinds = (np.cumsum(valid) - 1)[edges[keep_edge]].astype(np.int32), kinds[keep_edge]
    pick = np.flatnonzero(valid)
    starts = np.cumsum([0] + [len(part.texts) for part in parts]).tolist()
    texts = TextColumn.of_takes([Take(part.texts, np.flatnonzero(valid[start:end]))
                                 for part, start, end in zip(parts, starts, starts[1:])], workers)
    attributes = attributes[pick]

    keys = (np.concatenate([document.sides for document in documents]) if documents
            else np.zeros(0, np.uint64))
    return Corpus(
        languages=list(collector.languages), documents=[d.name for d in collector.documents],
        document_lang=doc_lang, vertex_lang=doc_lang[vertex_doc][pick], vertex_doc=vertex_doc[pick],
        sides=SideColumn(keys if len(pick) == len(keys) else keys[pick], collector.table),
        texts=texts, lists=IndexedTexts(lists, attributes), tags=IndexedTexts(tags, attributes),
        edges=edges.reshape(-1, 2), edge_kind=kinds, counts=collector.counts,
    )
