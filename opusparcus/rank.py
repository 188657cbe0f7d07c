"""The Opusparcus ranking pipeline: read bitexts, count, pair, score, split, write.

`rank(opus_dir, lang, out, options)` is what `python -m opusparcus rank` runs for each target
language; it returns the statistics it writes to `OUT/<lang>/stats.json`. `OUT/<lang>/` is
checked before anything is read (:func:`output_folder`): it must not be or hold the input, and
an existing one must be this command's own earlier output.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from opusparcus.bitexts import DEV, SPLITS, TEST, TRAIN, BitextLinks, normalize_keys, read_bitext
from opusparcus.counting import FanoutSkips, count_links, shared_pairs, unpack_pairs
from opusparcus.edit_distance import differ_enough
from opusparcus.export import write_ranked
from opusparcus.scores import SCHEMES, ScoredPairs, score_pairs
from tapaco.core.arrays import garbage_collector_paused, string_codes
from tapaco.core.errors import BadInputLog, InputError, OptionError
from tapaco.core.files import write_json
from tapaco.core.options import check_range, in_range
from tapaco.core.opus import FOLDERS, AlignmentSource, find_alignment_sources
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress
from tapaco.core.versions import library_versions, signature

COMMAND = "opusparcus rank"
EXACTNESS_LIBRARIES = ("sacremoses", "edlib", "rapidfuzz", "numpy")
MAX_WORKERS = 64


@dataclass(frozen=True)
class RankOptions:
    """What decides the ranking; checked on creation, the same for the CLI and the library.

    `max_pivot_fanout` None or 0: no cap. `short_length`: dev/test sentences shorter than this
    many characters need `min_edit_ratio_short` instead of `min_edit_ratio`. `documents`: the
    folder of sentence documents searched first where a release has both, `xml` (tokenised, as
    the Opusparcus release) or `raw` (Moses-tokenised here).
    """

    pivots: tuple[str, ...] = ()
    score: str = "summed-pmi"
    max_pivot_fanout: int | None = 1000
    min_edit_ratio: float = 0.4
    min_edit_ratio_short: float = 0.5
    short_length: int = 24
    workers: int = 2
    skip_bad_input: bool = False
    documents: str = "xml"

    def __post_init__(self) -> None:
        if self.score not in SCHEMES:
            raise OptionError("--score", f"unknown scheme {self.score!r}; choose from "
                              f"{', '.join(SCHEMES)}")
        if self.max_pivot_fanout:
            problem = in_range(self.max_pivot_fanout, 2, None)
            if problem or not isinstance(self.max_pivot_fanout, int):
                raise OptionError("--max-pivot-fanout", f"{problem or 'expected a whole number'}"
                                  " (0 or none: no cap)")
        check_range("--min-edit-ratio", self.min_edit_ratio, 0, 1)
        check_range("--min-edit-ratio-short", self.min_edit_ratio_short, 0, 1)
        check_range("--short-length", self.short_length, 1, whole=True)
        check_range("--workers", self.workers, 1, MAX_WORKERS, whole=True)
        if isinstance(self.pivots, str) or not all(
                isinstance(lang, str) and lang.strip() for lang in self.pivots):
            raise OptionError("--pivots", f"expected language codes, got {self.pivots!r}")
        if self.documents not in FOLDERS:
            raise OptionError("--documents", f"expected one of {', '.join(FOLDERS)}, got "
                              f"{self.documents!r}")


def output_folder(out: Path, lang: str, opus_dir: Path, overwrite: bool = False) -> OutputFolder:
    """Where `rank` writes `lang`: `out/<lang>/`, replaced only when it is its own output."""
    return OutputFolder(out / lang, COMMAND, (opus_dir,), overwrite)


def pivot_sources(opus_dir: Path, lang: str, pivots: tuple[str, ...]) -> list[AlignmentSource]:
    """The T-L bitexts of the release, for the chosen pivots (default: every L)."""
    sources = [s for s in find_alignment_sources(opus_dir, prefer_moses=True)
               if lang in s.langs and not s.intra_lingual]
    available = {s.langs[1] if s.langs[0] == lang else s.langs[0] for s in sources}
    missing = sorted(set(pivots) - available)
    if missing:
        raise InputError(opus_dir, f"no {lang}-{missing[0]} bitext for pivot {missing[0]} "
                         f"(pivots with a bitext: {', '.join(sorted(available)) or 'none'})",
                         kind="usage")
    if not sources:
        raise InputError(opus_dir, f"no bitext with target language {lang}", kind="usage")
    return [s for s in sources
            if not pivots or (s.langs[1] if s.langs[0] == lang else s.langs[0]) in pivots]


def _read_one(arguments: tuple) -> tuple[BitextLinks, dict]:
    opus_dir, source, lang, skip, documents = arguments
    log = BadInputLog(skip)
    return read_bitext(opus_dir, source, lang, log, documents), log.as_dict()


def read_bitexts(opus_dir: Path, sources: list[AlignmentSource], lang: str,
                 options: RankOptions) -> tuple[list[BitextLinks], list[dict]]:
    """Read the bitexts, in parallel worker processes when `workers` > 1."""
    tasks = [(opus_dir, source, lang, options.skip_bad_input, options.documents)
             for source in sources]
    if options.workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(min(options.workers, len(tasks))) as pool:
            results = list(pool.map(_read_one, tasks))
    else:
        results = [_read_one(task) for task in tasks]
    return [bitext for bitext, _ in results], [log for _, log in results]


def merge_target_vocabulary(bitexts: list[BitextLinks],
                            lang: str) -> tuple[list[str], list[np.ndarray]]:
    """One vocabulary of normalised target sentences; each bitext's links recoded into it."""
    keys = [key for bitext in bitexts for key in bitext.target_keys]
    key_codes = string_codes(keys)
    distinct_positions = np.flatnonzero(np.concatenate(
        [[True], np.maximum.accumulate(key_codes)[1:] > np.maximum.accumulate(key_codes)[:-1]]))
    distinct_keys = [keys[i] for i in distinct_positions.tolist()] if keys else []
    sentences_of_key = normalize_keys(distinct_keys, lang)
    sentence_codes = string_codes(sentences_of_key)
    first = {}
    for code, sentence in zip(sentence_codes.tolist(), sentences_of_key):
        first.setdefault(code, sentence)
    vocabulary = [first[code] for code in range(len(first))]
    recoded, offset = [], 0
    for bitext in bitexts:
        local = key_codes[offset:offset + len(bitext.target_keys)]
        recoded.append(sentence_codes[local][bitext.target].astype(np.int64))
        offset += len(bitext.target_keys)
    return vocabulary, recoded


