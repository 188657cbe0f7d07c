"""Read a bitext into integer arrays: its 1:1 links, and each side's sentences and splits.

Only links with exactly one sentence on each side count, and only when both sentences have a
text: from the sentence documents where they exist (so a sentence has one identity whichever
alignment form linked it), else from the Moses line. Both sides are read alike, in the order of
the bitext's name, so that one reading serves both of its languages (en-fr gives en its pivot
fr and fr its pivot en). A side's sentences are distinct keys (the text, marked as tokenised or
raw), to be normalised once per language over every bitext read
(:mod:`opusparcus.vocabulary`); each link has a code into them and the split the year in its
document's path gives (`en/1994/123/456.xml.gz`): ending in 4 test, in 5 dev, else train. The
target side's split is the link's; no year counts as train and is counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.opus import TOKENISED, AlignmentSource, DocumentStore, LinkBlock, preference
from tapaco.core.opus.moses_columns import NO_YEAR, one_to_one_link_pieces

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


@dataclass
class BitextCounts:
    """Links read; `one_to_one` of them 1:1, of which those with a sentence id no document
    holds, an empty text on a side (e.g. an OpenSubtitles `<s>` holding only `<time>`) or a
    text longer than the length limit are not used."""

    links: int = 0
    one_to_one: int = 0
    not_one_to_one: int = 0
    links_to_unknown_sentences: int = 0
    links_with_empty_text: int = 0
    links_with_long_text: int = 0


@dataclass
class Side:
    """One language's side of the links kept: distinct sentence keys (mark + text, in order of
    first appearance), for every link its key's code and the split its document's year gives
    (:func:`splits_of_years`), and how many links had no year."""

    lang: str
    keys: pa.Array
    codes: np.ndarray
    splits: np.ndarray
    without_year: int = 0


@dataclass
class Bitext:
    """The kept 1:1 links of one bitext, both sides in the order of its name."""

    source: str
    sides: tuple[Side, Side]
    counts: BitextCounts = field(default_factory=BitextCounts)

    def side(self, lang: str) -> Side:
        return self.sides[0] if self.sides[0].lang == lang else self.sides[1]

    def other(self, lang: str) -> Side:
        return self.sides[1] if self.sides[0].lang == lang else self.sides[0]


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
    """Reads link blocks of a bitext through the document store into both sides' codes."""

    def __init__(self, store: DocumentStore, langs: tuple[str, str], log: BadInputLog,
                 max_length: int | None = None) -> None:
        self.store = store
        self.langs = langs
        self.log = log
        self.max_length = max_length
        self.tables: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self.parts: list[tuple[np.ndarray, np.ndarray, int, int]] = []
        self.counts = BitextCounts()

    def add(self, block: LinkBlock) -> None:
        self.counts.links += len(block)
        first = _Side(block.from_doc, block.from_sides, block.from_texts)
        second = _Side(block.to_doc, block.to_sides, block.to_texts)
        if block.from_lang != self.langs[0]:
            first, second = second, first
        keep = [i for i, (a, b) in enumerate(zip(first.ids, second.ids))
                if a and b and " " not in a and " " not in b]
        self.counts.one_to_one += len(keep)
        self.counts.not_one_to_one += len(block) - len(keep)
        first_keys, second_keys = self._usable(first, second, keep, self._keys(first, keep),
                                               self._keys(second, keep))
        years = [NO_YEAR if (year := year_of(side.document)) is None else year
                 for side in (first, second)]
        self.parts.append((self._codes(self.tables[0], first_keys),
                           self._codes(self.tables[1], second_keys), *years))

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
        position, texts = document.position, document.texts
        keys: list[str | None] = []
        for i in keep:
            at = position.get(side.ids[i])
            keys.append(mark + texts[at] if at is not None
                        else None if lines is None else RAW + lines[i])
        return _Keys(keys, True)

    def _usable(self, first: _Side, second: _Side, keep: list[int], first_keys: _Keys,
                second_keys: _Keys) -> tuple[list[str], list[str]]:
        """The links both of whose sentences have a text within the length limit; the others
        are counted (and an unknown sentence id reported)."""
        if (_all_texts(first_keys.keys) and _all_texts(second_keys.keys)
                and not self._too_long(first_keys.keys) and not self._too_long(second_keys.keys)):
            return first_keys.keys, second_keys.keys
        kept_first, kept_second = [], []
        for i, first_key, second_key in zip(keep, first_keys.keys, second_keys.keys):
            if first_key is None or second_key is None:
                self.counts.links_to_unknown_sentences += 1
                self._report_unknown(first, first_keys, first_key, second, second_keys, i)
            elif len(first_key) == 1 or len(second_key) == 1:
                self.counts.links_with_empty_text += 1
            elif self._too_long([first_key, second_key]):
                self.counts.links_with_long_text += 1
            else:
                kept_first.append(first_key)
                kept_second.append(second_key)
        return kept_first, kept_second

    def _too_long(self, keys: list[str]) -> bool:
        """Whether a key's text (after its one-character mark) is over the length limit."""
        return bool(self.max_length and keys) and max(map(len, keys)) - 1 > self.max_length

    def _report_unknown(self, first: _Side, first_keys: _Keys, first_key: str | None,
                        second: _Side, second_keys: _Keys, link: int) -> None:
        side, keys = (first, first_keys) if first_key is None else (second, second_keys)
        if keys.located:
            self.log.report(InputError(side.document, f"sentence id {side.ids[link]!r} is "
                                       "linked by an alignment but is not in this document",
                                       kind="unknown sentence id"))

    def result(self, source: str) -> Bitext:
        sides = []
        for number, (lang, table) in enumerate(zip(self.langs, self.tables)):
            codes = [part[number] for part in self.parts]
            years = np.array([part[2 + number] for part in self.parts], np.int16)
            sizes = np.array([len(part[0]) for part in self.parts], np.int64)
            sides.append(Side(lang, pa.array(list(table), pa.large_string()),
                              np.concatenate(codes or [np.zeros(0, np.int32)]),
                              np.repeat(splits_of_years(years), sizes),
                              int(sizes[years == NO_YEAR].sum())))
        return Bitext(source, (sides[0], sides[1]), self.counts)


