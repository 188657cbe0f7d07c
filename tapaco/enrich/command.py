"""`python -m tapaco enrich`: back-translate a bitext (or TaPaCo sets) into paraphrase candidates.

Checks everything it can before any work, in this order: the options' ranges (the options
dataclasses), the input mode (plain source and reference files: equal line counts), where it may
write (`tapaco.core.outputs` rules plus the checkpoint of an earlier run,
`tapaco.enrich.pipeline.check_output`, which also finds the backend of a `--score-model`) and the
model folder (`tapaco.enrich.backends.check_model`, nothing loaded). Then it computes the IDF
table for ParaBank-style variants with a first pass over the references, loads the local model
(and the score model, `tapaco.enrich.paraphrase_score`) and runs the resumable pipeline. In
TaPaCo mode the outputs are also written as machine-generated candidates per set id, in a folder
of their own (never the TaPaCo folder, which the next build replaces).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.errors import InputError, MissingDependency, OptionError, usage_error
from tapaco.core.files import created_folders
from tapaco.core.options import Command
from tapaco.core.outputs import OutputFile, OutputFolder
from tapaco.core.progress import Progress, plural
from tapaco.enrich.backends import (
    BACKENDS,
    COMPUTE_TYPES,
    DEVICES,
    BackendOptions,
    ModelFolderError,
    Translator,
    check_model,
    load_translator,
)
from tapaco.enrich.constraints import ConstraintOptions, compute_idf
from tapaco.enrich.inputs import bitext_pairs, check_line_counts, moses_pairs, tapaco_set_pairs
from tapaco.enrich.paraphrase_score import ParaphraseScoreOptions, open_scorer, summary_note
from tapaco.enrich.pipeline import (
    COLUMNS,
    COMMAND,
    MAX_BEAM_SIZE,
    MAX_DECODING_LENGTH,
    MAX_VARIANTS,
    EnrichOptions,
    check_output,
    enrich,
    progress_path,
    read_checkpoint,
    stats_are_own,
    stats_path,
)
from tapaco.enrich.scoring import OutputFilterOptions

DESCRIPTION = """\
Translate the non-target side of a bitext into the target language with a local MarianMT model
(or its CTranslate2 conversion), pair each output with its reference, score and filter it.
Writes OUT (TSV), OUT.progress.json (the checkpoint a rerun resumes from) and OUT.stats.json;
with --sets, <target>-from-<lang>.enrich.tsv (with the same two files) and
<target>-from-<lang>.machine.txt in the folder OUT."""

DEFAULTS = EnrichOptions()
FILTERS = OutputFilterOptions()
CONSTRAINTS = ConstraintOptions()
BACKEND = BackendOptions()


def _number_or_none(value: str) -> float | None:
    """A number, or 'none' to turn the rule off (the range is the options' to check)."""
    if value.strip().lower() == "none":
        return None
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {value!r}") from None


def _add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    command = commands.add_parser("enrich", help="NMT back-translation paraphrase candidates",
                                  description=DESCRIPTION)
    _input_options(command)
    _model_options(command)
    _decoding_options(command)
    _filter_options(command)
    _score_options(command)
    return command


def _input_options(command: argparse.ArgumentParser) -> None:
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--opus-dir", type=Path, metavar="DIR",
                        help="OPUS release holding the bitext --pair")
    source.add_argument("--source-file", type=Path, metavar="FILE",
                        help="plain source sentences, one a line (with --reference-file)")
    source.add_argument("--sets", type=Path, metavar="DIR",
                        help="TaPaCo mode: a `tapaco build` output folder (read only)")
    command.add_argument("--pair", metavar="xx-yy",
                         help="the bitext of --opus-dir, e.g. cs-en; one side is --target")
    command.add_argument("--reference-file", type=Path, metavar="FILE",
                         help="the references of --source-file, line by line")
    command.add_argument("--from-lang", metavar="xx",
                         help="TaPaCo mode: the language whose sentences are translated")
    command.add_argument("--target", required=True, metavar="xx",
                         help="the target (paraphrase) language")
    command.add_argument("--out", type=Path, required=True, metavar="OUT",
                         help="output TSV (with --sets: a folder, not the --sets folder); a "
                              "rerun with the same options resumes it")
    command.add_argument("--overwrite", action="store_true",
                         help="start over: replace an output written with other options, "
                              "changed since, or not written by enrich (never an input)")


