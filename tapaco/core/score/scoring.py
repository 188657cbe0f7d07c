"""The paraphrase score of a file: library API of `tapaco score` and `opusparcus score`.

:func:`score_pairs` scores every row of a TSV of pairs, :func:`score_sets` every sentence of a
TaPaCo language file against the rest of its set. Both write the input's rows unchanged with a
`paraphrase_score` column appended last (6 decimals, empty where no score exists), optionally
the fold (`--folds K`: 1 holds the lowest K-th, as in ParaNMT's filtering experiment) and only
the rows scoring at least `--min-score`, plus `FILE.stats.json` (rows, scored, mean, quantiles,
the folds' bounds, model, backend, versions). The rows are written as they are scored; with
folds, which need every score, the input is read a second time to write them. Memory holds a
chunk of rows and a float per row.
"""

from __future__ import annotations

import bz2
import gzip
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tapaco.core.disk import check_folder
from tapaco.core.errors import InputError, OptionError
from tapaco.core.files import (
    json_text,
    remove_dead_temporaries,
    temporary_name,
    write_file_atomically,
)
from tapaco.core.json_input import json_object
from tapaco.core.outputs import OutputFile
from tapaco.core.progress import Progress
from tapaco.core.score.embedders import BACKENDS, DEVICES, Embedder, open_embedder
from tapaco.core.score.inputs import RowChunk, pair_chunks, set_chunks
from tapaco.core.score.pair_formats import recognise_columns
from tapaco.core.scratch import holding

SCORE_COLUMN = "paraphrase_score"
FOLD_COLUMN = "paraphrase_score_fold"
STATS_FOLDS = 10
_QUANTILES = (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0)
_WRITERS: dict[str, Callable] = {".bz2": bz2.open, ".gz": gzip.open}


@dataclass(frozen=True)
class ScoreOptions:
    """How to score and where to write: the model (a word-vector file or a sentence-transformers
    folder), its backend (None: as the model calls for), device and batch size, the output file,
    folds, the lowest score kept, and where converted copies of word-vector files are kept."""

    model: Path
    out: Path
    backend: str | None = None
    device: str = "auto"
    batch_size: int = 256
    folds: int | None = None
    min_score: float | None = None
    overwrite: bool = False
    vectors_cache: Path | None = None

    def __post_init__(self) -> None:
        if self.backend is not None and self.backend not in BACKENDS:
            raise OptionError("--backend", f"{self.backend}: choose one of {', '.join(BACKENDS)}")
        if self.device not in DEVICES:
            raise OptionError("--device", f"{self.device}: choose one of {', '.join(DEVICES)}")
        if self.batch_size < 1:
            raise OptionError("--batch-size", f"{self.batch_size}: must be at least 1")
        if self.folds is not None and not 2 <= self.folds <= 1000:
            raise OptionError("--folds", f"{self.folds}: must be between 2 and 1000")
        if self.min_score is not None and not -1.0 <= self.min_score <= 1.0:
            raise OptionError("--min-score", f"{self.min_score}: a cosine is between -1 and 1")


@dataclass(frozen=True)
class ScoreSummary:
    """What a score run wrote."""

    out: Path
    stats: dict

    def text(self) -> str:
        stats = self.stats
        mean = "" if stats["mean"] is None else f", mean {stats['mean']:.3f}"
        kept = "" if stats["kept"] == stats["rows"] else f", {stats['kept']:,} kept"
        return (f"scored {stats['scored']:,} of {stats['rows']:,} rows{mean}{kept} "
                f"({stats['backend']}: {stats['model']}) -> {self.out}")


def stats_path(out: Path) -> Path:
    return out.with_name(out.name + ".stats.json")


def is_own_output(path: Path) -> bool:
    """Whether `path` (a scored file or its stats) was written by a score command."""
    stats = path if path.name.endswith(".stats.json") else stats_path(path)
    return json_object(stats).get("command") == "score"


def score_pairs(path: Path, options: ScoreOptions, columns: tuple[int, int] | None = None,
                header: bool = False, progress: Progress | None = None) -> ScoreSummary:
    """Score every pair of the TSV `path` (`columns`: the sentences' 0-based fields; None:
    recognised from the known formats)."""
    path = Path(path)
    _check_outputs(path, options)
    found = recognise_columns(path, columns, header)
    embedder = _embedder(options)
    scored = ((chunk, embedder.pair_scores(left, right))
              for chunk, left, right in pair_chunks(path, found))
    rows = (chunk for chunk, _, _ in pair_chunks(path, found)) if options.folds else None
    writer = _ScoredFile(options, embedder, progress or Progress(enabled=False))
    return writer.write(path, scored, rows,
                        {"mode": "pairs", "columns": [found.first + 1, found.second + 1]})


def score_sets(folder: Path, lang: str, options: ScoreOptions,
               progress: Progress | None = None) -> ScoreSummary:
    """Score every sentence of a TaPaCo build's language file `folder/lang.txt` against the mean
    of the other sentences of its set."""
    path = language_file(Path(folder), lang)
    _check_outputs(path, options)
    embedder = _embedder(options)
    scored = ((chunk, embedder.set_scores(texts, offsets))
              for chunk, texts, offsets in set_chunks(path))
    rows = (chunk for chunk, _, _ in set_chunks(path)) if options.folds else None
    writer = _ScoredFile(options, embedder, progress or Progress(enabled=False))
    return writer.write(path, scored, rows, {"mode": "sets", "lang": lang})


