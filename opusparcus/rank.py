"""The Opusparcus ranking pipeline: read bitexts, count, pair, score, split, write.

`rank_languages(opus_dir, langs, out, options)` is what `python -m opusparcus rank` runs: every
bitext is read once for all the target languages it serves, and each language's statistics are
written to `OUT/<lang>/stats.json` (`rank` does one language). Every `OUT/<lang>/` is checked
before anything is read (:func:`output_folder`): it must not be or hold the input, and an
existing one must be this command's own earlier output. The pairs of each split are summed in
:mod:`opusparcus.aggregate`, in memory or in partitions on disk under `--memory-limit`.

The local engine (:class:`LocalEngine`) reads the bitexts and builds their vocabularies here,
then ranks each language's :class:`LanguageJob` on this machine. `--engine spark` hands the
whole run to :class:`opusparcus.spark_engine.SparkEngine`, which reads, ranks and writes in
Spark tasks; both write the same bytes.
"""

from __future__ import annotations

import pickle
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa

from opusparcus import rank_kernels
from opusparcus.aggregate import BitextPairs, SplitPairs, aggregate_split, bitext_pairs
from opusparcus.bitexts import (
    DEV,
    SPLITS,
    TEST,
    TRAIN,
    Bitext,
    BitextCounts,
    Side,
    empty_bitext,
    read_as_columns,
    read_bitext_pieces,
    reads_raw_documents,
)
from opusparcus.counting import unpack_pairs
from opusparcus.export import release_files, write_ranked
from opusparcus.held_out import contained, held_out
from opusparcus.paraphrase_scores import read_tables, scored_files
from opusparcus.parquet_release import rank_parquet_name, write_rank_card
from opusparcus.rank_inputs import PivotLinks, RankOptions, pivot_of
from opusparcus.rank_outputs import COMMAND, BitextRecord, command_line, scored_of, statistics
from opusparcus.ranked_runs import RankedRuns
from opusparcus.scores import ScoredPairs
from opusparcus.spark_engine import SparkEngine
from opusparcus.spark_session import check_available
from opusparcus.vocabulary import Vocabulary, VocabularyMerger, side_vocabulary
from tapaco.core import language_id
from tapaco.core.arrays import garbage_collector_paused
from tapaco.core.compile_ahead import compiled_ahead
from tapaco.core.errors import BadInputLog, InputError, usage_error
from tapaco.core.files import write_json
from tapaco.core.forked import SubmittedAhead, map_on_threads, process_pool
from tapaco.core.memory import current_rss, release_freed_memory
from tapaco.core.opus import AlignmentSource, find_alignment_sources
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress
from tapaco.core.provenance import Provenance, release_provenance
from tapaco.core.scratch import scratch_folder

Mapper = Callable[[Callable, Iterable], Iterator]
# links a reading worker holds at a time (a piece of a bitext; whole chunks of lines)
LINKS_PER_PIECE = 1 << 21


def output_folder(out: Path, lang: str, opus_dir: Path, overwrite: bool = False,
                  scores: tuple[Path, ...] = ()) -> OutputFolder:
    """Where `rank` writes `lang`: `out/<lang>/`, replaced only when it is its own output (and
    holds none of the inputs: the release, the scored files)."""
    return OutputFolder(out / lang, COMMAND, (opus_dir, *scores), overwrite)


def pivot_sources(opus_dir: Path, lang: str, pivots: tuple[str, ...]) -> list[AlignmentSource]:
    """The T-L bitexts of the release, for the chosen pivots (default: every L)."""
    sources = [s for s in find_alignment_sources(opus_dir, prefer_moses=True)
               if lang in s.langs and not s.intra_lingual]
    available = {pivot_of(s, lang) for s in sources}
    missing = sorted(set(pivots) - available)
    if missing:
        raise usage_error(opus_dir, f"no {lang}-{missing[0]} bitext for pivot {missing[0]} "
                          f"(pivots with a bitext: {', '.join(sorted(available)) or 'none'})")
    if not sources:
        raise usage_error(opus_dir, f"no bitext with target language {lang}")
    return [s for s in sources if not pivots or pivot_of(s, lang) in pivots]