def score_split(bitexts: list[BitextLinks], targets: list[np.ndarray], split: int,
                vocabulary_size: int, options: RankOptions) -> tuple[ScoredPairs, dict]:
    per_bitext, skips, links = [], FanoutSkips(), {}
    for bitext, target in zip(bitexts, targets):
        chosen = bitext.split == split
        counts = count_links(target[chosen], bitext.pivot_codes[chosen].astype(np.int64),
                             vocabulary_size)
        pairs, skipped = shared_pairs(counts, options.max_pivot_fanout)
        per_bitext.append((pairs, counts))
        links[bitext.pivot] = counts.links
        skips = FanoutSkips(skips.pivots + skipped.pivots, skips.links + skipped.links,
                            skips.pairs + skipped.pairs)
    scored = score_pairs(per_bitext, options.score)
    return scored, {"links_per_pivot": links, "fanout_skips": asdict(skips),
                    "candidate_pairs": len(scored)}


def _code_point_ranks(vocabulary: list[str]) -> np.ndarray:
    order = sorted(range(len(vocabulary)), key=vocabulary.__getitem__)
    ranks = np.empty(len(vocabulary), np.int64)
    ranks[order] = np.arange(len(vocabulary))
    return ranks


def ordered_sentences(pairs: ScoredPairs, ranks: np.ndarray) -> tuple[ScoredPairs, np.ndarray,
                                                                       np.ndarray]:
    """Pairs best first (ties by the sentences) and their first/second sentence codes."""
    left, right = unpack_pairs(pairs.keys)
    swap = ranks[left] > ranks[right]
    first, second = np.where(swap, right, left), np.where(swap, left, right)
    order = np.lexsort((ranks[second], ranks[first], -pairs.score))
    return pairs.take(order), first[order], second[order]


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each key is in `sorted_keys` (binary search: np.isin is far slower here)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), bool)
    position = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[position] == keys


