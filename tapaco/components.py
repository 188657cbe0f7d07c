"""What the fresh process of the graph step computes from the alignment edges alone: their
connected components, by union-find in numpy, and their distinct undirected edges.

Each round hooks the larger of the two roots of every edge whose ends still have different
roots under the smaller one, then walks every end of those edges to its new root (keeping the
trees shallow); edges whose ends share a root leave the work. A handful of rounds suffices, each
a few whole-array operations (faster than igraph's `add_edges` and `connected_components` at
full scale: docs/performance.md).

Components are numbered as igraph numbers them (in the order of their smallest vertex). Kept
apart from :mod:`tapaco.graph` so that the fresh process imports only numpy (the graph module's
pandas and text normalisation would slow its start).
"""

from __future__ import annotations

import numpy as np


def _roots(parent: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """The root of every vertex's tree, following parents only where not yet at a root."""
    root = parent[vertices]
    above = parent[root]
    climbing = np.flatnonzero(above != root)
    while len(climbing):
        root[climbing] = above[climbing]
        reached = root[climbing]
        next_above = parent[reached]
        not_root = next_above != reached
        climbing = climbing[not_root]
        above[climbing] = next_above[not_root]
    return root


def components(vertex_count: int, edges: np.ndarray) -> np.ndarray:
    """Connected component of every vertex, numbered 0..C-1 by each one's smallest vertex."""
    edges = np.asarray(edges).reshape(-1, 2)
    if len(edges) and (edges.min() < 0 or edges.max() >= vertex_count):
        raise ValueError(f"edge ends must lie in 0..{vertex_count - 1}")
    index = np.int32 if vertex_count < 2**31 else np.int64
    parent = np.arange(vertex_count, dtype=index)
    ends_a, ends_b = edges[:, 0].astype(index), edges[:, 1].astype(index)
    root_a, root_b = ends_a, ends_b
    while len(joining := np.flatnonzero(root_a != root_b)):
        ends_a, ends_b = ends_a[joining], ends_b[joining]
        root_a, root_b = root_a[joining], root_b[joining]
        parent[np.maximum(root_a, root_b)] = np.minimum(root_a, root_b)
        root_a, root_b = _roots(parent, ends_a), _roots(parent, ends_b)
        parent[ends_a], parent[ends_b] = root_a, root_b
    root = _roots(parent, np.arange(vertex_count, dtype=index))
    is_root = root == np.arange(vertex_count, dtype=index)
    return (np.cumsum(is_root) - 1)[root]


def distinct_edge_keys(edges: np.ndarray) -> np.ndarray:
    """The distinct undirected edges, self-loops left out, as sorted keys (low end << 32 | high
    end)."""
    edges = np.asarray(edges).reshape(-1, 2)
    low = np.minimum(edges[:, 0], edges[:, 1]).astype(np.uint64)
    high = np.maximum(edges[:, 0], edges[:, 1]).astype(np.uint64)
    keys = ((low << np.uint64(32)) | high)[low != high]
    keys.sort()
    return keys[np.flatnonzero(np.diff(keys, prepend=keys[:1] + 1) != 0)] if len(keys) else keys


def components_and_edge_keys(vertex_count: int,
                             edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`components` and :func:`distinct_edge_keys` of one graph."""
    return components(vertex_count, edges), distinct_edge_keys(edges)