def languages_with_bitexts(opus_dir: Path) -> tuple[str, ...]:
    """Every language of the release with a bitext (`--langs all`), sorted."""
    return tuple(sorted({lang for source in find_alignment_sources(opus_dir, prefer_moses=True)
                         if not source.intra_lingual for lang in source.langs}))


def _without_sentences(vocabulary: Vocabulary) -> Vocabulary:
    """A pivot-only language's vocabulary: only its codes count, its sentences are let go."""
    vocabulary.sentences = pa.array([], pa.large_string())
    return vocabulary


def _read_one(arguments: tuple) -> tuple[dict, list[Path]]:
    """Read a bitext in pieces, each saved in the bitext's own `folder` as its counts and its
    sides' splits and vocabularies (codes under (path, side, piece)); its bad-input log and the
    pieces' files. A bad file read in part leaves one empty piece (all or nothing).

    A piece's vocabularies are made on a second thread while the next piece is read (mostly
    outside the GIL), so that a bitext read alone, as the last of a run often is, uses both
    cores; at most one piece waits."""
    opus_dir, source, skip, documents, max_length, folder = arguments
    folder.mkdir()
    log = BadInputLog(skip)
    saved: list[Future[Path]] = []
    with ThreadPoolExecutor(1, thread_name_prefix="piece") as saver:
        try:
            for bitext in read_bitext_pieces(opus_dir, source, log, documents, max_length,
                                             LINKS_PER_PIECE):
                if saved:
                    saved[-1].result()
                saved.append(saver.submit(_saved_piece, bitext, source, len(saved), folder))
            files = [piece.result() for piece in saved]
        except InputError as error:
            log.report(error)
            for piece in saved:
                piece.result().unlink()
            files = [_saved_piece(empty_bitext(source), source, 0, folder)]
    return log.as_dict(), files


def _saved_piece(bitext: Bitext, source: AlignmentSource, number: int, folder: Path) -> Path:
    piece = (bitext.counts, [(side.splits, side.without_year,
                              side_vocabulary(side, (source.path, at, number)))
                             for at, side in enumerate(bitext.sides)])
    path = folder / str(number)
    with path.open("wb") as stream:
        pickle.dump(piece, stream, protocol=pickle.HIGHEST_PROTOCOL)
    release_freed_memory()
    return path


def _pieces(files: list[Path]) -> Iterator[tuple[BitextCounts, list]]:
    """The pieces saved in `files`, each file removed once read."""
    for path in files:
        with path.open("rb") as stream:
            yield pickle.load(stream)
        path.unlink()


def listed_kernels(opus_dir: Path, sources: list[AlignmentSource], options: RankOptions,
                   later: list) -> tuple[list, int]:
    """The kernels a run calls: those reading the forms of `sources`
    (:func:`opusparcus.rank_kernels.reading`), then `later`; and how many of them the reading
    needs: those reading and the first later one, as this process merges vocabularies while
    the bitexts are read."""
    columns = [read_as_columns(opus_dir, source, options.documents) for source in sources]
    with_documents = [source for source, column in zip(sources, columns) if not column]
    raw = reads_raw_documents(opus_dir, with_documents, options.documents)
    reading = rank_kernels.reading(bool(with_documents), any(columns), any(columns) or raw)
    return reading + later, len(reading) + 1


def kernels_ahead(opus_dir: Path, sources: list[AlignmentSource], options: RankOptions,
                  later: list, parallel: bool) -> AbstractContextManager[None]:
    """The :func:`listed_kernels` compiled or loaded, those reading the bitexts before the block
    (the forked readers inherit them), the others by when it ends; on a first run and
    `parallel`, a second process compiles from the other end of the list meanwhile
    (:mod:`tapaco.core.compile_ahead`)."""
    return compiled_ahead(*listed_kernels(opus_dir, sources, options, later), parallel)


