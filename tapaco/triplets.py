"""`tapaco evaluate`'s library API: the triplet accuracy of a model on the training rows
`tapaco pairs` writes, per language and overall.

The folder is `pairs`'s output: `DIR/data/<lang>.parquet`, columns `anchor`, `positive` and
`negative` (one negative) or `negative_1` .. `negative_K`, all strings. A triple (anchor,
positive, one of the row's negatives) counts when cos(anchor, positive) > cos(anchor, negative)
(:func:`tapaco.core.score.pair_metrics.triplets_won`); with K negatives each row gives K
triples, each counted. A triple one of whose cosines is missing (the vectors backend, a
sentence with no known word) is counted as `unscored` and left out. Overall pools every
language's triples. Rows are read and scored a batch at a time, so memory holds a batch and
the counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tapaco.core.errors import InputError, OptionError
from tapaco.core.score.embedders import Embedder
from tapaco.core.score.evaluation import ModelChoice, model_fields, report_file, write_report
from tapaco.core.score.pair_metrics import triplets_won

BATCH_ROWS = 20_000
_NEGATIVE = re.compile(r"^negative(_[1-9][0-9]*)?$")


@dataclass(frozen=True)
class LanguageRows:
    """One language's Parquet file and its negative columns, in order."""

    lang: str
    path: Path
    negatives: tuple[str, ...]

    def batches(self) -> Iterator[dict[str, list[str]]]:
        columns = ["anchor", "positive", *self.negatives]
        try:
            for batch in pq.ParquetFile(self.path).iter_batches(BATCH_ROWS, columns=columns):
                yield {name: _texts(self.path, batch.column(name), name) for name in columns}
        except pa.ArrowException as error:
            raise InputError(self.path, f"not a readable Parquet file: {error}",
                             kind="corrupt file") from error


def _texts(path: Path, column: pa.Array, name: str) -> list[str]:
    if column.null_count:
        raise InputError(path, f"column {name} has an empty (null) value",
                         kind="malformed pairs")
    return column.to_pylist()


def language_files(folder: Path, langs: Sequence[str] | None = None) -> list[LanguageRows]:
    """The languages of a `pairs` output folder (all, or `langs` in that order), each checked
    for its columns."""
    data = Path(folder) / "data"
    if not Path(folder).is_dir():
        raise InputError(folder, "not found: --pairs names the output folder of tapaco pairs",
                         kind="missing file")
    found = {path.stem: path for path in sorted(data.glob("*.parquet"))}
    if not found:
        raise InputError(folder, "holds no data/<lang>.parquet: not an output folder of "
                                 "tapaco pairs", kind="missing file")
    missing = [lang for lang in langs or () if lang not in found]
    if missing:
        raise OptionError("--langs", f"not in {folder}: {', '.join(missing)} (it has "
                                     f"{', '.join(found)})")
    return [_checked(lang, found[lang]) for lang in (langs or found)]


def _checked(lang: str, path: Path) -> LanguageRows:
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as error:
        raise InputError(path, f"not a readable Parquet file: {error}",
                         kind="corrupt file") from error
    names = schema.names
    for name in ("anchor", "positive"):
        if name not in names:
            raise InputError(path, f"has no {name} column (found {', '.join(names)})",
                             kind="malformed pairs")
    negatives = _negative_columns(path, [name for name in names if _NEGATIVE.match(name)])
    for name in ("anchor", "positive", *negatives):
        kind = schema.field(name).type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            raise InputError(path, f"column {name} holds {kind}, not strings",
                             kind="malformed pairs")
    return LanguageRows(lang, path, negatives)


def _negative_columns(path: Path, names: list[str]) -> tuple[str, ...]:
    if names == ["negative"]:
        return ("negative",)
    numbered = tuple(f"negative_{k}" for k in range(1, len(names) + 1))
    if not names or "negative" in names or set(names) != set(numbered):
        found = ", ".join(names) or "none"
        raise InputError(path, f"needs a negative column, or negative_1 .. negative_K "
                               f"(found {found}); tapaco pairs --negatives K writes them",
                         kind="malformed pairs")
    return numbered


def language_counts(rows: LanguageRows, embedder: Embedder) -> dict:
    """One language's rows, triples, unscored triples, triples won and triplet accuracy."""
    counts = {"rows": 0, "negatives_per_row": len(rows.negatives), "triples": 0,
              "unscored": 0, "correct": 0}
    for batch in rows.batches():
        anchors = batch["anchor"]
        to_positive = embedder.pair_scores(anchors, batch["positive"])
        counts["rows"] += len(anchors)
        for name in rows.negatives:
            scored, won = triplets_won(to_positive, embedder.pair_scores(anchors, batch[name]))
            counts["triples"] += len(anchors)
            counts["unscored"] += len(anchors) - scored
            counts["correct"] += won
    return _with_accuracy(counts)


def _with_accuracy(counts: dict) -> dict:
    scored = counts["triples"] - counts["unscored"]
    return {**counts, "triplet_accuracy": counts["correct"] / scored if scored else None}


def evaluate_triplets(folder: Path, model: ModelChoice, out: Path | None = None,
                      langs: Sequence[str] | None = None, overwrite: bool = False) -> dict:
    """The triplet accuracy of `model` on a `pairs` output folder, per language and over all
    (written to `out` as JSON when given)."""
    folder = Path(folder)
    output = report_file(out, "tapaco", (folder,), overwrite, model) if out else None
    files = language_files(folder, langs)
    embedder = model.open()
    languages = {rows.lang: language_counts(rows, embedder) for rows in files}
    overall = _with_accuracy({key: sum(counts[key] for counts in languages.values())
                              for key in ("rows", "triples", "unscored", "correct")})
    if overall["triplet_accuracy"] is None:
        raise InputError(folder, f"no triple to evaluate: {overall['rows']:,} rows, "
                                 f"{overall['unscored']:,} triples without a cosine",
                         kind="malformed pairs")
    report = {
        "command": "evaluate", "program": "tapaco", "input": str(folder),
        "triplet_accuracy": overall["triplet_accuracy"],
        "counted": "each (row, negative) triple: correct when cos(anchor, positive) > "
                   "cos(anchor, negative); overall pools the languages' triples",
        "overall": overall, "languages": languages, **model_fields(embedder),
    }
    write_report(output, report)
    return report


def summary(report: dict, out: Path | None) -> str:
    """The lines `tapaco evaluate` prints: a line per language, then the overall one."""
    def line(name: str, counts: dict) -> str:
        accuracy = counts["triplet_accuracy"]
        shown = "-" if accuracy is None else f"{accuracy:.4f}"
        unscored = f", {counts['unscored']:,} without a cosine" if counts["unscored"] else ""
        return (f"{name:>8}  triplet accuracy {shown}  ({counts['correct']:,} of "
                f"{counts['triples']:,} triples from {counts['rows']:,} rows{unscored})")

    lines = [line(lang, counts) for lang, counts in report["languages"].items()]
    lines.append(line("overall", report["overall"]))
    lines.append(f"{report['backend']}: {report['model']}" + (f" -> {out}" if out else ""))
    return "\n".join(lines)
