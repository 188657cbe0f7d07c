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

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from opusparcus.bitexts import RAW, TOKENIZED, Side
from opusparcus.normalize import normalize_sentences

CHUNK = 50_000
Mapper = Callable[[Callable, Iterable], Iterator]


def normalize_keys(keys: list[str], lang: str) -> list[str]:
    """Normalise distinct sentence keys: tokenised ones as they are, raw ones Moses-tokenised."""
    normalized = [""] * len(keys)
    for mark, tokenized in ((TOKENIZED, True), (RAW, False)):
        chosen = [i for i, key in enumerate(keys) if key[:1] == mark]
        texts = normalize_sentences([keys[i][1:] for i in chosen], lang, tokenized)
        for i, text in zip(chosen, texts):
            normalized[i] = text
    return normalized


def _normalize_chunk(task: tuple[list[str], str]) -> list[str]:
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


def build_vocabulary(lang: str, sides: dict[Hashable, Side], mapper: Mapper = map) -> Vocabulary:
    """The vocabulary of `lang` over `sides` (all of that language); `mapper` runs the
    normalisation of chunks of keys (`map`, or a process pool's)."""
    parts = list(sides.values())
    merged = pa.chunked_array([side.keys for side in parts], pa.large_string()).combine_chunks()
    keys = merged.dictionary_encode()
    distinct = keys.dictionary.to_pylist()
    tasks = [(distinct[start:start + CHUNK], lang) for start in range(0, len(distinct), CHUNK)]
    normalized = pa.array([text for chunk in mapper(_normalize_chunk, tasks) for text in chunk],
                          pa.large_string()).dictionary_encode()
    order = pc.array_sort_indices(normalized.dictionary).to_numpy()
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    code_of_key = rank[normalized.indices.to_numpy(zero_copy_only=False)][
        keys.indices.to_numpy(zero_copy_only=False)]
    codes, offset = {}, 0
    for name, side in sides.items():
        codes[name] = code_of_key[offset:offset + len(side.keys)][side.codes]
        offset += len(side.keys)
    return Vocabulary(lang, normalized.dictionary.take(pa.array(order)), codes)
