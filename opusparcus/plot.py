"""Quality curves of a ranked training set (paper Figure 1, sections 2.1 and 3.6).

Annotated pairs sit at known 1-based ranks of the ranked training file, with a combined score
1..4 (x.5 when the two annotators chose adjacent categories). For the figure a pair takes the
lower of its two categories (2.5 counts as mostly bad, 3.5 as mostly good), as the paper does.
`category_curves` gives the cumulative share of each category among the annotated pairs ranked
at or above r; `acceptable_auc` sums the acceptable share (score >= 3) into one number for
comparing ranking schemes on the same annotations; `plot_categories` draws Figure 1 and
`plot_comparison` overlays the acceptable-share curves of several schemes. `plot_ranked` is
what `python -m opusparcus plot` runs: each curve is named by its `--label`, else by the scheme
in the ranking's `stats.json`, else by its file name, and two curves may not share a name.

matplotlib is optional (extra `plot`) and only imported when a picture is drawn. Pictures have
a fixed size (8 x 5 in at 100 dpi, 800 x 500 px PNG) and reruns write byte-identical files.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from opusparcus.cutoffs import ranks_by_sentences
from opusparcus.ranked_file import read_ranked
from tapaco.core.annotation.pairs import CATEGORIES, CATEGORY_TITLES
from tapaco.core.errors import InputError, MissingDependency, OptionError, usage_error
from tapaco.core.files import created_folders, write_file_atomically
from tapaco.core.json_input import read_json
from tapaco.core.outputs import OutputFile

COMMAND = "opusparcus plot"

CATEGORY_COLOURS = {4: "#1a9641", 3: "#a6d96a", 2: "#ffd92f", 1: "#d7191c"}
FIGSIZE = (8.0, 5.0)
DPI = 100
MARKER = "opusparcus plot"  # in every picture's metadata: a rerun may replace its own pictures
_MISSING = "plotting needs matplotlib: pip install 'pivot-paraphrase-miner[plot]'"
_RC = {"svg.hashsalt": "opusparcus", "svg.fonttype": "path", "path.simplify": True}
_METADATA = {"png": {"Software": MARKER}, "svg": {"Date": None, "Creator": MARKER}}


def category_curves(ranks: np.ndarray, scores: np.ndarray,
                    total_rows: int) -> dict[str, np.ndarray]:
    """Cumulative category shares at each annotated rank (sorted; repeated ranks merged)."""
    ranks = np.asarray(ranks, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    _check_inputs(ranks, scores, total_rows)
    order = np.argsort(ranks, kind="stable")
    ranks, categories = ranks[order], np.floor(scores[order]).astype(np.int64)
    seen = np.arange(1, len(ranks) + 1)
    last = np.r_[ranks[1:] != ranks[:-1], True]
    curves = {"rank": ranks[last]}
    for category, key in CATEGORIES.items():
        curves[key] = (np.cumsum(categories == category) / seen)[last]
    curves["acceptable"] = curves["good"] + curves["mostly-good"]
    return curves


def _check_inputs(ranks: np.ndarray, scores: np.ndarray, total_rows: int) -> None:
    if ranks.ndim != 1 or ranks.shape != scores.shape or len(ranks) == 0:
        raise ValueError("ranks and scores must be non-empty 1-d arrays of the same length")
    if ranks.min() < 1 or ranks.max() > total_rows:
        raise ValueError(f"ranks must lie in 1..{total_rows}")
    if scores.min() < 1 or scores.max() > 4 or np.any(scores * 2 != np.round(scores * 2)):
        raise ValueError("scores must be 1..4 in steps of 0.5")


def acceptable_auc(curves: dict, total_rows: int) -> float:
    """Area under the acceptable-share step curve over ranks 1..total_rows, in [0, 1].

    Between annotated ranks the share of the last annotated rank holds; before the first
    annotated rank the first share is used.
    """
    ranks = np.asarray(curves["rank"], dtype=np.int64)
    share = np.asarray(curves["acceptable"], dtype=np.float64)
    if total_rows < 1 or ranks.max() > total_rows:
        raise ValueError(f"annotated ranks must lie in 1..{total_rows}")
    starts = ranks.copy()
    starts[0] = 1
    widths = np.diff(np.r_[starts, total_rows + 1])
    return float(np.dot(share, widths) / total_rows)


def _matplotlib() -> tuple[Any, Any, Any]:
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise MissingDependency(_MISSING) from error
    return Figure, FigureCanvasAgg, matplotlib.rc_context


def _new_figure() -> tuple[Any, Any]:
    figure_class, canvas_class, _ = _matplotlib()
    figure = figure_class(figsize=FIGSIZE, dpi=DPI)
    canvas_class(figure)
    return figure, figure.add_subplot(1, 1, 1)


def picture_paths(out_stem: Path) -> list[Path]:
    """The files a picture is written to: out_stem.png and out_stem.svg."""
    return [out_stem.with_name(f"{out_stem.name}.{fmt}") for fmt in _METADATA]


def is_own_picture(path: Path) -> bool:
    """Whether `path` is a picture this module wrote (its metadata holds the marker)."""
    try:
        return MARKER.encode() in path.read_bytes()
    except OSError:
        return False


def _save(figure: Any, out_stem: Path) -> list[Path]:
    """Write out_stem.png and out_stem.svg through temporary names, without dates."""
    _, _, rc_context = _matplotlib()
    paths = picture_paths(out_stem)
    with rc_context(_RC), created_folders(out_stem.parent):
        for path, (fmt, metadata) in zip(paths, _METADATA.items()):
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
            write_file_atomically(path, buffer.getvalue())
    return paths


def _rank_axis(axes: Any, first_rank: int, total_rows: int) -> None:
    axes.set_xscale("log")
    axes.set_xlim(first_rank, max(total_rows, first_rank + 1))
    axes.set_ylim(0, 1.03)  # a curve at 1.0 stays visible above the frame
    axes.set_xlabel("Number of top-ranked sentence pairs")
    axes.set_ylabel("Proportion")


def _step_grid(curves: dict, total_rows: int) -> tuple[np.ndarray, int]:
    """x positions for a right-continuous step curve held up to total_rows."""
    ranks = np.asarray(curves["rank"], dtype=np.float64)
    return np.r_[ranks, float(max(total_rows, ranks[-1]))], len(ranks)


def plot_categories(curves: dict, total_rows: int, out_stem: Path, title: str) -> list[Path]:
    """Figure 1: stacked cumulative category shares against rank; returns [png, svg]."""
    figure, axes = _new_figure()
    x, n = _step_grid(curves, total_rows)
    bottom = np.zeros(len(x))
    for category, key in CATEGORIES.items():
        share = np.r_[curves[key][:n], curves[key][n - 1]]
        axes.fill_between(x, bottom, bottom + share, step="post", linewidth=0,
                          color=CATEGORY_COLOURS[category], label=CATEGORY_TITLES[category])
        bottom = bottom + share
    _rank_axis(axes, int(curves["rank"][0]), total_rows)
    axes.set_title(title)
    axes.legend(loc="lower left")
    return _save(figure, out_stem)


def plot_comparison(named_curves: dict[str, dict], total_rows: dict[str, int], out_stem: Path,
                    title: str = "Ranking schemes on the same annotations"
                    ) -> tuple[list[Path], dict[str, float]]:
    """Acceptable-share curves of several ranking schemes in one picture, and each one's AUC."""
    figure, axes = _new_figure()
    aucs = {}
    for name in sorted(named_curves):
        curves, rows = named_curves[name], total_rows[name]
        aucs[name] = acceptable_auc(curves, rows)
        x, n = _step_grid(curves, rows)
        share = np.r_[curves["acceptable"][:n], curves["acceptable"][n - 1]]
        axes.step(x, share, where="post", label=f"{name} (AUC {aucs[name]:.3f})")
    first = min(int(curves["rank"][0]) for curves in named_curves.values())
    _rank_axis(axes, first, max(total_rows[name] for name in named_curves))
    axes.set_ylabel("Acceptable share (score >= 3)")
    axes.set_title(title)
    axes.legend(loc="lower left")
    return _save(figure, out_stem), aucs