def _held_out(pairs: ScoredPairs, excluded: np.ndarray, vocabulary: list[str],
              options: RankOptions) -> ScoredPairs:
    """Pairs not in `excluded` (sorted keys) whose sentences differ enough."""
    fresh = pairs.take(~_contains(excluded, pairs.keys))
    left, right = (codes.tolist() for codes in unpack_pairs(fresh.keys))
    keep = np.fromiter((differ_enough(vocabulary[a], vocabulary[b], options.min_edit_ratio,
                                      options.min_edit_ratio_short, options.short_length)
                        for a, b in zip(left, right)), bool, len(left))
    return fresh.take(keep)


def rank(opus_dir: Path, lang: str, out: Path, options: RankOptions | None = None,
         progress: Progress | None = None, overwrite: bool = False) -> dict:
    """Rank the paraphrase candidates of `lang`; write OUT/<lang>/; return its statistics.

    `overwrite` lets files of an earlier ranking that were changed since be replaced; files the
    command did not write are never replaced (see :mod:`tapaco.core.outputs`).
    """
    options = options or RankOptions()
    progress = progress or Progress(enabled=False)
    output = output_folder(out, lang, opus_dir, overwrite)
    output.check()
    with garbage_collector_paused():
        return _rank(opus_dir, lang, output, options, progress)


def _rank(opus_dir: Path, lang: str, output: OutputFolder, options: RankOptions,
          progress: Progress) -> dict:
    sources = pivot_sources(opus_dir, lang, options.pivots)
    with progress.stage(f"{lang}: read bitexts"):
        bitexts, logs = read_bitexts(opus_dir, sources, lang, options)
    with progress.stage(f"{lang}: normalise sentences"):
        vocabulary, targets = merge_target_vocabulary(bitexts, lang)
    results, split_stats = {}, {}
    with progress.stage(f"{lang}: count and score"):
        for split in (TRAIN, DEV, TEST):
            results[split], split_stats[SPLITS[split]] = score_split(
                bitexts, targets, split, len(vocabulary), options)
    with progress.stage(f"{lang}: order and hold out"):
        ranks = _code_point_ranks(vocabulary)
        train = results[TRAIN]
        dev = _held_out(results[DEV], train.keys, vocabulary, options)
        test = _held_out(results[TEST], np.sort(np.concatenate([train.keys, dev.keys])),
                         vocabulary, options)
        outputs = {split: ordered_sentences(pairs, ranks)
                   for split, pairs in ((TRAIN, train), (DEV, dev), (TEST, test))}
    stats = _statistics(lang, bitexts, logs, split_stats, outputs, options)
    with progress.stage(f"{lang}: write"):
        output.write(lambda folder: _write(folder, lang, vocabulary, outputs, stats, options))
    return stats


def _write(folder: Path, lang: str, vocabulary: list[str], outputs: dict, stats: dict,
           options: RankOptions) -> None:
    places = {TRAIN: (f"train/{lang}-train.txt.bz2", "N"),
              DEV: (f"dev/{lang}-dev-candidates.txt", "D"),
              TEST: (f"test/{lang}-test-candidates.txt", "T")}
    for split, (name, letter) in places.items():
        pairs, first, second = outputs[split]
        scheme_score = None if options.score == "summed-pmi" else pairs.score
        write_ranked(folder / name, lang, letter, vocabulary, first, second, pairs.summed_pmi,
                     pairs.expected, pairs.pivots, options.workers, scheme_score)
    write_json(folder / "stats.json", stats)


def _statistics(lang: str, bitexts: list[BitextLinks], logs: list[dict], split_stats: dict,
                outputs: dict, options: RankOptions) -> dict:
    skipped: dict[str, int] = {}
    for log in logs:
        for kind, count in log["skipped"].items():
            skipped[kind] = skipped.get(kind, 0) + count
    versions = library_versions(*EXACTNESS_LIBRARIES)
    return {
        "language": lang,
        "signature": signature(COMMAND, versions, {"lang": lang, **asdict(options)}),
        "versions": versions,
        "options": asdict(options),
        "bitexts": {b.pivot: {"source": b.source, **asdict(b.counts)} for b in bitexts},
        "links_read": sum(b.counts.links for b in bitexts),
        "one_to_one_links": sum(b.counts.one_to_one for b in bitexts),
        "links_without_year": sum(b.counts.links_without_year for b in bitexts),
        "splits": split_stats,
        "pairs_written": {SPLITS[s]: len(outputs[s][0]) for s in (TRAIN, DEV, TEST)},
        "bad_input": {"skipped": skipped,
                      "examples": [e for log in logs for e in log["examples"]][:20]},
    }
