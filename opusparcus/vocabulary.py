"""One vocabulary per language, over every bitext read: sentence keys to sentence codes.

Each side of a bitext (its distinct keys: a text, marked tokenised or raw;
:mod:`opusparcus.bitexts`) is normalised by the process that read it, as the release
identifies sentences (:mod:`opusparcus.normalize`), and sorted: keys that normalise alike
become one sentence, and the side's vocabulary is its sentences in code-point order with a code
for each of its links. A language's vocabulary merges its sides' as they arrive, by a compiled
merge over the sentences' UTF-8 bytes (whose order is code-point order): no dictionary of
strings, no Python object per sentence. A sentence's code is its rank in code-point order, so
codes depend only on the set of sentences, never on which bitexts were read, in which order,
or where: the sums over pairs then run in the same order in every run, and a ranking is
byte-identical whether its language was ranked alone or with others.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from opusparcus.bitexts import RAW, TOKENIZED, Side
from opusparcus.normalize import normalize_sentences
from tapaco.core.ranges import compare_ranges
from tapaco.core.text_column import TextColumn

CHUNK = 50_000


def normalize_keys(keys: pa.Array, lang: str) -> pa.Array:
    """Normalise distinct sentence keys: tokenised ones as they are, raw ones Moses-tokenised
    (the texts become Python strings here, a chunk at a time)."""
    marks = pc.utf8_slice_codeunits(keys, 0, 1)
    texts = pc.utf8_slice_codeunits(keys, 1)
    normalized: list[str | None] = [None] * len(keys)
    for mark, tokenized in ((TOKENIZED, True), (RAW, False)):
        chosen = pc.indices_nonzero(pc.equal(marks, mark)).to_numpy()
        if len(chosen) == len(keys):
            return pa.array(normalize_sentences(texts.to_pylist(), lang, tokenized),
                            pa.large_string())
        for i, text in zip(chosen.tolist(), normalize_sentences(
                texts.take(pa.array(chosen)).to_pylist(), lang, tokenized)):
            normalized[i] = text
    return pa.array(normalized, pa.large_string())


@njit(nogil=True, cache=True)
def merge_ranks(first_offsets, first_data, second_offsets, second_data, first_rank, second_rank,
                origin):
    """Fill each side's ranks in the merge of the two sorted, distinct string arrays, and
    `origin` (room for both sides' strings): for every merged string, its index in the first
    side, or -1 - its index in the second. Returns how many strings the merge holds."""
    first_count, second_count = len(first_offsets) - 1, len(second_offsets) - 1
    i = j = merged = 0
    while i < first_count or j < second_count:
        if i == first_count:
            order = 1
        elif j == second_count:
            order = -1
        else:
            order = compare_ranges(first_data, first_offsets[i], first_offsets[i + 1],
                             second_data, second_offsets[j], second_offsets[j + 1])
        if order <= 0:
            first_rank[i] = merged
            origin[merged] = i
            i += 1
        if order >= 0:
            second_rank[j] = merged
            if order > 0:
                origin[merged] = -1 - j
            j += 1
        merged += 1
    return merged


@njit(nogil=True, cache=True)
def gather(origin, first_offsets, first_data, second_offsets, second_data, offsets):
    """The bytes of the merged strings `origin` names (see :func:`merge_ranks`), their
    `offsets` (one more than the strings) filled."""
    offsets[0] = 0
    for at in range(len(origin)):
        index = origin[at]
        if index >= 0:
            length = first_offsets[index + 1] - first_offsets[index]
        else:
            length = second_offsets[-index] - second_offsets[-1 - index]
        offsets[at + 1] = offsets[at] + length
    data = np.empty(offsets[-1], np.uint8)
    for at in range(len(origin)):
        index = origin[at]
        if index >= 0:
            source, start = first_data, first_offsets[index]
        else:
            source, start = second_data, second_offsets[-1 - index]
        for k in range(offsets[at + 1] - offsets[at]):
            data[offsets[at] + k] = source[start + k]
    return data


@dataclass
class Vocabulary:
    """The sentences of a language in code-point order (a sentence's code is its index) and,
    for every side given, the code of each of its links' sentences."""

    lang: str
    sentences: pa.Array
    codes: dict[Hashable, np.ndarray]

    def __len__(self) -> int:
        return len(self.sentences)

    def join_pieces(self) -> None:
        """Each side's codes from its pieces' (keys `(*side, piece)`), in piece order."""
        pieces: dict[Hashable, dict[int, np.ndarray]] = defaultdict(dict)
        for key in list(self.codes):
            pieces[key[:-1]][key[-1]] = self.codes.pop(key)
        self.codes = {side: np.concatenate([codes[number] for number in sorted(codes)])
                      for side, codes in pieces.items()}


def sorted_distinct(chunks: list[pa.Array]) -> tuple[pa.Array, np.ndarray]:
    """The distinct strings of `chunks` in code-point order, and each string's rank among
    them. Sorting finds both at once, in the memory of about two copies of the strings (a hash
    table takes twice that while it grows)."""
    strings = pa.chunked_array(chunks or [[]], pa.large_string()).combine_chunks()
    order = pc.array_sort_indices(strings)
    in_order = strings.take(order)
    del strings
    first = np.ones(len(in_order), bool)
    if len(in_order) > 1:
        first[1:] = pc.not_equal(in_order.slice(1), in_order.slice(0, len(in_order) - 1)
                                 ).to_numpy(zero_copy_only=False)
    rank = np.empty(len(in_order), np.int32)
    rank[order.to_numpy()] = np.cumsum(first, dtype=np.int64) - 1
    return in_order.filter(pa.array(first)), rank


def side_vocabulary(side: Side, key: Hashable) -> Vocabulary:
    """The vocabulary of one side, its links' codes under `key`. The side's keys and key
    codes are let go."""
    sentences, rank = sorted_distinct([normalize_keys(side.keys.slice(start, CHUNK), side.lang)
                                       for start in range(0, len(side.keys), CHUNK)])
    codes = rank[side.codes]
    side.keys, side.codes = pa.array([], pa.large_string()), np.zeros(0, np.int32)
    return Vocabulary(side.lang, sentences, {key: codes})


def merged(first: Vocabulary, second: Vocabulary) -> Vocabulary:
    """The vocabulary of the sides of both (of one language); both are let go."""
    first_column, second_column = (TextColumn.of_arrow(vocabulary.sentences)
                                   for vocabulary in (first, second))
    first_buffers = first_column.offsets, first_column.data
    second_buffers = second_column.offsets, second_column.data
    first_rank, second_rank = np.empty(len(first), np.int32), np.empty(len(second), np.int32)
    origin = np.empty(len(first) + len(second), np.int32)
    count = merge_ranks(*first_buffers, *second_buffers, first_rank, second_rank, origin)
    offsets = np.empty(count + 1, np.int64)
    data = gather(origin[:count], *first_buffers, *second_buffers, offsets)
    sentences = TextColumn(offsets, data).arrow()
    codes = {key: first_rank[links] for key, links in first.codes.items()}
    codes.update((key, second_rank[links]) for key, links in second.codes.items())
    first.sentences = second.sentences = None
    first.codes, second.codes = {}, {}
    return Vocabulary(first.lang, sentences, codes)


@dataclass
class VocabularyMerger:
    """A language's side vocabularies merged as they are added, in pairs as a binary counter
    counts: a sentence is copied about log2(sides) times, and pending vocabularies hold each
    sentence at most that many times."""

    pending: list[tuple[int, Vocabulary]] = field(default_factory=list)

    def add(self, vocabulary: Vocabulary) -> None:
        sides = 1
        while self.pending and self.pending[-1][0] == sides:
            vocabulary = merged(self.pending.pop()[1], vocabulary)
            sides *= 2
        self.pending.append((sides, vocabulary))

    def result(self) -> Vocabulary:
        """The language's vocabulary over every side added (at least one)."""
        vocabulary = self.pending.pop()[1]
        while self.pending:
            vocabulary = merged(self.pending.pop()[1], vocabulary)
        return vocabulary
