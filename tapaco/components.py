"""Connected components of a graph given as a numpy edge array, by python-igraph.

Kept apart from :mod:`tapaco.graph` so that the fresh process that finds the alignment
components imports only numpy and igraph (the graph module's pandas and text normalisation
would add a second to its start).
"""

from __future__ import annotations

import igraph
import numpy as np


def components(vertex_count: int, edges: np.ndarray) -> np.ndarray:
    """Connected component of every vertex (igraph's numbering)."""
    graph = igraph.Graph(vertex_count)
    graph.add_edges(edges)
    return np.asarray(graph.connected_components().membership, np.int64)
