"""Why sentences share a TaPaCo set: the translation paths inside the set's component.

`python -m tapaco explain --opus-dir DIR --out OUT --set N [--lang xx] [--draw set.svg]` shows,
for paraphrase set N of a finished build, the component's languages and sizes, each language's
pivot languages and, for pairs of the set's sentences, one shortest path of sentences and links
that puts them together. `--sentence A --sentence B --lang xx` shows the shortest path between
two sentences of language xx instead (or says that they are not connected). The library calls
are :class:`Explainer` (`explain_set`, `explain_sentences`, `draw`), the one-shot functions
:func:`explain_set` and :func:`explain_sentences`, and :func:`text` / :func:`as_dict` to render
a result; `add_explain_parser` and `run_explain` are the subcommand.

Decisions:

- **OUT** is the output folder of `python -m tapaco build` (its `manifest.json` says so; else
  refused). Its `stats.json` gives the options the corpus is read again with (`documents`,
  `skip_bad_input`); its graph sizes (vertices, links per kind, components) must equal those of
  the corpus read from DIR, else DIR is refused as not the release OUT was built from.
  `--tatoeba-export DIR` is accepted for builds from Tatoeba's exports. The set's sentences are
  the rows of OUT/<lang>.txt with set id N: what the build kept after the filters. The
  component N (set ids name components) may hold more: other languages, filtered sentences;
  every sentence shown says whether it is a row of the set (`*` in the text output). Builds
  written only as parquet are refused (explain reads the `<lang>.txt` files).
- **Errors** are one-line :class:`~tapaco.core.errors.InputError` (and `MissingDependency`
  for `--draw` without matplotlib), raised before the release is read where possible: an OUT
  that is not a build output, a set N no language file holds (with the nearest set ids that
  exist), `--lang xx` without OUT/xx.txt or without rows of set N, a sentence id that language
  does not have.
  Sentence ids are written as in OUT/<lang>.txt (`<document>#<id>` in a language of several
  documents); in the rare case that two link sides share an id, the first vertex is taken.
- **Subgraph**: only the one component becomes a networkx graph: its vertices are selected with
  numpy from the build's component numbering (:func:`tapaco.graph.build_graph`, the same igraph
  step the build runs), its alignment edges likewise, and its surface-similarity edges are
  recomputed on the component alone with :func:`tapaco.graph.surface_edges` (all sentences of
  one surface key lie in one component, so the star is the build's). An edge keeps every kind
  that joins its two sentences: `intra-lingual`, `inter-lingual`, `surface`. Links of a
  sentence to itself are left out.
- **Shortest paths** are breadth-first from the earlier sentence of a pair (in the file's
  order), visiting neighbours in vertex order (the corpus reading order), so among equal-length
  paths the same one is always chosen. For `--set`, the pairs are those of the set's sentences
  in one language, in the file's order; all pairs are walked, the first `max_pairs` (default
  20, 0: all) are shown and the rest counted.
- **Pivot languages** of a language xx: the languages other than xx of the sentences inside the
  chosen shortest paths between xx's sentences of the set, each with the number of pairs whose
  path passes through it (most first). Without `--lang`, every language file holding set N is
  explained.
- **Drawing** (`--draw FILE.svg|FILE.png`, matplotlib from the optional `plot` extra, imported
  only then): sentences coloured by language (legend: language and sentence count), sentences
  of the set outlined in black; alignment links inter-lingual solid grey, intra-lingual dashed
  blue, surface-similarity links dotted red; a `--sentence` path underlaid in yellow (two
  sentences that are not connected: nothing is drawn, a note says so). Up to `LABEL_LIMIT`
  sentences are labelled with their text (cut to `LABEL_CHARACTERS` characters; glyphs the
  font lacks show in the SVG by the viewer's fonts) above language and id. The layout is
  networkx's spring layout with a fixed seed and the files carry no date, so reruns give
  identical files. Components of more than `DRAW_LIMIT` sentences are drawn as the set's
  sentences and the paths between them only (and refused if that is still too many). The
  picture is never written inside DIR or OUT.
- **Cost**: the release is read again and its components found as in a build (the same time
  and memory as those steps of `tapaco build`); the component's analysis is small.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tapaco.core.arrays import garbage_collector_paused
from tapaco.core.errors import BadInputLog, InputError, MissingDependency, OptionError
from tapaco.core.files import json_text
from tapaco.core.options import integer
from tapaco.core.outputs import OutputFile, read_manifest
from tapaco.core.progress import Progress
from tapaco.graph import SentenceGraph, build_graph, surface_edges
from tapaco.pipeline import COMMAND as BUILD_COMMAND
from tapaco.pipeline import build_options, display_ids, split_sets
from tapaco.read import INTER, INTRA, Corpus, read_corpus

if TYPE_CHECKING:
    import networkx as nx

COMMAND = "tapaco explain"
INTRA_LINGUAL, INTER_LINGUAL, SURFACE = "intra-lingual", "inter-lingual", "surface"
KINDS = (INTRA_LINGUAL, INTER_LINGUAL, SURFACE)
_KIND_OF_CODE = {INTRA: INTRA_LINGUAL, INTER: INTER_LINGUAL}
MAX_PAIRS = 20
DRAW_LIMIT = 400  # sentences drawn at most (networkx's dense spring layout stops at 499)
LABEL_LIMIT = 60  # sentences are labelled up to this many
LABEL_CHARACTERS = 32  # a label's sentence text is cut to this many characters
PICTURE_SUFFIXES = (".png", ".svg")
MARKER = "tapaco explain"  # in every picture's metadata: a rerun may replace its own pictures
_MISSING = "--draw needs matplotlib: pip install 'pivot-paraphrase-miner[plot]'"
_GRAPH_SIZES = ("vertices", "intra_lingual_links", "inter_lingual_links",
                "surface_similarity_links", "components")


@dataclass(frozen=True)
class Sentence:
    """A sentence of the component. `in_output`: it is a row of the set in OUT/<lang>.txt."""

    lang: str
    id: str
    text: str
    in_output: bool


@dataclass(frozen=True)
class Hop:
    """A sentence on a path and the kinds of the link from the previous one (none for the
    first)."""

    kinds: tuple[str, ...]
    sentence: Sentence


@dataclass(frozen=True)
class SentencePath:
    """A shortest path: `length` links; `pivot_languages` of the sentences inside it, other
    than the language of its ends (sorted)."""

    hops: tuple[Hop, ...]
    length: int
    pivot_languages: tuple[str, ...]

    @property
    def source(self) -> Sentence:
        return self.hops[0].sentence

    @property
    def target(self) -> Sentence:
        return self.hops[-1].sentence


@dataclass(frozen=True)
class LanguageSize:
    """Sentences of one language in the component, and how many are rows of the set in
    OUT/<lang>.txt (None: OUT has no such file)."""

    lang: str
    sentences: int
    in_output: int | None


@dataclass(frozen=True)
class PivotLanguage:
    """A language the paths of `paths` pairs go through."""

    lang: str
    paths: int


@dataclass(frozen=True)
class LanguagePaths:
    """One language of the set: its sentences (the file's rows), how many pairs they make,
    the pivot languages, and the paths of the first pairs (`pairs - len(paths)` not shown)."""

    lang: str
    sentences: tuple[Sentence, ...]
    pairs: int
    pivot_languages: tuple[PivotLanguage, ...]
    paths: tuple[SentencePath, ...]


@dataclass(frozen=True)
class SetExplanation:
    """Set `set_id`: its component's size, links per kind (pairs of sentences a kind joins),
    languages, and the paths of each explained language."""

    set_id: int
    sentences: int
    links: dict[str, int]
    languages: tuple[LanguageSize, ...]
    explained: tuple[LanguagePaths, ...]


@dataclass(frozen=True)
class PairExplanation:
    """Two sentences of one language; `sets` are their components' ids (the set ids), `path`
    the shortest path between them, None when they are not connected."""

    lang: str
    first: Sentence
    second: Sentence
    sets: tuple[int, int]
    path: SentencePath | None

    @property
    def connected(self) -> bool:
        return self.path is not None


def _usage(path: Path | str, message: str) -> InputError:
    return InputError(path, message, kind="usage")


class BuildOutput:
    """The output folder of `tapaco build`: its statistics and the rows of a set per language."""

    def __init__(self, out: Path) -> None:
        self.path = Path(out)
        if not self.path.is_dir():
            what = "does not exist" if not self.path.exists() else "is not a folder"
            raise _usage(self.path, f"{what}; --out names the output folder of "
                                    f"'{BUILD_COMMAND}'")
        manifest = read_manifest(self.path)
        if manifest is None or manifest.get("written_by") != BUILD_COMMAND:
            raise _usage(self.path, f"is not a '{BUILD_COMMAND}' output folder (no manifest.json "
                                    f"written by {BUILD_COMMAND})")
        self.stats = self._statistics(self.path / "stats.json")
        files = list(manifest["files"])
        self.languages = sorted(name.removesuffix(".txt") for name in files
                                if name.endswith(".txt") and "/" not in name)
        if not self.languages and any(name.endswith(".parquet") for name in files):
            raise _usage(self.path, "holds parquet files only; explain reads the <lang>.txt "
                                    "files: build again with --format tsv,parquet")
        self._rows: dict[int, dict[str, list[tuple[str, str]]]] = {}
        self._neighbours: dict[int, tuple[int | None, int | None]] = {}

    @staticmethod
    def _statistics(path: Path) -> dict:
        try:
            stats = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise _usage(path, f"is missing: not a complete '{BUILD_COMMAND}' output") from None
        except (OSError, ValueError) as error:
            raise _usage(path, f"cannot be read as JSON ({error})") from None
        options = stats.get("options") if isinstance(stats, dict) else None
        graph = stats.get("graph") if isinstance(stats, dict) else None
        if (not isinstance(options, dict) or not isinstance(options.get("documents"), str)
                or not isinstance(graph, dict)):
            raise _usage(path, f"is not the statistics of '{BUILD_COMMAND}' (no options."
                               "documents or graph)")
        return stats

    @property
    def documents(self) -> str:
        return self.stats["options"]["documents"]

    @property
    def skip_bad_input(self) -> bool:
        return bool(self.stats["options"].get("skip_bad_input", False))

    def set_rows(self, set_id: int) -> dict[str, list[tuple[str, str]]]:
        """(sentence id, text) of the rows of set `set_id`, per language file that has any."""
        if set_id not in self._rows:
            rows, below, above = {}, None, None
            for lang in self.languages:
                found, before, after = _rows_of_set(self.path / f"{lang}.txt", set_id)
                if found:
                    rows[lang] = found
                below = before if below is None or (before is not None and before > below) \
                    else below
                above = after if above is None or (after is not None and after < above) \
                    else above
            self._rows[set_id] = rows
            self._neighbours[set_id] = (below, above)
        return self._rows[set_id]

    def require_set(self, set_id: int, lang: str | None = None) -> dict[str, list]:
        """The rows of set `set_id` (of `lang` only, when given); an InputError if there are
        none."""
        if lang is not None and lang not in self.languages:
            raise _usage("--lang", f"{self.path} has no {lang}.txt (its languages: "
                                   f"{', '.join(self.languages) or 'none'})")
        rows = self.set_rows(set_id)
        if not rows:
            below, above = self._neighbours[set_id]
            nearest = " and ".join(str(i) for i in (below, above) if i is not None)
            hint = (f"; the nearest set ids in it are {nearest} (ids have gaps: they number "
                    "components before the filters)") if nearest else "; it holds no set"
            raise _usage("--set", f"no {self.path}/<lang>.txt has a row of set {set_id}{hint}")
        if lang is not None and lang not in rows:
            raise _usage("--lang", f"set {set_id} has no {lang} sentence in {self.path}/{lang}"
                                   f".txt (it has {', '.join(rows)})")
        return {lang: rows[lang]} if lang is not None else rows


def _rows_of_set(path: Path, set_id: int) -> tuple[list[tuple[str, str]], int | None,
                                                    int | None]:
    """Rows of `set_id` in a language file (sorted by set id: reading stops after them), and
    the nearest set ids before and after."""
    rows, before, after = [], None, None
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                head, _, rest = line.partition("\t")
                try:
                    current = int(head)
                except ValueError:
                    raise InputError(path, f"first field {head[:20]!r} is not a set id: not a "
                                     f"'{BUILD_COMMAND}' language file", f"line {number}",
                                     kind="usage") from None
                if current < set_id:
                    before = current
                elif current > set_id:
                    after = current
                    break
                else:
                    sentence, _, rest = rest.partition("\t")
                    rows.append((sentence, rest.split("\t", 1)[0].rstrip("\n")))
    except OSError as error:
        raise _usage(path, f"cannot be read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise _usage(path, f"is not UTF-8 text ({error.reason})") from None
    return rows, before, after


@dataclass
class _Component:
    """The networkx graph of one component: node i is corpus vertex `vertices[i]`."""

    set_id: int
    vertices: np.ndarray
    graph: nx.Graph
    sentences: list[Sentence]
    node_of: dict[tuple[str, str], int]


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
        self._components: dict[int, _Component] = {}

    def _check_same_release(self) -> None:
        recorded = self.output.stats["graph"]
        found = {**self.graph.edge_counts, "components": self.graph.component_count}
        differing = [key for key in _GRAPH_SIZES if key in recorded and recorded[key] != found[key]]
        if differing:
            shown = ", ".join(f"{key.replace('_', ' ')} {found[key]} (OUT: {recorded[key]})"
                              for key in differing)
            raise _usage(self.source, f"is not the release {self.output.path} was built from: "
                                      f"its graph has {shown}")

    # -- sentences and components ---------------------------------------------------------

    def _language_index(self, lang: str) -> int:
        if lang not in self.corpus.languages:
            raise _usage("--lang", f"{lang} is not a language of {self.source} (it has "
                                   f"{', '.join(sorted(self.corpus.languages))})")
        return self.corpus.languages.index(lang)

    def _ids(self, vertices: np.ndarray) -> list[str]:
        """Output sentence ids of vertices of one language."""
        if not len(vertices):
            return []
        several = bool(self._several_documents[self.corpus.vertex_lang[vertices[0]]])
        return display_ids(self.corpus, vertices, several)

    def _vertex(self, lang: str, sentence_id: str) -> int:
        index = self._language_index(lang)
        vertices = np.flatnonzero(self.corpus.vertex_lang == index)
        ids = self._ids(vertices)
        try:
            return int(vertices[ids.index(sentence_id)])
        except ValueError:
            example = f" (ids are as in the build's {lang}.txt, e.g. {ids[0]})" if ids else ""
            raise _usage("--sentence", f"{lang} has no sentence id {sentence_id!r}"
                                       f"{example}") from None

    def _output_ids(self, set_id: int) -> dict[str, set[str]]:
        return {lang: {sentence for sentence, _ in rows}
                for lang, rows in self.output.set_rows(set_id).items()}

    def component(self, set_id: int) -> _Component:
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
            raise _usage("--set", f"{self.source} has no component {set_id} (it has "
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
        component = _Component(set_id, vertices, graph, sentences, node_of)
        self._check_rows_in_component(component, output_ids)
        self._components[set_id] = component
        return component

    def _check_rows_in_component(self, component: _Component,
                                 output_ids: dict[str, set[str]]) -> None:
        for lang, ids in output_ids.items():
            missing = sorted(sentence for sentence in ids if (lang, sentence) not in
                             component.node_of)
            if missing:
                raise _usage(self.output.path / f"{lang}.txt",
                             f"set {component.set_id} holds sentence {missing[0]}, which "
                             f"component {component.set_id} of {self.source} does not: was it "
                             "built from another release?")

    # -- paths ----------------------------------------------------------------------------

    @staticmethod
    def _predecessors(component: _Component, source: int) -> dict[int, int]:
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
    def _path(component: _Component, nodes: list[int]) -> SentencePath:
        graph, sentences = component.graph, component.sentences
        hops = [Hop((), sentences[nodes[0]])]
        hops += [Hop(graph[a][b]["kinds"], sentences[b]) for a, b in zip(nodes, nodes[1:])]
        end = sentences[nodes[0]].lang
        pivots = sorted({sentences[node].lang for node in nodes[1:-1]} - {end})
        return SentencePath(tuple(hops), len(nodes) - 1, tuple(pivots))

    def _language_paths(self, component: _Component, lang: str, rows: list[tuple[str, str]],
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
        if len(nodes) > DRAW_LIMIT:
            rows = self.output.set_rows(set_id)
            nodes = []
            for language in [lang] if lang in rows else list(rows):
                _, walked = self._language_paths(component, language, rows[language], 1)
                nodes += [component.node_of[(language, sentence)] for sentence, _ in
                          rows[language]]
                nodes += [node for path_nodes in walked for node in path_nodes]
            if path is not None:
                nodes += [component.node_of[(hop.sentence.lang, hop.sentence.id)]
                          for hop in path.hops]
            nodes = sorted(set(nodes))
            if len(nodes) > DRAW_LIMIT:
                raise OptionError("--draw", f"set {set_id}'s component has {shown_of} sentences "
                                            f"and the paths between the set's sentences "
                                            f"{len(nodes)}; a picture is readable up to "
                                            f"{DRAW_LIMIT} (choose one --lang)")
        highlight = []
        if path is not None:
            highlight = [component.node_of[(hop.sentence.lang, hop.sentence.id)]
                         for hop in path.hops]
        output.write(_picture(component, nodes, shown_of, highlight, output.path))
        return output.path


def picture_file(picture: Path, inputs: Sequence[Path], overwrite: bool) -> OutputFile:
    """The `--draw` output: .png or .svg, never inside an input, replaced only when it is a
    picture of this command or with `overwrite`."""
    if picture.suffix.lower() not in PICTURE_SUFFIXES:
        raise OptionError("--draw", f"expected a .png or .svg file name, got {str(picture)!r}")
    return OutputFile(picture, COMMAND, tuple(inputs), overwrite, is_own_picture, "--draw")


def is_own_picture(path: Path) -> bool:
    """Whether `path` is a picture this command drew (its metadata holds the marker)."""
    try:
        return MARKER.encode() in path.read_bytes()
    except OSError:
        return False


def _matplotlib() -> tuple[Any, Any, Any, Any, Any]:
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import LineCollection
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
    except ImportError as error:
        raise MissingDependency(_MISSING) from error
    return Figure, FigureCanvasAgg, LineCollection, Line2D, matplotlib


def _language_colours(languages: list[str], matplotlib: Any) -> dict[str, Any]:
    """Distinct colours: tab10 first, then the lighter tab20 hues, tab20b and tab20c (cycled
    beyond 60 languages)."""
    maps = matplotlib.colormaps
    palette = [*maps["tab10"].colors, *maps["tab20"].colors[1::2], *maps["tab20b"].colors,
               *maps["tab20c"].colors]
    return {lang: palette[i % len(palette)] for i, lang in enumerate(languages)}


_EDGE_STYLES = {INTER_LINGUAL: {"colors": "#9a9a9a", "linestyles": "solid", "linewidths": 1.2},
                INTRA_LINGUAL: {"colors": "#1f4e9c", "linestyles": "dashed", "linewidths": 1.6},
                SURFACE: {"colors": "#c0392b", "linestyles": "dotted", "linewidths": 2.2}}
LINK_LEGEND = {INTER_LINGUAL: "inter-lingual alignment", INTRA_LINGUAL: "intra-lingual alignment",
               SURFACE: "surface similarity"}


def node_label(sentence: Sentence) -> str:
    """A drawn sentence's label: its text on one line, cut to LABEL_CHARACTERS characters
    (`$` escaped, as matplotlib reads `$...$` as mathematics), above language and id."""
    text = " ".join(sentence.text.split())
    if len(text) > LABEL_CHARACTERS:
        text = text[:LABEL_CHARACTERS - 1].rstrip() + "…"
    return f"{text}\n{sentence.lang} {sentence.id}".replace("$", r"\$")


def _picture(component: _Component, nodes: list[int], size: int, highlight: list[int],
             picture: Path) -> bytes:
    """The picture's bytes (format by the suffix; no date, fixed layout seed)."""
    import networkx as nx

    figure_class, canvas_class, line_collection, line_2d, matplotlib = _matplotlib()
    graph = component.graph.subgraph(nodes)
    position = nx.spring_layout(graph, seed=1, iterations=100) if len(nodes) > 1 else {
        nodes[0]: np.zeros(2)}
    sentences = component.sentences
    languages = sorted({sentences[node].lang for node in nodes})
    colours = _language_colours(languages, matplotlib)
    side = float(np.clip(5 + 0.6 * np.sqrt(len(nodes)) * 1.6, 7, 20))
    figure = figure_class(figsize=(side + 2.5, side), dpi=100)
    canvas_class(figure)
    axes = figure.add_axes((0.02, 0.02, side / (side + 2.5) - 0.03, 0.9))
    axes.set_axis_off()
    if len(highlight) > 1:
        axes.add_collection(line_collection(
            [(position[a], position[b]) for a, b in zip(highlight, highlight[1:])],
            colors="#f7d000", linewidths=7, alpha=0.8, zorder=1))
    for kind in KINDS:
        segments = [(position[a], position[b]) for a, b, kinds in graph.edges(data="kinds")
                    if kind in kinds]
        if segments:
            axes.add_collection(line_collection(segments, zorder=2, **_EDGE_STYLES[kind]))
    node_size = float(np.clip(6000 / max(len(nodes), 1), 45, 260))
    outline = 1.6 if len(nodes) <= LABEL_LIMIT else 0.9
    font = float(np.clip(side * 0.6, 9, 13))
    for kept in (False, True):
        chosen = [node for node in nodes if sentences[node].in_output == kept]
        if chosen:
            xy = np.array([position[node] for node in chosen])
            axes.scatter(xy[:, 0], xy[:, 1], s=node_size, zorder=3,
                         c=[colours[sentences[node].lang] for node in chosen],
                         edgecolors="black" if kept else "none", linewidths=outline if kept else 0)
    if len(nodes) <= LABEL_LIMIT:
        for node in nodes:
            axes.annotate(node_label(sentences[node]), position[node],
                          xytext=(0, np.sqrt(node_size) / 2 + 2), textcoords="offset points",
                          ha="center", va="bottom", fontsize=7, zorder=4)
    axes.autoscale_view()
    axes.margins(0.08)
    counts = Counter(sentences[node].lang for node in nodes)
    handles = [line_2d([], [], marker="o", linestyle="none", markersize=8,
                       markerfacecolor=colours[lang], markeredgecolor="none",
                       label=f"{lang} ({counts[lang]})") for lang in languages]
    handles += [line_2d([], [], marker="o", linestyle="none", markersize=8,
                        markerfacecolor="white", markeredgecolor="black", markeredgewidth=1.6,
                        label=f"row of set {component.set_id} in OUT")]
    handles += [line_2d([], [], color=style["colors"], linestyle=style["linestyles"],
                        linewidth=style["linewidths"], label=LINK_LEGEND[kind])
                for kind, style in _EDGE_STYLES.items()
                if any(kind in kinds for _, _, kinds in graph.edges(data="kinds"))]
    if len(highlight) > 1:
        handles.append(line_2d([], [], color="#f7d000", linewidth=7, alpha=0.8,
                               label="shortest path"))
    figure.legend(handles=handles, loc="upper right", bbox_to_anchor=(0.995, 0.9), fontsize=font,
                  title_fontsize=font, frameon=False, title="language (sentences)")
    part = ("" if len(nodes) == size else
            f"\n(drawn: the {len(nodes)} on paths between the set sentences)")
    component_languages = len({sentence.lang for sentence in sentences})
    figure.suptitle(f"TaPaCo set {component.set_id}: component of {size} sentences in "
                    f"{component_languages} languages{part}", x=0.02, y=0.985, ha="left",
                    va="top", fontsize=font + 3)
    fmt = picture.suffix.lower().lstrip(".")
    metadata = {"png": {"Software": MARKER}, "svg": {"Date": None, "Creator": MARKER}}[fmt]
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": MARKER, "svg.fonttype": "none",
                                "path.simplify": True}), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Glyph .* missing from", UserWarning)
        figure.savefig(buffer, format=fmt, metadata=metadata)
    return buffer.getvalue()