def _model_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("model")
    group.add_argument("--model", type=Path, required=True, metavar="DIR",
                       help="local MarianMT checkpoint or its CTranslate2 conversion (with "
                            "source.spm and target.spm); nothing is downloaded")
    group.add_argument("--backend", choices=BACKENDS, default=BACKEND.backend,
                       help="auto: by the files in --model (model.bin: ctranslate2)")
    group.add_argument("--device", choices=DEVICES, default=BACKEND.device,
                       help="auto: a GPU when the backend sees one, else the CPU (also for a "
                            "sentence-transformers --score-model)")
    group.add_argument("--compute-type", choices=COMPUTE_TYPES, default=BACKEND.compute_type,
                       metavar="TYPE",
                       help=f"precision, one of {', '.join(COMPUTE_TYPES)}; %(default)s = int8 "
                            "on CPU and float16 on GPU with CTranslate2, float32 with "
                            "transformers (which runs the float types only)")
    group.add_argument("--batch-size", type=int, default=BACKEND.batch_size, metavar="N",
                       help="at most this many sentences per decoding call (at least 1)")


def _decoding_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("decoding")
    group.add_argument("--beam-size", type=int, default=DEFAULTS.beam_size, metavar="N",
                       help=f"beam width, 1 to {MAX_BEAM_SIZE} (ParaNMT: 12; time and memory "
                            "grow with it)")
    group.add_argument("--variants", type=int, default=DEFAULTS.variants, metavar="K",
                       help=f"0 to {MAX_VARIANTS} extra outputs per source: variant k "
                            "suppresses the k highest-IDF content words of the reference "
                            "(default: %(default)s)")
    group.add_argument("--never-suppress-top", type=int, default=CONSTRAINTS.top_frequent,
                       metavar="N",
                       help="variants never suppress the N most frequent words of the "
                            "references (0: no such rule)")
    group.add_argument("--never-suppress-df-ratio", type=_number_or_none,
                       default=CONSTRAINTS.max_df_ratio, metavar="X",
                       help="variants never suppress a word found in more than this share "
                            "of the references (above 0, at most 1; 'none': no such rule)")
    group.add_argument("--max-batch-tokens", type=int, default=DEFAULTS.max_batch_tokens,
                       metavar="N",
                       help="batches of length-sorted sources hold at most this many source "
                            "words (at least 1; a longer source is decoded alone)")
    group.add_argument("--max-decoding-length", type=int, default=DEFAULTS.max_length,
                       metavar="N",
                       help=f"stop an output after N target pieces (1 to "
                            f"{MAX_DECODING_LENGTH})")
    group.add_argument("--window-size", type=int, default=DEFAULTS.window_size, metavar="N",
                       help="pairs read, sorted and checkpointed together (at least 1; "
                            "smaller: less memory and less lost on an interruption)")


def _filter_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("filters (the first that fires names the drop)")
    group.add_argument("--keep-copies", action="store_true",
                       help="keep outputs equal to their reference")
    group.add_argument("--max-length-ratio", type=_number_or_none,
                       default=FILTERS.max_length_ratio, metavar="X",
                       help="drop outputs with more than X times the reference's tokens "
                            "(above 0; 'none': off)")
    group.add_argument("--max-tokens", type=int, metavar="N",
                       help="drop outputs longer than N tokens (at least 1)")
    group.add_argument("--max-unigram-overlap", type=float, metavar="X",
                       help="drop outputs sharing more than this share of their words with "
                            "the reference (0 to 1)")
    group.add_argument("--max-bleu", type=float, metavar="X",
                       help="drop outputs whose sentence BLEU against the reference exceeds "
                            "X (0 to 100)")
    group.add_argument("--min-logprob", type=float, metavar="X",
                       help="drop outputs whose mean token log-probability is below X "
                            "(at most 0)")
    group.add_argument("--write-dropped", action="store_true",
                       help="also write dropped outputs, with the filter that dropped them")


def _score_options(command: argparse.ArgumentParser) -> None:
    group = command.add_argument_group("paraphrase score (ParaNMT)")
    group.add_argument("--score-model", type=Path, metavar="PATH",
                       help="add a last column, paraphrase_score: the cosine of the reference's "
                            "and the paraphrase's vectors (6 decimals; empty where a side has "
                            "none), from a word-vector file (mean of the lowercased 13a tokens' "
                            "vectors) or a sentence-transformers model folder (holding "
                            "modules.json); nothing is downloaded")
    group.add_argument("--min-paraphrase-score", type=float, metavar="X",
                       help="with --score-model: drop outputs scoring below X (-1 to 1) or "
                            "without a score (dropped_by: paraphrase_score)")