@contextmanager
def _mapper(workers: int) -> Iterator[Mapper]:
    """`map` over worker processes (forked now, before the big arrays exist), or in this one."""
    if workers == 1:
        yield map
        return
    with process_pool(workers) as pool:
        yield lambda function, items: SubmittedAhead(pool, function, items, 4 * workers)


@dataclass
class _Read:
    """The bitexts read (each once, whichever languages it serves), their bad-input logs and
    every language's side vocabularies merged so far."""

    bitexts: dict[Path, Bitext]
    logs: dict[Path, dict]
    mergers: dict[str, VocabularyMerger]

    def add(self, source: AlignmentSource, files: list[Path], codes_only: set[str]) -> None:
        """A bitext's pieces: their vocabularies merged, splits and counts joined; a language
        of `codes_only` keeps only the codes once its side is whole."""
        counts, splits = BitextCounts(), ([], [])
        without_year = [0, 0]
        for piece_counts, sides in _pieces(files):
            for name, value in asdict(piece_counts).items():
                setattr(counts, name, getattr(counts, name) + value)
            for at, (side_splits, side_without_year, vocabulary) in enumerate(sides):
                splits[at].append(side_splits)
                without_year[at] += side_without_year
                self.mergers[vocabulary.lang].add(vocabulary)
            release_freed_memory()
        self.bitexts[source.path] = Bitext(str(source.path), tuple(
            Side(lang, pa.array([], pa.large_string()), np.zeros(0, np.int32),
                 np.concatenate(side_splits), side_without_year)
            for lang, side_splits, side_without_year in zip(source.langs, splits, without_year)),
            counts)
        for lang in codes_only & set(source.langs):
            self.mergers[lang].add(_without_sentences(self.mergers[lang].result()))


def read_bitexts(opus_dir: Path, sources: list[AlignmentSource], options: RankOptions,
                 mapper: Mapper = map, pivot_only: set[str] = frozenset()) -> _Read:
    """Read the bitexts and their sides' vocabularies, each bitext in a worker process when
    `mapper` is a pool's, in pieces of `LINKS_PER_PIECE` links saved on disk; the pieces'
    vocabularies are merged here as each bitext is done.

    A language in `pivot_only` that only one of the bitexts has keeps only its codes."""
    sides = Counter(lang for source in sources for lang in source.langs)
    codes_only = {lang for lang in pivot_only if sides[lang] == 1}
    read = _Read({}, {}, defaultdict(VocabularyMerger))
    with scratch_folder("opusparcus-read-", options.temp_dir) as folder:
        tasks = [(opus_dir, source, options.skip_bad_input, options.documents,
                  options.max_sentence_length, folder / str(number))
                 for number, source in enumerate(sources)]
        for source, (log, files) in zip(sources, mapper(_read_one, tasks)):
            read.logs[source.path] = log
            read.add(source, files, codes_only)
    return read


def vocabularies(read: _Read, targets: set[str]) -> dict[str, Vocabulary]:
    """The vocabulary of every language read; a language other than `targets` keeps only its
    codes."""
    built = {}
    for lang in sorted(read.mergers, key=lambda lang: (lang in targets, lang)):
        vocabulary = read.mergers.pop(lang).result()
        vocabulary.join_pieces()
        built[lang] = vocabulary if lang in targets else _without_sentences(vocabulary)
        release_freed_memory()
    return built


