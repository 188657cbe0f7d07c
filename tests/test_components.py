import igraph
import numpy as np
import pytest

from tapaco.components import components, distinct_edge_keys


def igraph_membership(vertex_count: int, edges: np.ndarray) -> list[int]:
    graph = igraph.Graph(vertex_count)
    graph.add_edges(edges)
    return graph.connected_components().membership


def shuffled_path(rng: np.random.Generator, count: int) -> np.ndarray:
    """A path through every vertex in random order: one deep component for union-find."""
    order = rng.permutation(count)
    return np.column_stack([order[:-1], order[1:]])


def graphs() -> list[tuple[str, int, np.ndarray]]:
    rng = np.random.default_rng(11)
    return [
        ("sparse", 2000, rng.integers(0, 2000, (900, 2))),
        ("dense", 300, rng.integers(0, 300, (3000, 2))),
        ("shuffled path", 5000, shuffled_path(rng, 5000)),
        ("paths and isolated vertices", 3000,
         np.concatenate([shuffled_path(rng, 1000), 1500 + shuffled_path(rng, 700)])),
        ("star to the last vertex", 1000, np.column_stack([np.arange(999), np.full(999, 999)])),
        ("self-loops and repeated edges", 50,
         np.array([[3, 3], [4, 9], [9, 4], [4, 9], [49, 0], [0, 0]])),
    ]


@pytest.mark.parametrize("name,count,edges", graphs(), ids=[g[0] for g in graphs()])
def test_components_are_igraphs_numbered_alike(name, count, edges):
    assert components(count, edges).tolist() == igraph_membership(count, edges.tolist())


def test_components_of_many_small_random_graphs_match_igraph():
    rng = np.random.default_rng(5)
    for _ in range(200):
        count = int(rng.integers(1, 40))
        edges = rng.integers(0, count, (int(rng.integers(0, 60)), 2))
        assert components(count, edges).tolist() == igraph_membership(count, edges.tolist())


def test_vertices_without_edges_are_components_of_their_own():
    assert components(3, np.zeros((0, 2), np.int32)).tolist() == [0, 1, 2]
    assert components(0, []).tolist() == []
    assert components(4, [[3, 2]]).tolist() == [0, 1, 2, 2]


def test_an_edge_outside_the_vertices_is_refused():
    with pytest.raises(ValueError, match="0..3"):
        components(4, [[0, 4]])
    with pytest.raises(ValueError, match="0..3"):
        components(4, [[-1, 2]])


def test_distinct_edge_keys_name_each_undirected_edge_once_and_leave_out_self_loops():
    edges = np.array([[1, 2], [2, 1], [3, 3], [0, 5], [5, 0], [0, 5], [7, 2**31 - 1]])
    assert distinct_edge_keys(edges).tolist() == [5, (1 << 32) | 2, (7 << 32) | (2**31 - 1)]
    assert distinct_edge_keys(np.zeros((0, 2), np.int32)).tolist() == []
