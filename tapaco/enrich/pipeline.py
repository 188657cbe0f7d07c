"""Streaming, batched, resumable back-translation enrichment.

Input pairs ``(source, reference)`` are read in windows of ``window_size`` pairs; never more
than one window is held in memory. Within a window every decoding job (the unconstrained
best beam output, variant 0, and with ``variants = K`` up to K ParaBank-style variants that
suppress the 1..K highest-IDF content words of the reference) is sorted by source length and
cut into batches whose summed source length (whitespace tokens, at least 1 per source) stays
within ``max_batch_tokens``. Outputs are scored and filtered (``scoring``) and written as TSV
rows in input order, so the file does not depend on batching.

Output TSV (UTF-8, header line first; tabs/newlines inside text become spaces)::

    reference  paraphrase  source  variant  suppressed  ref_tokens  out_tokens
    overlap1  overlap2  overlap3  bleu  logprob  dropped_by

``variant`` 0 is unconstrained; ``suppressed`` is the ';'-joined lowercased suppressed words;
``dropped_by`` names the filter that dropped the row ('' when kept; dropped rows are written
only with ``write_dropped``). Overlaps and log-prob have 4 decimals, BLEU 2.

Resuming: after each complete window its rows are appended and fsynced, then
``<out>.progress.json`` records the rows consumed and the output size. A rerun with the same
options truncates the output to that size (dropping any partial append), skips the consumed
input rows and carries on, so an interrupted run ends byte-identical to an uninterrupted one.
``<out>.stats.json`` gets the final counts.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from tapaco.core.files import write_file_atomically
from tapaco.enrich.backends import Translator
from tapaco.enrich.constraints import ConstraintOptions, Idf, choose_suppressed, lower_tokens
from tapaco.enrich.scoring import (
    SCORE_NAMES,
    OutputFilterOptions,
    new_counts,
    score_output,
    tally,
)

COLUMNS = ("reference", "paraphrase", "source", "variant", "suppressed", *SCORE_NAMES,
           "dropped_by")
PROGRESS_VERSION = 1
_CLEAN = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


@dataclass
class EnrichOptions:
    """Decoding, batching and filtering settings (ParaNMT decoded with beam 12, kept the best)."""

    beam_size: int = 12
    variants: int = 0
    max_batch_tokens: int = 4096
    max_length: int = 256
    window_size: int = 10_000
    write_dropped: bool = False
    filters: OutputFilterOptions = field(default_factory=OutputFilterOptions)
    constraints: ConstraintOptions = field(default_factory=ConstraintOptions)


@dataclass
class Job:
    """One decoding request: a source with its reference, variant and suppressed words."""

    index: int
    variant: int
    source: str
    reference: str
    suppressed: list[str]

    @property
    def length(self) -> int:
        return max(1, len(self.source.split()))


def progress_path(out_path: Path) -> Path:
    return out_path.with_name(out_path.name + ".progress.json")


def stats_path(out_path: Path) -> Path:
    return out_path.with_name(out_path.name + ".stats.json")


def header_line() -> str:
    return "\t".join(COLUMNS) + "\n"


def windows(pairs: Iterator[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    """Consecutive lists of at most ``size`` pairs."""
    while window := list(islice(pairs, size)):
        yield window


def make_jobs(window: list[tuple[str, str]], options: EnrichOptions,
              idf: Idf | None) -> list[Job]:
    """Variant 0 for every pair plus up to ``options.variants`` constrained variants each."""
    jobs = []
    for index, (source, reference) in enumerate(window):
        jobs.append(Job(index, 0, source, reference, []))
        if options.variants <= 0 or idf is None:
            continue
        ref_tokens = lower_tokens(reference)
        for variant in range(1, options.variants + 1):
            suppressed = choose_suppressed(ref_tokens, idf, variant, options.constraints)
            if len(suppressed) < variant:
                break
            jobs.append(Job(index, variant, source, reference, suppressed))
    return jobs


def make_batches(jobs: list[Job], max_batch_tokens: int) -> list[list[Job]]:
    """Sort by source length (then input order) and cut by summed source length."""
    ordered = sorted(jobs, key=lambda job: (job.length, job.index, job.variant))
    batches: list[list[Job]] = []
    current: list[Job] = []
    used = 0
    for job in ordered:
        if current and used + job.length > max_batch_tokens:
            batches.append(current)
            current, used = [], 0
        current.append(job)
        used += job.length
    if current:
        batches.append(current)
    return batches


def translate_batch(batch: list[Job], translator: Translator,
                    options: EnrichOptions) -> list[tuple[str, float]]:
    """Best hypothesis (text, score) per job; ('', nan) when the backend returned none."""
    suppressed = [job.suppressed for job in batch]
    results = translator.translate(
        [job.source for job in batch], beam_size=options.beam_size, num_hypotheses=1,
        suppressed_words=suppressed if any(suppressed) else None, max_length=options.max_length)
    if len(results) != len(batch):
        raise RuntimeError(f"translator returned {len(results)} results for {len(batch)} texts")
    return [(hyps[0].text, float(hyps[0].score)) if hyps else ("", math.nan) for hyps in results]


def format_row(job: Job, paraphrase: str, scores: dict) -> str:
    texts = [text.translate(_CLEAN) for text in (job.reference, paraphrase, job.source)]
    values = [*texts, str(job.variant), ";".join(job.suppressed),
              str(scores["ref_tokens"]), str(scores["out_tokens"])]
    values += [f"{scores[f'overlap{n}']:.4f}" for n in (1, 2, 3)]
    values += [f"{scores['bleu']:.2f}", f"{scores['logprob']:.4f}", scores["dropped_by"]]
    return "\t".join(values) + "\n"


def process_window(window: list[tuple[str, str]], translator: Translator,
                   options: EnrichOptions, idf: Idf | None,
                   on_batch: Callable[[int], None] | None = None) -> tuple[str, list[dict]]:
    """Translate, score and format one window; rows come back in input order."""
    done: list[tuple[Job, str, dict]] = []
    for batch in make_batches(make_jobs(window, options, idf), options.max_batch_tokens):
        for job, (text, logprob) in zip(batch, translate_batch(batch, translator, options)):
            done.append((job, text, score_output(job.reference, text, logprob, options.filters)))
        if on_batch:
            on_batch(len(batch))
    done.sort(key=lambda item: (item[0].index, item[0].variant))
    rows = [format_row(job, text, scores) for job, text, scores in done
            if options.write_dropped or not scores["dropped_by"]]
    return "".join(rows), [scores for _, _, scores in done]


def fingerprint(options: EnrichOptions, idf: Idf | None) -> dict:
    """What must match for a resume: everything that changes the rows written."""
    settings = asdict(options)
    settings.pop("max_batch_tokens")
    settings.pop("window_size")
    idf_summary = None if idf is None else {"n": idf.n, "types": len(idf.df),
                                            "df_total": sum(idf.df.values())}
    return json.loads(json.dumps({"options": settings, "idf": idf_summary}))


def write_json_atomic(path: Path, data: dict) -> None:
    write_file_atomically(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def new_state(fp: dict, header_bytes: int) -> dict:
    counts = new_counts()
    counts["sentences"] = 0
    return {"version": PROGRESS_VERSION, "fingerprint": fp, "windows_done": 0,
            "rows_consumed": 0, "output_bytes": header_bytes, "complete": False,
            "seconds": 0.0, "counts": counts}


def start(out_path: Path, fp: dict) -> dict:
    """Resume from the checkpoint (truncating a partial append) or start a fresh file."""
    checkpoint = progress_path(out_path)
    if checkpoint.exists():
        state = json.loads(checkpoint.read_text(encoding="utf-8"))
        if state.get("version") != PROGRESS_VERSION or state.get("fingerprint") != fp:
            raise ValueError(f"{checkpoint}: written by a run with other options or IDF; "
                             f"delete it and {out_path} to start over")
        size = out_path.stat().st_size if out_path.exists() else -1
        if size < state["output_bytes"]:
            raise ValueError(f"{out_path}: shorter ({size} bytes) than checkpointed in "
                             f"{checkpoint} ({state['output_bytes']} bytes)")
        os.truncate(out_path, state["output_bytes"])
        return state
    header = header_line().encode("utf-8")
    with open(out_path, "wb") as handle:
        handle.write(header)
        handle.flush()
        os.fsync(handle.fileno())
    state = new_state(fp, len(header))
    write_json_atomic(checkpoint, state)
    return state


def skip(pairs: Iterator[tuple[str, str]], count: int) -> int:
    """Consume ``count`` items; return how many there were."""
    return sum(1 for _ in islice(pairs, count))


def finish(out_path: Path, state: dict, run_sentences: int, run_seconds: float) -> dict:
    counts = state["counts"]
    stats = {**counts, "windows": state["windows_done"], "seconds": round(state["seconds"], 3),
             "run_sentences": run_sentences, "run_seconds": round(run_seconds, 3),
             "sentences_per_second": round(run_sentences / run_seconds, 3)
             if run_seconds > 0 else 0.0}
    write_json_atomic(stats_path(out_path), stats)
    return stats


def enrich(pairs: Iterable[tuple[str, str]], translator: Translator, out_path: Path,
           options: EnrichOptions, total: int | None = None, idf: Idf | None = None,
           progress: Any = None) -> dict:
    """Back-translate ``(source, reference)`` pairs into ``out_path`` (TSV), resumably.

    ``idf`` (from ``constraints.compute_idf`` over the references) is required when
    ``options.variants > 0``. ``progress`` is an optional ``tapaco.core.progress.Progress``.
    Returns the stats also written to ``<out>.stats.json``.
    """
    if options.variants > 0 and idf is None:
        raise ValueError("variants > 0 needs an IDF table (constraints.compute_idf)")
    out_path = Path(out_path)
    state = start(out_path, fingerprint(options, idf))
    iterator = iter(pairs)
    skipped = skip(iterator, state["rows_consumed"])
    if skipped < state["rows_consumed"]:
        raise ValueError(f"input has {skipped} pairs but {progress_path(out_path)} "
                         f"records {state['rows_consumed']} consumed")
    started = time.perf_counter()
    base_seconds = state["seconds"]
    run_sentences = 0
    with open(out_path, "ab") as handle:
        for window in windows(iterator, options.window_size):
            on_batch = _progress_callback(progress, state, total)
            text, results = process_window(window, translator, options, idf, on_batch)
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
            run_sentences += len(window)
            record_window(state, results, len(window), os.fstat(handle.fileno()).st_size)
            state["seconds"] = base_seconds + time.perf_counter() - started
            write_json_atomic(progress_path(out_path), state)
    state["complete"] = True
    write_json_atomic(progress_path(out_path), state)
    return finish(out_path, state, run_sentences, time.perf_counter() - started)


def record_window(state: dict, results: list[dict], sentences: int, output_bytes: int) -> None:
    """Fold a completed window into the checkpoint state."""
    tally(results, state["counts"])
    state["counts"]["sentences"] += sentences
    state["windows_done"] += 1
    state["rows_consumed"] += sentences
    state["output_bytes"] = output_bytes


def _progress_callback(progress: Any, state: dict, total: int | None) -> Any:
    """Per-batch progress line: outputs decoded so far in the window, rows before it."""
    if progress is None:
        return None
    decoded = 0

    def on_batch(size: int) -> None:
        nonlocal decoded
        decoded += size
        progress.update(f"{decoded} outputs in window, {state['counts']['kept']} kept",
                        state["rows_consumed"], total)
    return on_batch