def scheme_name(ranked: Path) -> str | None:
    """The scoring scheme of a ranked file where `rank` wrote it (`<lang>/train/`), read from
    the ranking's `stats.json`; None for a file elsewhere."""
    try:
        stats = read_json(ranked.parent.parent / "stats.json")
        if ranked.parent.name == "train" and ranked.name == f"{stats['language']}-train.txt.bz2":
            return str(stats["options"]["score"])
    except (OSError, InputError, KeyError, TypeError):
        pass
    return None


def curve_names(ranked_files: list[Path], labels: list[str] | None = None) -> list[str]:
    """One distinct name per ranked file: its label, else its scheme, else its file name."""
    if labels and len(labels) != len(ranked_files):
        raise OptionError("--label", f"give one label per --ranked file ({len(ranked_files)}), "
                          f"got {len(labels)}")
    names = list(labels) if labels else [scheme_name(path) or path.name for path in ranked_files]
    for i, name in enumerate(names):
        if name in names[:i]:
            first = ranked_files[names.index(name)]
            raise OptionError("--label" if labels else "--ranked",
                              f"two curves would both be named {name!r} ({first} and "
                              f"{ranked_files[i]}); name each file with --label")
    return names


def plot_ranked(ranked_files: list[Path], annotations: Path, out_stem: Path,
                labels: list[str] | None = None,
                overwrite: bool = False) -> tuple[list[Path], dict[str, float]]:
    """Figure 1 for one ranked file, or the comparison of several; the pictures and each
    curve's acceptable-share AUC."""
    names = curve_names(ranked_files, labels)
    for path in picture_paths(out_stem):
        OutputFile(path, COMMAND, (*ranked_files, annotations), overwrite, is_own_picture).check()
    _matplotlib()
    curves, totals, lang = {}, {}, ""
    for name, ranked in zip(names, ranked_files):
        rows = read_ranked(ranked)
        ranks, scores = ranks_by_sentences(annotations, rows, ranked)
        if not len(ranks):
            raise usage_error(annotations, "holds no annotated pair; nothing to plot")
        curves[name], totals[name] = category_curves(ranks, scores, len(rows)), len(rows)
        lang = lang or rows[0][0].rsplit("-", 1)[0]
    annotated = len(ranks)
    if len(curves) > 1:
        return plot_comparison(curves, totals, out_stem, title=f"Opusparcus {lang}: acceptable "
                               f"share of the {annotated} annotated pairs by rank, per scheme")
    [(name, curve)] = curves.items()
    title = f"Opusparcus {lang} ({name}): categories of the {annotated} annotated pairs by rank"
    return (plot_categories(curve, totals[name], out_stem, title),
            {name: acceptable_auc(curve, totals[name])})
