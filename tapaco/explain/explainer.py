"""A release read again as its build read it, its components as networkx graphs, and the
shortest translation paths between the sentences of a set."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from tapaco.core.arrays import garbage_collector_paused
from tapaco.core.errors import BadInputLog, OptionError, usage_error
from tapaco.core.progress import Progress
from tapaco.explain.build_output import BuildOutput
from tapaco.explain.picture import picture_bytes, picture_file
from tapaco.explain.results import (
    INTER_LINGUAL,
    INTRA_LINGUAL,
    KINDS,
    SURFACE,
    Component,
    Hop,
    LanguagePaths,
    LanguageSize,
    PairExplanation,
    PivotLanguage,
    Sentence,
    SentencePath,
    SetExplanation,
)
from tapaco.graph import SentenceGraph, build_graph, surface_edges
from tapaco.pipeline import build_options, display_ids, split_sets
from tapaco.read import INTER, INTRA, Corpus, read_corpus

MAX_PAIRS = 20
DRAW_LIMIT = 400  # sentences drawn at most (networkx's dense spring layout stops at 499)
_KIND_OF_CODE = {INTRA: INTRA_LINGUAL, INTER: INTER_LINGUAL}
_GRAPH_SIZES = ("vertices", "intra_lingual_links", "inter_lingual_links",
                "surface_similarity_links", "components")


class Explainer:
    """A release read again as its build read it, ready to explain the build's sets.

    `source` is the `--opus-dir` (or, with `tatoeba_export`, the `--tatoeba-export`) folder
    that `out` was built from; `out` the build's output folder (or a :class:`BuildOutput`).
    """

    def __init__(self, source: Path, out: Path | BuildOutput, progress: Progress | None = None,
                 tatoeba_export: bool = False) -> None:
        self.source = Path(source)
        self.output = out if isinstance(out, BuildOutput) else BuildOutput(out)
        progress = progress or Progress(enabled=False)
        with garbage_collector_paused():
            options = build_options(self.output.stats["options"])
            if tatoeba_export:
                from tapaco.tatoeba_export import read_export

                self.corpus: Corpus = read_export(self.source, progress,
                                                  options.export_language_codes)
            else:
                self.corpus = read_corpus(self.source, BadInputLog(self.output.skip_bad_input),
                                          progress, self.output.documents)
            with progress.stage("graph and components"):
                self.graph: SentenceGraph = build_graph(self.corpus, options.split.splits)
            # a build with --oversized split numbered Leiden communities after the components
            self._community = (split_sets(self.corpus, self.graph, options).community_id
                               if options.split.splits else None)
        self._check_same_release()
        documents = np.bincount(self.corpus.document_lang, minlength=len(self.corpus.languages))
        self._several_documents = documents > 1
        self._components: dict[int, Component] = {}

    def _check_same_release(self) -> None:
        recorded = self.output.stats["graph"]
        found = {**self.graph.edge_counts, "components": self.graph.component_count}
        differing = [key for key in _GRAPH_SIZES if key in recorded and recorded[key] != found[key]]
        if differing:
            shown = ", ".join(f"{key.replace('_', ' ')} {found[key]} (OUT: {recorded[key]})"
                              for key in differing)
            raise usage_error(self.source, f"is not the release {self.output.path} was built from: "
                                           f"its graph has {shown}")

    # -- sentences and components ---------------------------------------------------------

    def _language_index(self, lang: str) -> int:
        if lang not in self.corpus.languages:
            raise usage_error("--lang", f"{lang} is not a language of {self.source} (it has "
                                        f"{', '.join(sorted(self.corpus.languages))})")
        return self.corpus.languages.index(lang)

    def _ids(self, vertices: np.ndarray) -> list[str]:
        """Output sentence ids of vertices of one language."""
        if not len(vertices):
            return []
        several = bool(self._several_documents[self.corpus.vertex_lang[vertices[0]]])
        return display_ids(self.corpus, vertices, several).to_pylist()

    def _vertex(self, lang: str, sentence_id: str) -> int:
        index = self._language_index(lang)
        vertices = np.flatnonzero(self.corpus.vertex_lang == index)
        ids = self._ids(vertices)
        try:
            return int(vertices[ids.index(sentence_id)])
        except ValueError:
            example = f" (ids are as in the build's {lang}.txt, e.g. {ids[0]})" if ids else ""
            raise usage_error("--sentence", f"{lang} has no sentence id {sentence_id!r}"
                                            f"{example}") from None

    def _output_ids(self, set_id: int) -> dict[str, set[str]]:
        return {lang: {sentence for sentence, _ in rows}
                for lang, rows in self.output.set_rows(set_id).items()}

    def component(self, set_id: int) -> Component:
        """The component `set_id` as a networkx graph (nodes 0..n-1 in vertex order, edges
        with their `kinds`)."""
        if set_id in self._components:
            return self._components[set_id]
        import networkx as nx  # imported here: `tapaco` starts without it

        corpus = self.corpus
        if self._community is not None and set_id >= self.graph.component_count:
            vertices = np.flatnonzero(self._community == set_id)
        else:
            vertices = np.flatnonzero(self.graph.set_id == set_id)
        if not len(vertices):
            raise usage_error("--set", f"{self.source} has no component {set_id} (it has "
                                       f"{self.graph.component_count}, numbered from 0)")
        inside = np.zeros(corpus.vertex_count, bool)
        inside[vertices] = True
        chosen = inside[corpus.edges[:, 0]] if len(corpus.edges) else np.zeros(0, bool)
        aligned = np.searchsorted(vertices, corpus.edges[chosen]).reshape(-1, 2)
        kinds = [_KIND_OF_CODE[int(code)] for code in corpus.edge_kind[chosen]]
        surface = surface_edges(corpus.vertex_lang[vertices],
                                [corpus.texts[vertex] for vertex in vertices])
        output_ids = self._output_ids(set_id)
        sentences: list[Sentence] = [None] * len(vertices)  # type: ignore[list-item]
        for index, lang in enumerate(corpus.languages):
            local = np.flatnonzero(corpus.vertex_lang[vertices] == index)
            kept = output_ids.get(lang, set())
            for node, label in zip(local.tolist(), self._ids(vertices[local])):
                sentences[node] = Sentence(lang, label, corpus.texts[vertices[node]],
                                           label in kept)
        node_of: dict[tuple[str, str], int] = {}
        for node, sentence in enumerate(sentences):
            node_of.setdefault((sentence.lang, sentence.id), node)
        graph = nx.Graph()
        graph.add_nodes_from(range(len(vertices)))
        pairs = [*zip(aligned.tolist(), kinds), *((edge, SURFACE) for edge in surface.tolist())]
        for (a, b), kind in pairs:
            if a != b:
                if not graph.has_edge(a, b):
                    graph.add_edge(a, b, kinds=set())
                graph[a][b]["kinds"].add(kind)
        for _, _, data in graph.edges(data=True):
            data["kinds"] = tuple(kind for kind in KINDS if kind in data["kinds"])
        component = Component(set_id, vertices, graph, sentences, node_of)
        self._check_rows_in_component(component, output_ids)
        self._components[set_id] = component
        return component

    def _check_rows_in_component(self, component: Component,
                                 output_ids: dict[str, set[str]]) -> None:
        for lang, ids in output_ids.items():
            missing = sorted(sentence for sentence in ids if (lang, sentence) not in
                             component.node_of)
            if missing:
                raise usage_error(self.output.path / f"{lang}.txt",
                                  f"set {component.set_id} holds sentence {missing[0]}, which "
                                  f"component {component.set_id} of {self.source} does not: was it "
                                  "built from another release?")

    # -- paths ----------------------------------------------------------------------------

    @staticmethod
    def _predecessors(component: Component, source: int) -> dict[int, int]:
        import networkx as nx

        return dict(nx.bfs_predecessors(component.graph, source, sort_neighbors=sorted))

    @staticmethod
    def _walk(predecessors: dict[int, int], source: int, target: int) -> list[int] | None:
        nodes = [target]
        while nodes[-1] != source:
            if nodes[-1] not in predecessors:
                return None
            nodes.append(predecessors[nodes[-1]])
        return nodes[::-1]

    @staticmethod
    def _path(component: Component, nodes: list[int]) -> SentencePath:
        graph, sentences = component.graph, component.sentences
        hops = [Hop((), sentences[nodes[0]])]
        hops += [Hop(graph[a][b]["kinds"], sentences[b]) for a, b in zip(nodes, nodes[1:])]
        end = sentences[nodes[0]].lang
        pivots = sorted({sentences[node].lang for node in nodes[1:-1]} - {end})
        return SentencePath(tuple(hops), len(nodes) - 1, tuple(pivots))

    def _language_paths(self, component: Component, lang: str, rows: list[tuple[str, str]],
                        max_pairs: int) -> tuple[LanguagePaths, list[list[int]]]:
        nodes = [component.node_of[(lang, sentence)] for sentence, _ in rows]
        through: Counter[str] = Counter()
        shown, walked = [], []
        for i, source in enumerate(nodes[:-1]):
            predecessors = self._predecessors(component, source)
            for target in nodes[i + 1:]:
                path = self._walk(predecessors, source, target)
                walked.append(path)
                through.update({component.sentences[node].lang for node in path[1:-1]} - {lang})
                if not max_pairs or len(shown) < max_pairs:
                    shown.append(self._path(component, path))
        pivots = tuple(PivotLanguage(pivot, count) for pivot, count in
                       sorted(through.items(), key=lambda item: (-item[1], item[0])))
        sentences = tuple(component.sentences[node] for node in nodes)
        return LanguagePaths(lang, sentences, len(walked), pivots, tuple(shown)), walked

    def explain_set(self, set_id: int, lang: str | None = None,
                    max_pairs: int = MAX_PAIRS) -> SetExplanation:
        """Set `set_id`: the component's languages and links, and per language of the set
        (only `lang` when given) its pivot languages and the shortest paths of its first
        `max_pairs` pairs (0: all)."""
        if max_pairs < 0:
            raise OptionError("--max-pairs", f"must be at least 0, got {max_pairs}")
        rows = self.output.require_set(set_id, lang)
        component = self.component(set_id)
        counts = Counter(sentence.lang for sentence in component.sentences)
        all_rows = self.output.set_rows(set_id)
        sizes = tuple(LanguageSize(language, counts[language],
                                   len(all_rows.get(language, ())) if language in
                                   self.output.languages else None)
                      for language in sorted(counts))
        links = Counter(kind for _, _, kinds in component.graph.edges(data="kinds")
                        for kind in kinds)
        explained = tuple(self._language_paths(component, language, language_rows, max_pairs)[0]
                          for language, language_rows in rows.items())
        return SetExplanation(set_id, len(component.vertices),
                              {kind: links[kind] for kind in KINDS}, sizes, explained)

    def explain_sentences(self, lang: str, first: str, second: str) -> PairExplanation:
        """The shortest path between sentences `first` and `second` (ids as in OUT/<lang>.txt)
        of language `lang`, or that they are not connected."""
        vertices = [self._vertex(lang, first), self._vertex(lang, second)]
        sets = tuple(int(self.graph.set_id[vertex]) for vertex in vertices)
        if sets[0] != sets[1]:
            ends = [Sentence(lang, sentence_id, self.corpus.texts[vertex],
                             sentence_id in self._output_ids(set_id).get(lang, set()))
                    for vertex, sentence_id, set_id in zip(vertices, (first, second), sets)]
            return PairExplanation(lang, ends[0], ends[1], (sets[0], sets[1]), None)
        component = self.component(sets[0])
        source, target = (int(np.searchsorted(component.vertices, vertex)) for vertex in vertices)
        path = self._path(component, self._walk(self._predecessors(component, source), source,
                                                target))
        return PairExplanation(lang, path.source, path.target, (sets[0], sets[1]), path)

    # -- drawing --------------------------------------------------------------------------

    def draw(self, set_id: int, picture: Path, path: SentencePath | None = None,
             overwrite: bool = False, lang: str | None = None) -> Path:
        """Draw component `set_id` (PNG or SVG by the suffix of `picture`); `path` is
        underlaid. A component over DRAW_LIMIT sentences is drawn as the set's sentences (of
        `lang` when given) and the paths between them only."""
        output = picture_file(picture, (self.source, self.output.path), overwrite)
        output.check()
        component = self.component(set_id)
        nodes = list(range(len(component.vertices)))
        shown_of = len(nodes)
        hops = path.hops if path is not None else ()
        highlight = [component.node_of[(hop.sentence.lang, hop.sentence.id)] for hop in hops]
        if len(nodes) > DRAW_LIMIT:
            rows = self.output.set_rows(set_id)
            nodes = []
            for language in [lang] if lang in rows else list(rows):
                _, walked = self._language_paths(component, language, rows[language], 1)
                nodes += [component.node_of[(language, sentence)] for sentence, _ in
                          rows[language]]
                nodes += [node for path_nodes in walked for node in path_nodes]
            nodes = sorted(set(nodes + highlight))
            if len(nodes) > DRAW_LIMIT:
                raise OptionError("--draw", f"set {set_id}'s component has {shown_of} sentences "
                                            f"and the paths between the set's sentences "
                                            f"{len(nodes)}; a picture is readable up to "
                                            f"{DRAW_LIMIT} (choose one --lang)")
        output.write(picture_bytes(component, nodes, shown_of, highlight, output.path))
        return output.path



def explain_set(source: Path, out: Path, set_id: int, lang: str | None = None,
                max_pairs: int = MAX_PAIRS, tatoeba_export: bool = False) -> SetExplanation:
    """Read the release `out` was built from and explain set `set_id` (see
    :meth:`Explainer.explain_set`); an unknown set is refused before the release is read."""
    output = BuildOutput(out)
    output.require_set(set_id, lang)
    return Explainer(source, output, tatoeba_export=tatoeba_export).explain_set(
        set_id, lang, max_pairs)


def explain_sentences(source: Path, out: Path, lang: str, first: str, second: str,
                      tatoeba_export: bool = False) -> PairExplanation:
    """Read the release `out` was built from and explain two of its sentences (see
    :meth:`Explainer.explain_sentences`)."""
    return Explainer(source, out, tatoeba_export=tatoeba_export).explain_sentences(
        lang, first, second)
