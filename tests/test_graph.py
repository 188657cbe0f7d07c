import numpy as np

from tapaco.graph import surface_edges


def test_surface_edges_join_equal_keys_within_a_language_only():
    texts = ["Don’t go!", "Don't go.", "Don't go.", "“Yes”", "Yes", "Don't go."]
    langs = np.array([0, 0, 1, 0, 0, 0])
    edges = surface_edges(langs, texts)
    assert sorted(map(tuple, edges.tolist())) == [(1, 0), (4, 3), (5, 0)]


def test_no_surface_edges_for_distinct_texts():
    assert surface_edges(np.array([0, 0]), ["a", "b"]).shape == (0, 2)


def test_empty_texts_are_never_surface_neighbours():
    # "" and a text made only of quotation marks have an empty surface key
    texts = ["", "Yes", "", "“”", "Yes."]
    edges = surface_edges(np.array([0, 0, 0, 0, 0]), texts)
    assert edges.tolist() == []
    assert surface_edges(np.array([0, 0, 0]), ["", "a", "a"]).tolist() == [[2, 1]]


def test_the_graph_is_the_same_on_one_thread_and_several():
    from conftest import SAMPLE

    from tapaco import graph
    from tapaco.core.errors import BadInputLog
    from tapaco.core.progress import Progress
    from tapaco.read import read_corpus

    corpus = read_corpus(SAMPLE, BadInputLog(), Progress(enabled=False))
    alone = graph.build_graph(corpus, keep_edges=True, workers=1)
    apart = graph.build_graph(corpus, keep_edges=True, workers=3)
    assert np.array_equal(alone.set_id, apart.set_id)
    assert np.array_equal(alone.row_order, apart.row_order)
    assert np.array_equal(alone.edges, apart.edges)
    assert alone.edge_counts == apart.edge_counts
    assert alone.component_count == apart.component_count


def test_distinct_edges_of_the_merged_graph_are_counted_once_either_way_round():
    from tapaco.components import distinct_edge_keys
    from tapaco.graph import _distinct_edge_count

    rng = np.random.default_rng(8)
    for count, aligned_size, surface_size in [(30, 80, 20), (500, 300, 40), (5, 0, 6), (5, 7, 0)]:
        aligned = rng.integers(0, count, (aligned_size, 2))
        surface = rng.integers(0, count, (surface_size, 2))
        expected = {frozenset(edge) for edge in np.concatenate([aligned, surface]).tolist()
                    if edge[0] != edge[1]}
        found = _distinct_edge_count(distinct_edge_keys(aligned), surface)
        assert found == len(expected) and type(found) is int


def test_sets_are_the_merged_graphs_components_numbered_by_smallest_number_fraction_vertex():
    """Alignment components joined by surface edges are the components of the merged graph
    (networkx), numbered by each one's smallest (number, fraction, vertex)."""
    import networkx as nx

    from tapaco.graph import _alignment_components, _set_ids
    from tapaco.sentence_ids import NO_NUMBER

    rng = np.random.default_rng(3)
    for size, aligned_size, surface_size, numbers in [(400, 250, 60, 50), (500, 0, 40, 10),
                                                      (40, 30, 0, 2), (1, 0, 0, 1)]:
        aligned = rng.integers(0, size, (aligned_size, 2)).astype(np.int32)
        surface = rng.integers(0, size, (surface_size, 2)).astype(np.int32)
        number = rng.integers(0, numbers, size)
        number[rng.random(size) < 0.1] = NO_NUMBER
        fraction = rng.integers(0, 3, size)
        graph = nx.Graph()
        graph.add_nodes_from(range(size))
        graph.add_edges_from(np.concatenate([aligned, surface]).tolist())
        smallest = {min((int(number[v]), int(fraction[v]), v) for v in part): part
                    for part in nx.connected_components(graph)}
        expected = [0] * size
        for rank, key in enumerate(sorted(smallest)):
            for vertex in smallest[key]:
                expected[vertex] = rank
        label, order, _ = _alignment_components(size, aligned, number, fraction)
        set_id, count = _set_ids(label, order, surface)
        assert set_id.tolist() == expected
        assert count == len(smallest)


def test_the_order_of_rows_is_by_document_number_fraction_and_vertex_on_any_threads():
    """Runs of whole documents sorted apart give the sorted tuples; rows not grouped by
    ascending document are sorted as one run."""
    from tapaco.graph import _row_order

    rng = np.random.default_rng(5)
    grouped = np.sort(rng.integers(0, 7, 500))
    for document in (grouped, rng.integers(0, 7, 500)):
        number, fraction = rng.integers(0, 40, 500), rng.integers(0, 3, 500)
        expected = sorted(range(500), key=lambda v: (document[v], number[v], fraction[v], v))
        for workers in (1, 2, 3, 8):
            assert _row_order(document, number, fraction, workers).tolist() == expected
    assert _row_order(*[np.zeros(0, np.int64)] * 3, 2).tolist() == []
