"""The equivalence graph: alignment edges plus surface-similarity edges, and its components.

Surface-similarity edges join sentences of one language whose surface keys are equal and not
empty (each to the first such sentence, a star, which gives the same components as a clique).
The components of the alignment edges (:mod:`tapaco.components`) and their order (by each
one's smallest numeric sentence id) are found on one thread while the others find the surface
edges and sort the order of a set's rows (by document, then id; a run of whole documents on
each thread). The surface edges then join alignment components: the components of the merged
graph, numbered in the order of their smallest numeric sentence id, name the sets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from numba import njit

from tapaco.components import components, distinct_edge_keys
from tapaco.core.arrays import lexicographic_order, string_codes
from tapaco.core.forked import map_on_threads
from tapaco.core.hashing import first_occurrences, repeats
from tapaco.core.interruptible import in_background
from tapaco.core.text_column import TextColumn
from tapaco.normalize import SurfaceHashes, surface_keys
from tapaco.read import INTER, INTRA, Corpus
from tapaco.sentence_ids import numeric_keys


@dataclass
class SentenceGraph:
    """Component (set) id per vertex, and the sizes that stats report; the merged edges only
    when asked for (splitting oversized sets needs them). `number` and `fraction` are each
    vertex's numeric id keys; `row_order` is the vertices sorted by (document, number, fraction,
    vertex), the order of a set's rows."""

    set_id: np.ndarray
    number: np.ndarray
    fraction: np.ndarray
    row_order: np.ndarray
    edge_counts: dict[str, int]
    component_count: int
    edges: np.ndarray | None = None


def _star_edges(codes: np.ndarray, vertex_lang: np.ndarray, nonempty: np.ndarray) -> np.ndarray:
    """Edges from each vertex to the first vertex of its language with the same code."""
    combined = codes * (int(vertex_lang.max(initial=0)) + 1) + vertex_lang
    later, first = in_background(repeats, combined, size=len(combined))
    joined = nonempty[later]
    return np.column_stack([later[joined], first[joined]]).astype(np.int32)


def _same_keys(edges: np.ndarray, vertex_lang: np.ndarray, texts: Sequence[str]) -> bool:
    """Whether both ends of every edge have one language and one surface key."""
    if not (vertex_lang[edges[:, 0]] == vertex_lang[edges[:, 1]]).all():
        return False
    column = TextColumn.of(texts)
    differing = [(a, b) for a, b in zip(column.strings(edges[:, 0]), column.strings(edges[:, 1]))
                 if a != b]
    return (surface_keys([a for a, _ in differing]) == surface_keys([b for _, b in differing]))


def surface_edges(vertex_lang: np.ndarray, texts: Sequence[str], workers: int = 1) -> np.ndarray:
    """Edges from each vertex to the first vertex of its language with the same surface key.

    An empty key (an empty text) joins nothing: sentences without text are not similar. Keys
    are grouped by their hashes (a kernel over the texts' UTF-8), and every edge is checked to
    join equal keys (a hash collision would make the exact grouping, by the keys themselves,
    run instead). The texts are hashed on `workers` threads.
    """
    hashed = SurfaceHashes.of(texts, workers)
    edges = _star_edges(hashed.hashes, vertex_lang, hashed.nonempty)
    if _same_keys(edges, vertex_lang, texts):
        return edges
    return _star_edges(string_codes(surface_keys(texts)), vertex_lang, hashed.nonempty)


def _distinct_edge_count(aligned_keys: np.ndarray, surface: np.ndarray) -> int:
    """Distinct undirected edges of the merged graph, from the alignment edges' distinct keys
    and the surface edges."""
    surface_keys = distinct_edge_keys(surface)
    at = np.searchsorted(aligned_keys, surface_keys).clip(max=max(len(aligned_keys) - 1, 0))
    shared = np.count_nonzero(aligned_keys[at] == surface_keys) if len(aligned_keys) else 0
    return int(len(aligned_keys) + len(surface_keys) - shared)


