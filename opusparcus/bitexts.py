"""Read a target-pivot bitext into integer arrays: its 1:1 links, their sentences and split.

Only links with exactly one sentence on each side count. Target sentences are returned as
distinct keys (the text, marked as tokenised or raw) so that several bitexts read in separate
processes can share one target vocabulary; pivot sentences, private to the bitext, are
normalised here and returned as codes. The split comes from the year in the target document's
path (`en/1994/123/456.xml.gz`): ending in 4 test, in 5 dev, else train; no year counts as
train and is counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from opusparcus.normalize import normalize_sentences
from tapaco.core.arrays import string_codes
from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.opus import AlignmentSource, DocumentLocator, LinkBlock, read_sentences

TRAIN, DEV, TEST = 0, 1, 2
SPLITS = ("train", "dev", "test")
TOKENIZED, RAW = "\x00", "\x01"


def year_of(document: str) -> int | None:
    """The year in an OPUS document path (`en/1994/1/2.xml.gz` or `en/1988.xml.gz`), if any."""
    parts = document.split("/")
    if len(parts) < 2:
        return None
    candidate = parts[1].split(".")[0]
    return int(candidate) if len(candidate) == 4 and candidate.isdigit() else None


def split_of(year: int | None) -> int:
    if year is None:
        return TRAIN
    return {4: TEST, 5: DEV}.get(year % 10, TRAIN)


@dataclass
class BitextCounts:
    links: int = 0
    one_to_one: int = 0
    not_one_to_one: int = 0
    links_without_year: int = 0
    links_to_unknown_sentences: int = 0


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


class _Reader:
    def __init__(self, opus_dir: Path, target_lang: str, log: BadInputLog) -> None:
        self.locator = DocumentLocator(opus_dir, ("xml", "raw"))
        self.target_lang = target_lang
        self.log = log
        self.target_table: dict[str, int] = {}
        self.pivot_table: dict[str, int] = {}
        self.parts: list[tuple[np.ndarray, np.ndarray, int]] = []
        self.counts = BitextCounts()

    def add(self, block: LinkBlock) -> None:
        self.counts.links += len(block)
        forward = block.from_lang == self.target_lang
        target_sides, pivot_sides = ((block.from_sides, block.to_sides) if forward
                                     else (block.to_sides, block.from_sides))
        keep = [i for i, (a, b) in enumerate(zip(target_sides, pivot_sides))
                if a and b and " " not in a and " " not in b]
        self.counts.one_to_one += len(keep)
        self.counts.not_one_to_one += len(block) - len(keep)
        target_doc, pivot_doc = ((block.from_doc, block.to_doc) if forward
                                 else (block.to_doc, block.from_doc))
        if block.from_texts is not None:
            texts = (block.from_texts, block.to_texts) if forward else (block.to_texts,
                                                                          block.from_texts)
            target_keys = [RAW + texts[0][i] for i in keep]
            pivot_keys = [RAW + texts[1][i] for i in keep]
        else:
            target_keys, pivot_keys = self._document_keys(
                target_doc, pivot_doc, [target_sides[i] for i in keep],
                [pivot_sides[i] for i in keep])
        year = year_of(target_doc)
        self.counts.links_without_year += len(target_keys) if year is None else 0
        self.parts.append((self._codes(self.target_table, target_keys),
                           self._codes(self.pivot_table, pivot_keys), split_of(year)))

    @staticmethod
    def _codes(table: dict[str, int], keys: list[str]) -> np.ndarray:
        return np.fromiter((table.setdefault(k, len(table)) for k in keys), np.int32, len(keys))

    def _document(self, document: str) -> dict[str, str]:
        ref, kind = self.locator.find(document)
        sentences = read_sentences(ref)
        mark = TOKENIZED if kind == "xml" else RAW
        return {i: mark + text for i, text in zip(sentences.ids, sentences.texts)}

    def _document_keys(self, target_doc: str, pivot_doc: str, target_ids: list[str],
                       pivot_ids: list[str]) -> tuple[list[str], list[str]]:
        try:
            target_text, pivot_text = self._document(target_doc), self._document(pivot_doc)
        except InputError as error:
            self.log.report(error)
            self.counts.links_to_unknown_sentences += len(target_ids)
            return [], []
        target_keys, pivot_keys = [], []
        for target_id, pivot_id in zip(target_ids, pivot_ids):
            if target_id in target_text and pivot_id in pivot_text:
                target_keys.append(target_text[target_id])
                pivot_keys.append(pivot_text[pivot_id])
                continue
            missing, document = ((target_id, target_doc) if target_id not in target_text
                                 else (pivot_id, pivot_doc))
            self.log.report(InputError(document, f"sentence id {missing!r} is linked by an "
                                       "alignment but is not in this document",
                                       kind="unknown sentence id"))
            self.counts.links_to_unknown_sentences += 1
        return target_keys, pivot_keys

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
                log: BadInputLog) -> BitextLinks:
    """All 1:1 links of the bitext `source` between `target_lang` and its other language.

    A bad alignment file stops the reading, or, when `log` skips bad input, leaves the bitext
    empty (all or nothing, as in the TaPaCo build).
    """
    pivot = source.langs[1] if source.langs[0] == target_lang else source.langs[0]
    reader = _Reader(opus_dir, target_lang, log)
    try:
        for block in source.link_blocks():
            reader.add(block)
    except InputError as error:
        log.report(error)
        links = reader.counts.links
        reader = _Reader(opus_dir, target_lang, log)
        reader.counts.links = links
    return reader.result(pivot, str(source.path))
