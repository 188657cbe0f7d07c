"""`--oversized split`: an oversized set made of two meaning clusters joined by one
misalignment comes apart into the two; the default output does not change."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import PROJECT, SAMPLE, Sentence
from test_build import read_output

import tapaco.pipeline as pipeline
from tapaco.cli import main
from tapaco.communities import SplitOptions, leiden_membership, split_oversized
from tapaco.core.errors import OptionError
from tapaco.core.forked import Forked
from tapaco.filters import LANGUAGE_ID_STEP, FilterOptions
from tapaco.marks import mark_language, marks_text
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
    rounds = stats["oversized_split"].pop("leiden_rounds")
    assert stats["oversized_split"] == {
        "sentences_in_oversized_sets": 12, "sentences_rescued": 12, "sets_rescued": 2,
        "per_language": {"en": {"sets": 2, "sentences": 12}}}
    # one Leiden run on the 18 sentences; its second iteration moved nothing; the quality is
    # the modularity of the two clusters: 18 of the 37 edges inside each, degrees 37 and 37
    assert rounds == [{"graphs": 1, "vertices": 18, "iterations": 2, "converged": 1,
                       "lowest_quality": pytest.approx(36 / 37 - 2 * (37 / 74) ** 2, abs=1e-6)}]
    split_step = stats["funnel"][1]
    assert split_step["step"] == "(b) sets over 10 split into Leiden communities"
    assert (split_step["components_split"], split_step["communities"]) == (1, 2)
    assert stats["funnel"][-1]["sentences"] == dropped["funnel"][-1]["sentences"] + 12
    markdown = (tmp_path / "split" / "stats.md").read_text(encoding="utf-8")
    assert "12 of the 12 sentences of oversized sets are in 2 output sets." in markdown
    # stats.md holds the Leiden rounds stats.json has, one row per round
    [round_] = rounds
    assert (f"| 1 | 1 | 18 | 2 | 1 | {round_['lowest_quality']} |") in markdown.splitlines()


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


@pytest.mark.parametrize(("workers", "parallel", "moved", "staying", "threads"), [
    (2, True, 3_074_012, 3_359_739, 1),  # the giant component: Leiden is the longest path
    (2, True, 394_324, 5_875_334, 2),  # Table 2: the filters are
    (4, True, 394_324, 5_875_334, 3),  # with four workers, three end before Leiden
    (2, False, 3_074_012, 3_359_739, 2),  # Leiden in line: nothing beside the filters
    (1, True, 3_074_012, 3_359_739, 1)])
def test_filters_beside_leiden_leave_it_a_core_only_when_it_is_the_longest_path(
        workers, parallel, moved, staying, threads):
    # the counts are the full-scale generators' (moved rows of oversized sets, staying rows)
    assert pipeline._beside_leiden_workers(workers, parallel, moved, staying) == threads


def test_a_graph_of_two_cliques_and_a_bridge():
    """Leiden on two 5-cliques joined by one edge: the two cliques, whatever the seed."""
    clique = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    edges = np.array(clique + [(a + 5, b + 5) for a, b in clique] + [(0, 5)], np.int32)
    for seed in range(5):
        membership = leiden_membership(10, edges, SplitOptions("split", seed=seed)).membership
        assert len(set(membership[:5])) == 1 and len(set(membership[5:])) == 1
        assert membership[0] != membership[5]


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
    from tapaco.communities import _split_still_oversized

    clique = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    bridged = clique + [(a + 5, b + 5) for a, b in clique] + [(0, 5)]
    whole = [(a + 10, b + 10) for a in range(8) for b in range(a + 1, 8)]  # an 8-clique
    edges = np.array(bridged + whole, np.int32)
    community = np.array([0] * 10 + [1] * 8)  # as if a first pass had kept each together
    nodes = np.arange(18)
    split, rounds = _split_still_oversized(community.copy(), edges, nodes,
                                           np.zeros(18, np.int64), 6, SplitOptions("split"))
    assert len(set(split[:5])) == 1 and len(set(split[5:10])) == 1 and split[0] != split[5]
    assert set(split[10:]) == {1}  # Leiden keeps a clique whole: it stays (filter b drops it)
    assert len(set(split[:10]) & {1}) == 0
    # one round on both; the next finds only the clique, already kept whole: no second round
    assert [(r["graphs"], r["vertices"]) for r in rounds] == [(2, 18)]


def test_subgraphs_of_a_round_are_each_communitys_own():
    """The subgraphs of a round, found in one pass over the edges, are those found community by
    community (its vertices in order, its inner edges in order, renumbered)."""
    from tapaco.communities import _subgraphs

    rng = np.random.default_rng(5)
    community = rng.integers(0, 12, 300)
    edges = rng.integers(0, 300, (1500, 2))
    labels = np.array([1, 4, 5, 11])
    found = list(_subgraphs(community, edges, labels))
    assert [label for label, _, _ in found] == labels.tolist()
    for label, nodes, inner in found:
        expected_nodes = np.flatnonzero(community == label)
        own = edges[(community[edges[:, 0]] == label) & (community[edges[:, 1]] == label)]
        assert nodes.tolist() == expected_nodes.tolist()
        assert inner.tolist() == [[expected_nodes.tolist().index(v) for v in edge]
                                  for edge in own.tolist()]


def test_simple_edges_are_igraphs_simplified_graph_edge_for_edge():
    """Multiple edges in both directions and self-loops: the edges made in numpy are those of
    igraph's simplify(), in its order (so Leiden sees the same graph, edge ids included)."""
    import igraph

    from tapaco.communities import simple_edges

    edges = np.random.default_rng(3).integers(0, 40, (400, 2))
    edges = np.concatenate([edges, edges[:50, ::-1], [[7, 7], [0, 0]]])
    graph = igraph.Graph(40, edges.tolist())
    graph.simplify()
    assert simple_edges(edges).tolist() == [list(edge) for edge in graph.get_edgelist()]
    assert simple_edges(np.zeros((0, 2), np.int64)).shape == (0, 2)


