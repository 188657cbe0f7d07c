"""What `tapaco explain` finds: the sentences and links of a path, a language's sizes and pivot
languages, the explanation of a set or of two sentences, and the graph of one component."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import networkx as nx

COMMAND = "tapaco explain"
INTRA_LINGUAL, INTER_LINGUAL, SURFACE = "intra-lingual", "inter-lingual", "surface"
KINDS = (INTRA_LINGUAL, INTER_LINGUAL, SURFACE)


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


@dataclass
class Component:
    """The networkx graph of one component: node i is corpus vertex `vertices[i]`."""

    set_id: int
    vertices: np.ndarray
    graph: nx.Graph
    sentences: list[Sentence]
    node_of: dict[tuple[str, str], int]

