"""`opusparcus evaluate`'s library API: how well a model's cosine separates human-annotated
paraphrases from non-paraphrases, as MTEB evaluates OpusparcusPC (pair classification).

The annotated file is one of: `combine`'s output (training pairs: the header
`rank id sentence1 sentence2 score`; dev/test pairs: the release's 4-field lines, as in the
Opusparcus release itself), or an `export-gem` split (or the Hub's GEM/opusparcus) as JSONL or
Parquet, with `annot_score` and the sentences as `sent1`/`sent2` (the card's schema) or
`input`/`target` (the Hub's). It is recognised by its content, not its name.

Pairs with `annot_score > 2.5` are positive, `< 2.5` negative, `= 2.5` dropped (one annotator
said mostly good, the other mostly bad). A pair one of whose sentences has no vector (the
vectors backend, no known word) has no cosine: it is counted as `unscored` and left out. The
figures are :func:`tapaco.core.score.pair_metrics.pair_classification`'s. An annotated file
(pairs people labelled: thousands) is read whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from opusparcus.combine import TRAINING_HEADER
from opusparcus.cutoffs import read_combined_pairs
from tapaco.core.annotation.pairs import malformed, read_release_pairs
from tapaco.core.errors import InputError, usage_error
from tapaco.core.files import read_plain_text
from tapaco.core.json_input import parse_json
from tapaco.core.score.evaluation import ModelChoice, model_fields, report_file, write_report
from tapaco.core.score.pair_metrics import pair_classification

BOUNDARY = 2.5
SENTENCE_COLUMNS = (("sent1", "sent2"), ("input", "target"))
SCORE_COLUMN = "annot_score"
READS = ("an annotated file: combine's output, the release's dev/test lines, or a GEM split "
         "(JSONL or Parquet)")


@dataclass(frozen=True)
class AnnotatedPairs:
    """The pairs of an annotated file, their annotation scores, and the form it had."""

    first: list[str]
    second: list[str]
    scores: np.ndarray
    form: str


def read_annotated(path: Path) -> AnnotatedPairs:
    """The pairs of the annotated file `path`, in any of the forms the module names."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            start = handle.read(4)
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}",
                         kind="missing file") from error
    if start == b"PAR1":
        return _read_parquet(path)
    text = read_plain_text(path, READS)
    if text.lstrip().startswith("{"):
        return _read_jsonl(path, text)
    if text.split("\n", 1)[0].rstrip("\r") == TRAINING_HEADER:
        pairs = read_combined_pairs(path)
        return AnnotatedPairs([p.sentence1 for p in pairs], [p.sentence2 for p in pairs],
                              np.array([p.score for p in pairs], float), "combined training")
    rows = read_release_pairs(path)
    return AnnotatedPairs([row[1] for row in rows], [row[2] for row in rows],
                          np.array([row[3] for row in rows], float), "dev/test lines")


def _sentence_columns(path: Path, names: set[str], where: str = "") -> tuple[str, str]:
    pair = next((pair for pair in SENTENCE_COLUMNS if set(pair) <= names), None)
    if pair is not None and SCORE_COLUMN in names:
        return pair
    raise malformed(path, f"needs the columns {SCORE_COLUMN} and sent1, sent2 (or input, "
                    f"target); found {', '.join(sorted(names)) or 'none'}", where)


def _read_jsonl(path: Path, text: str) -> AnnotatedPairs:
    first, second, scores, columns = [], [], [], None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"line {number}"
        record = parse_json(line, f"{path}: {where}", kind="malformed annotations")
        if not isinstance(record, dict):
            raise malformed(path, "expected one JSON object per line", where)
        columns = columns or _sentence_columns(path, set(record), where)
        missing = [name for name in (*columns, SCORE_COLUMN) if name not in record]
        if missing:
            raise malformed(path, f"no {', '.join(missing)} in this record", where)
        a, b, score = record[columns[0]], record[columns[1]], record[SCORE_COLUMN]
        if not isinstance(a, str) or not isinstance(b, str):
            raise malformed(path, f"{columns[0]} and {columns[1]} must be strings", where)
        first.append(a)
        second.append(b)
        scores.append(_number(path, score, where))
    return AnnotatedPairs(first, second, _on_scale(path, np.array(scores, float)), "GEM JSONL")