# -- one-shot calls and rendering -----------------------------------------------------------

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


def as_dict(result: SetExplanation | PairExplanation) -> dict:
    """The result as JSON data (what `--json` prints): dicts, lists, strings, numbers."""
    data = _lists(asdict(result))
    if isinstance(result, PairExplanation):
        data["connected"] = result.connected
    return {"explains": "set" if isinstance(result, SetExplanation) else "sentences", **data}


def _lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(item) for item in value]
    return value


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _path_lines(path: SentencePath, indent: str) -> list[str]:
    width = max(len(hop.sentence.lang) + 1 + len(hop.sentence.id) for hop in path.hops)
    lines = []
    for hop in path.hops:
        if hop.kinds:
            lines.append(f"{indent}    | {' + '.join(hop.kinds)}")
        sentence = hop.sentence
        mark = "*" if sentence.in_output else " "
        lines.append(f"{indent}  {mark} {f'{sentence.lang} {sentence.id}':<{width}}  "
                     f"{sentence.text}")
    return lines


def _path_title(path: SentencePath) -> str:
    through = f", through {', '.join(path.pivot_languages)}" if path.pivot_languages else ""
    return f"{_plural(path.length, 'link')}{through}"


def text(result: SetExplanation | PairExplanation, out: str = "OUT") -> str:
    """The readable explanation `tapaco explain` prints; `out` names the build folder."""
    if isinstance(result, PairExplanation):
        return _pair_text(result, out)
    return _set_text(result, out)


