"""`python -m tapaco enrich`: back-translate a bitext (or TaPaCo sets) into paraphrase candidates.

Reads the pairs (`tapaco.enrich.inputs`), loads the local model (`tapaco.enrich.backends`, heavy
dependencies imported only here), computes the IDF table for ParaBank-style variants with a
first pass over the references, and runs the resumable pipeline. In TaPaCo mode the outputs are
also written as machine-generated candidates per set id, beside (never into) the TaPaCo files.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.files import write_file_atomically
from tapaco.core.progress import Progress
from tapaco.enrich.constraints import ConstraintOptions, compute_idf
from tapaco.enrich.inputs import bitext_pairs, moses_pairs, tapaco_set_pairs
from tapaco.enrich.pipeline import EnrichOptions, enrich
from tapaco.enrich.scoring import OutputFilterOptions


def add_parser(commands) -> None:
    command = commands.add_parser("enrich", help="NMT back-translation paraphrase candidates")
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--opus-dir", type=Path, help="OPUS release holding the bitext --pair")
    source.add_argument("--source-file", type=Path, help="plain source sentences, one a line")
    source.add_argument("--sets", type=Path, help="a TaPaCo output folder (TaPaCo mode)")
    command.add_argument("--pair", help="the bitext, e.g. cs-en (with --opus-dir)")
    command.add_argument("--reference-file", type=Path, help="references (with --source-file)")
    command.add_argument("--from-lang", help="TaPaCo mode: the language translated")
    command.add_argument("--target", required=True, help="the target (paraphrase) language")
    command.add_argument("--model", type=Path, required=True,
                         help="local MarianMT checkpoint or its CTranslate2 conversion")
    command.add_argument("--out", type=Path, required=True, help="output TSV (or folder in "
                         "TaPaCo mode); a rerun resumes it")
    command.add_argument("--backend", choices=("auto", "ctranslate2", "transformers"),
                         default="auto")
    command.add_argument("--device", default="auto", help="auto (GPU when present), cpu, cuda")
    command.add_argument("--compute-type", default="default",
                         help="CTranslate2 compute type (default: int8 on CPU, float16 on GPU)")
    command.add_argument("--beam-size", type=int, default=12)
    command.add_argument("--variants", type=int, default=0,
                         help="extra outputs per source under negative lexical constraints")
    command.add_argument("--max-batch-tokens", type=int, default=4096)
    command.add_argument("--max-length-ratio", type=float, default=2.0)
    command.add_argument("--max-tokens", type=int)
    command.add_argument("--max-unigram-overlap", type=float)
    command.add_argument("--max-bleu", type=float)
    command.add_argument("--min-logprob", type=float)
    command.add_argument("--keep-copies", action="store_true", help="do not drop copied outputs")
    command.add_argument("--write-dropped", action="store_true",
                         help="also write dropped outputs, with the filter that dropped them")


def _pairs_factory(arguments: argparse.Namespace) -> Callable[[], Iterator[tuple[str, str]]]:
    if arguments.opus_dir:
        if not arguments.pair:
            raise InputError("--pair", "--opus-dir needs --pair (e.g. cs-en)", kind="usage")
        return lambda: bitext_pairs(arguments.opus_dir, arguments.pair, arguments.target)
    if arguments.source_file:
        if not arguments.reference_file:
            raise InputError("--reference-file", "--source-file needs --reference-file",
                             kind="usage")
        return lambda: moses_pairs(arguments.source_file, arguments.reference_file)
    if not arguments.from_lang:
        raise InputError("--from-lang", "--sets needs --from-lang", kind="usage")
    # a set without a target-language sentence is scored against its source sentence
    return lambda: ((source, reference or source) for _, source, reference in
                    tapaco_set_pairs(arguments.sets, arguments.from_lang, arguments.target))


def options_of(arguments: argparse.Namespace) -> EnrichOptions:
    filters = OutputFilterOptions(drop_copies=not arguments.keep_copies,
                            max_length_ratio=arguments.max_length_ratio,
                            max_tokens=arguments.max_tokens,
                            max_unigram_overlap=arguments.max_unigram_overlap,
                            max_bleu=arguments.max_bleu, min_logprob=arguments.min_logprob)
    return EnrichOptions(beam_size=arguments.beam_size, variants=arguments.variants,
                         max_batch_tokens=arguments.max_batch_tokens,
                         write_dropped=arguments.write_dropped, filters=filters,
                         constraints=ConstraintOptions())


def run(arguments: argparse.Namespace, translator=None) -> dict:
    """Run the command; `translator` replaces the model (tests)."""
    pairs = _pairs_factory(arguments)
    if translator is None:
        translator = _load(arguments)
    options = options_of(arguments)
    idf = compute_idf(reference for _, reference in pairs()) if options.variants else None
    tapaco_mode = arguments.sets is not None
    out = arguments.out / f"{arguments.target}-from-{arguments.from_lang}.enrich.tsv" \
        if tapaco_mode else arguments.out
    out.parent.mkdir(parents=True, exist_ok=True)
    stats = enrich(pairs(), translator, out, options, idf=idf, progress=Progress())
    if tapaco_mode:
        _write_set_candidates(arguments, out)
    return stats


def summary_line(stats: dict) -> str:
    """The one line printed when the command ends."""
    return (f"enrich: {stats.get('sentences')} sentences, {stats.get('outputs')} outputs, "
            f"{stats.get('kept')} kept, {stats.get('sentences_per_second', 0):.1f} sentences/s")


def _load(arguments: argparse.Namespace):
    """The model, or a one-line error: missing extra, not a model folder, unreadable files."""
    from tapaco.enrich.backends import load_translator

    try:
        return load_translator(arguments.model, arguments.backend, arguments.device,
                               arguments.compute_type)
    except RuntimeError as error:
        raise InputError(arguments.model, str(error), kind="missing dependency") from error
    except (ValueError, OSError) as error:
        raise InputError(arguments.model, f"cannot load the model: {error}",
                         kind="bad model") from error


def _write_set_candidates(arguments: argparse.Namespace, enriched: Path) -> None:
    """`<target>-from-<lang>.machine.txt`: set id, machine paraphrase, source, variant."""
    sets_of_source: dict[str, list[str]] = {}
    for set_id, source, _ in tapaco_set_pairs(arguments.sets, arguments.from_lang,
                                              arguments.target):
        sets_of_source.setdefault(source, []).append(set_id)
    lines = []
    for row in enriched.read_text(encoding="utf-8").splitlines()[1:]:
        fields = row.split("\t")
        if fields[-1]:
            continue
        for set_id in dict.fromkeys(sets_of_source.get(fields[2], [])):
            lines.append(f"{set_id}\t{fields[1]}\t{fields[2]}\t{fields[3]}\n")
    lines.sort(key=lambda line: int(line.split("\t", 1)[0]))
    name = f"{arguments.target}-from-{arguments.from_lang}.machine.txt"
    write_file_atomically(arguments.out / name, "".join(lines))
