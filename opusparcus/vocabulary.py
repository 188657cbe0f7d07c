"""One vocabulary per language, shared by every bitext read: sentence keys to sentence codes.

Every distinct key of a language (its text, marked tokenised or raw; :mod:`opusparcus.bitexts`)
over all the bitexts read is normalised once, as the release identifies sentences
(:mod:`opusparcus.normalize`), in chunks spread over the worker processes; keys that normalise
alike become one sentence. A sentence's code is its rank in code-point order, so codes depend
only on the set of sentences, never on which bitexts were read, in which order, or where: the
sums over pairs then run in the same order in every run, and a ranking is byte-identical whether
its language was ranked alone or with others.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from opusparcus.bitexts import RAW, TOKENIZED, Side
from opusparcus.normalize import normalize_sentences
from tapaco.core.arrays import dictionary_encoded
from tapaco.core.memory import release_freed_memory

CHUNK = 50_000
Mapper = Callable[[Callable, Iterable], Iterator]


def normalize_keys(keys: pa.Array, lang: str) -> pa.Array:
    """Normalise distinct sentence keys: tokenised ones as they are, raw ones Moses-tokenised.

    Keys travel between processes as Arrow arrays (a few buffers to copy, no object per key);
    only the texts themselves become Python strings, here.
    """
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


def _normalize_chunk(task: tuple[pa.Array, str]) -> pa.Array:
    return normalize_keys(*task)


@dataclass
class Vocabulary:
    """The sentences of a language in code-point order (a sentence's code is its index) and,
    for every side given, the code of each of its links' sentences."""

    lang: str
    sentences: pa.Array
    codes: dict[Hashable, np.ndarray]

    def __len__(self) -> int:
        return len(self.sentences)


def build_vocabularies(sides_of: dict[str, dict[Hashable, Side]], mapper: Mapper = map,
                       finished: Callable[[Vocabulary], Vocabulary] | None = None,
                       window: int = 2) -> dict[str, Vocabulary]:
    """The vocabulary of every language over its sides, in the order of `sides_of`; `mapper`
    runs the normalisation of chunks of keys (`map`, or a process pool's). At most `window`
    languages are under way at once, so the workers normalise the next language while this
    process finishes one, without every language's copies in memory at once.

    The sides are consumed: each one's keys are emptied as soon as its language's distinct
    keys exist, and its key codes once its sentence codes do (the objects are shared with the
    bitexts they came from, which are slimmed with them). `finished` (if given) may then slim
    the vocabulary itself."""
    done: dict[str, Vocabulary] = {}
    pending: deque[_Pending] = deque()
    for lang in list(sides_of):
        pending.append(_Pending(lang, sides_of.pop(lang), mapper))
        if len(pending) >= window:
            _finish(pending.popleft(), done, finished)
    while pending:
        _finish(pending.popleft(), done, finished)
    return done


def _finish(job: _Pending, done: dict[str, Vocabulary],
            finished: Callable[[Vocabulary], Vocabulary] | None) -> None:
    vocabulary = job.finish()
    done[job.lang] = finished(vocabulary) if finished else vocabulary


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


def _compact_chunks(distinct: pa.Array, lang: str) -> Iterator[tuple[pa.Array, str]]:
    # a slice would pickle its whole parent's buffers: each task gets a compact copy, made
    # only when the task is sent
    for start in range(0, len(distinct), CHUNK):
        yield pa.concat_arrays([distinct.slice(start, CHUNK)]), lang


class _Pending:
    """A vocabulary whose distinct keys are being normalised."""

    def __init__(self, lang: str, sides: dict[Hashable, Side], mapper: Mapper) -> None:
        self.lang, self.sides = lang, sides
        parts = list(sides.values())
        self.lengths = [len(side.keys) for side in parts]
        if len(parts) == 1:  # a bitext's keys are distinct already
            self.distinct, self.key_codes = parts[0].keys, None
        else:
            self.distinct, self.key_codes = dictionary_encoded([side.keys for side in parts])
        for side in parts:
            side.keys = pa.array([], pa.large_string())
        release_freed_memory()
        self.normalized = mapper(_normalize_chunk, _compact_chunks(self.distinct, lang))

    def finish(self) -> Vocabulary:
        self.distinct = None
        sentences, code_of_key = sorted_distinct(list(self.normalized))
        release_freed_memory()
        if self.key_codes is not None:
            code_of_key = code_of_key[self.key_codes]
            self.key_codes = None
        codes, offset = {}, 0
        for (name, side), length in zip(self.sides.items(), self.lengths):
            codes[name] = code_of_key[offset:offset + length][side.codes]
            side.codes = np.zeros(0, np.int32)
            offset += length
        self.sides.clear()
        return Vocabulary(self.lang, sentences, codes)