def _set_text(result: SetExplanation, out: str) -> str:
    links = result.links
    languages = result.languages
    lines = [f"set {result.set_id}: a component of {_plural(result.sentences, 'sentence')} in "
             f"{_plural(len(languages), 'language')}, joined by "
             + ", ".join(f"{links[kind]} {kind}" for kind in KINDS) + " links",
             f"  language  sentences  in set {result.set_id}"]
    for size in languages:
        kept = "-  (no file)" if size.in_output is None else str(size.in_output)
        lines.append(f"  {size.lang:<8}  {size.sentences:>9}  {kept}")
    lines.append(f"(* marks a row of set {result.set_id} in {out}/<lang>.txt; the other "
                 "sentences are only in the component)")
    for language in result.explained:
        pivots = ", ".join(f"{pivot.lang} ({pivot.paths} of {language.pairs})"
                           for pivot in language.pivot_languages) or "none"
        lines += ["", f"{language.lang}: {_plural(len(language.sentences), 'sentence')} in set "
                      f"{result.set_id}, {_plural(language.pairs, 'pair')}; pivot languages "
                      f"(paths through them): {pivots}"]
        for number, path in enumerate(language.paths, 1):
            lines.append(f"  [{number}/{language.pairs}] {path.source.lang} {path.source.id} "
                         f"-> {path.target.lang} {path.target.id}: {_path_title(path)}")
            lines += _path_lines(path, "  ")
        hidden = language.pairs - len(language.paths)
        if hidden:
            lines.append(f"  ... {_plural(hidden, 'more pair')} not shown (--max-pairs 0 shows "
                         "all)")
    return "\n".join(lines) + "\n"


