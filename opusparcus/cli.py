"""Command line: `python -m opusparcus rank|sample|annotate|combine|cutoff ...`.

A thin layer over the library: :func:`opusparcus.rank.rank`, :mod:`opusparcus.sampling`,
:mod:`opusparcus.annotate`, :mod:`opusparcus.combine`, :mod:`opusparcus.cutoffs`. Bad input ends
with a one-line error naming file and place, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from opusparcus.annotations import read_annotations
from opusparcus.combine import COLUMNS as COMBINE_COLUMNS
from opusparcus.combine import combine_annotations, combined_lines, release_lines
from opusparcus.cutoffs import choose_cut, estimate_shares, read_combined
from opusparcus.rank import RankOptions, rank
from opusparcus.ranked_file import read_ranked, write_rows
from opusparcus.sampling import sample_pairs
from opusparcus.scores import SCHEMES
from tapaco.core.errors import InputError, exit_status
from tapaco.core.files import write_file_atomically, write_json
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress


def _languages(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(lang.strip() for lang in value.split(",") if lang.strip()))


def _fanout(value: str) -> int | None:
    if value.lower() in ("none", "0"):
        return None
    number = int(value)
    if number < 2:
        raise argparse.ArgumentTypeError("must be at least 2, or 0/none for no cap")
    return number


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="opusparcus", description=__doc__.split("\n")[0])
    commands = main.add_subparsers(dest="command", required=True)
    _rank_parser(commands)
    _annotation_parsers(commands)
    return main


def _annotation_parsers(commands) -> None:
    sample = commands.add_parser("sample", help="draw pairs at random for annotation")
    sample.add_argument("--ranked", type=Path, required=True, help="ranked file (.bz2 or text)")
    size = sample.add_mutually_exclusive_group(required=True)
    size.add_argument("--n", type=int, help="number of pairs")
    size.add_argument("--all", action="store_true", help="every pair (dev/test candidates)")
    sample.add_argument("--seed", type=int, default=0)
    sample.add_argument("--out", type=Path, required=True, help="annotation file to write")
    annotate = commands.add_parser("annotate", help="annotate pairs in the terminal")
    annotate.add_argument("--file", type=Path, required=True, help="annotation file")
    annotate.add_argument("--annotator", type=int, choices=(1, 2), required=True)
    combine = commands.add_parser("combine", help="combine two annotators' labels")
    combine.add_argument("--annotations", type=Path, required=True)
    combine.add_argument("--out", type=Path, required=True,
                         help="dev/test: the release's 4-field file; train: rank id s1 s2 score")
    cutoff = commands.add_parser("cutoff", help="cut a ranked training set at quality levels")
    cutoff.add_argument("--ranked", type=Path, required=True)
    cutoff.add_argument("--annotations", type=Path, required=True, help="combined annotations")
    cutoff.add_argument("--levels", default="95,90,75", help="percentages (default 95,90,75)")
    cutoff.add_argument("--conservative", action="store_true",
                        help="cut where the interval's lower bound reaches the level")
    cutoff.add_argument("--out", type=Path, required=True, help="folder for the cut files")
    plot = commands.add_parser("plot", help="the paper's Figure 1; compare ranking schemes")
    plot.add_argument("--ranked", type=Path, nargs="+", required=True,
                      help="ranked file(s), one per scoring scheme, holding the annotated pairs")
    plot.add_argument("--annotations", type=Path, required=True, help="combined annotations")
    plot.add_argument("--out", type=Path, required=True, help="output stem (.png and .svg)")
    gem = commands.add_parser("export-gem", help="GEM quality-level subsets as JSONL")
    gem.add_argument("--ranked", type=Path, required=True, help="ranked training file")
    gem.add_argument("--annotations", type=Path, required=True,
                     help="combined annotations of training pairs (for the cut-offs)")
    gem.add_argument("--dev", type=Path, required=True, help="annotated 4-field dev file")
    gem.add_argument("--test", type=Path, required=True, help="annotated 4-field test file")
    gem.add_argument("--out", type=Path, required=True, help="output folder")


def _rank_parser(commands) -> None:
    command = commands.add_parser("rank", help="rank same-language pairs sharing pivots")
    command.add_argument("--opus-dir", type=Path, required=True,
                         help="OPUS release folder (xml/ and/or moses/)")
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument("--lang", help="target language")
    target.add_argument("--langs", type=_languages,
                        help="several target languages, comma-separated")
    command.add_argument("--out", type=Path, required=True, help="output folder")
    command.add_argument("--pivots", type=_languages, default=(),
                         help="pivot languages, comma-separated (default: every language with a "
                              "bitext with the target)")
    command.add_argument("--score", choices=SCHEMES, default="summed-pmi",
                         help="ranking scheme (default summed-pmi, the release's)")
    command.add_argument("--max-pivot-fanout", type=_fanout, default=1000,
                         help="skip pivot sentences aligned to more distinct target sentences "
                              "(default 1000; 0 or none: no cap)")
    command.add_argument("--min-edit-ratio", type=float, default=0.4,
                         help="dev/test: minimum edit distance / shorter length (default 0.4)")
    command.add_argument("--min-edit-ratio-short", type=float, default=0.5,
                         help="the same for sentences under 24 characters (default 0.5)")
    command.add_argument("--workers", type=int, default=2,
                         help="worker processes for reading bitexts and writing (default 2)")
    command.add_argument("--skip-bad-input", action="store_true",
                         help="skip and count bad documents and links instead of stopping")
    command.add_argument("--timings", type=Path, help="write per-stage seconds and memory here")
    command.add_argument("--quiet", action="store_true", help="no progress, no summary")


def summary(stats: dict) -> str:
    written = stats["pairs_written"]
    skips = stats["splits"]["train"]["fanout_skips"]
    undated = (f" ({stats['links_without_year']} without a year, counted as train)"
               if stats["links_without_year"] else "")
    return (f"{stats['language']}: {stats['links_read']} links read, "
            f"{stats['one_to_one_links']} 1:1 links over {len(stats['bitexts'])} pivots{undated}; "
            f"train {written['train']}, dev {written['dev']}, test {written['test']} pairs; "
            f"fan-out cap skipped {skips['pivots']} pivot sentences ({skips['pairs']} pairs)")


def _run(arguments: argparse.Namespace) -> None:
    commands = {"rank": _run_rank, "sample": _run_sample, "annotate": _run_annotate,
                "combine": _run_combine, "cutoff": _run_cutoff, "plot": _run_plot,
                "export-gem": _run_export_gem}
    commands[arguments.command](arguments)


def _run_sample(arguments: argparse.Namespace) -> None:
    chosen = sample_pairs(arguments.ranked, None if arguments.all else arguments.n,
                          arguments.seed, arguments.out)
    print(f"wrote {len(chosen)} pairs to annotate to {arguments.out}", file=sys.stderr)


def _run_annotate(arguments: argparse.Namespace) -> None:
    from opusparcus.annotate import annotate

    annotate(arguments.file, arguments.annotator)


def _run_combine(arguments: argparse.Namespace) -> None:
    annotations = read_annotations(arguments.annotations)
    combined = combine_annotations(annotations)
    training = all("-N" in a.id for a in annotations)
    text = combined_lines(combined) if training else release_lines(combined)
    write_file_atomically(arguments.out, text)
    print(agreement_report(combined), file=sys.stderr)


def agreement_report(combined) -> str:
    header = "  ".join(f"{column:>8}" for column in COMBINE_COLUMNS)
    counts = "  ".join(f"{combined.agreement[column]:>8}" for column in COMBINE_COLUMNS)
    return (f"{header}\n{counts}\nkept {len(combined.scores)} pairs, Cohen's kappa "
            f"{combined.kappa:.3f}, {combined.unfinished} not labelled by both")


def _run_cutoff(arguments: argparse.Namespace) -> None:
    rows = read_ranked(arguments.ranked)
    ranks, scores = read_combined(arguments.annotations, rows)
    levels = [float(level) / 100 for level in arguments.levels.split(",") if level.strip()]
    estimate = estimate_shares(ranks, scores)
    cuts = [choose_cut(estimate, len(rows), level, arguments.conservative) for level in levels]
    lang = rows[0][0].rsplit("-", 1)[0] if rows else "xx"

    def write(folder: Path) -> None:
        for cut in cuts:
            write_rows(folder / f"{lang}-train-{cut.level * 100:g}.txt.bz2", rows[:cut.rows])
        write_json(folder / "cutoffs.json", {"interval": "Wilson 95 %", "total_rows": len(rows),
                                             "conservative": arguments.conservative,
                                             "cuts": [vars(cut) for cut in cuts]})

    OutputFolder(arguments.out, "opusparcus cutoff",
                 (arguments.ranked, arguments.annotations)).write(write)
    print(cutoff_table(cuts, len(rows)), file=sys.stderr)


def cutoff_table(cuts, total_rows: int) -> str:
    lines = [f"{'level':>6}  {'rows':>10}  estimate  95 % Wilson interval  annotated"]
    lines += [f"{cut.level * 100:>5g}%  {cut.rows:>10}  {cut.share:8.3f}  "
              f"[{cut.low:.3f}, {cut.high:.3f}]        {cut.annotated:>9}" for cut in cuts]
    lines.append(f"of {total_rows} ranked pairs")
    return "\n".join(lines)


def _annotated_ranks(ranked: Path, annotations: Path) -> tuple[np.ndarray, np.ndarray, int]:
    """Ranks in `ranked` of the combined annotated pairs (found by their sentences), scores."""
    rows = read_ranked(ranked)
    position = {(row[1], row[2]): rank for rank, row in enumerate(rows, 1)}
    lines = annotations.read_text(encoding="utf-8").splitlines()[1:]
    ranks, scores = [], []
    for number, line in enumerate(lines, 2):
        fields = line.split("\t")
        if len(fields) != 5 or (fields[2], fields[3]) not in position:
            raise InputError(annotations, f"pair not found in {ranked}", f"line {number}",
                             kind="malformed annotations")
        ranks.append(position[fields[2], fields[3]])
        scores.append(float(fields[4]))
    return np.array(ranks), np.array(scores), len(rows)


def _run_plot(arguments: argparse.Namespace) -> None:
    from opusparcus.plot import acceptable_auc, category_curves, plot_categories, plot_comparison

    curves, totals = {}, {}
    for ranked in arguments.ranked:
        ranks, scores, total = _annotated_ranks(ranked, arguments.annotations)
        curves[ranked.name], totals[ranked.name] = category_curves(ranks, scores, total), total
    if len(curves) == 1:
        [(name, curve)] = curves.items()
        paths = plot_categories(curve, totals[name], arguments.out, name)
        print(f"acceptable-share AUC {acceptable_auc(curve, totals[name]):.4f}", file=sys.stderr)
    else:
        paths, areas = plot_comparison(curves, totals, arguments.out)
        for name, area in sorted(areas.items(), key=lambda item: -item[1]):
            print(f"{name}: acceptable-share AUC {area:.4f}", file=sys.stderr)
    print("wrote " + ", ".join(map(str, paths)), file=sys.stderr)


def _release_pairs(path: Path) -> list[tuple[str, str, str, float]]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 4:
            raise InputError(path, f"expected 4 tab-separated fields, found {len(fields)}",
                             f"line {number}", kind="malformed annotations")
        pairs.append((fields[0], fields[1], fields[2], float(fields[3])))
    return pairs


def _run_export_gem(arguments: argparse.Namespace) -> None:
    from opusparcus.gem import LEVELS, export_gem

    rows = read_ranked(arguments.ranked)
    ranks, scores = read_combined(arguments.annotations, rows)
    estimate = estimate_shares(ranks, scores)
    cuts = {level: choose_cut(estimate, len(rows), level / 100, False).rows
            for level in LEVELS if level < 100}
    cuts = {level: rows_ for level, rows_ in cuts.items() if rows_}
    annotated = _release_pairs(arguments.dev) + _release_pairs(arguments.test)
    lang = rows[0][0].rsplit("-", 1)[0] if rows else "xx"
    try:
        paths = export_gem(lang, rows, cuts, annotated, arguments.out)
    except ValueError as error:
        raise InputError(arguments.ranked, str(error), kind="usage") from error
    print(f"wrote {len(paths)} files under {arguments.out / lang}", file=sys.stderr)


def _run_rank(arguments: argparse.Namespace) -> None:
    options = RankOptions(arguments.pivots, arguments.score, arguments.max_pivot_fanout,
                          arguments.min_edit_ratio, arguments.min_edit_ratio_short,
                          workers=max(1, arguments.workers),
                          skip_bad_input=arguments.skip_bad_input)
    progress = Progress(enabled=False if arguments.quiet else None)
    for lang in arguments.langs or (arguments.lang,):
        stats = rank(arguments.opus_dir, lang, arguments.out, options, progress)
        if not arguments.quiet:
            print(summary(stats), file=sys.stderr)
    if arguments.timings:
        write_json(arguments.timings, progress.timings())


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    return exit_status("opusparcus", lambda: _run(arguments))