def _random_graph(vertices: int, degree: int) -> np.ndarray:
    """Edges of a random graph: no community structure, so Leiden's vertices keep moving."""
    return np.random.default_rng(0).integers(0, vertices, (vertices * degree // 2, 2))


def _igraph_leiden(vertices, edges, iterations, initial=None, objective="modularity",
                   resolution=1.0):
    """igraph's own Leiden, seeded as leiden_membership seeds it (the default options)."""
    import random

    import igraph

    graph = igraph.Graph(vertices, edges.tolist())
    graph.simplify()
    random.seed(0)
    return graph.community_leiden(objective_function=objective, resolution=resolution,
                                  n_iterations=iterations, initial_membership=initial)


def test_leiden_stops_at_the_iteration_bound(monkeypatch):
    """On a random graph run until no vertex moves would take ~30 iterations: Leiden runs
    MAX_ITERATIONS, one at a time, continuing the partition, and says it did not converge."""
    import igraph

    from tapaco.communities import MAX_ITERATIONS

    edges = _random_graph(3000, 6)
    asked = []
    leiden = igraph.GraphBase.community_leiden

    def counted(graph, *args, **kwargs):
        asked.append(kwargs["n_iterations"])
        return leiden(graph, *args, **kwargs)

    monkeypatch.setattr(igraph.GraphBase, "community_leiden", counted)
    run = leiden_membership(3000, edges, SplitOptions("split"))
    assert asked == [1] * MAX_ITERATIONS
    assert (run.iterations, run.converged) == (MAX_ITERATIONS, False)
    monkeypatch.undo()
    bounded = _igraph_leiden(3000, edges, MAX_ITERATIONS)
    assert run.membership.tolist() == bounded.membership
    assert run.quality == pytest.approx(bounded.quality)
    # one iteration more would still have raised the quality: it had not converged
    further = _igraph_leiden(3000, edges, 1, bounded.membership)
    assert further.quality > bounded.quality
    assert leiden_membership(3000, edges, SplitOptions("split")).membership.tolist() == \
        run.membership.tolist()


@pytest.mark.parametrize("objective, resolution", [("modularity", 1.0), ("cpm", 0.5)])
def test_leiden_stops_when_an_iteration_no_longer_helps(objective, resolution):
    """Planted 10-cliques joined by a few random edges: the partition settles at once, and
    Leiden stops there with the partition igraph's Graph.community_leiden gives for as many
    iterations."""
    from tapaco.communities import MAX_ITERATIONS

    rng = np.random.default_rng(1)
    clique = np.array([(a, b) for a in range(10) for b in range(a + 1, 10)])
    edges = np.concatenate([clique + 10 * n for n in range(100)]
                           + [rng.integers(0, 1000, (20, 2))])
    run = leiden_membership(1000, edges, SplitOptions("split", objective, resolution))
    assert run.converged and run.iterations < MAX_ITERATIONS
    assert run.membership.tolist() == _igraph_leiden(1000, edges, run.iterations, None,
                                                     objective, resolution).membership
    planted = np.arange(1000) // 10
    assert len(np.unique(np.column_stack([planted, run.membership]), axis=0)) == 100


def test_split_shows_leiden_progress():
    import io

    from tapaco.core.progress import Progress

    stream = io.StringIO()
    edges = np.array([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)], np.int32)
    split_oversized(np.zeros(6, np.int64), edges, np.arange(6), np.zeros(6, np.int64),
                    np.arange(6), np.zeros(6, np.int64), 4, SplitOptions("split"),
                    Progress(stream, enabled=True))
    assert "1/10 iterations on a graph of 6 vertices" in stream.getvalue()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_leiden_without_a_bound_is_igraphs_run_until_no_vertex_moves(seed, monkeypatch):
    """Iterating one at a time from the last membership, with neither bound, is igraph's own
    n_iterations=-1 on a sparse random graph, where many iterations still move vertices."""
    import random

    import igraph

    from tapaco import communities

    monkeypatch.setattr(communities, "MAX_ITERATIONS", 1000)
    monkeypatch.setattr(communities, "MIN_RELATIVE_GAIN", 0.0)
    edges = np.random.default_rng(seed).integers(0, 600, (700, 2)).astype(np.int32)
    graph = igraph.Graph(600)
    graph.add_edges(edges)
    graph.simplify()
    random.seed(seed)
    expected = graph.community_leiden(objective_function="modularity", n_iterations=-1)
    run = leiden_membership(600, edges, SplitOptions("split", seed=seed))
    assert run.converged and 3 <= run.iterations < 1000
    assert run.membership.tolist() == expected.membership


def _planted_components(components: int, groups: int, size: int) -> tuple[np.ndarray, ...]:
    """`components` components, each `groups` random groups of `size` vertices (dense inside,
    a few edges between groups): set ids, edges, and two languages (vertex parity)."""
    rng = np.random.default_rng(7)
    edges = []
    for component in range(components):
        first = component * groups * size
        for group in range(groups):
            inside = rng.integers(0, size, (3 * size, 2)) + first + group * size
            edges.append(inside)
        edges.append(rng.integers(first, first + groups * size, (groups * 2, 2)))
    vertices = components * groups * size
    return (np.arange(vertices) // (groups * size), np.concatenate(edges).astype(np.int32),
            np.arange(vertices) % 2)


def test_workers_do_not_change_the_split():
    """Communities still oversized after the first round are split again on several processes:
    the same sets, communities and rounds as on one, for 2 and 4 workers."""
    set_id, edges, lang = _planted_components(components=5, groups=4, size=60)
    vertices = len(set_id)
    rows = np.lexsort((set_id, lang))  # grouped by (language, set), as the build sorts them
    arguments = (set_id, edges, np.arange(vertices), np.zeros(vertices, np.int64),
                 rows, lang[rows], 20, SplitOptions("split", seed=3))
    alone = split_oversized(*arguments, workers=1)
    assert alone.leiden_rounds[1]["graphs"] >= 4  # a round of several graphs to share out
    for workers in (2, 4):
        split = split_oversized(*arguments, workers=workers)
        assert split.set_id.tolist() == alone.set_id.tolist()
        assert split.community_id.tolist() == alone.community_id.tolist()
        assert split.leiden_rounds == alone.leiden_rounds


def test_leiden_does_not_import_matplotlib_but_leaves_it_importable():
    """igraph's drawing imports matplotlib.pyplot where installed; Leiden does without, and a
    later import of matplotlib (`tapaco explain --draw` after the split) still works."""
    pytest.importorskip("matplotlib")
    script = ("import sys, numpy as np\n"
              "from tapaco.communities import SplitOptions, leiden_membership\n"
              "leiden_membership(3, np.array([(0, 1), (1, 2)]), SplitOptions('split'))\n"
              "print('matplotlib' in sys.modules)\n"
              "import matplotlib.pyplot\n"
              "print(matplotlib.pyplot.__name__)\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=PROJECT)
    assert ran.stdout.split() == ["False", "matplotlib.pyplot"]


@pytest.mark.parametrize("languages", [(), ("en", "fr")])
def test_rows_after_a_split_are_sorted_as_candidate_rows_sorts_them(tmp_path, monkeypatch,
                                                                    languages):
    """The rows moved into communities, sorted among themselves and merged after their
    language's other rows, are the candidate rows sorted again from the graph (the sample with
    sets over 3 split, every language or two)."""
    compared, seen = [], {}

    def moved_order(rows, moving, graph):
        seen["graph"] = graph
        return original_moved_order(rows, moving, graph)

    def checked(staying, moved, set_id):
        again = pipeline.candidate_rows(seen["corpus"], seen["graph"], languages)
        found, at = merged_rows(staying, moved, set_id)
        assert len(moved.vertex) and len(np.unique(found.lang)) > 1
        for name in ("vertex", "lang", "group"):
            assert np.array_equal(getattr(found, name), getattr(again, name)), name
        compared.append(len(moved.vertex))
        return found, at

    original_moved_order, merged_rows = pipeline._moved_order, pipeline._merged_rows
    without_graph_inputs = pipeline._without_graph_inputs
    monkeypatch.setattr(pipeline, "_moved_order", moved_order)
    monkeypatch.setattr(pipeline, "_merged_rows", checked)
    monkeypatch.setattr(pipeline, "_without_graph_inputs", lambda corpus: seen.setdefault(
        "corpus", without_graph_inputs(corpus)))
    build(SAMPLE, tmp_path / "out", BuildOptions(FilterOptions(max_set_size=3, min_sets=1),
                                                 languages, split=SplitOptions("split")))
    assert compared


def _meanings_release(opus, seed=5):
    """Meanings of 1-7 en, 1-5 fr, 0-2 es and 1-3 de (pivot) sentences, de linked to all the
    others of its meaning; some meanings joined by one misaligned link into components whose
    en or fr part is oversized (over 10), one meaning of 13 en that Leiden cannot split. Some
    sentences are near-identical to or a one-word change of an earlier one of their meaning
    (filters c and d); a few hold "zzz" (the planted foreign sentences); every fifth meaning
    has a pair of en sentences that differ in he / she (marked by --marks)."""
    rng = np.random.default_rng(seed)
    words = "the a cat dog sat ran on under red blue big small house tree river".split()
    counter = iter(range(1, 10**6))
    docs = {lang: [] for lang in ("en", "fr", "es", "de")}
    links = {lang: [] for lang in ("en", "fr", "es")}
    meanings = []

    def sentence(lang, earlier):
        number = next(counter)
        if earlier and rng.random() < 0.25:  # near-identical: case and punctuation
            text = earlier[int(rng.integers(len(earlier)))].text.upper().rstrip(".") + " !"
        elif earlier and rng.random() < 0.25:  # one word changed at the end: BLEU over 50
            base = earlier[int(rng.integers(len(earlier)))].text.rstrip(".").split()
            text = " ".join([*base[:-1], f"x{number}"]) + "."
        else:
            text = " ".join([*rng.choice(words, 6), f"{lang}{number}"]) + "."
        if rng.random() < 0.04:
            text = text.rstrip(".") + " zzz."
        made = Sentence(f"s{number}", text)
        docs[lang].append(made)
        earlier.append(made)
        return made

    for index in range(70):
        sizes = {"en": 13 if index == 7 else int(rng.integers(1, 8)),
                 "fr": int(rng.integers(1, 6)), "es": int(rng.integers(0, 3) * (index % 4 == 0)),
                 "de": int(rng.integers(1, 4))}
        meaning = {lang: [] for lang in sizes}
        for lang, size in sizes.items():
            for _ in range(size):
                sentence(lang, meaning[lang])
        if index % 5 == 1:  # a pair that --marks marks (neutralisation:gender)
            for pronoun in ("He", "She"):
                meaning["en"].append(Sentence(f"s{next(counter)}", f"{pronoun} ran {index}."))
                docs["en"].append(meaning["en"][-1])
        for lang in links:
            links[lang] += [(de.id, other.id) for de in meaning["de"] for other in meaning[lang]]
        meanings.append(meaning)
    for index in range(0, 60, 3):  # join meanings index, index + 1 (and + 2 every other time)
        for other in (index + 1, index + 2)[:1 + (index % 2)]:
            links["en"].append((meanings[other]["de"][0].id, meanings[index]["en"][0].id))
    for lang, made in docs.items():
        opus.sentences(f"{lang}/tatoeba.xml.gz", *made)
    for lang, pairs in links.items():
        opus.links(f"de-{lang}", "de/tatoeba.xml.gz", f"{lang}/tatoeba.xml.gz", pairs)
    return opus.write()


def _reference_build(root, options, foreign):
    """The sets after the split (Leiden's ids from `split_sets`), then filters (a)-(e) by
    plain loops over each set, written from the paper (tests/independent.py's near-identical
    key and sacrebleu; `foreign(lang, text)` judges for --language-id): the output rows per
    language as (set id, text), the funnel from the split onwards as stats.json records it,
    and how many sentences were judged foreign."""
    from independent import near_identical
    from sacrebleu.metrics import BLEU

    from tapaco.core.errors import BadInputLog
    from tapaco.core.progress import Progress
    from tapaco.graph import build_graph
    from tapaco.read import read_corpus

    corpus = read_corpus(root, BadInputLog(False), Progress(enabled=False), "raw")
    graph = build_graph(corpus, keep_edges=True)
    set_id = pipeline.split_sets(corpus, graph, options).set_id
    texts = corpus.texts.take(np.arange(len(set_id))).arrow().to_pylist()
    place = np.empty(len(set_id), np.int64)
    place[graph.row_order] = np.arange(len(set_id))
    languages = sorted(corpus.languages)
    sets = {}
    for vertex in sorted(range(len(set_id)), key=lambda v: place[v]):
        lang = corpus.languages[corpus.vertex_lang[vertex]]
        sets.setdefault((lang, int(set_id[vertex])), []).append(vertex)
    bleu = BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)
    limits = options.filters

    def near_identical_kept(_, members):
        keys = [near_identical(texts[v]) for v in members]
        return [v for i, v in enumerate(members) if keys[i] not in keys[:i]]

    def bleu_kept(_, members):
        kept = []
        for v in members:
            if all(bleu.sentence_score(texts[v], [texts[k]]).score <= limits.bleu_max
                   for k in kept):
                kept.append(v)
        return kept

    steps = [
        ("(a) single-sentence sets", lambda _, m: m if len(m) >= 2 else []),
        (LANGUAGE_ID_STEP, lambda key, m: [v for v in m if not foreign(key[0], texts[v])
                                           or dropped.append(v)]),
        (f"(b) sets over {limits.max_set_size}",
         lambda _, m: m if len(m) <= limits.max_set_size else []),
        ("(c) near-identical sentences", near_identical_kept),
        (f"(d) sentence BLEU over {limits.bleu_max:g}", bleu_kept),
        (f"(e) languages with fewer than {limits.min_sets} sets",
         lambda key, m: m if sum(k[0] == key[0] for k in sets) >= limits.min_sets else []),
    ]
    funnel, dropped = [], []

    def record(step, removed, dissolved):
        per_language = {lang: {"sets": sum(k[0] == lang for k in sets),
                               "sentences": sum(len(m) for k, m in sets.items() if k[0] == lang)}
                        for lang in languages}
        funnel.append({"step": step, "sentences_removed": removed, "sets_dissolved": dissolved,
                       "sets": len(sets), "sentences": sum(len(m) for m in sets.values()),
                       "per_language": {lang: counts for lang, counts in per_language.items()
                                        if counts["sentences"]}})

    record(f"(b) sets over {limits.max_set_size} split into Leiden communities", 0, 0)
    for step, keep in steps:
        before = (sum(len(m) for m in sets.values()), len(sets))
        after = {key: keep(key, members) for key, members in sets.items()}
        sets = {key: members for key, members in after.items() if len(members) >= 2}
        record(step, before[0] - sum(len(m) for m in sets.values()), before[1] - len(sets))
    rows = {lang: [(str(set_id[v]), texts[v]) for key in sorted(sets) if key[0] == lang
                   for v in sets[key]] for lang in languages}
    return {lang: found for lang, found in rows.items() if found}, funnel, len(dropped)


@pytest.mark.parametrize("workers", [1, 2])
def test_split_build_filters_as_plain_loops_over_the_split_sets(opus, tmp_path, monkeypatch,
                                                                workers):
    """With --oversized split (Leiden beside the filters where there are two cores), the output
    rows and every funnel step are those of filters (a)-(e) written as plain loops over the
    sets after the split; --language-id (a planted identifier) and --min-sets (dropping es)
    matter too, and so do filters b, c and d on both the split and the other sets."""
    from tapaco.core import language_id

    def foreign(lang, text):  # de is a language the planted identifier does not know
        return lang != "de" and "zzz" in text

    monkeypatch.setattr(language_id, "check_available", lambda: None)
    monkeypatch.setattr(language_id, "identifier_version", lambda: "planted")
    monkeypatch.setattr(language_id, "judged", lambda code: code != "de")
    monkeypatch.setattr(language_id, "foreign",
                        lambda texts, code: np.array([foreign(code, t) for t in texts], bool))
    # the sets not split are marked while Leiden runs even when it ran faster than the filters
    monkeypatch.setattr(Forked, "ready", lambda self: False)
    root = _meanings_release(opus)
    options = BuildOptions(FilterOptions(max_set_size=10, bleu_max=50.0, min_sets=12),
                           split=SplitOptions("split"), marks=True, workers=workers,
                           language_id=True)
    stats = build(root, tmp_path / "out", options)
    rows, funnel, dropped = _reference_build(root, options, foreign)
    files = read_output(tmp_path / "out")
    assert {lang: [(row[0], row[2]) for row in found] for lang, found in files.items()} == rows
    # the marks are those of each whole file, marked in one piece; split and other sets have some
    for lang, found in files.items():
        marks = mark_language(lang, [(int(row[0]), row[1], row[2]) for row in found])
        path = tmp_path / "out" / "marks" / f"{lang}.tsv"
        assert path.read_text(encoding="utf-8") == marks_text(marks)
    english = {mark.set_id >= stats["graph"]["components"]
               for mark in mark_language("en", [(int(r[0]), r[1], r[2]) for r in files["en"]])}
    assert english == {False, True}
    recorded = [{key: value for key, value in step.items()
                 if key not in ("components_split", "communities", "dropped_by")}
                for step in stats["funnel"][1:]]
    for step in recorded:
        step["per_language"] = stats["funnel_per_language"][step["step"]]
    assert recorded == funnel
    # what makes the comparison worth it: every filter removes rows, es goes by (e)
    assert all(step["sentences_removed"] for step in funnel[1:])
    assert "es" in funnel[-2]["per_language"] and "es" not in rows
    assert stats["oversized_split"]["sets_rescued"] > 0
    assert len(stats["oversized_split"]["leiden_rounds"]) > 1  # a community split again
    assert stats["language_id"]["dropped"] == dropped


def test_the_rounds_after_the_first_share_one_pool(monkeypatch):
    """The later rounds' process pool starts for the first round of several graphs, is kept
    for the next ones, and a round of one graph runs here (a pool per round cost more than the
    last rounds' work)."""
    from contextlib import ExitStack, contextmanager

    from tapaco import communities

    started = []

    @contextmanager
    def pool(workers):
        started.append(workers)
        yield f"pool of {workers}"

    monkeypatch.setattr(communities, "process_pool", pool)
    with ExitStack() as stack:
        pools = communities._LaterRoundsPool(stack, 2)
        assert pools.for_round(1) is None and not started
        assert [pools.for_round(graphs) for graphs in (1705, 3, 1, 2)] == \
            ["pool of 2", "pool of 2", None, "pool of 2"]
    assert started == [2]
    with ExitStack() as stack:
        assert communities._LaterRoundsPool(stack, 1).for_round(5) is None
    assert started == [2]