def _number(path: Path, value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise malformed(path, f"{SCORE_COLUMN} {value!r} is not a number", where)
    return float(value)


def _read_parquet(path: Path) -> AnnotatedPairs:
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        raise InputError(path, f"not a readable Parquet file: {error}",
                         kind="corrupt file") from error
    columns = _sentence_columns(path, set(table.column_names))
    for name in columns:
        if not (pa.types.is_string(table.schema.field(name).type)
                or pa.types.is_large_string(table.schema.field(name).type)):
            raise malformed(path, f"column {name} must hold strings")
        if table[name].null_count:
            raise malformed(path, f"column {name} has an empty (null) value")
    score = table[SCORE_COLUMN]
    if not (pa.types.is_integer(score.type) or pa.types.is_floating(score.type)):
        raise malformed(path, f"column {SCORE_COLUMN} holds {score.type}, not numbers")
    values = score.to_numpy(zero_copy_only=False).astype(float)
    missing = np.flatnonzero(~np.isfinite(values))
    if len(missing):
        raise malformed(path, f"{SCORE_COLUMN} is not a number", f"row {missing[0] + 1}")
    return AnnotatedPairs(table[columns[0]].to_pylist(), table[columns[1]].to_pylist(),
                          _on_scale(path, values), "GEM Parquet")


def _on_scale(path: Path, scores: np.ndarray) -> np.ndarray:
    outside = np.flatnonzero((scores < 1) | (scores > 4))
    if len(outside):
        raise malformed(path, f"{SCORE_COLUMN} {scores[outside[0]]} is outside the scale 1-4 "
                        "(a GEM training split's 0.0 means not annotated)",
                        f"record {outside[0] + 1}")
    return scores


def labels(path: Path, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs are kept (score not 2.5) and which of them are positive (above 2.5); an
    InputError unless there are positives and negatives."""
    kept = scores != BOUNDARY
    positive = scores[kept] > BOUNDARY
    if not positive.any() or positive.all():
        missing = "positive (annot_score > 2.5)" if not positive.any() else \
            "negative (annot_score < 2.5)"
        raise malformed(path, f"holds no {missing} pair: average precision needs both")
    return kept, positive


def evaluate_annotated(path: Path, model: ModelChoice, out: Path | None = None,
                       overwrite: bool = False) -> dict:
    """The pair-classification figures of `model` on the annotated file `path` (written to
    `out` as JSON when given)."""
    path = Path(path)
    output = report_file(out, "opusparcus", (path,), overwrite, model) if out else None
    pairs = read_annotated(path)
    kept, positive = labels(path, pairs.scores)
    chosen = np.flatnonzero(kept).tolist()
    embedder = model.open()
    cosines = embedder.pair_scores([pairs.first[k] for k in chosen],
                                   [pairs.second[k] for k in chosen])
    scored = ~np.isnan(cosines)
    if not positive[scored].any() or positive[scored].all():
        raise usage_error(path, "too few pairs have a cosine (their sentences have no known "
                          "word): no positive or no negative is left")
    report = {
        "command": "evaluate", "program": "opusparcus", "input": str(path), "form": pairs.form,
        "labels": "annot_score > 2.5 positive, < 2.5 negative, = 2.5 dropped",
        "positives": int(positive[scored].sum()), "negatives": int((~positive[scored]).sum()),
        "dropped": int((~kept).sum()), "unscored": int((~scored).sum()),
        **pair_classification(cosines[scored], positive[scored]),
        "thresholds": "MTEB's: the best-accuracy cut (threshold) and the best-F1 cut "
                      "(f1_threshold), halfway between the cosines either side",
        **model_fields(embedder),
    }
    write_report(output, report)
    return report


def summary(report: dict, out: Path | None) -> str:
    """The lines `opusparcus evaluate` prints."""
    unscored = f", {report['unscored']:,} without a cosine" if report["unscored"] else ""
    lines = [f"{report['positives']:,} positive and {report['negatives']:,} negative pairs "
             f"({report['dropped']:,} at 2.5 dropped{unscored}); {report['backend']}: "
             f"{report['model']}",
             f"cosine AP {report['cosine_ap']:.4f}  accuracy {report['accuracy']:.4f} "
             f"(threshold {report['threshold']:.4f})  F1 {report['f1']:.4f} "
             f"(threshold {report['f1_threshold']:.4f})"]
    if out is not None:
        lines.append(f"-> {out}")
    return "\n".join(lines)