def _embedder(options: ScoreOptions) -> Embedder:
    return open_embedder(options.model, options.backend, options.device, options.batch_size,
                         options.vectors_cache)


def language_file(folder: Path, lang: str) -> Path:
    if not folder.is_dir():
        raise InputError(folder, "not found: --sets names the output folder of tapaco build",
                         kind="missing file")
    path = folder / f"{lang}.txt"
    if not path.is_file():
        raise InputError(folder, f"holds no {lang}.txt: not a language of this build",
                         kind="missing file")
    return path


def _check_outputs(path: Path, options: ScoreOptions) -> None:
    for out in (options.out, stats_path(options.out)):
        OutputFile(out, "score", inputs=(path, options.model), overwrite=options.overwrite,
                   is_own=is_own_output).check()
    if options.vectors_cache is not None:
        check_folder(options.vectors_cache)


class _ScoredFile:
    """Writes the rows with their scores to a temporary file, the stats, then renames: in one
    pass as the chunks are scored, or, for folds (which need every score), in a second pass
    over the rows read again."""

    def __init__(self, options: ScoreOptions, embedder: Embedder, progress: Progress) -> None:
        self.options = options
        self.embedder = embedder
        self.progress = progress
        self.scores: list[np.ndarray] = []

    def write(self, path: Path, scored: Iterator[tuple[RowChunk, np.ndarray]],
              rows_again: Iterator[RowChunk] | None, details: dict) -> ScoreSummary:
        out = self.options.out
        remove_dead_temporaries(out)
        temporary = temporary_name(out, "tmp")
        try:
            with _WRITERS.get(out.suffix, open)(temporary, "wb") as stream, holding(temporary):
                self._write_rows(stream, scored, rows_again)
            scores = np.concatenate([np.zeros(0), *self.scores])
            stats = _stats(path, self.embedder, scores, self._kept(scores), self.options,
                           details)
            write_file_atomically(stats_path(out), json_text(stats))
            os.replace(temporary, out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return ScoreSummary(out, stats)

    def _write_rows(self, stream, scored: Iterator[tuple[RowChunk, np.ndarray]],
                    rows_again: Iterator[RowChunk] | None) -> None:
        with self.progress.stage("score"):
            for chunk, scores in scored:
                self.scores.append(scores)
                self.progress.update(f"{sum(map(len, self.scores)):,} rows scored")
                if rows_again is None:
                    stream.write(self._lines(chunk, scores, None))
        if rows_again is None:
            return
        fold = folds_of(np.concatenate([np.zeros(0), *self.scores]), self.options.folds)
        at = 0
        for chunk, scores in zip(rows_again, self.scores):
            stream.write(self._lines(chunk, scores, fold[at:at + len(scores)]))
            at += len(scores)

    def _kept(self, scores: np.ndarray) -> np.ndarray:
        if self.options.min_score is None:
            return np.ones(len(scores), bool)
        return np.round(np.nan_to_num(scores, nan=-2.0), 6) >= self.options.min_score

    def _lines(self, chunk: RowChunk, scores: np.ndarray, fold: np.ndarray | None) -> bytes:
        kept = self._kept(scores).tolist()
        written = [format_score(score) for score in scores.tolist()]
        lines = []
        if chunk.header is not None:
            names = [SCORE_COLUMN] + ([FOLD_COLUMN] if self.options.folds else [])
            lines.append("\t".join([chunk.header, *names]) + "\n")
        if fold is None:
            lines += [f"{row}\t{score}\n" for row, score, keep in zip(chunk.rows, written, kept)
                      if keep]
        else:
            lines += [f"{row}\t{score}\t{part or ''}\n" for row, score, part, keep
                      in zip(chunk.rows, written, fold.tolist(), kept) if keep]
        return "".join(lines).encode("utf-8")


def folds_of(scores: np.ndarray, folds: int) -> np.ndarray:
    """Each row's fold 1..folds by rank of its score (ties in row order); 0 without a score."""
    scored = np.flatnonzero(~np.isnan(scores))
    order = scored[np.argsort(scores[scored], kind="stable")]
    fold = np.zeros(len(scores), np.int64)
    fold[order] = np.arange(len(order)) * folds // max(len(order), 1) + 1
    return fold


def format_score(score: float) -> str:
    """A score as written: 6 decimals, empty without a score."""
    if score != score:
        return ""
    text = f"{score:.6f}"
    return "0.000000" if text == "-0.000000" else text


def _stats(path: Path, embedder: Embedder, scores: np.ndarray, keep: np.ndarray,
           options: ScoreOptions, details: dict) -> dict:
    scored = np.sort(scores[~np.isnan(scores)])
    bounds = folds_of(scores, STATS_FOLDS)

    def rounded(value: float) -> float:
        return round(float(value), 6)

    return {
        "command": "score", "input": str(path), **details,
        "rows": len(scores), "scored": len(scored), "kept": int(keep.sum()),
        "mean": rounded(scored.mean()) if len(scored) else None,
        "quantiles": {str(q): rounded(np.quantile(scored, q)) for q in _QUANTILES}
        if len(scored) else {},
        "folds": [{"fold": k, "rows": int((bounds == k).sum()),
                   "lowest": rounded(scores[bounds == k].min()),
                   "highest": rounded(scores[bounds == k].max())}
                  for k in range(1, STATS_FOLDS + 1) if (bounds == k).any()],
        "fold_column": options.folds, "min_score": options.min_score,
        **embedder.description(),
    }