def options_of(arguments: argparse.Namespace) -> EnrichOptions:
    """The pipeline's options; out-of-range values raise OptionError (one line, exit 2)."""
    filters = OutputFilterOptions(drop_copies=not arguments.keep_copies,
                                  max_length_ratio=arguments.max_length_ratio,
                                  max_tokens=arguments.max_tokens,
                                  max_unigram_overlap=arguments.max_unigram_overlap,
                                  max_bleu=arguments.max_bleu, min_logprob=arguments.min_logprob)
    constraints = ConstraintOptions(top_frequent=arguments.never_suppress_top,
                                    max_df_ratio=arguments.never_suppress_df_ratio)
    return EnrichOptions(beam_size=arguments.beam_size, variants=arguments.variants,
                         max_batch_tokens=arguments.max_batch_tokens,
                         max_length=arguments.max_decoding_length,
                         window_size=arguments.window_size,
                         write_dropped=arguments.write_dropped, filters=filters,
                         constraints=constraints, paraphrase_score=ParaphraseScoreOptions(
                             arguments.score_model, arguments.min_paraphrase_score,
                             arguments.device))


@dataclass(frozen=True)
class Outputs:
    """The files a run writes: the TSV (with its checkpoint and stats) and, with --sets, the
    machine candidates in the folder `folder`."""

    table: Path
    machine: Path | None = None
    folder: Path | None = None

    def files(self) -> list[Path]:
        found = [self.table, progress_path(self.table), stats_path(self.table)]
        return found + ([self.machine] if self.machine else [])


def outputs_of(arguments: argparse.Namespace) -> Outputs:
    if arguments.sets is None:
        return Outputs(arguments.out)
    stem = f"{arguments.target}-from-{arguments.from_lang}"
    return Outputs(arguments.out / f"{stem}.enrich.tsv", arguments.out / f"{stem}.machine.txt",
                   arguments.out)


def _inputs(arguments: argparse.Namespace) -> list[Path]:
    given = [arguments.opus_dir, arguments.source_file, arguments.reference_file,
             arguments.sets, arguments.model, arguments.score_model]
    return [path for path in given if path is not None]


# the option each input mode needs, by the mode's option
MODE_OPTIONS = {"opus_dir": "pair", "source_file": "reference_file", "sets": "from_lang"}


def _check_mode(arguments: argparse.Namespace) -> None:
    """The chosen input has the option it needs, and no other mode's option is given."""
    for mode, needed in MODE_OPTIONS.items():
        flag, needed_flag = (f"--{name.replace('_', '-')}" for name in (mode, needed))
        if getattr(arguments, mode) is not None and getattr(arguments, needed) is None:
            raise OptionError(needed_flag, f"{flag} needs {needed_flag}")
        if getattr(arguments, mode) is None and getattr(arguments, needed) is not None:
            raise OptionError(needed_flag, f"is for {flag} only")


def _pairs_factory(arguments: argparse.Namespace) -> Callable[[], Iterator[tuple[str, str]]]:
    """The (source, reference) pairs of the chosen input, after checking the options it needs."""
    _check_mode(arguments)
    if arguments.opus_dir:
        return lambda: bitext_pairs(arguments.opus_dir, arguments.pair, arguments.target)
    if arguments.source_file:
        check_line_counts(arguments.source_file, arguments.reference_file)
        return lambda: moses_pairs(arguments.source_file, arguments.reference_file)
    if arguments.from_lang == arguments.target:
        raise OptionError("--from-lang", f"is the --target {arguments.target}; translate "
                          "another language into it")
    # a set without a target-language sentence is scored against its source sentence
    return lambda: ((source, reference or source) for _, source, reference in
                    tapaco_set_pairs(arguments.sets, arguments.from_lang, arguments.target))


def check_outputs(arguments: argparse.Namespace, outputs: Outputs) -> None:
    """Where the run writes, by the rules of `tapaco.core.outputs`, before any work."""
    inputs = _inputs(arguments)
    if outputs.folder is not None:
        folder, sets = outputs.folder.resolve(), arguments.sets.resolve()
        if folder.is_relative_to(sets):
            where = "is the" if folder == sets else "is inside the"
            raise usage_error(outputs.folder, f"{where} TaPaCo folder of --sets: enrich files "
                              "there would block the next `tapaco build`, which replaces only its "
                              "own files; choose another folder for --out")
        if outputs.folder.exists() and not outputs.folder.is_dir():
            raise usage_error(outputs.folder, "is a file, but --out names a folder with --sets")
        if not outputs.folder.exists():
            OutputFolder(outputs.folder, COMMAND, inputs).check()
            return
    resumable = read_checkpoint(outputs.table) is not None
    for path in outputs.files():
        is_own = (lambda p: resumable or stats_are_own(p)) if path.name.endswith(
            ".stats.json") else (lambda _: resumable)
        OutputFile(path, COMMAND, inputs, arguments.overwrite, is_own).check()


