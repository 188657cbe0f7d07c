"""Connected components of a graph, by union-find in a compiled kernel, and its distinct
undirected edges.

The union-find forest keeps every tree's root its smallest vertex and every parent below its
child (an edge hooks the larger of its ends' roots under the smaller; finding a root halves the
path behind it), so one ascending pass over the vertices numbers the components in the order of
their smallest vertex, as igraph numbers them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper


@kernel_helper
def _root(parent, vertex):
    """The root of `vertex`'s tree, each vertex on the way hooked to its grandparent."""
    while parent[vertex] != vertex:
        parent[vertex] = parent[parent[vertex]]
        vertex = parent[vertex]
    return vertex


@njit(nogil=True, cache=True)
def _unite(parent, edges):
    """Join the trees of the two ends of every edge, the larger root under the smaller."""
    for edge in range(len(edges)):
        root_a, root_b = _root(parent, edges[edge, 0]), _root(parent, edges[edge, 1])
        if root_a < root_b:
            parent[root_b] = root_a
        elif root_b < root_a:
            parent[root_a] = root_b


@njit(nogil=True, cache=True)
def _numbered(parent):
    """The component of every vertex, numbered by its smallest vertex (every parent is below
    its child, so its number is known when the child is reached)."""
    component = np.empty(len(parent), np.int64)
    count = 0
    for vertex in range(len(parent)):
        if parent[vertex] == vertex:
            component[vertex] = count
            count += 1
        else:
            component[vertex] = component[parent[vertex]]
    return component


def _checked(vertex_count: int, edges: np.ndarray) -> np.ndarray:
    edges = np.asarray(edges).reshape(-1, 2)
    if len(edges) and (edges.min() < 0 or edges.max() >= vertex_count):
        raise ValueError(f"edge ends must lie in 0..{vertex_count - 1}")
    return edges


def components(vertex_count: int, edges: np.ndarray) -> np.ndarray:
    """Connected component of every vertex, numbered 0..C-1 by each one's smallest vertex."""
    edges = _checked(vertex_count, edges)
    parent = np.arange(vertex_count, dtype=np.int32 if vertex_count < 2**31 else np.int64)
    if len(edges):
        in_background(_unite, parent, edges, size=len(edges))
    return in_background(_numbered, parent, size=len(parent))


def distinct_edge_keys(edges: np.ndarray) -> np.ndarray:
    """The distinct undirected edges, self-loops left out, as sorted keys (low end << 32 | high
    end), built in place (the graph step holds them beside the corpus)."""
    edges = np.asarray(edges).reshape(-1, 2)
    keys = np.minimum(edges[:, 0], edges[:, 1]).astype(np.uint64)
    keys <<= np.uint64(32)
    keys |= np.maximum(edges[:, 0], edges[:, 1]).astype(np.uint64)
    loops = edges[:, 0] == edges[:, 1]
    if loops.any():
        keys = keys[~loops]
    del loops
    keys.sort()
    if len(keys) > 1:
        first = np.empty(len(keys), bool)
        first[0] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
        keys = keys[first]
    return keys