def read_bitext(opus_dir: Path, source: AlignmentSource, log: BadInputLog,
                documents: str = "xml", max_length: int | None = None) -> Bitext:
    """All 1:1 links of the bitext `source` whose sentences both have a text, of at most
    `max_length` code points (None: any length).

    `documents` (`xml` or `raw`) is the folder of sentence documents searched first; a Moses
    bitext with no documents in the release is read as columns. A bad alignment file stops the
    reading, or, when `log` skips bad input, leaves the bitext empty (all or nothing, as in the
    TaPaCo build).
    """
    if read_as_columns(opus_dir, source, documents):
        try:
            return next(_moses_column_pieces(source, log, max_length, None))
        except InputError as error:
            log.report(error)
            return empty_bitext(source)
    with DocumentStore(opus_dir, preference(documents),
                       bad_sentence=log.report if log.skip else None) as store:
        reader = _Reader(store, source.langs, log, max_length)
        try:
            for block in source.link_blocks(bad_line=log.report):
                reader.add(block)
        except InputError as error:
            log.report(error)
            links = reader.counts.links
            reader = _Reader(store, source.langs, log, max_length)
            reader.counts.links = links
    return reader.result(str(source.path))


def read_bitext_pieces(opus_dir: Path, source: AlignmentSource, log: BadInputLog,
                       documents: str = "xml", max_length: int | None = None,
                       links_per_piece: int | None = None) -> Iterator[Bitext]:
    """The links :func:`read_bitext` reads, in pieces of consecutive links, each with its own
    keys and counts: a Moses bitext read as columns in pieces of at least `links_per_piece`
    links but the last (None: one piece), where a bad file raises after the pieces before it
    (the caller drops them: all or nothing); any other bitext in one piece."""
    if read_as_columns(opus_dir, source, documents):
        yield from _moses_column_pieces(source, log, max_length, links_per_piece)
    else:
        yield read_bitext(opus_dir, source, log, documents, max_length)


def read_as_columns(opus_dir: Path, source: AlignmentSource, documents: str) -> bool:
    """Whether `source` is a Moses bitext with no sentence documents in the release."""
    if not source.form.startswith("Moses"):
        return False
    with DocumentStore(opus_dir, preference(documents)) as store:
        return not any(store.has_documents(lang) for lang in source.langs)


def reads_raw_documents(opus_dir: Path, sources: list[AlignmentSource], documents: str) -> bool:
    """Whether the documents of a language of `sources` are searched in raw/ first (their
    sentences are then Moses-tokenised)."""
    with DocumentStore(opus_dir, preference(documents)) as store:
        return any(store.first_folder(lang) == "raw" for source in sources
                   for lang in source.langs)


def splits_of_years(years: np.ndarray) -> np.ndarray:
    """The split of every link from its target document's year: ending in 4 test, in 5 dev,
    else (and NO_YEAR) train."""
    last_digit = np.where(years >= 0, years % 10, 0)
    return np.select([last_digit == 4, last_digit == 5], [TEST, DEV], TRAIN).astype(np.int8)


def empty_bitext(source: AlignmentSource) -> Bitext:
    """A bitext with no links (its file was bad and skipped)."""
    return Bitext(str(source.path), tuple(Side(lang, pa.array([], pa.large_string()),
                                               np.zeros(0, np.int32), np.zeros(0, np.int8))
                                          for lang in source.langs))


def _marked(keys: pa.Array, mark: str) -> pa.Array:
    return pc.binary_join_element_wise(pa.scalar(mark, pa.large_string()), keys,
                                       pa.scalar("", pa.large_string()))


def _moses_column_pieces(source: AlignmentSource, log: BadInputLog, max_length: int | None,
                         links_per_piece: int | None) -> Iterator[Bitext]:
    """A Moses bitext with no sentence documents in the release, read as columns in pieces."""
    for links in one_to_one_link_pieces(source.path, source.langs, links_per_piece,
                                        bad_line=log.report, max_length=max_length):
        sides = tuple(Side(lang, _marked(keys, RAW), codes, splits_of_years(years),
                           int((years == NO_YEAR).sum()))
                      for lang, keys, codes, years in zip(source.langs, links.keys, links.codes,
                                                          links.years))
        counts = BitextCounts(links=links.links, one_to_one=links.one_to_one,
                              not_one_to_one=links.links - links.one_to_one,
                              links_with_empty_text=links.empty_text,
                              links_with_long_text=links.long_text)
        yield Bitext(str(source.path), (sides[0], sides[1]), counts)
