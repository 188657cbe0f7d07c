"""Rescue oversized sets (`--oversized split`): Leiden communities of their components.

TaPaCo drops every set over `--max-set-size` sentences (filter b). Such a set is often two or
more dense meaning clusters joined by a few misalignments. With `split`, each component holding
an oversized set is partitioned by Leiden community detection (python-igraph) on its merged
graph (alignment and surface edges, all languages, multiple edges merged); the oversized sets
are then replaced by their communities, split by language as components are, and go through
the filters like any set. A community whose sentences of one language are still too many is
split again, on its own subgraph (up to 8 rounds; the subgraphs of a round are shared out
over `--workers` forked processes: igraph holds the GIL); one that Leiden keeps whole is
dropped by filter b. Sets that were not oversized keep their component's id; the new sets get
ids after the last component's, numbered by their smallest sentence id, so a rescued community
has one id in every language.
Leiden is seeded through Python's `random` (igraph's default generator) and runs on a graph
built in a fixed vertex order: the same input and options give the same sets.

Leiden runs one iteration at a time, each continuing from the last partition, and stops when an
iteration raises the quality by less than `MIN_RELATIVE_GAIN` of it (no vertex moved, or so few
that it does not matter) or after `MAX_ITERATIONS`: on a large graph some vertices keep moving
between almost equally good communities, and running until none moves took many times as long
for nearly the same communities (docs/performance.md). How each round of Leiden runs ended is
reported (`Split.leiden_rounds`, in `stats.json`).
"""

from __future__ import annotations

import math
import operator
import random
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from itertools import chain
from types import ModuleType

import numpy as np

from tapaco.components import distinct_edge_keys
from tapaco.core.arrays import group_starts, lexicographic_order, sorted_distinct
from tapaco.core.errors import OptionError
from tapaco.core.forked import SubmittedAhead, can_fork, process_pool
from tapaco.core.options import check_range
from tapaco.core.progress import Progress

OBJECTIVES = ("modularity", "cpm")
OVERSIZED = ("drop", "split")
MAX_ROUNDS = 8  # rounds of splitting communities that are still oversized
MAX_ITERATIONS = 10  # Leiden iterations on one graph at most
MIN_RELATIVE_GAIN = 1e-4  # an iteration that raises the quality by less ends Leiden


@dataclass(frozen=True)
class SplitOptions:
    """What `--oversized` does; the Leiden settings matter only for `split`."""

    oversized: str = "drop"
    objective: str = "modularity"
    resolution: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.oversized not in OVERSIZED:
            raise OptionError("--oversized", f"expected drop or split, got {self.oversized!r}")
        if self.objective not in OBJECTIVES:
            raise OptionError("--leiden-objective", f"expected one of {', '.join(OBJECTIVES)}, "
                              f"got {self.objective!r}")
        check_range("--leiden-resolution", self.resolution, 0, None)
        check_range("--seed", self.seed, 0, whole=True)

    @property
    def splits(self) -> bool:
        return self.oversized == "split"


@dataclass(frozen=True)
class Leiden:
    """Leiden communities of a graph (one id per vertex, 0 upwards); how many iterations ran;
    whether the last one no longer raised the quality much (else `MAX_ITERATIONS` stopped it);
    the quality igraph reports for the partition (NaN or -inf for a graph without edges)."""

    membership: np.ndarray
    iterations: int
    converged: bool
    quality: float


def _igraph() -> ModuleType:
    """python-igraph without matplotlib, which its drawing (unused here) imports where
    installed (~0.4 s of CPU): a None in `sys.modules` fails its import as if it were absent."""
    hidden = sys.modules.setdefault("matplotlib", None) is None
    try:
        import igraph
    finally:
        if hidden:
            del sys.modules["matplotlib"]
    return igraph


