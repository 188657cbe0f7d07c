"""TaPaCo's filters, in the paper's order, each counted (the filter funnel).

Rows are the sentences of the output languages sorted by (language, set, document, numeric id),
so each paraphrase set is a contiguous group walked in ascending id order. Filters: (a) sets of
one sentence, (b) sets larger than `max_set_size`, (c) near-identical sentences (lowest id kept),
(d) sentence BLEU above `bleu_max` against an earlier kept sentence, (e) languages with fewer
than `min_sets` sets. After every filter, sets left with fewer than two sentences go.

With `--language-id`, a step after (a) drops sentences written in another language than their
file's (:mod:`tapaco.core.language_id`): a row filter like the others, so a dropped sentence
leaves its set but its translation links still joined the graph (a sentence in the wrong
language is still a translation of what it is linked to). Judging only the sentences (a)
keeps gives the output judging all of them would: removing rows never makes a set larger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tapaco.bleu import bleu_keep_mask, tokenizer_for
from tapaco.core.arrays import group_chunks, group_offsets, group_starts
from tapaco.core.forked import map_on_threads
from tapaco.core.options import check_range
from tapaco.core.text_column import TextColumn
from tapaco.normalize import first_near_identical


@dataclass(frozen=True)
class FilterOptions:
    """Thresholds of filters (b), (d) and (e); checked on creation (the CLI builds these too)."""

    max_set_size: int = 100
    bleu_max: float = 50.0
    min_sets: int = 100

    def __post_init__(self) -> None:
        check_range("--max-set-size", self.max_set_size, 2, whole=True)
        check_range("--bleu-max", self.bleu_max, 0, 100)
        check_range("--min-sets", self.min_sets, 0, whole=True)


@dataclass
class Rows:
    """Candidate output rows: vertex id, language index and group (language, set) per row."""

    vertex: np.ndarray
    lang: np.ndarray
    group: np.ndarray

    def take(self, keep: np.ndarray) -> Rows:
        return Rows(self.vertex[keep], self.lang[keep], self.group[keep])


@dataclass
class Funnel:
    """Sets and sentences left after each step, in total and per language."""

    languages: list[str]
    steps: list[dict] = field(default_factory=list)

    def record(self, step: str, rows: Rows, removed: int, dissolved: int) -> None:
        sentences = np.bincount(rows.lang, minlength=len(self.languages))
        first = group_starts(rows.group)
        sets = np.bincount(rows.lang[first], minlength=len(self.languages))
        self.steps.append({
            "step": step, "sentences_removed": removed, "sets_dissolved": dissolved,
            "sets": int(sets.sum()), "sentences": int(sentences.sum()),
            "per_language": {lang: {"sets": int(s), "sentences": int(n)}
                             for lang, s, n in zip(self.languages, sets, sentences) if n},
        })


def _run_sizes(group: np.ndarray) -> np.ndarray:
    """Size of each row's group (groups are contiguous runs)."""
    sizes = np.diff(group_offsets(group))
    return np.repeat(sizes, sizes)


def _surviving(group: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The rows :func:`_apply` keeps of `keep`: kept rows of sets keeping at least two."""
    kept = np.flatnonzero(keep)
    surviving = np.zeros(len(group), bool)
    surviving[kept[_run_sizes(group[kept]) >= 2]] = True
    return surviving


def _apply(funnel: Funnel, step: str, rows: Rows, keep: np.ndarray) -> Rows:
    """Keep the rows of `keep`, then drop sets left with fewer than two sentences; the funnel
    (whose last step counted `rows`) counts every sentence and set gone in this step, those of
    dissolved sets included."""
    kept = rows.take(np.flatnonzero(_surviving(rows.group, keep)))
    sets_before = funnel.steps[-1]["sets"]
    funnel.record(step, kept, len(rows.vertex) - len(kept.vertex), 0)
    funnel.steps[-1]["sets_dissolved"] = sets_before - funnel.steps[-1]["sets"]
    return kept


LANGUAGE_ID_STEP = "(a+) sentences in another language (--language-id)"
_CHUNK_ROWS = 1 << 16  # rows of whole sets keyed at a time by filter (c)


def _near_identical_kept(group: np.ndarray, texts: TextColumn, vertex: np.ndarray,
                         workers: int) -> np.ndarray:
    """Filter (c): keep the first sentence of each near-identical key in a set; a chunk of
    whole sets at a time, on `workers` threads, each reading its rows' texts (`vertex`)."""
    offsets = group_offsets(group)

    def chunk_keep(sets: tuple[int, int]) -> np.ndarray:
        start, end = offsets[sets[0]], offsets[sets[1]]
        return first_near_identical(group[start:end], texts, vertex[start:end])

    kept = map_on_threads(chunk_keep, group_chunks(offsets, _CHUNK_ROWS), workers)
    return np.concatenate([np.ones(0, bool), *kept])


def _language_keep(rows: Rows, languages: list[str], min_sets: int) -> np.ndarray:
    sets = np.bincount(rows.lang[group_starts(rows.group)], minlength=len(languages))
    return sets[rows.lang] >= min_sets


def apply_filters(rows: Rows, texts: TextColumn, languages: list[str],
                  options: FilterOptions, funnel: Funnel | None = None,
                  workers: int = 1,
                  language_id: Callable[[Rows], np.ndarray] | None = None
                  ) -> tuple[Rows, Funnel]:
    """Run filters (a)-(e) over sorted rows; return the kept rows and the funnel (`funnel`, when
    given, already holds the steps before the filters, the last one counting `rows`). Filters
    (c) and (d) run their compiled kernels on `workers` threads, over the texts' UTF-8.
    `language_id`: the rows written in another language, dropped after (a)."""
    texts = TextColumn.of(texts)
    if funnel is None:
        funnel = Funnel(languages)
        funnel.record("components split by language", rows, 0, 0)
    sizes = _run_sizes(rows.group)
    rows = _apply(funnel, "(a) single-sentence sets", rows, sizes >= 2)
    if language_id is not None:
        rows = _apply(funnel, LANGUAGE_ID_STEP, rows, ~language_id(rows))
        funnel.steps[-1]["dropped_by"] = "language_id"
    sizes = _run_sizes(rows.group)
    rows = _apply(funnel, f"(b) sets over {options.max_set_size}", rows,
                  sizes <= options.max_set_size)
    rows = _apply(funnel, "(c) near-identical sentences", rows,
                  _near_identical_kept(rows.group, texts, rows.vertex, workers))
    tokenizers = np.array([tokenizer_for(lang) for lang in languages] or [""])
    rows = _apply(funnel, f"(d) sentence BLEU over {options.bleu_max:g}", rows,
                  bleu_keep_mask(rows.group, texts, tokenizers[rows.lang], options.bleu_max,
                                 workers, rows.vertex))
    rows = _apply(funnel, f"(e) languages with fewer than {options.min_sets} "
                  f"{'set' if options.min_sets == 1 else 'sets'}", rows,
                  _language_keep(rows, languages, options.min_sets))
    return rows, funnel
