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

from tapaco.explain.build_output import BuildOutput
from tapaco.explain.command import add_explain_parser, run_explain
from tapaco.explain.explainer import (
    DRAW_LIMIT,
    MAX_PAIRS,
    Explainer,
    explain_sentences,
    explain_set,
)
from tapaco.explain.picture import (
    LABEL_CHARACTERS,
    LABEL_LIMIT,
    MARKER,
    PICTURE_SUFFIXES,
    is_own_picture,
    node_label,
    picture_file,
)
from tapaco.explain.report import as_dict, text
from tapaco.explain.results import (
    COMMAND,
    INTER_LINGUAL,
    INTRA_LINGUAL,
    KINDS,
    SURFACE,
    Hop,
    LanguagePaths,
    LanguageSize,
    PairExplanation,
    PivotLanguage,
    Sentence,
    SentencePath,
    SetExplanation,
)

__all__ = [
    "COMMAND", "DRAW_LIMIT", "INTER_LINGUAL", "INTRA_LINGUAL", "KINDS", "LABEL_CHARACTERS",
    "LABEL_LIMIT", "MARKER", "MAX_PAIRS", "PICTURE_SUFFIXES", "SURFACE", "BuildOutput",
    "Explainer", "Hop", "LanguagePaths", "LanguageSize", "PairExplanation", "PivotLanguage",
    "Sentence", "SentencePath", "SetExplanation", "add_explain_parser", "as_dict",
    "explain_sentences", "explain_set", "is_own_picture", "node_label", "picture_file",
    "run_explain", "text",
]
