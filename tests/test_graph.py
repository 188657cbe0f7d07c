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