def _pair_text(result: PairExplanation, out: str) -> str:
    first, second = result.first, result.second
    names = f"{result.lang} {first.id} and {result.lang} {second.id}"
    if result.path is None:
        return (f"{names} are not connected: {first.id} is in set {result.sets[0]}, "
                f"{second.id} in set {result.sets[1]} (set ids name components)\n")
    kept = first.in_output and second.in_output
    status = (f"both rows of set {result.sets[0]} in {out}/{result.lang}.txt" if kept else
              f"* marks rows of set {result.sets[0]} in {out}/<lang>.txt")
    lines = [f"{names}: set {result.sets[0]}, {_path_title(result.path)} ({status})"]
    return "\n".join(lines + _path_lines(result.path, "")) + "\n"


# -- command line -----------------------------------------------------------------------------

def _picture_path(value: str) -> Path:
    if Path(value).suffix.lower() not in PICTURE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"expected a .png or .svg file name, got {value!r}")
    return Path(value)


def add_explain_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The `explain` subcommand (register it on `tapaco`'s subcommands)."""
    command = commands.add_parser(
        "explain", help="show the translation paths that put sentences into one set of a "
                        "build (and draw the set's graph)",
        description="Explain a set of a TaPaCo build: its component's languages, the pivot "
                    "languages and the shortest translation paths between its sentences, each "
                    "hop with language, sentence id, text and link kind (intra-lingual, "
                    "inter-lingual, surface).")
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--opus-dir", type=Path, metavar="DIR",
                        help="the OPUS release folder OUT was built from")
    source.add_argument("--tatoeba-export", type=Path, metavar="DIR",
                        help="instead: the folder of Tatoeba's exports OUT was built from")
    command.add_argument("--out", type=Path, required=True, metavar="OUT",
                         help="the output folder of 'tapaco build' (read, never changed)")
    what = command.add_mutually_exclusive_group(required=True)
    what.add_argument("--set", type=integer(0), dest="set_id", metavar="N",
                      help="explain set N (the first column of OUT/<lang>.txt)")
    what.add_argument("--sentence", action="append", dest="sentences", metavar="ID",
                      help="give twice with --lang: the shortest path between these two "
                           "sentences (ids as in OUT/<lang>.txt)")
    command.add_argument("--lang", metavar="xx",
                         help="with --set: explain this language only (default: every language "
                              "file holding the set); needed with --sentence")
    command.add_argument("--max-pairs", type=integer(0), default=MAX_PAIRS, metavar="N",
                         help="with --set: show the paths of this many pairs per language "
                              "(0: all)")
    command.add_argument("--json", action="store_true",
                         help="print the explanation as JSON instead of text")
    command.add_argument("--draw", type=_picture_path, metavar="FILE",
                         help="also draw the component, PNG or SVG by the suffix (needs the "
                              "'plot' extra)")
    command.add_argument("--overwrite", action="store_true",
                         help="replace an existing --draw file that explain did not draw")
    command.add_argument("--quiet", action="store_true", help="no progress line")
    return command