def _release_links(read: _Read, vocabulary_of: dict[str, Vocabulary], kept: set[Path]) -> None:
    """Free the per-link codes and splits of every bitext not in `kept` (those the languages
    still to rank read)."""
    for vocabulary in vocabulary_of.values():
        vocabulary.codes = {key: codes for key, codes in vocabulary.codes.items()
                            if key[0] in kept}
    for path, bitext in read.bitexts.items():
        if path not in kept:
            for side in bitext.sides:
                side.splits = np.zeros(0, np.int8)


def pivot_links(source: AlignmentSource, lang: str, read: _Read,
                vocabulary_of: dict[str, Vocabulary]) -> PivotLinks:
    bitext, pivot = read.bitexts[source.path], pivot_of(source, lang)
    number = 0 if bitext.sides[0].lang == lang else 1
    side = bitext.sides[number]
    return PivotLinks(pivot, source.path, vocabulary_of[lang].codes[source.path, number],
                      vocabulary_of[pivot].codes[source.path, 1 - number], side.splits,
                      side.without_year)


def score_split(links: list[PivotLinks], split: int, vocabulary_size: int,
                options: RankOptions, consume: Callable[[ScoredPairs], None] | None = None,
                counted: Callable[[], None] = lambda: None) -> tuple[SplitPairs, dict]:
    """The scored pairs of one split over every pivot bitext, and its statistics. The bitexts
    are counted on `options.workers` threads (numpy's sorts release the GIL), then `counted`
    is called (the last split lets the links go); the pairs are summed within what
    `options.memory_limit` leaves beside this process's memory now, each partition handed to
    `consume` when given (see :func:`aggregate_split`)."""
    def bitext_counts(bitext: PivotLinks) -> BitextPairs:
        chosen = bitext.split == split
        return bitext_pairs(bitext.target[chosen], bitext.pivot_codes[chosen], vocabulary_size,
                            options.max_pivot_fanout)

    bitexts = map_on_threads(bitext_counts, links, options.workers)
    counted()
    release_freed_memory()
    budget = options.memory_budget() - current_rss()
    pairs = aggregate_split(bitexts, options.score, budget, options.temp_dir, options.workers,
                            consume)
    return pairs, {"links_per_pivot": {bitext.pivot: count for bitext, count
                                       in zip(links, pairs.links_per_bitext)},
                   "fanout_skips": asdict(pairs.skips), "candidate_pairs": pairs.candidates}


def rank(opus_dir: Path, lang: str, out: Path, options: RankOptions | None = None,
         progress: Progress | None = None) -> dict:
    """Rank the paraphrase candidates of `lang`; write OUT/<lang>/; return its statistics."""
    return rank_languages(opus_dir, (lang,), out, options, progress)[lang]


def rank_languages(opus_dir: Path, langs: tuple[str, ...], out: Path,
                   options: RankOptions | None = None, progress: Progress | None = None,
                   overwrite: bool = False) -> dict[str, dict]:
    """Rank several languages reading every bitext once (en-fr serves en and fr); each
    OUT/<lang>/ is byte-identical to what ranking that language alone writes. Every output
    folder is checked before anything is read."""
    options = options or RankOptions()
    progress = progress or Progress(enabled=False)
    if options.language_id:
        language_id.check_available()
    outputs = {lang: output_folder(out, lang, opus_dir, overwrite, options.scores)
               for lang in langs}
    for output in outputs.values():
        output.check()
    scored_files(options.scores, langs)
    if options.engine == "spark":
        check_available()
    plan = {lang: pivot_sources(opus_dir, lang, options.pivots) for lang in langs}
    if options.engine == "spark":
        return SparkEngine(options).rank_languages(opus_dir, plan, outputs, progress)
    provenance = release_provenance(opus_dir)
    sources = list({source.path: source for chosen in plan.values() for source in chosen}
                   .values())
    needed = set(langs) | {pivot_of(s, lang) for lang, chosen in plan.items() for s in chosen}
    name = ",".join(langs)
    engine = LocalEngine()
    ahead = kernels_ahead(opus_dir, sources, options, rank_kernels.ranking(), options.workers > 1)
    with garbage_collector_paused():
        with progress.stage(f"{name}: read bitexts"), ahead, _mapper(options.workers) as mapper:
            read = read_bitexts(opus_dir, sources, options, mapper, needed - set(langs))
        with progress.stage(f"{name}: merge vocabularies"):
            vocabulary_of = vocabularies(read, set(langs))
        results = {}
        for position, lang in enumerate(langs):
            later = {s.path for other in langs[position + 1:] for s in plan[other]}
            job = LanguageJob(lang, [pivot_links(s, lang, read, vocabulary_of) for s in plan[lang]],
                              read, vocabulary_of[lang], outputs[lang], options, progress,
                              partial(_release_links, read, vocabulary_of, later), provenance)
            results[lang] = engine.rank(job)
        return results


