"""`tapaco explain --draw`: a component drawn with matplotlib (the optional `plot` extra,
imported only here), sentences coloured by language, links styled by kind."""

from __future__ import annotations

import io
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tapaco.core.errors import MissingDependency, OptionError
from tapaco.core.outputs import OutputFile
from tapaco.explain.results import (
    COMMAND,
    INTER_LINGUAL,
    INTRA_LINGUAL,
    KINDS,
    SURFACE,
    Component,
    Sentence,
)

LABEL_LIMIT = 60  # sentences are labelled up to this many
LABEL_CHARACTERS = 32  # a label's sentence text is cut to this many characters
PICTURE_SUFFIXES = (".png", ".svg")
MARKER = COMMAND  # in every picture's metadata: a rerun may replace its own pictures
_MISSING = "--draw needs matplotlib: pip install 'pivot-paraphrase-miner[plot]'"


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


def load_matplotlib() -> tuple[Any, Any, Any, Any, Any]:
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


def picture_bytes(component: Component, nodes: list[int], size: int, highlight: list[int],
             picture: Path) -> bytes:
    """The picture's bytes (format by the suffix; no date, fixed layout seed)."""
    import networkx as nx

    figure_class, canvas_class, line_collection, line_2d, matplotlib = load_matplotlib()
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
