"""`--oversized split`: an oversized set made of two meaning clusters joined by one
misalignment comes apart into the two; the default output does not change."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLE, Sentence
from test_build import read_output

from tapaco import communities
from tapaco.cli import main
from tapaco.communities import LeidenRuns, SplitOptions, leiden_membership, split_oversized
from tapaco.core.errors import OptionError
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build

CLUSTER = 6  # en sentences per meaning cluster; two clusters exceed --max-set-size 10


def _two_clusters(opus):
    """en 1-6 all translate de 101-103 (one meaning), en 11-16 translate de 111-113 (another);
    one misaligned link joins en 1 to de 111."""
    first = [Sentence(f"s{n}", f"Cluster one sentence {word}.") for n, word in
             zip(range(1, 7), ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])]
    second = [Sentence(f"s{n}", f"Second meaning phrase {word}.") for n, word in
              zip(range(11, 17), ["red", "green", "blue", "black", "white", "pink"])]
    german = [Sentence(f"s{n}", f"Deutscher Satz {n}.") for n in (101, 102, 103, 111, 112, 113)]
    opus.sentences("en/tatoeba.xml.gz", *first, *second)
    opus.sentences("de/tatoeba.xml.gz", *german)
    links = [(f"s{de}", f"s{en}") for de in (101, 102, 103) for en in range(1, 7)]
    links += [(f"s{de}", f"s{en}") for de in (111, 112, 113) for en in range(11, 17)]
    links.append(("s111", "s1"))  # the misalignment
    opus.links("de-en", "de/tatoeba.xml.gz", "en/tatoeba.xml.gz", links)
    return opus.write()


def _sets(rows):
    sets = {}
    for set_id, sentence_id, *_ in rows:
        sets.setdefault(set_id, set()).add(sentence_id)
    return sets


def _options(oversized):
    return BuildOptions(FilterOptions(max_set_size=10, bleu_max=100.0, min_sets=1),
                        split=SplitOptions(oversized))


def test_one_misalignment_between_two_clusters_comes_apart(opus, tmp_path):
    root = _two_clusters(opus)
    dropped = build(root, tmp_path / "drop", _options("drop"))
    assert "en" not in read_output(tmp_path / "drop")  # 12 en sentences: over 10, dropped
    stats = build(root, tmp_path / "split", _options("split"))
    files = read_output(tmp_path / "split")
    english = sorted(_sets(files["en"]).values(), key=min)
    assert english == [{str(n) for n in range(1, 7)}, {str(n) for n in range(11, 17)}]
    # de's part (6 sentences) was not oversized: it keeps its component's set, as in drop
    assert files["de"] == read_output(tmp_path / "drop")["de"]
    assert len({row[0] for row in files["en"]} & {row[0] for row in files["de"]}) == 0
    assert stats["oversized_split"] == {
        "sentences_in_oversized_sets": 12, "sentences_rescued": 12, "sets_rescued": 2,
        "per_language": {"en": {"sets": 2, "sentences": 12}}}
    split_step = stats["funnel"][1]
    assert split_step["step"] == "(b) sets over 10 split into Leiden communities"
    assert (split_step["components_split"], split_step["communities"]) == (1, 2)
    assert stats["funnel"][-1]["sentences"] == dropped["funnel"][-1]["sentences"] + 12
    markdown = (tmp_path / "split" / "stats.md").read_text(encoding="utf-8")
    assert "12 of the 12 sentences of oversized sets are in 2 output sets." in markdown


def test_split_output_is_deterministic(opus, tmp_path):
    root = _two_clusters(opus)
    for name in ("one", "two"):
        build(root, tmp_path / name, _options("split"))
    for name in ("en.txt", "de.txt", "stats.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_default_output_is_unchanged_by_the_option(tmp_path):
    build(SAMPLE, tmp_path / "plain", BuildOptions(FilterOptions(min_sets=1)))
    build(SAMPLE, tmp_path / "drop", BuildOptions(FilterOptions(min_sets=1),
                                                  split=SplitOptions("drop", "cpm", 0.5, 7)))
    for path in sorted((tmp_path / "plain").iterdir()):
        if path.name != "manifest.json":
            assert path.read_bytes() == (tmp_path / "drop" / path.name).read_bytes(), path.name
    assert "oversized" not in json.loads((tmp_path / "plain" / "stats.json").read_text())[
        "options"]


def test_a_graph_of_two_cliques_and_a_bridge():
    """Leiden on two 5-cliques joined by one edge: the two cliques, whatever the seed."""
    clique = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    edges = np.array(clique + [(a + 5, b + 5) for a, b in clique] + [(0, 5)], np.int32)
    for seed in range(5):
        membership = leiden_membership(10, edges, SplitOptions("split", seed=seed))
        assert len(set(membership[:5])) == 1 and len(set(membership[5:])) == 1
        assert membership[0] != membership[5]


def planted_partition(blocks: int, size: int, seed: int) -> np.ndarray:
    """Edges of `blocks` random dense groups of `size` vertices, with sparse edges between."""
    rng = np.random.default_rng(seed)
    n = blocks * size
    inside = rng.integers(0, size, (n * 6, 2)) + (rng.integers(0, blocks, n * 6) * size)[:, None]
    across = rng.integers(0, n, (n // 2, 2))
    edges = np.concatenate([inside, across])
    return edges[edges[:, 0] != edges[:, 1]].astype(np.int32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_leiden_that_converges_within_the_bound_is_leiden_run_to_convergence(seed, monkeypatch):
    """Iterating one at a time from the last membership is igraph's own run until no vertex
    moves (n_iterations=-1), when that takes fewer iterations than the bound: on a sparse
    random graph, where many iterations still move vertices."""
    import random

    monkeypatch.setattr(communities, "MAX_ITERATIONS", 1000)
    monkeypatch.setattr(communities, "MIN_QUALITY_GAIN", 0.0)
    import igraph

    edges = np.random.default_rng(seed).integers(0, 600, (700, 2)).astype(np.int32)
    graph = igraph.Graph(600)
    graph.add_edges(edges)
    graph.simplify()
    random.seed(seed)
    expected = graph.community_leiden(objective_function="modularity", n_iterations=-1)
    runs = LeidenRuns()
    membership = leiden_membership(600, edges, SplitOptions("split", seed=seed), runs)
    assert runs.calls == 1 and 3 <= runs.iterations < 1000
    assert runs.stopped_early == 0
    assert membership.tolist() == expected.membership


def test_leiden_stops_at_the_iteration_bound(monkeypatch):
    edges = planted_partition(200, 10, 5)
    monkeypatch.setattr(communities, "MIN_QUALITY_GAIN", 0.0)
    for bound in (1, 2):
        monkeypatch.setattr(communities, "MAX_ITERATIONS", bound)
        runs = LeidenRuns()
        first = leiden_membership(2000, edges, SplitOptions("split", seed=3), runs)
        assert (runs.calls, runs.iterations, runs.stopped_early) == (1, bound, 1)
        again = leiden_membership(2000, edges, SplitOptions("split", seed=3))
        assert first.tolist() == again.tolist()
    assert runs.as_dict()["max_iterations"] == 2


def test_only_oversized_groups_get_new_ids():
    # component 0: vertices 0-5 (language 0, oversized for max 4) and 6-7 (language 1)
    # component 1: vertices 8-9 (language 0)
    set_id = np.array([0] * 8 + [1, 1])
    edges = np.array([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3), (0, 6), (3, 7),
                      (8, 9)], np.int32)
    number = np.arange(10)
    lang = np.array([0] * 6 + [1, 1, 0, 0])
    split = split_oversized(set_id, edges, number, np.zeros(10, np.int64), np.arange(10), lang,
                            4, SplitOptions("split"))
    new = split.set_id
    assert new[6] == new[7] == 0 and new[8] == new[9] == 1  # not oversized: unchanged
    assert new[0] == new[1] == new[2] == 2 and new[3] == new[4] == new[5] == 3
    assert sorted(split.rescued_vertices.tolist()) == [0, 1, 2, 3, 4, 5]
    assert (split.components, split.communities) == (1, 2)


@pytest.mark.parametrize("arguments, message", [
    (("cut",), "--oversized"),
    (("split", "louvain"), "--leiden-objective"),
    (("split", "modularity", -1.0), "--leiden-resolution"),
    (("split", "modularity", 1.0, -3), "--seed"),
])
def test_bad_split_options(arguments, message):
    with pytest.raises(OptionError, match=message):
        SplitOptions(*arguments)


def test_command_line_split(opus, tmp_path, capsys):
    root = _two_clusters(opus)
    assert main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "out"),
                 "--max-set-size", "10", "--bleu-max", "100", "--min-sets", "1",
                 "--oversized", "split", "--leiden-objective", "cpm",
                 "--leiden-resolution", "0.5", "--seed", "3", "--quiet"]) == 0
    options = json.loads((tmp_path / "out" / "stats.json").read_text())["options"]
    assert options["oversized"] == {"oversized": "split", "objective": "cpm",
                                    "resolution": 0.5, "seed": 3}
    assert main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "bad"),
                 "--oversized", "split", "--leiden-resolution", "-2"]) == 2
    assert "--leiden-resolution" in capsys.readouterr().err


def test_explain_shows_a_rescued_set_as_its_community(opus, tmp_path):
    from tapaco.explain import explain_set

    root = _two_clusters(opus)
    build(root, tmp_path / "out", _options("split"))
    rescued = {row[0] for row in read_output(tmp_path / "out")["en"]}
    second = next(s for s in rescued if "11" in _sets(read_output(tmp_path / "out")["en"])[s])
    result = explain_set(root, tmp_path / "out", int(second), "en", max_pairs=0)
    # the community of en 11-16 with its pivots de 111-113: 9 sentences, no en 1-6
    assert result.sentences == 9
    assert {(s.lang, s.sentences) for s in result.languages} >= {("en", 6), ("de", 3)}
    (english,) = result.explained
    assert english.pairs == 15 and len(english.paths) == 15
    for path in english.paths:
        middle = [hop.sentence for hop in path.hops[1:-1]]
        assert [(s.lang, s.id in {"111", "112", "113"}) for s in middle] == [("de", True)]


def test_a_community_still_oversized_is_split_again_on_its_own():
    from tapaco.communities import LeidenRuns, _split_still_oversized

    clique = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    bridged = clique + [(a + 5, b + 5) for a, b in clique] + [(0, 5)]
    whole = [(a + 10, b + 10) for a in range(8) for b in range(a + 1, 8)]  # an 8-clique
    edges = np.array(bridged + whole, np.int32)
    community = np.array([0] * 10 + [1] * 8)  # as if a first pass had kept each together
    nodes = np.arange(18)
    runs = LeidenRuns()
    split = _split_still_oversized(community.copy(), edges, nodes, np.zeros(18, np.int64), 6,
                                   SplitOptions("split"), runs)
    assert runs.calls == 2
    assert len(set(split[:5])) == 1 and len(set(split[5:10])) == 1 and split[0] != split[5]
    assert set(split[10:]) == {1}  # Leiden keeps a clique whole: it stays (filter b drops it)
    assert len(set(split[:10]) & {1}) == 0