@dataclass
class LanguageJob:
    """One target language to rank: its links to each pivot, the bitexts read, its vocabulary,
    its output folder; `free_unneeded` lets go of what no language still to rank needs;
    `provenance`: what the release is."""

    lang: str
    links: list[PivotLinks]
    read: _Read
    vocabulary: Vocabulary
    output: OutputFolder
    options: RankOptions
    progress: Progress
    free_unneeded: Callable[[], None]
    provenance: Provenance

    def counted(self) -> None:
        """Once the pairs are counted: the links' arrays, and whatever no language still to rank
        needs, are let go."""
        for bitext in self.links:
            bitext.release()
        self.free_unneeded()
        release_freed_memory()

    def statistics(self, split_stats: dict, pairs_written: dict[str, int]) -> dict:
        records = [BitextRecord(b.pivot, self.read.bitexts[b.path].source,
                                self.read.bitexts[b.path].counts, self.read.logs[b.path],
                                b.without_year) for b in self.links]
        return statistics(self.lang, records, split_stats, pairs_written, self.options,
                          self.provenance)


class LocalEngine:
    """Ranks on this machine: count and score, order and hold out, write.

    Dev and test are counted first and held in memory; the train pairs, summed in partitions
    of their keys, are checked against them and go to disk as runs ordered best first
    (:mod:`opusparcus.ranked_runs`), which the writer merges: no stage holds them all."""

    def rank(self, job: LanguageJob) -> dict:
        with scratch_folder("opusparcus-ranked-", job.options.temp_dir) as folder:
            return self._rank(job, RankedRuns(job.options.score != "summed-pmi", folder))

    def _rank(self, job: LanguageJob, train: RankedRuns) -> dict:
        lang, progress, options = job.lang, job.progress, job.options
        held, stats = {}, {}
        with progress.stage(f"{lang}: count and score"):
            for split in (DEV, TEST):
                pairs, stats[split] = self._counted(job, split)
                held[split] = pairs.scored
            kept = {split: np.ones(len(pairs), bool) for split, pairs in held.items()}
            used = np.zeros(len(job.vocabulary) if options.language_id else 0, bool)

            def consume(part: ScoredPairs) -> None:
                for split, pairs in held.items():
                    kept[split] &= ~contained(part.keys, pairs.keys)
                if options.language_id:
                    used[np.concatenate(unpack_pairs(part.keys, np.int32))] = True
                train.add(part)

            _, stats[TRAIN] = self._counted(job, TRAIN, consume, job.counted)
        split_stats = {SPLITS[split]: stats[split] for split in (TRAIN, DEV, TEST)}
        sentences = job.vocabulary.sentences
        identified = None
        if options.language_id:
            with progress.stage(f"{lang}: language ID"):
                identified = without_foreign(held, kept, train, np.flatnonzero(used), sentences,
                                             lang, split_stats)
        with progress.stage(f"{lang}: order and hold out"):
            dev = held_out(held[DEV].take(kept[DEV]), [], sentences, options)
            test = held_out(held[TEST].take(kept[TEST]), [dev.keys], sentences, options)
            with_score = options.score != "summed-pmi"
            outputs = {TRAIN: train, DEV: RankedRuns.in_memory(dev, with_score),
                       TEST: RankedRuns.in_memory(test, with_score)}
        written = {SPLITS[split]: len(outputs[split]) for split in (TRAIN, DEV, TEST)}
        stats = job.statistics(split_stats, written)
        if identified is not None:
            stats["language_id"] = identified
        with progress.stage(f"{lang}: write"):
            job.output.write(lambda folder: _write(folder, lang, sentences, outputs, stats,
                                                   options))
        return stats

    @staticmethod
    def _counted(job: LanguageJob, split: int,
                 consume: Callable[[ScoredPairs], None] | None = None,
                 counted: Callable[[], None] = lambda: None) -> tuple[SplitPairs, dict]:
        pairs, stats = score_split(job.links, split, len(job.vocabulary), job.options, consume,
                                   counted)
        job.progress.note(f"{job.lang} {SPLITS[split]} pairs", {
            "expanded": pairs.expanded_pairs, "partitions": pairs.partitions,
            "spilled_bytes": pairs.spilled_bytes})
        return pairs, stats