def simple_edges(edges: np.ndarray) -> np.ndarray:
    """The distinct edges of an (m, 2) edge array without self-loops, each as (low, high)
    vertex, sorted: edge for edge the graph igraph's `simplify()` leaves, made in numpy
    (simplifying the igraph graph took longer than building it)."""
    keys = distinct_edge_keys(edges)
    return np.stack([keys >> np.uint64(32), keys & np.uint64(0xFFFFFFFF)], 1).astype(np.int64)


def leiden_membership(vertex_count: int, edges: np.ndarray, options: SplitOptions,
                      progress: Progress | None = None) -> Leiden:
    """Leiden communities of a graph given as an (m, 2) edge array, multiple edges merged."""
    return _leiden_of_simple(vertex_count, simple_edges(edges), options, progress)


_PAIRS_AT_ONCE = 1 << 20  # edges made Python pairs at a time for igraph


def _graph(vertex_count: int, simple: np.ndarray):  # noqa: ANN202 - igraph is imported lazily
    """The igraph graph of simple edges, edge ids in their order. python-igraph's wheel takes
    an edge list as Python pairs only (a numpy array goes through `tolist()`): two lists of
    ints zipped are the cheapest such pairs (zip reuses one tuple), made a chunk at a time so
    that the ints of millions of edges are never all held."""
    graph = _igraph().Graph(vertex_count)
    graph.add_edges(chain.from_iterable(
        zip(simple[start:start + _PAIRS_AT_ONCE, 0].tolist(),
            simple[start:start + _PAIRS_AT_ONCE, 1].tolist())
        for start in range(0, len(simple), _PAIRS_AT_ONCE)))
    return graph


def _leiden_of_simple(vertex_count: int, simple: np.ndarray, options: SplitOptions,
                      progress: Progress | None = None) -> Leiden:
    """:func:`leiden_membership` of edges already simple (as :func:`simple_edges` makes them)."""
    igraph = _igraph()
    graph = _graph(vertex_count, simple)
    random.seed(options.seed)
    membership, quality = None, -math.inf
    for iteration in range(1, MAX_ITERATIONS + 1):
        if progress:
            progress.update(f"iterations on a graph of {vertex_count:,} vertices", iteration,
                            MAX_ITERATIONS)
        # igraph's own call under Graph.community_leiden, without the VertexClustering it
        # builds from every iteration's membership in Python
        membership, new_quality = igraph.GraphBase.community_leiden(
            graph, resolution=options.resolution, initial_membership=membership,
            normalize_resolution=options.objective == "modularity", n_iterations=1)
        gain, previous, quality = new_quality - quality, quality, new_quality
        # written so that a NaN gain (a graph without edges has a NaN quality) stops as well
        if iteration > 1 and not gain > MIN_RELATIVE_GAIN * abs(previous):
            return Leiden(np.asarray(membership, np.int64), iteration, True, quality)
    return Leiden(np.asarray(membership, np.int64), MAX_ITERATIONS, False, quality)


class _LaterRoundsPool:
    """The forked processes of the rounds after the first, started for the first round of
    several graphs and kept for the next rounds (a pool started per round cost more than its
    last rounds' few small graphs)."""

    def __init__(self, stack: ExitStack, workers: int) -> None:
        self._stack, self.workers, self._pool = stack, workers, None

    def for_round(self, graphs: int) -> ProcessPoolExecutor | None:
        """The pool for a round of `graphs` graphs; None where they run in this process."""
        if self._pool is None and self.workers > 1 and graphs > 1 and can_fork():
            self._pool = self._stack.enter_context(process_pool(min(self.workers, graphs)))
        return self._pool if graphs > 1 else None


