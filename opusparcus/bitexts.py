"""Read a target-pivot bitext into integer arrays: its 1:1 links, their sentences and split.

Only links with exactly one sentence on each side count, and only when both sentences have a
text: from the sentence documents where they exist (so a sentence has one identity whichever
alignment form linked it), else from the Moses line. Target sentences are returned as
distinct keys (the text, marked as tokenised or raw) so that several bitexts read in separate
processes can share one target vocabulary; pivot sentences, private to the bitext, are
normalised here and returned as codes. The split comes from the year in the target document's
path (`en/1994/123/456.xml.gz`): ending in 4 test, in 5 dev, else train; no year counts as
train and is counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from opusparcus.normalize import normalize_sentences
from tapaco.core.arrays import string_codes
from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.opus import (
    TOKENISED,
    AlignmentSource,
    DocumentStore,
    LinkBlock,
    preference,
)
from tapaco.core.opus.moses_columns import NO_YEAR, one_to_one_links

TRAIN, DEV, TEST = 0, 1, 2
SPLITS = ("train", "dev", "test")
TOKENIZED, RAW = "\x00", "\x01"


def year_of(document: str) -> int | None:
    """The year in an OPUS document path (`en/1994/1/2.xml.gz` or `en/1988.xml.gz`), if any."""
    parts = document.split("/")
    if len(parts) < 2:
        return None
    candidate = parts[1].split(".")[0]
    ascii_digits = candidate.isascii() and candidate.isdigit()
    return int(candidate) if len(candidate) == 4 and ascii_digits else None


def split_of(year: int | None) -> int:
    if year is None:
        return TRAIN
    return {4: TEST, 5: DEV}.get(year % 10, TRAIN)


@dataclass
class BitextCounts:
    """Links read; `one_to_one` of them 1:1, of which those with a sentence id no document
    holds or an empty text on a side (e.g. an OpenSubtitles `<s>` holding only `<time>`) are
    not used."""

    links: int = 0
    one_to_one: int = 0
    not_one_to_one: int = 0
    links_without_year: int = 0
    links_to_unknown_sentences: int = 0
    links_with_empty_text: int = 0


@dataclass
class BitextLinks:
    """The 1:1 links of one bitext: target key codes, pivot sentence codes, split per link."""

    pivot: str
    source: str
    target_keys: list[str]
    target: np.ndarray
    pivot_codes: np.ndarray
    split: np.ndarray
    counts: BitextCounts = field(default_factory=BitextCounts)


class _Side(NamedTuple):
    """One end of the links of a block: its document, the ids of each link, Moses texts."""

    document: str
    ids: list[str]
    texts: list[str] | None


class _Keys(NamedTuple):
    """Sentence keys of the kept links of one side (None: no text); `located` is False when
    the document was missing or bad (reported once, not per link)."""

    keys: list[str | None]
    located: bool


def _all_texts(keys: list[str | None]) -> bool:
    """Whether every key has a text (list searches in C: the common case stays fast)."""
    return None not in keys and RAW not in keys and TOKENIZED not in keys


class _Reader:
    def __init__(self, store: DocumentStore, target_lang: str, log: BadInputLog) -> None:
        self.store = store
        self.target_lang = target_lang
        self.log = log
        self.target_table: dict[str, int] = {}
        self.pivot_table: dict[str, int] = {}
        self.parts: list[tuple[np.ndarray, np.ndarray, int]] = []
        self.counts = BitextCounts()

    def add(self, block: LinkBlock) -> None:
        self.counts.links += len(block)
        target = _Side(block.from_doc, block.from_sides, block.from_texts)
        pivot = _Side(block.to_doc, block.to_sides, block.to_texts)
        if block.from_lang != self.target_lang:
            target, pivot = pivot, target
        keep = [i for i, (a, b) in enumerate(zip(target.ids, pivot.ids))
                if a and b and " " not in a and " " not in b]
        self.counts.one_to_one += len(keep)
        self.counts.not_one_to_one += len(block) - len(keep)
        target_keys, pivot_keys = self._usable(target, pivot, keep, self._keys(target, keep),
                                               self._keys(pivot, keep))
        year = year_of(target.document)
        self.counts.links_without_year += len(target_keys) if year is None else 0
        self.parts.append((self._codes(self.target_table, target_keys),
                           self._codes(self.pivot_table, pivot_keys), split_of(year)))

    @staticmethod
    def _codes(table: dict[str, int], keys: list[str]) -> np.ndarray:
        return np.fromiter((table.setdefault(k, len(table)) for k in keys), np.int32, len(keys))

    def _keys(self, side: _Side, keep: list[int]) -> _Keys:
        """Keys (text marked tokenised or raw) of the kept links' sentences on one side: from
        the document where one exists, else (or for an id it lacks) from the Moses line."""
        try:
            document = self.store.find(side.document)
        except InputError as error:
            self.log.report(error)
            return _Keys([None] * len(keep), False)
        lines = side.texts
        if document is None:
            if lines is None:
                self.log.report(self.store.missing(side.document))
                return _Keys([None] * len(keep), False)
            return _Keys([RAW + lines[i] for i in keep], True)
        mark = TOKENIZED if document.kind == TOKENISED else RAW
        position, texts = document.position, document.sentences.texts
        keys: list[str | None] = []
        for i in keep:
            at = position.get(side.ids[i])
            keys.append(mark + texts[at] if at is not None
                        else None if lines is None else RAW + lines[i])
        return _Keys(keys, True)

    def _usable(self, target: _Side, pivot: _Side, keep: list[int], target_keys: _Keys,
                pivot_keys: _Keys) -> tuple[list[str], list[str]]:
        """The links both of whose sentences have a text; the others are counted (and an
        unknown sentence id reported)."""
        if _all_texts(target_keys.keys) and _all_texts(pivot_keys.keys):
            return target_keys.keys, pivot_keys.keys
        kept_target, kept_pivot = [], []
        for i, target_key, pivot_key in zip(keep, target_keys.keys, pivot_keys.keys):
            if target_key is None or pivot_key is None:
                self.counts.links_to_unknown_sentences += 1
                self._report_unknown(target, target_keys, target_key, pivot, pivot_keys, i)
            elif len(target_key) == 1 or len(pivot_key) == 1:
                self.counts.links_with_empty_text += 1
            else:
                kept_target.append(target_key)
                kept_pivot.append(pivot_key)
        return kept_target, kept_pivot

    def _report_unknown(self, target: _Side, target_keys: _Keys, target_key: str | None,
                        pivot: _Side, pivot_keys: _Keys, link: int) -> None:
        side, keys = (target, target_keys) if target_key is None else (pivot, pivot_keys)
        if keys.located:
            self.log.report(InputError(side.document, f"sentence id {side.ids[link]!r} is "
                                       "linked by an alignment but is not in this document",
                                       kind="unknown sentence id"))

    def result(self, pivot: str, source: str) -> BitextLinks:
        pivot_keys = list(self.pivot_table)
        pivot_normal = normalize_keys(pivot_keys, pivot)
        pivot_code_of_key = string_codes(pivot_normal).astype(np.int32)
        if self.parts:
            target = np.concatenate([t for t, _, _ in self.parts])
            pivot_codes = pivot_code_of_key[np.concatenate([p for _, p, _ in self.parts])]
            split = np.concatenate([np.full(len(t), s, np.int8) for t, _, s in self.parts])
        else:
            target = pivot_codes = np.zeros(0, np.int32)
            split = np.zeros(0, np.int8)
        return BitextLinks(pivot, source, list(self.target_table), target, pivot_codes, split,
                           self.counts)


def normalize_keys(keys: list[str], lang: str) -> list[str]:
    """Normalise distinct sentence keys: tokenised ones as they are, raw ones Moses-tokenised."""
    normalized = [""] * len(keys)
    for mark, tokenized in ((TOKENIZED, True), (RAW, False)):
        chosen = [i for i, key in enumerate(keys) if key[:1] == mark]
        texts = normalize_sentences([keys[i][1:] for i in chosen], lang, tokenized)
        for i, text in zip(chosen, texts):
            normalized[i] = text
    return normalized


def read_bitext(opus_dir: Path, source: AlignmentSource, target_lang: str,
                log: BadInputLog, documents: str = "xml") -> BitextLinks:
    """All 1:1 links of the bitext `source` between `target_lang` and its other language.

    `documents` (`xml` or `raw`) is the folder of sentence documents searched first. A bad
    alignment file stops the reading, or, when `log` skips bad input, leaves the bitext empty
    (all or nothing, as in the TaPaCo build).
    """
    pivot = source.langs[1] if source.langs[0] == target_lang else source.langs[0]
    with DocumentStore(opus_dir, preference(documents)) as store:
        if source.form.startswith("Moses") and not any(
                store.has_documents(lang) for lang in source.langs):
            return _read_moses_columns(source, target_lang, pivot, log)
        reader = _Reader(store, target_lang, log)
        try:
            for block in source.link_blocks():
                reader.add(block)
        except InputError as error:
            log.report(error)
            links = reader.counts.links
            reader = _Reader(store, target_lang, log)
            reader.counts.links = links
    return reader.result(pivot, str(source.path))


def splits_of_years(years: np.ndarray) -> np.ndarray:
    """:func:`split_of` of every year (NO_YEAR: train)."""
    last_digit = np.where(years >= 0, years % 10, 0)
    return np.select([last_digit == 4, last_digit == 5], [TEST, DEV], TRAIN).astype(np.int8)


def _read_moses_columns(source: AlignmentSource, target_lang: str, pivot: str,
                        log: BadInputLog) -> BitextLinks:
    """A Moses bitext with no sentence documents in the release, read as columns."""
    target_side = 0 if source.langs[0] == target_lang else 1
    try:
        links = one_to_one_links(source.path, source.langs)
    except InputError as error:
        log.report(error)
        empty = np.zeros(0, np.int32)
        return BitextLinks(pivot, str(source.path), [], empty, empty, np.zeros(0, np.int8))
    pivot_keys = [RAW + key for key in links.keys[1 - target_side].to_pylist()]
    pivot_normal = normalize_keys(pivot_keys, pivot)
    pivot_codes = string_codes(pivot_normal).astype(np.int32)[links.codes[1 - target_side]]
    years = links.years[target_side]
    counts = BitextCounts(links=links.links, one_to_one=links.one_to_one,
                          not_one_to_one=links.links - links.one_to_one,
                          links_without_year=int((years == NO_YEAR).sum()),
                          links_with_empty_text=links.empty_text)
    target_keys = [RAW + key for key in links.keys[target_side].to_pylist()]
    return BitextLinks(pivot, str(source.path), target_keys, links.codes[target_side],
                       pivot_codes, splits_of_years(years), counts)