def _check_arguments(arguments: argparse.Namespace) -> None:
    sentences = arguments.sentences
    if sentences is not None:
        if len(sentences) != 2:
            raise OptionError("--sentence", f"give exactly two sentence ids, got "
                                            f"{len(sentences)}")
        if not arguments.lang:
            raise OptionError("--lang", "--sentence needs the language of the two sentences")


def run_explain(arguments: argparse.Namespace, stream: Any = None) -> None:
    """Run `tapaco explain`: print the explanation to `stream` (stdout), draw with --draw.

    Errors are InputError/OptionError/MissingDependency, to run under
    :func:`tapaco.core.errors.exit_status` (one line, exit status 2)."""
    stream = stream or sys.stdout
    _check_arguments(arguments)
    source = arguments.opus_dir or arguments.tatoeba_export
    output = BuildOutput(arguments.out)
    if arguments.set_id is not None:
        output.require_set(arguments.set_id, arguments.lang)
    if arguments.draw:
        picture_file(arguments.draw, (source, arguments.out), arguments.overwrite).check()
        _matplotlib()
    progress = Progress(enabled=False if arguments.quiet else None)
    explainer = Explainer(source, output, progress,
                          tatoeba_export=arguments.tatoeba_export is not None)
    path = None
    if arguments.set_id is not None:
        result: SetExplanation | PairExplanation = explainer.explain_set(
            arguments.set_id, arguments.lang, arguments.max_pairs)
        drawn_set = arguments.set_id
    else:
        result = explainer.explain_sentences(arguments.lang, *arguments.sentences)
        drawn_set, path = result.sets[0], result.path
    stream.write(json_text(as_dict(result)) if arguments.json else text(result, str(output.path)))
    if arguments.draw:
        if isinstance(result, PairExplanation) and not result.connected:
            print(f"{COMMAND}: nothing drawn: the two sentences are not connected",
                  file=sys.stderr)
            return
        explainer.draw(drawn_set, arguments.draw, path, arguments.overwrite, arguments.lang)
        if not arguments.quiet:
            print(f"drew {arguments.draw}", file=sys.stderr)