def without_foreign(held: dict[int, ScoredPairs], kept: dict[int, np.ndarray],
                    train: RankedRuns, train_codes: np.ndarray, sentences: pa.Array, lang: str,
                    split_stats: dict) -> dict:
    """`--language-id`: leave out the pairs holding a sentence in another language
    (:mod:`tapaco.core.language_id`; only the sentences of candidate pairs are judged,
    `train_codes` those of the train pairs): from the train runs, and from the pairs `held`
    out (`kept` marks those kept), each split's counted in `split_stats` (`dropped_by`); the
    `language_id` statistics. The sentence's links still counted in the other pairs' scores:
    it is still a translation."""
    codes = np.unique(np.concatenate([train_codes] + [
        codes for pairs in held.values() for codes in unpack_pairs(pairs.keys)]))
    foreign = np.zeros(len(codes), bool)
    for start in range(0, len(codes), language_id.BATCH):
        chosen = codes[start:start + language_id.BATCH]
        foreign[start:start + len(chosen)] = language_id.foreign(
            sentences.take(pa.array(chosen)).to_pylist(), lang)
    dropped_codes = codes[foreign]
    split_stats[SPLITS[TRAIN]]["dropped_by"] = {
        "language_id": train.drop(dropped_codes, len(sentences))}
    for split, pairs in held.items():
        first, second = unpack_pairs(pairs.keys)
        keep = ~(np.isin(first, dropped_codes) | np.isin(second, dropped_codes))
        kept[split] &= keep
        split_stats[SPLITS[split]]["dropped_by"] = {"language_id": int((~keep).sum())}
    judged = language_id.judged(lang)
    return language_id.LanguageIdCounts({lang: len(codes)} if judged else {},
                                        {lang: len(dropped_codes)} if judged else {},
                                        {} if judged else {lang: len(codes)}).as_dict()


def _write(folder: Path, lang: str, vocabulary: pa.Array, outputs: dict, stats: dict,
           options: RankOptions) -> None:
    """The release files (`tsv`) and their Parquet copies (`parquet`), from the same rows."""
    text, parquet = "tsv" in options.formats, "parquet" in options.formats
    scored = scored_of(lang, options)
    tables = {} if scored is None else read_tables(scored, stats["pairs_written"], SPLITS)
    for split, (name, letter) in release_files(lang).items():
        write_ranked(folder / name if text else None,
                     folder / rank_parquet_name(SPLITS[split]) if parquet else None,
                     lang, letter, vocabulary, outputs[split], options.workers,
                     tables.get(SPLITS[split]))
    write_json(folder / "stats.json", stats)
    if parquet:
        write_rank_card(folder, lang, stats, command_line(lang, options), options.formats,
                        scored)