def _leiden_runs(graphs: list[tuple[int, np.ndarray]], options: SplitOptions,
                 pools: _LaterRoundsPool, progress: Progress | None = None) -> list[Leiden]:
    """Leiden on each (vertex count, simple edges) graph, in their order; in the pool's
    processes where there is one, the largest graphs first for balance (each run seeds the
    generator itself, so where and in which order runs go changes nothing)."""
    runs = [partial(_leiden_of_simple, vertices, edges, options) for vertices, edges in graphs]
    pool = pools.for_round(len(runs))
    if pool is None:
        return [run(progress=progress) for run in runs]
    largest_first = sorted(range(len(runs)), key=lambda index: -len(graphs[index][1]))
    ran = SubmittedAhead(pool, operator.call, [runs[i] for i in largest_first],
                         2 * pools.workers)
    results = dict(zip(largest_first, ran))
    return [results[index] for index in range(len(runs))]


def _round_record(runs: list[Leiden]) -> dict:
    """What the Leiden runs of one round did, for `stats.json`: on how many graphs of how many
    vertices, the most iterations one took, how many converged, the lowest quality."""
    qualities = [run.quality for run in runs if math.isfinite(run.quality)]
    return {"graphs": len(runs), "vertices": sum(len(run.membership) for run in runs),
            "iterations": max(run.iterations for run in runs),
            "converged": sum(run.converged for run in runs),
            "lowest_quality": round(min(qualities), 6) if qualities else None}


@dataclass
class Split:
    """New set ids per vertex; the vertices of output rows that were in oversized sets; each
    vertex's community id (-1 outside split components: pivots and filtered sentences of a
    community have one too, which `tapaco explain` uses); how many components were split into
    how many communities (of output rows); how each round of Leiden runs ended (the first
    round on all split components, then one per round of splitting again)."""

    set_id: np.ndarray
    rescued_vertices: np.ndarray
    community_id: np.ndarray
    components: int
    communities: int
    leiden_rounds: list[dict]


def split_oversized(set_id: np.ndarray, edges: np.ndarray, number: np.ndarray,
                    fraction: np.ndarray, row_vertex: np.ndarray, row_lang: np.ndarray,
                    max_set_size: int, options: SplitOptions,
                    progress: Progress | None = None, workers: int = 1) -> Split:
    """Replace the oversized sets of `row_vertex` (output rows, with their languages
    `row_lang`, the rows of a (language, set) consecutive as `candidate_rows` sorts them) by
    Leiden communities (the communities split again run on `workers` processes: the same sets
    for any number)."""
    oversized = oversized_rows(set_id, row_vertex, row_lang, max_set_size)
    components = sorted_distinct(set_id[row_vertex[oversized]])
    inside = _marked(components, int(set_id.max(initial=-1)) + 1)[set_id]
    vertices = np.flatnonzero(inside)
    if not len(vertices):
        return Split(set_id, vertices, np.full(len(set_id), -1, np.int64), 0, 0, [])
    local = np.full(len(set_id), -1, np.int64)
    local[vertices] = np.arange(len(vertices))
    chosen = simple_edges(local[edges[inside[edges[:, 0]]]])
    moved = row_vertex[oversized]
    first = _leiden_of_simple(len(vertices), chosen, options, progress)
    community, rounds = _split_still_oversized(first.membership, chosen, local[moved],
                                               row_lang[oversized], max_set_size, options,
                                               progress, workers)
    # one new id per community, in the order of its smallest (number, fraction, vertex): the
    # vertices ascend, so the row index that breaks ties in the order is the vertex's
    order = lexicographic_order(number[vertices], fraction[vertices])
    first_seen = np.full(community.max() + 1, len(order), np.int64)
    np.minimum.at(first_seen, community[order], np.arange(len(order)))
    rank = np.empty_like(first_seen)
    rank[np.argsort(first_seen, kind="stable")] = np.arange(len(first_seen))
    community_id = np.full(len(set_id), -1, np.int64)
    community_id[vertices] = set_id.max() + 1 + rank[community]
    new_id = set_id.copy()
    new_id[moved] = community_id[moved]
    communities = int(np.count_nonzero(_marked(community[local[moved]], community.max() + 1)))
    return Split(new_id, moved, community_id, len(components), communities,
                 [_round_record([first]), *rounds])