def _check_model(arguments: argparse.Namespace, options: BackendOptions) -> dict:
    """What produces the outputs (compared when resuming), after checking the model folder."""
    try:
        backend = check_model(arguments.model, options)
    except ModelFolderError as error:
        raise InputError(error.folder, error.problem, kind="bad model") from error
    return {"folder": str(arguments.model.resolve()), "backend": backend,
            "compute_type": options.compute_type}


def _load(arguments: argparse.Namespace, options: BackendOptions) -> Translator:
    """The model, or a one-line error for files the backend cannot read."""
    try:
        return load_translator(arguments.model, options)
    except ModelFolderError as error:
        raise InputError(error.folder, error.problem, kind="bad model") from error
    except (InputError, MissingDependency):
        raise
    except (RuntimeError, ValueError, OSError) as error:
        raise InputError(arguments.model, f"cannot load the model: {error}",
                         kind="bad model") from error


def run(arguments: argparse.Namespace, translator: Translator | None = None) -> dict:
    """Run the command; `translator` replaces the model (tests)."""
    options = options_of(arguments)
    backend_options = BackendOptions(arguments.backend, arguments.device,
                                     arguments.compute_type, arguments.batch_size)
    pairs = _pairs_factory(arguments)
    outputs = outputs_of(arguments)
    check_outputs(arguments, outputs)
    model = _check_model(arguments, backend_options) if translator is None else None
    check_output(outputs.table, options, model, arguments.overwrite)
    with created_folders(outputs.table.parent):
        idf = compute_idf(reference for _, reference in pairs()) if options.variants else None
        if translator is None:
            translator = _load(arguments, backend_options)
        scorer = open_scorer(options.paraphrase_score) if arguments.score_model else None
        stats = enrich(pairs(), translator, outputs.table, options, idf=idf,
                       progress=Progress(), overwrite=arguments.overwrite, model=model,
                       scorer=scorer)
        if outputs.machine is not None:
            _write_set_candidates(arguments, outputs)
    return stats


def summary_line(stats: dict) -> str:
    """The one line printed when the command ends."""
    counts = (f"{plural(stats['sentences'], 'sentence')}, {plural(stats['outputs'], 'output')}"
              f", {stats['kept']} kept")
    if stats.get("already_complete"):
        return (f"enrich: the output was already complete ({counts}); nothing was translated"
                + summary_note(stats))
    translated = stats.get("run_sentences", 0)
    if not stats["sentences"]:
        return "enrich: the input has no pair with both sides; the output holds its header only"
    if not translated:
        return f"enrich: {counts}; nothing was left to translate{summary_note(stats)}"
    rate = f"{stats['sentences_per_second']:.1f} sentences/s"
    if translated < stats["sentences"]:
        return (f"enrich: {counts} ({translated} translated now, resuming an earlier run), "
                f"{rate}{summary_note(stats)}")
    return f"enrich: {counts}, {rate}{summary_note(stats)}"


def _write_set_candidates(arguments: argparse.Namespace, outputs: Outputs) -> None:
    """`<target>-from-<lang>.machine.txt`: set id, machine paraphrase, source, variant."""
    sets_of_source: dict[str, list[str]] = {}
    for set_id, source, _ in tapaco_set_pairs(arguments.sets, arguments.from_lang,
                                              arguments.target):
        sets_of_source.setdefault(source, []).append(set_id)
    lines = []
    with open(outputs.table, encoding="utf-8") as table:
        next(table)
        for row in table:
            fields = row.rstrip("\n").split("\t")
            if fields[DROPPED_BY]:
                continue
            for set_id in dict.fromkeys(sets_of_source.get(fields[2], [])):
                lines.append(f"{set_id}\t{fields[1]}\t{fields[2]}\t{fields[3]}\n")
    lines.sort(key=_by_set_id)
    OutputFile(outputs.machine, COMMAND, _inputs(arguments), overwrite=True).write("".join(lines))


DROPPED_BY = COLUMNS.index("dropped_by")


def _by_set_id(line: str) -> tuple[int, int, str]:
    set_id = line.split("\t", 1)[0]
    return (0, int(set_id), "") if set_id.isdigit() else (1, 0, set_id)


def _run_and_report(arguments: argparse.Namespace) -> None:
    print(summary_line(run(arguments)), file=sys.stderr)


ENRICH = Command(_add_parser, _run_and_report)
