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
    overlap1  overlap2  overlap3  bleu  logprob  dropped_by  [paraphrase_score]

``variant`` 0 is unconstrained; ``suppressed`` is the ';'-joined lowercased suppressed words;
``dropped_by`` names the filter that dropped the row ('' when kept; dropped rows are written
only with ``write_dropped``). Overlaps and log-prob have 4 decimals, BLEU 2. With a score
model (``options.paraphrase_score``) the last column is ParaNMT's paraphrase score
(``paraphrase_score``, which also holds its ``--min-paraphrase-score`` filter).

Resuming: after each complete window its rows are appended and fsynced, then
``<out>.progress.json`` records the rows consumed, the output size and the SHA-256 of the
output and of the input pairs consumed. A rerun with the same options, model and input checks
both digests, truncates the output to the recorded size (dropping any partial append), skips the
consumed input rows and carries on, so an interrupted run ends byte-identical to an
uninterrupted one. ``<out>.stats.json`` gets the final counts, the options and the versions.

What may be written (``check_output``, before any work): an existing output is resumed only
when its checkpoint was written with the same options and model; one without a checkpoint
(not this command's), one written with other options, or one changed since, is replaced only
with ``overwrite`` (which starts over). A fresh run writes nothing until its first window is
done (or the input ends), so bad input found early leaves no file behind; a run that starts
over replaces the earlier output only then.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from tapaco.core.errors import InputError, usage_error
from tapaco.core.files import json_text, write_file_atomically
from tapaco.core.json_input import json_object
from tapaco.core.options import check_range
from tapaco.core.versions import library_versions, signature
from tapaco.enrich import paraphrase_score as pscore
from tapaco.enrich.backends import Translator
from tapaco.enrich.constraints import ConstraintOptions, Idf, choose_suppressed, lower_tokens
from tapaco.enrich.scoring import SCORE_NAMES, OutputFilterOptions, new_counts, score_output, tally

COMMAND = "tapaco enrich"
COLUMNS = ("reference", "paraphrase", "source", "variant", "suppressed", *SCORE_NAMES,
           "dropped_by")
PROGRESS_VERSION = 2
# ParaNMT decoded with beam 12, Wieting et al. (2017) with 50; time and memory grow linearly
# with the beam (beam 64 x 64 sentences already takes 3 GB with transformers on a tiny model)
MAX_BEAM_SIZE = 64
# ParaBank suppresses at most 3 words; every variant is one more decoding of every source
MAX_VARIANTS = 16
# Marian models have 512 target positions
MAX_DECODING_LENGTH = 512
# the libraries whose versions decide the rows
OUTPUT_LIBRARIES = ("sacrebleu", "ctranslate2", "transformers", "torch", "sentencepiece")
_CLEAN = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


@dataclass
class EnrichOptions:
    """Decoding, batching and filtering settings (ParaNMT decoded with beam 12, kept the best);
    ranges are checked on creation, with the command line's option names in the messages.

    ``max_length`` caps each output at that many target pieces; ``window_size`` pairs are read,
    sorted, decoded and checkpointed together; ``paraphrase_score`` adds ParaNMT's score.
    """

    beam_size: int = 12
    variants: int = 0
    max_batch_tokens: int = 4096
    max_length: int = 256
    window_size: int = 10_000
    write_dropped: bool = False
    filters: OutputFilterOptions = field(default_factory=OutputFilterOptions)
    constraints: ConstraintOptions = field(default_factory=ConstraintOptions)
    paraphrase_score: pscore.ParaphraseScoreOptions = field(
        default_factory=pscore.ParaphraseScoreOptions)

    def __post_init__(self) -> None:
        check_range("--beam-size", self.beam_size, 1, MAX_BEAM_SIZE, whole=True)
        check_range("--variants", self.variants, 0, MAX_VARIANTS, whole=True)
        check_range("--max-batch-tokens", self.max_batch_tokens, 1, whole=True)
        check_range("--max-decoding-length", self.max_length, 1, MAX_DECODING_LENGTH,
                    whole=True)
        check_range("--window-size", self.window_size, 1, whole=True)


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
    values += [scores[pscore.COLUMN]] if pscore.COLUMN in scores else []
    return "\t".join(values) + "\n"


def process_window(window: list[tuple[str, str]], translator: Translator,
                   options: EnrichOptions, idf: Idf | None,
                   on_batch: Callable[[int], None] | None = None,
                   scorer: Any = None) -> tuple[str, list[dict]]:
    """Translate, score and format one window; rows come back in input order; ``scorer`` (the
    model of ``options.paraphrase_score``) adds the paraphrase score."""
    done: list[tuple[Job, str, dict]] = []
    for batch in make_batches(make_jobs(window, options, idf), options.max_batch_tokens):
        for job, (text, logprob) in zip(batch, translate_batch(batch, translator, options)):
            done.append((job, text, score_output(job.reference, text, logprob, options.filters)))
        if on_batch:
            on_batch(len(batch))
    done.sort(key=lambda item: (item[0].index, item[0].variant))
    if scorer is not None:
        pscore.add_scores(done, options.paraphrase_score, options.write_dropped, scorer)
    rows = [format_row(job, text, scores) for job, text, scores in done
            if options.write_dropped or not scores["dropped_by"]]
    return "".join(rows), [scores for _, _, scores in done]


def settings_of(options: EnrichOptions) -> dict:
    """The options that decide the rows written: not batching or windows, the constraint
    settings only when there are variants, the score's only with a score model (as JSON reads
    them back)."""
    settings = asdict(options)
    for name in ("max_batch_tokens", "window_size", "paraphrase_score"):
        settings.pop(name)
    if not options.variants:
        settings.pop("constraints")
    settings.update(pscore.settings_of(options.paraphrase_score))
    return json.loads(json.dumps(settings))


def fingerprint(options: EnrichOptions, idf: Idf | None, model: dict | None = None) -> dict:
    """What must match for a resume: everything that changes the rows written."""
    idf_summary = None if idf is None else {"n": idf.n, "types": len(idf.df),
                                            "df_total": sum(idf.df.values())}
    return json.loads(json.dumps({"options": settings_of(options), "model": model,
                                  "idf": idf_summary}))


def _refuse(path: Path, problem: str) -> InputError:
    return usage_error(path, f"{problem}; --overwrite starts over, or choose another --out")


def read_checkpoint(out_path: Path) -> dict | None:
    """The checkpoint an earlier run left beside ``out_path``, or None (none, or not one)."""
    data = json_object(progress_path(out_path))
    return data if isinstance(data.get("fingerprint"), dict) and "version" in data else None


def stats_are_own(path: Path) -> bool:
    """Whether ``path`` holds statistics this command wrote."""
    return json_object(Path(path)).get("written_by") == COMMAND


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(_flat(value, f"{prefix}.{key}" if prefix else key))
    return flat


def _differences(before: dict, now: dict) -> str:
    """'beam_size 12, now 4; ...' for the first few settings that differ."""
    old, new = _flat(before), _flat(now)
    changed = [f"{key} {json.dumps(old.get(key))}, now {json.dumps(new.get(key))}"
               for key in sorted(old.keys() | new.keys()) if old.get(key) != new.get(key)]
    return "; ".join(changed[:3]) + ("; ..." if len(changed) > 3 else "")


def check_output(out_path: Path, options: EnrichOptions, model: dict | None = None,
                 overwrite: bool = False) -> dict | None:
    """Whether ``out_path`` may be written with ``options`` and ``model``: the checkpoint to
    resume from, or None to start over. Raises a usage InputError otherwise; reads only the
    checkpoint and file sizes (the digests are checked when resuming)."""
    out_path = Path(out_path)
    if overwrite:
        return None
    checkpoint = read_checkpoint(out_path)
    for path, own in ((progress_path(out_path), checkpoint is not None),
                      (stats_path(out_path), checkpoint is not None or stats_are_own(
                          stats_path(out_path))),
                      (out_path, checkpoint is not None)):
        if (path.exists() or path.is_symlink()) and not own:
            raise _refuse(path, f"exists and was not written by {COMMAND}")
    if checkpoint is None:
        return None
    if checkpoint.get("version") != PROGRESS_VERSION:
        raise _refuse(out_path, f"was written by another version of {COMMAND}")
    if not _new_state({}).keys() <= checkpoint.keys():
        raise _refuse(progress_path(out_path), "is damaged (fields are missing)")
    recorded = checkpoint["fingerprint"]
    differences = _differences({**(recorded.get("options") or {}), "model": recorded.get(
        "model")}, {**settings_of(options), "model": model})
    if differences:
        raise _refuse(out_path, f"was written with other options ({differences})")
    if not out_path.exists():
        return None
    size = out_path.stat().st_size
    if size < checkpoint["output_bytes"] or (checkpoint["complete"]
                                             and size != checkpoint["output_bytes"]):
        raise _refuse(out_path, f"was changed since {COMMAND} wrote it")
    return checkpoint


def _new_state(fp: dict) -> dict:
    counts = new_counts()
    counts.update(pscore.new_counts(fp.get("options", {})))
    counts["sentences"] = 0
    return {"written_by": COMMAND, "version": PROGRESS_VERSION, "fingerprint": fp,
            "windows_done": 0, "rows_consumed": 0, "input_sha256": "", "output_bytes": 0,
            "output_sha256": "", "complete": False, "seconds": 0.0, "counts": counts}


def _digest_of_prefix(path: Path, size: int) -> Any:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while size > 0 and (block := handle.read(min(size, 1 << 20))):
            digest.update(block)
            size -= len(block)
    return digest


class OutputLog:
    """The output TSV with its checkpoint: digests of what was written and consumed so far.

    A fresh log writes nothing until its first window (or the end of the input): then the
    checkpoint is written first and the file, header included, is moved into place.
    """

    def __init__(self, out_path: Path, fp: dict) -> None:
        self.path = out_path
        self.state = _new_state(fp)
        scored = pscore.COLUMN in fp["options"]
        self.header = ("\t".join(COLUMNS + ((pscore.COLUMN,) if scored else ())) + "\n").encode()
        self.output_digest = hashlib.sha256(self.header)
        self.input_digest = hashlib.sha256()
        self.state["output_bytes"] = len(self.header)
        self.handle: Any = None
        self.was_complete = False
        self.windows_written = 0

    @classmethod
    def resume(cls, out_path: Path, fp: dict, checkpoint: dict,
               pairs: Iterator[tuple[str, str]]) -> OutputLog:
        """Check the output and the first consumed input pairs against the checkpoint, then
        truncate any partial append; ``pairs`` is left after the consumed ones."""
        if checkpoint["fingerprint"].get("idf") != fp["idf"]:
            raise _refuse(out_path, "was made from other references (their IDF table differs)")
        log = cls(out_path, fp)
        log.state = checkpoint
        log.was_complete = bool(checkpoint["complete"])
        log.output_digest = _digest_of_prefix(out_path, checkpoint["output_bytes"])
        if log.output_digest.hexdigest() != checkpoint["output_sha256"]:
            raise _refuse(out_path, f"was changed since {COMMAND} wrote it")
        consumed = log.consume(islice(pairs, checkpoint["rows_consumed"]))
        if consumed < checkpoint["rows_consumed"] or \
                log.input_digest.hexdigest() != checkpoint["input_sha256"]:
            raise _refuse(out_path, f"was made from another input (its first "
                          f"{checkpoint['rows_consumed']} pairs differ from this one's)")
        log.state["complete"] = False  # until finish(): the input may have grown
        log.handle = open(out_path, "r+b")
        log.handle.truncate(checkpoint["output_bytes"])
        log.handle.seek(0, os.SEEK_END)
        return log

    def consume(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Add input pairs to the input digest; how many there were."""
        count = 0
        for source, reference in pairs:
            self.input_digest.update(f"{source}\x1f{reference}\x1e".encode())
            count += 1
        return count

    def append(self, window: list[tuple[str, str]], text: str, results: list[dict]) -> None:
        """Write one finished window and checkpoint it."""
        data = text.encode("utf-8")
        self.consume(window)
        self.output_digest.update(data)
        tally(results, self.state["counts"])
        self.state["counts"]["sentences"] += len(window)
        self.state["windows_done"] += 1
        self.state["rows_consumed"] += len(window)
        self.state["output_bytes"] += len(data)
        self._write(data)
        self.windows_written += 1

    def finish(self) -> None:
        """Mark the output complete (a fresh log with no window writes the header alone)."""
        self.state["complete"] = True
        if self.handle is None:
            self._write(b"")
        elif self.windows_written or not self.was_complete:
            self._checkpoint()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()

    def _write(self, data: bytes) -> None:
        if self.handle is None:
            stats_path(self.path).unlink(missing_ok=True)
            self._checkpoint()
            write_file_atomically(self.path, self.header + data)
            self.handle = open(self.path, "ab")
            return
        self.handle.write(data)
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self._checkpoint()

    def _checkpoint(self) -> None:
        self.state["input_sha256"] = self.input_digest.hexdigest()
        self.state["output_sha256"] = self.output_digest.hexdigest()
        write_file_atomically(progress_path(self.path), json_text(self.state))


def statistics(state: dict, run_sentences: int, run_seconds: float, scorer: Any = None) -> dict:
    """What ``<out>.stats.json`` holds: counts, options, versions and this run's speed (and
    the model that scored, as ``score_model``)."""
    settings = state["fingerprint"]["options"]
    versions = library_versions(*OUTPUT_LIBRARIES)
    return {"written_by": COMMAND, "signature": signature(COMMAND, versions, _flat(settings)),
            "versions": versions, "options": settings, "model": state["fingerprint"]["model"],
            **state["counts"], "windows": state["windows_done"],
            "seconds": round(state["seconds"], 3), "run_sentences": run_sentences,
            "run_seconds": round(run_seconds, 3),
            "sentences_per_second": round(run_sentences / run_seconds, 3)
            if run_seconds > 0 and run_sentences else 0.0,
            **({"score_model": scorer.description()} if scorer is not None else {})}


def enrich(pairs: Iterable[tuple[str, str]], translator: Translator, out_path: Path,
           options: EnrichOptions, total: int | None = None, idf: Idf | None = None,
           progress: Any = None, overwrite: bool = False, model: dict | None = None,
           scorer: Any = None) -> dict:
    """Back-translate ``(source, reference)`` pairs into ``out_path`` (TSV), resumably.

    ``idf`` (from ``constraints.compute_idf`` over the references) is required when
    ``options.variants > 0``. ``progress`` is an optional ``tapaco.core.progress.Progress``.
    ``model`` describes what produces the outputs (compared on resume, like the options);
    ``overwrite`` starts over whatever is at ``out_path`` (see ``check_output``); ``scorer``:
    the model of ``options.paraphrase_score``, loaded (None: loaded here). Returns the
    stats also written to ``<out>.stats.json``; with ``already_complete`` True (and nothing
    written) when an earlier run had finished this input.
    """
    if options.variants > 0 and idf is None:
        raise ValueError("variants > 0 needs an IDF table (constraints.compute_idf)")
    out_path = Path(out_path)
    checkpoint = check_output(out_path, options, model, overwrite)
    fp = fingerprint(options, idf, model)
    scorer = pscore.scorer_of(options.paraphrase_score, scorer)
    iterator = iter(pairs)
    log = OutputLog.resume(out_path, fp, checkpoint, iterator) if checkpoint \
        else OutputLog(out_path, fp)
    started = time.perf_counter()
    base_seconds = log.state["seconds"]
    run_sentences = 0
    try:
        for window in windows(iterator, options.window_size):
            on_batch = _progress_callback(progress, log.state, total)
            text, results = process_window(window, translator, options, idf, on_batch, scorer)
            run_sentences += len(window)
            log.state["seconds"] = base_seconds + time.perf_counter() - started
            log.append(window, text, results)
        log.finish()
    finally:
        log.close()
    stats = statistics(log.state, run_sentences, time.perf_counter() - started, scorer)
    if log.was_complete and not run_sentences:
        if not stats_are_own(stats_path(out_path)):
            write_file_atomically(stats_path(out_path), json_text(stats))
        return {**stats, "already_complete": True}
    write_file_atomically(stats_path(out_path), json_text(stats))
    return stats


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
