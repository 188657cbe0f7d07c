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
    process finishes one, without every language's copies in memory at once. Each language's
    sides are taken out of `sides_of` and let go when it is finished, and `finished` (if given)
    may then slim its vocabulary and free what else held its keys."""
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
    job.sides.clear()
    done[job.lang] = finished(vocabulary) if finished else vocabulary


class _Pending:
    """A vocabulary whose distinct keys are being normalised."""

    def __init__(self, lang: str, sides: dict[Hashable, Side], mapper: Mapper) -> None:
        self.lang, self.sides = lang, sides
        parts = list(sides.values())
        if len(parts) == 1:  # a bitext's keys are distinct already
            self.distinct, self.key_codes = parts[0].keys, None
        else:
            keys = pa.chunked_array([side.keys for side in parts],
                                    pa.large_string()).combine_chunks().dictionary_encode()
            self.distinct = keys.dictionary
            self.key_codes = keys.indices.to_numpy(zero_copy_only=False)
        # a slice would pickle its whole parent's buffers: each task gets a compact copy
        tasks = [(pa.concat_arrays([self.distinct.slice(start, CHUNK)]), lang)
                 for start in range(0, len(self.distinct), CHUNK)]
        self.normalized = mapper(_normalize_chunk, tasks)

    def finish(self) -> Vocabulary:
        chunks = list(self.normalized)
        normalized = pa.chunked_array(chunks or [[]], pa.large_string()).combine_chunks()
        sentences = normalized.dictionary_encode()
        order = pc.array_sort_indices(sentences.dictionary).to_numpy()
        rank = np.empty(len(order), np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        code_of_key = rank[sentences.indices.to_numpy(zero_copy_only=False)]
        if self.key_codes is not None:
            code_of_key = code_of_key[self.key_codes]
        codes, offset = {}, 0
        for name, side in self.sides.items():
            codes[name] = code_of_key[offset:offset + len(side.keys)][side.codes]
            offset += len(side.keys)
        return Vocabulary(self.lang, sentences.dictionary.take(pa.array(order)), codes)