@njit(nogil=True, cache=True)
def _smallest_members(membership, number, fraction, count):
    """The member of each component with the smallest (number, fraction, vertex)."""
    smallest = np.full(count, -1, np.int64)
    for vertex in range(len(membership)):
        component = membership[vertex]
        best = smallest[component]
        if best < 0 or number[vertex] < number[best] or (
                number[vertex] == number[best] and fraction[vertex] < fraction[best]):
            smallest[component] = vertex
    return smallest


def _alignment_components(vertex_count: int, edges: np.ndarray, number: np.ndarray,
                          fraction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The components of the alignment edges alone (numbered by smallest vertex): each vertex's,
    and the components in the order of their smallest members by (number, fraction, vertex);
    the distinct edges' keys."""
    label = components(vertex_count, edges)
    count = int(label.max(initial=-1)) + 1
    smallest = in_background(_smallest_members, label, number, fraction, count, size=len(label))
    order = lexicographic_order(number[smallest], fraction[smallest], smallest)
    return label, order, distinct_edge_keys(edges)


def _set_ids(label: np.ndarray, order: np.ndarray, surface: np.ndarray) -> tuple[np.ndarray, int]:
    """Each vertex's set, and how many: the components of the merged graph (the alignment
    components, `label`, joined by the surface edges), numbered in the order of their first
    alignment component in `order`, which holds the merged one's smallest member."""
    merged = components(len(order), label[surface].astype(np.int32))
    rank = np.empty(len(order), np.int64)
    rank[order] = first_occurrences(merged[order])[0]
    return rank[label], int(merged.max(initial=-1)) + 1


def _document_runs(vertex_doc: np.ndarray, pieces: int) -> list[tuple[int, int]]:
    """About `pieces` runs of rows of whole documents (one run when the rows are not grouped
    by ascending document)."""
    count = len(vertex_doc)
    if pieces <= 1 or count < 2 or (vertex_doc[1:] < vertex_doc[:-1]).any():
        return [(0, count)]
    targets = vertex_doc[np.arange(1, pieces) * count // pieces]
    cuts = np.unique(np.searchsorted(vertex_doc, targets)).tolist()
    bounds = [0, *(cut for cut in cuts if 0 < cut < count), count]
    return list(zip(bounds[:-1], bounds[1:]))


def _row_order(vertex_doc: np.ndarray, number: np.ndarray, fraction: np.ndarray,
               workers: int) -> np.ndarray:
    """The vertices sorted by (document, number, fraction, vertex), on `workers` threads a run
    of whole documents each (the runs' orders, one after another, are the order)."""
    def run_order(run: tuple[int, int]) -> np.ndarray:
        start, end = run
        order = lexicographic_order(vertex_doc[start:end], number[start:end],
                                    fraction[start:end])
        order += start
        return order

    runs = _document_runs(vertex_doc, workers)
    return np.concatenate([np.zeros(0, np.int64), *map_on_threads(run_order, runs, workers)])


def _called(task: Callable[[], object]) -> object:
    return task()


def build_graph(corpus: Corpus, keep_edges: bool = False, workers: int = 1) -> SentenceGraph:
    """Merge the three edge kinds, find connected components and number them.

    With `workers` over one, a thread finds the components of the alignment edges, their
    order and their distinct edges while the others find the surface edges, then sort the
    order of rows within a set (each on `workers` threads: the last is the one that shares
    its work evenly); the surface edges then join the alignment components."""
    number, fraction = numeric_keys(corpus.sides)
    (label, order, aligned_keys), surface, row_order = map_on_threads(_called, [
        partial(_alignment_components, corpus.vertex_count, corpus.edges, number, fraction),
        partial(surface_edges, corpus.vertex_lang, corpus.texts, workers),
        partial(_row_order, corpus.vertex_doc, number, fraction, workers)], workers)
    set_id, component_count = _set_ids(label, order, surface)
    counts = {
        "vertices": corpus.vertex_count,
        "intra_lingual_links": int((corpus.edge_kind == INTRA).sum()),
        "inter_lingual_links": int((corpus.edge_kind == INTER).sum()),
        "surface_similarity_links": len(surface),
        "merged_distinct_edges": _distinct_edge_count(aligned_keys, surface),
    }
    edges = np.concatenate([corpus.edges, surface]).astype(np.int32) if keep_edges else None
    return SentenceGraph(set_id, number, fraction, row_order, counts, component_count, edges)
