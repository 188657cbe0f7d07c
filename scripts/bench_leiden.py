#!/usr/bin/env python3
"""Benchmark the Leiden step of `--oversized split` on a generated clustered graph.

Plants communities of 5-35 vertices (each vertex linked to 4 random members of its own community
and, with probability `--across`, to a random vertex anywhere), then times `leiden_membership`
(iterations bounded) and, with `--unbounded`, the same with igraph's
`community_leiden(n_iterations=-1)` (run until no vertex moves, as `--oversized split` did
before). Reports seconds (graph building included), communities and quality of each, and how
many planted communities each recovers exactly.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from tapaco.communities import OBJECTIVES, SplitOptions, leiden_membership


def planted_partition(vertices: int, across: float,
                      seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(planted community per vertex, (m, 2) edge array) of a clustered graph."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 36, vertices // 5)
    sizes = sizes[:np.searchsorted(np.cumsum(sizes), vertices)]
    sizes = np.append(sizes, vertices - sizes.sum())
    planted = np.repeat(np.arange(len(sizes)), sizes)
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    inner = [np.column_stack([np.arange(vertices), starts + rng.integers(0, sizes[planted])])
             for _ in range(4)]
    noisy = np.flatnonzero(rng.random(vertices) < across)
    across = np.column_stack([noisy, rng.integers(0, vertices, len(noisy))])
    edges = np.concatenate([*inner, across])
    return planted, edges[edges[:, 0] != edges[:, 1]]


def exactly_recovered(planted: np.ndarray, found: np.ndarray) -> int:
    """Planted communities that are exactly one found community."""
    pairs = np.unique(np.column_stack([planted, found]), axis=0)
    one_found = np.bincount(pairs[:, 0]) == 1
    found_sizes = np.bincount(found)
    planted_sizes = np.bincount(planted)
    first = np.zeros(len(planted_sizes), np.int64)
    first[pairs[::-1, 0]] = pairs[::-1, 1]
    return int((one_found & (found_sizes[first] == planted_sizes)).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vertices", type=int, default=1_000_000)
    parser.add_argument("--across", type=float, default=0.1,
                        help="share of vertices with a link out of their community")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unbounded", action="store_true",
                        help="also time community_leiden(n_iterations=-1)")
    arguments = parser.parse_args()
    planted, edges = planted_partition(arguments.vertices, arguments.across, arguments.seed)
    print(f"{arguments.vertices:,} vertices, {len(edges):,} edges, "
          f"{planted.max() + 1:,} planted communities")
    options = SplitOptions("split", seed=arguments.seed)
    start = time.perf_counter()
    leiden = leiden_membership(arguments.vertices, edges, options)
    print(f"bounded: {time.perf_counter() - start:.1f} s, {leiden.membership.max() + 1:,} "
          f"communities, {leiden.iterations} iterations, converged {leiden.converged}, "
          f"quality {leiden.quality:.6f}, "
          f"{exactly_recovered(planted, leiden.membership):,} planted recovered")
    if arguments.unbounded:
        import igraph

        start = time.perf_counter()
        graph = igraph.Graph(arguments.vertices)
        graph.add_edges(edges)
        graph.simplify()
        random.seed(arguments.seed)
        partition = graph.community_leiden(objective_function=OBJECTIVES[options.objective],
                                           resolution=options.resolution, n_iterations=-1)
        found = np.asarray(partition.membership)
        print(f"unbounded: {time.perf_counter() - start:.1f} s, {found.max() + 1:,} "
              f"communities, quality {partition.quality:.6f}, "
              f"{exactly_recovered(planted, found):,} planted recovered")


if __name__ == "__main__":
    main()
