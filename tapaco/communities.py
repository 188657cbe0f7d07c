"""Rescue oversized sets (`--oversized split`): Leiden communities of their components.

TaPaCo drops every set over `--max-set-size` sentences (filter b). Such a set is often two or
more dense meaning clusters joined by a few misalignments. With `split`, each component holding
an oversized set is partitioned by Leiden community detection (python-igraph) on its merged
graph (alignment and surface edges, all languages, multiple edges merged); the oversized sets
are then replaced by their communities, split by language as components are, and go through
the filters like any set. A community whose sentences of one language are still too many is
split again, on its own subgraph (up to 8 rounds); one that Leiden keeps whole is dropped by
filter b. Sets that were
not oversized keep their component's id; the new sets get ids after the last component's,
numbered by their smallest sentence id, so a rescued community has one id in every language.
Leiden is seeded through Python's `random` (igraph's default generator) and runs on a graph
built in a fixed vertex order: the same input and options give the same sets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from tapaco.core.arrays import group_starts, lexicographic_order
from tapaco.core.errors import OptionError
from tapaco.core.options import check_range

OBJECTIVES = {"modularity": "modularity", "cpm": "CPM"}
OVERSIZED = ("drop", "split")
MAX_ROUNDS = 8  # rounds of splitting communities that are still oversized
# Leiden runs an iteration at a time until no vertex moves, its quality gains less than
# MIN_QUALITY_GAIN (relative), or MAX_ITERATIONS: on large sparse graphs, running until no
# vertex moves takes many more iterations for nearly the same communities
MAX_ITERATIONS = 10
MIN_QUALITY_GAIN = 1e-6


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


@dataclass
class LeidenRuns:
    """How the Leiden calls of a split ended: calls, iterations in all, calls stopped by the
    iteration bound or the small quality gain before no vertex moved."""

    calls: int = 0
    iterations: int = 0
    stopped_early: int = 0

    def as_dict(self) -> dict:
        return {"calls": self.calls, "iterations": self.iterations,
                "stopped_before_convergence": self.stopped_early,
                "max_iterations": MAX_ITERATIONS, "min_quality_gain": MIN_QUALITY_GAIN}


def leiden_membership(vertex_count: int, edges: np.ndarray, options: SplitOptions,
                      runs: LeidenRuns | None = None) -> np.ndarray:
    """Leiden communities of a graph given as an (m, 2) edge array, multiple edges merged; an
    iteration at a time, until converged or bounded (see MAX_ITERATIONS), counted in `runs`."""
    import igraph  # imported here: it imports matplotlib where present (~0.5 s of every start)

    runs = runs if runs is not None else LeidenRuns()
    graph = igraph.Graph(vertex_count)
    graph.add_edges(edges)
    graph.simplify()
    random.seed(options.seed)
    membership, quality = None, None
    runs.calls += 1
    for _ in range(MAX_ITERATIONS):
        partition = graph.community_leiden(objective_function=OBJECTIVES[options.objective],
                                           resolution=options.resolution,
                                           initial_membership=membership, n_iterations=1)
        runs.iterations += 1
        moved = membership is None or partition.membership != membership
        gain = None if quality is None else partition.quality - quality
        membership, quality = partition.membership, partition.quality
        if not moved:
            break
        if gain is not None and gain <= MIN_QUALITY_GAIN * abs(quality):
            runs.stopped_early += 1
            break
    else:
        runs.stopped_early += 1
    return np.asarray(membership, np.int64)


@dataclass
class Split:
    """New set ids per vertex; the vertices of output rows that were in oversized sets; each
    vertex's community id (-1 outside split components: pivots and filtered sentences of a
    community have one too, which `tapaco explain` uses); how many components were split into
    how many communities (of output rows)."""

    set_id: np.ndarray
    rescued_vertices: np.ndarray
    community_id: np.ndarray
    components: int
    communities: int
    leiden: LeidenRuns = field(default_factory=LeidenRuns)


def split_oversized(set_id: np.ndarray, edges: np.ndarray, number: np.ndarray,
                    fraction: np.ndarray, row_vertex: np.ndarray, row_lang: np.ndarray,
                    max_set_size: int, options: SplitOptions) -> Split:
    """Replace the oversized sets of `row_vertex` (output rows) by Leiden communities."""
    oversized_rows = _oversized_rows(set_id, row_vertex, row_lang, max_set_size)
    components = np.unique(set_id[row_vertex[oversized_rows]])
    inside = np.isin(set_id, components)
    vertices = np.flatnonzero(inside)
    if not len(vertices):
        return Split(set_id, vertices, np.full(len(set_id), -1, np.int64), 0, 0)
    local = np.full(len(set_id), -1, np.int64)
    local[vertices] = np.arange(len(vertices))
    chosen = local[edges[inside[edges[:, 0]]]]
    moved = row_vertex[oversized_rows]
    runs = LeidenRuns()
    community = leiden_membership(len(vertices), chosen, options, runs)
    community = _split_still_oversized(community, chosen, local[moved], row_lang[oversized_rows],
                                       max_set_size, options, runs)
    # one new id per community, in the order of its smallest (number, fraction, vertex)
    order = lexicographic_order(number[vertices], fraction[vertices], vertices)
    first_seen = np.full(community.max() + 1, len(order), np.int64)
    np.minimum.at(first_seen, community[order], np.arange(len(order)))
    rank = np.empty_like(first_seen)
    rank[np.argsort(first_seen, kind="stable")] = np.arange(len(first_seen))
    community_id = np.full(len(set_id), -1, np.int64)
    community_id[vertices] = set_id.max() + 1 + rank[community]
    new_id = set_id.copy()
    new_id[moved] = community_id[moved]
    return Split(new_id, moved, community_id, len(components),
                 len(np.unique(community[local[moved]])), runs)


def _split_still_oversized(community: np.ndarray, edges: np.ndarray, row_node: np.ndarray,
                           row_lang: np.ndarray, max_set_size: int,
                           options: SplitOptions, runs: LeidenRuns) -> np.ndarray:
    """Split again, each on its own subgraph, the communities whose rows of one language are
    still over `max_set_size`, until none is or Leiden keeps each of them whole."""
    final: set[int] = set()
    for _ in range(MAX_ROUNDS):
        groups, sizes = np.unique(np.column_stack([community[row_node], row_lang]), axis=0,
                                  return_counts=True)
        big = sorted(set(groups[sizes > max_set_size, 0].tolist()) - final)
        if not big:
            break
        for label in big:
            nodes = np.flatnonzero(community == label)
            inner = edges[(community[edges[:, 0]] == label) & (community[edges[:, 1]] == label)]
            position = np.full(len(community), -1, np.int64)
            position[nodes] = np.arange(len(nodes))
            parts = leiden_membership(len(nodes), position[inner], options, runs)
            if parts.max() == 0:
                final.add(label)
                continue
            community[nodes[parts > 0]] = community.max() + parts[parts > 0]
    return community


def _oversized_rows(set_id: np.ndarray, row_vertex: np.ndarray, row_lang: np.ndarray,
                    max_set_size: int) -> np.ndarray:
    """Mask of the output rows whose (language, set) group is over `max_set_size`."""
    order = lexicographic_order(row_lang, set_id[row_vertex])
    starts = group_starts(row_lang[order], set_id[row_vertex][order])
    run = np.cumsum(starts) - 1
    sizes = np.bincount(run)
    mask = np.zeros(len(row_vertex), bool)
    mask[order] = sizes[run] > max_set_size
    return mask