def _split_still_oversized(community: np.ndarray, edges: np.ndarray, row_node: np.ndarray,
                           row_lang: np.ndarray, max_set_size: int, options: SplitOptions,
                           progress: Progress | None = None,
                           workers: int = 1) -> tuple[np.ndarray, list[dict]]:
    """Split again, each on its own subgraph, the communities whose rows of one language are
    still over `max_set_size`, until none is or Leiden keeps each of them whole (it is left
    as it is, for filter b), for at most `MAX_ROUNDS` rounds, each round's subgraphs on
    `workers` processes; returns the communities and each round's record."""
    whole: set[int] = set()
    rounds = []
    with ExitStack() as stack:
        pools = _LaterRoundsPool(stack, workers)
        for _ in range(MAX_ROUNDS):
            languages = int(row_lang.max()) + 1
            groups, sizes = np.unique(community[row_node] * languages + row_lang,
                                      return_counts=True)
            big = np.setdiff1d(groups[sizes > max_set_size] // languages, list(whole))
            if not len(big):
                break
            subgraphs = list(_subgraphs(community, edges, big))
            runs = _leiden_runs([(len(nodes), inner) for _, nodes, inner in subgraphs], options,
                                pools, progress)
            next_label = community.max() + 1
            for (label, nodes, _), run in zip(subgraphs, runs):
                parts = run.membership
                if parts.max() == 0:
                    whole.add(label)
                    continue
                community[nodes[parts > 0]] = next_label + parts[parts > 0] - 1
                next_label += parts.max()
            rounds.append(_round_record(runs))
    return community, rounds


def _subgraphs(community: np.ndarray, edges: np.ndarray,
               labels: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """For each of the (sorted) `labels`: the label, its vertices in increasing order and the
    edges between them (in their order in `edges`) numbered by position in those vertices;
    found for all labels in one pass over the edges, not one per label (grouped by packed
    sorts: numpy's stable argsort of int64 took four times as long)."""
    nodes = np.flatnonzero(_marked(labels, community.max() + 1)[community])
    nodes = nodes[lexicographic_order(community[nodes])]
    node_bounds = np.searchsorted(community[nodes], labels, "right")
    node_starts = np.append(0, node_bounds[:-1])
    position = np.full(len(community), -1, np.int64)
    position[nodes] = np.arange(len(nodes)) - np.repeat(node_starts, node_bounds - node_starts)
    source, target = edges[:, 0], edges[:, 1]
    edge_label = community[source]
    inner = np.flatnonzero((edge_label == community[target]) & (position[source] >= 0))
    inner = inner[lexicographic_order(edge_label[inner])]
    edge_bounds = np.searchsorted(edge_label[inner], labels, "right")
    edge_starts = np.append(0, edge_bounds[:-1])
    inner_edges = np.stack([position[source[inner]], position[target[inner]]], 1)
    for label, n0, n1, e0, e1 in zip(labels.tolist(), node_starts, node_bounds, edge_starts,
                                     edge_bounds):
        yield label, nodes[n0:n1], inner_edges[e0:e1]


def _marked(values: np.ndarray, size: int) -> np.ndarray:
    """A mask of `size` entries, True at the (non-negative) `values`: a look-up instead of
    `np.isin` against them."""
    mask = np.zeros(size, bool)
    mask[values] = True
    return mask


def oversized_rows(set_id: np.ndarray, row_vertex: np.ndarray, row_lang: np.ndarray,
                   max_set_size: int) -> np.ndarray:
    """Mask of the output rows whose (language, set) group is over `max_set_size` (the rows of
    a group are consecutive)."""
    starts = group_starts(row_lang, set_id[row_vertex])
    run = np.cumsum(starts) - 1
    return np.bincount(run)[run] > max_set_size
