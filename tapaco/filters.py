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

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
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
        """The rows where `keep` (a mask) is true (gathered by index: numpy's masked gather
        is several times slower)."""
        at = np.flatnonzero(keep)
        return Rows(self.vertex.take(at), self.lang.take(at), self.group.take(at))


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


def _in_pairs(group: np.ndarray) -> np.ndarray:
    """Whether each row's group (groups are contiguous runs) holds two rows or more: a row
    alone starts its run and the next row starts another."""
    starts = group_starts(group)
    alone = starts.copy()
    alone[:-1] &= starts[1:]
    return ~alone


def _surviving(group: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The rows of `keep` in sets keeping at least two of them (the others dissolve)."""
    kept = np.flatnonzero(keep)
    surviving = np.zeros(len(group), bool)
    surviving[kept[_in_pairs(group[kept])]] = True
    return surviving


def _record(funnel: Funnel, step: str, before: Rows, after: Rows) -> None:
    """Record a step that left `after` of `before` (the rows the funnel's last step counted):
    every sentence and set gone in it counts, those of dissolved sets included."""
    sets_before = funnel.steps[-1]["sets"]
    funnel.record(step, after, len(before.vertex) - len(after.vertex), 0)
    funnel.steps[-1]["sets_dissolved"] = sets_before - funnel.steps[-1]["sets"]
    if step == LANGUAGE_ID_STEP:
        funnel.steps[-1]["dropped_by"] = "language_id"


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


FilterSteps = list[tuple[str, np.ndarray]]


def set_filter_steps(rows: Rows, texts: TextColumn, languages: list[str],
                     options: FilterOptions, workers: int = 1,
                     language_id: Callable[[Rows], np.ndarray] | None = None) -> FilterSteps:
    """Filters (a)-(d) (and `language_id`'s step) over sorted rows: each step's name and mask of
    the rows it keeps among those the steps before it kept (sets left under two rows dissolved).
    Every decision of these steps depends on the rows of one set only, so on rows that hold
    whole sets they decide what they would over all rows."""
    return [(name, kept) for name, kept, _ in
            _filtered(rows, texts, languages, options, workers, language_id)]


def _filtered(rows: Rows, texts: TextColumn, languages: list[str], options: FilterOptions,
              workers: int, language_id: Callable[[Rows], np.ndarray] | None
              ) -> Iterator[tuple[str, np.ndarray, Rows]]:
    """:func:`set_filter_steps`'s steps one at a time, each with the rows it leaves."""
    for name, surviving_of in _steps(TextColumn.of(texts), languages, options, workers,
                                     language_id):
        surviving = surviving_of(rows)
        rows = rows.take(surviving)
        yield name, surviving, rows


def _steps(texts: TextColumn, languages: list[str], options: FilterOptions, workers: int,
           language_id: Callable[[Rows], np.ndarray] | None
           ) -> list[tuple[str, Callable[[Rows], np.ndarray]]]:
    """The filter steps (a)-(d) in order: each name and the rows it leaves (of the rows the
    step before left, whose sets all hold two rows or more: (a) and (b), which keep or drop
    whole sets, then leave no set under two rows)."""
    tokenizers = np.array([tokenizer_for(lang) for lang in languages] or [""])
    steps = [("(a) single-sentence sets", lambda rows: _in_pairs(rows.group))]
    if language_id is not None:
        steps.append((LANGUAGE_ID_STEP, lambda rows: _surviving(rows.group, ~language_id(rows))))
    steps += [
        (f"(b) sets over {options.max_set_size}",
         lambda rows: _run_sizes(rows.group) <= options.max_set_size),
        ("(c) near-identical sentences", lambda rows: _surviving(
            rows.group, _near_identical_kept(rows.group, texts, rows.vertex, workers))),
        (f"(d) sentence BLEU over {options.bleu_max:g}", lambda rows: _surviving(
            rows.group, bleu_keep_mask(rows.group, texts, tokenizers[rows.lang],
                                       options.bleu_max, workers, rows.vertex)))]
    return steps


def merged_steps(first: FilterSteps, second: FilterSteps, at: np.ndarray) -> FilterSteps:
    """The steps of rows made of two parts, `second`'s rows inserted before `first`'s rows at
    `at` (as `np.insert` does), from each part's steps."""
    steps = []
    for (name, kept), (_, second_kept) in zip(first, second):
        steps.append((name, np.insert(kept, at, second_kept)))
        at = np.concatenate([[0], np.cumsum(kept)])[at][second_kept]
    return steps


def apply_filters(rows: Rows, texts: TextColumn, languages: list[str],
                  options: FilterOptions, funnel: Funnel | None = None,
                  workers: int = 1,
                  language_id: Callable[[Rows], np.ndarray] | None = None,
                  steps: FilterSteps | None = None) -> tuple[Rows, Funnel]:
    """Run filters (a)-(e) over sorted rows; return the kept rows and the funnel (`funnel`, when
    given, already holds the steps before the filters, the last one counting `rows`). Filters
    (c) and (d) run their compiled kernels on `workers` threads, over the texts' UTF-8.
    `language_id`: the rows written in another language, dropped after (a). `steps`: what
    :func:`set_filter_steps` gives for `rows`, when already found (in parts, each of whole
    sets); only (e) is left to run."""
    if funnel is None:
        funnel = Funnel(languages)
        funnel.record("components split by language", rows, 0, 0)
    found = (_filtered(rows, texts, languages, options, workers, language_id) if steps is None
             else _taken(rows, steps))
    with ThreadPoolExecutor(1) as recorder:  # the counting beside the next steps' work
        recorded, before = [], rows
        for name, _, after in found:
            recorded.append(recorder.submit(_record, funnel, name, before, after))
            before = after
        for record in recorded:
            record.result()
    kept = before.take(_surviving(before.group, _language_keep(before, languages,
                                                              options.min_sets)))
    _record(funnel, f"(e) languages with fewer than {options.min_sets} "
            f"{'set' if options.min_sets == 1 else 'sets'}", before, kept)
    return kept, funnel


def _taken(rows: Rows, steps: FilterSteps) -> Iterator[tuple[str, np.ndarray, Rows]]:
    """Found steps with the rows each leaves."""
    for name, kept in steps:
        rows = rows.take(kept)
        yield name, kept, rows
