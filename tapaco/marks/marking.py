"""Marking the pairs of a language file's sets (on two processes for a whole build), and the
marks as a TSV file and as statistics."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tapaco.core.forked import Forked, FromBothEnds
from tapaco.core.text_column import TextColumn
from tapaco.export import ROW_COLUMNS
from tapaco.marks.evidence import evidence
from tapaco.marks.rules import FEATURES, NEUTRALISATION, TRIVIAL, Rules, language_rules
from tapaco.marks.screening import line_screen, rows_to_mark

#: A row of a language file: set id, sentence id, text, lists, tags.
Row = tuple[int, str, str, str, str]
HEADER = ["set_id", "sentence_id_1", "sentence_id_2", "mark", "evidence"]
#: Sets are marked in chunks of about this many sentences, shared between two processes.
CHUNK_SENTENCES = 20_000


class Mark(NamedTuple):
    """A marked pair of one set: its sentence ids in file order, the mark and what differs."""

    set_id: int
    first_id: str
    second_id: str
    mark: str
    evidence: str


def _pair_groups(keys: list[set[str]]) -> set[tuple[int, int]]:
    """Pairs of positions whose key sets share a key."""
    groups: dict[str, list[int]] = {}
    for position, sentence_keys in enumerate(keys):
        for key in sentence_keys:
            groups.setdefault(key, []).append(position)
    return {pair for group in groups.values() if len(group) > 1
            for pair in itertools.combinations(group, 2)}


def _mark_set(rules: Rules, members: list[tuple[str, str]]) -> dict[tuple[int, int], str]:
    """The marks of a set's pairs of positions: the first level (trivial, then each combination
    of features) at which the two sentences share a key.

    Only the trivial keys and the keys of all features at once (the last level) are computed
    for every sentence: two sentences sharing a key of some combination share one of all
    features (every form of a combination is one of all features, read the same way in both;
    only a sentence with more than `_MAX_VARIANTS` readings could break this). The levels
    between are computed for the sentences of such pairs only."""
    analyses = [rules.analyse(text) for _, text in members]
    last = len(rules.labels) - 1
    found = dict.fromkeys(_pair_groups([rules.key_set(a, 0) for a in analyses]), TRIVIAL)
    if not last:
        return found
    keys: dict[tuple[int, int], set[str]] = {}

    def key_set(position: int, level: int) -> set[str]:
        if (position, level) not in keys:
            keys[position, level] = rules.key_set(analyses[position], level)
        return keys[position, level]

    for pair in _pair_groups([key_set(position, last) for position in range(len(members))]):
        if pair not in found:
            level = next(level for level in range(1, last + 1)
                         if not key_set(pair[0], level).isdisjoint(key_set(pair[1], level)))
            found[pair] = rules.labels[level]
    return found


def mark_language(lang: str, rows: list[Row]) -> list[Mark]:
    """The marked pairs of one language file's rows (all sets of language `lang`), sorted by set
    id, then by the positions of the two sentences in their set (file order)."""
    return _marks(lang, pa.table([pa.array([row[i] for row in rows], kind) for i, kind in
                                  enumerate((pa.int64(), pa.string(), pa.string()))],
                                 names=list(ROW_COLUMNS[:3])))


def _marks(lang: str, table: pa.Table) -> list[Mark]:
    """:func:`mark_language` of a table of the language's rows (:data:`ROW_COLUMNS`; only the
    set ids, sentence ids and texts are read), keying only the rows that can be in a marked
    pair (:mod:`tapaco.marks.screening`)."""
    rules = language_rules(lang)
    kept = table.take(rows_to_mark(rules, table["set_id"].to_numpy(), _joined(table["text"])))
    sets: dict[int, list[tuple[str, str]]] = {}
    for set_id, sentence_id, text in zip(*(kept[name].to_pylist() for name in ROW_COLUMNS[:3])):
        sets.setdefault(set_id, []).append((sentence_id, text))
    marks = []
    for set_id in sorted(sets):
        members = sets[set_id]
        for (p, q), mark in sorted(_mark_set(rules, members).items()):
            marks.append(Mark(set_id, members[p][0], members[q][0], mark,
                              evidence(members[p][1], members[q][1])))
    return marks


def _joined(texts: pa.ChunkedArray) -> str:
    """The texts joined by newlines, as one string."""
    empty, newline = (pa.scalar(text, pa.large_string()) for text in ("", "\n"))
    lines = pc.binary_join_element_wise(pc.cast(texts, pa.large_string()), empty, newline)
    column = TextColumn.of_arrow(lines.combine_chunks())
    return column.data[column.offsets[0]:column.offsets[-1]].tobytes().decode()[:-1]


class _Chunk(NamedTuple):
    """Rows start:end of a language file, whole sets."""

    lang: str
    start: int
    end: int


def _chunks(files: dict[str, pa.Table]) -> list[_Chunk]:
    """Every language file in chunks of whole sets, about CHUNK_SENTENCES rows each, in file
    order (a file whose set ids are not ascending is one chunk: its marks come in set order)."""
    chunks = []
    for lang, table in files.items():
        set_ids = table["set_id"].to_numpy()
        if not (set_ids[1:] >= set_ids[:-1]).all():
            chunks.append(_Chunk(lang, 0, len(set_ids)))
            continue
        set_starts = np.flatnonzero(np.diff(set_ids, prepend=-1)).tolist() + [len(set_ids)]
        start = 0
        for set_start in set_starts[1:]:
            if set_start - start >= CHUNK_SENTENCES or set_start == len(set_ids):
                chunks.append(_Chunk(lang, start, set_start))
                start = set_start
    return chunks


def _marks_from_the_back(claims: FromBothEnds, chunks: list[_Chunk],
                         files: dict[str, pa.Table]) -> dict[int, list[Mark]]:
    return {index: _chunk_marks(chunks[index], files) for index in claims.back()}


def _chunk_marks(chunk: _Chunk, files: dict[str, pa.Table]) -> list[Mark]:
    return _marks(chunk.lang, files[chunk.lang].slice(chunk.start, chunk.end - chunk.start))


def mark_languages(files: dict[str, pa.Table], parallel: bool = True,
                   first_marked: dict[str, tuple[int, list[Mark]]] | None = None
                   ) -> dict[str, list[Mark]]:
    """:func:`mark_language` of every language file (a table of its rows). Chunks of whole sets
    are claimed from the front of the list by this process and from the back by a forked one
    (`parallel`, where two cores are free) until the two meet; the marks are put back in file
    order, the same either way. `first_marked`: per language, how many of its first rows (whole
    sets) were marked already, and their marks; only the rows after them are marked here."""
    first_marked = first_marked or {}
    files = {lang: table.slice(first_marked[lang][0]) if lang in first_marked else table
             for lang, table in files.items()}
    chunks = _chunks(files)
    for lang in files:  # tables, kernel and classes loaded once, before the fork
        line_screen(language_rules(lang), "", 1)
    claims = FromBothEnds(len(chunks))
    with Forked(_marks_from_the_back, claims, chunks, files,
                parallel=parallel and len(chunks) > 1) as second:
        marks_of = {index: _chunk_marks(chunks[index], files) for index in claims.front()}
        marks_of.update(second.result())
    marks: dict[str, list[Mark]] = {lang: list(first_marked.get(lang, (0, []))[1])
                                    for lang in files}
    for index, chunk in enumerate(chunks):
        marks[chunk.lang] += marks_of[index]
    return marks


def marks_text(marks: list[Mark]) -> str:
    """`OUT/marks/<lang>.tsv`: the header line, then one tab-separated line per mark."""
    lines = ["\t".join(HEADER)] + ["\t".join(map(str, mark)) for mark in marks]
    return "\n".join(lines) + "\n"


def marked_share(marks: list[Mark], set_ids: np.ndarray) -> dict:
    """Counts for the statistics: pairs inside sets (n(n-1)/2 per set of n, the set id of each
    row in `set_ids`), pairs marked trivial, pairs marked neutralisation per feature (or
    `+`-joined features), pairs marked and their share of the pairs."""
    sizes = np.unique(set_ids, return_counts=True)[1]
    pairs = int((sizes * (sizes - 1) // 2).sum())
    labels = Counter(mark.mark for mark in marks)
    features = [label.partition(":")[2] for label in labels if label != TRIVIAL]
    neutralisation = {feature: labels[f"{NEUTRALISATION}:{feature}"]
                      for feature in sorted(features, key=_feature_order)}
    return {"pairs": pairs, "trivial": labels[TRIVIAL], "neutralisation": neutralisation,
            "marked": len(marks), "marked_share": round(len(marks) / pairs, 4) if pairs else 0.0}


def _feature_order(features: str) -> tuple[int, list[int]]:
    names = features.split("+")
    return len(names), [FEATURES.index(name) for name in names]
