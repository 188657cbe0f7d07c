"""Fast array helpers: lexicographic orderings, group boundaries, per-key sums in row order,
integer codes of strings, and a pause of the garbage collector around bulk object building.

numpy's argsort/lexsort on int64 is several times slower than sorting one uint64 array, so the
keys are packed, with the row index, into one uint64 per row and sorted; the row index in the
low bits makes the order stable and gives the permutation back. Keys too wide for one word are
sorted a block of keys at a time, last block first (a stable radix sort by blocks).

Strings are grouped through their 64-bit hashes (fast to factorize), and every row that shares
a code with an earlier row is checked to hold the same string, so a hash collision can never
merge two different strings: it makes the exact (slower) path run instead.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tapaco.core.forked import map_on_threads
from tapaco.core.hashing import first_occurrences
from tapaco.core.text_column import TextColumn


def _sorted_packed(keys: list[np.ndarray], widths: list[int], low: np.ndarray,
                   low_bits: int) -> np.ndarray:
    """The keys (shifted to start at 0) packed above `low` in its `low_bits` bits, one uint64
    a row, sorted; what the low bits then hold."""
    packed = low.astype(np.uint64)
    shift = low_bits
    for key, width in zip(keys[::-1], widths[::-1]):
        shifted = key.astype(np.uint64)
        shifted <<= np.uint64(shift)
        packed |= shifted
        del shifted
        shift += width
    packed.sort()
    packed &= np.uint64((1 << low_bits) - 1)
    return packed.view(np.int64)


def _from_zero(key: np.ndarray, low: int) -> np.ndarray:
    return key - low if low else key


def lexicographic_order(*keys: np.ndarray) -> np.ndarray:
    """Row indexes sorted by keys[0], then keys[1], ..., then row index (non-negative keys).

    Keys too wide to pack together with the row index are sorted in blocks that fit, last
    block first, each a stable packed sort of the order so far (a radix sort by blocks)."""
    count = len(keys[0])
    index_bits = max(count - 1, 0).bit_length()
    keys = [np.asarray(key, np.int64) for key in keys]
    lows = [int(key.min()) if count else 0 for key in keys]
    widths = [(int(key.max()) - low).bit_length() if count else 0
              for key, low in zip(keys, lows)]
    if max(widths, default=0) + index_bits > 64:
        return np.lexsort([np.arange(count)] + [key - low for key, low in zip(keys, lows)][::-1])
    blocks: list[list[int]] = [[]]
    for number in reversed(range(len(keys))):
        if sum(widths[k] for k in blocks[-1]) + widths[number] + index_bits > 64:
            blocks.append([])
        blocks[-1].insert(0, number)
    order = None
    for block in blocks:
        picked = [_from_zero(keys[k] if order is None else keys[k][order], lows[k])
                  for k in block]
        step = _sorted_packed(picked, [widths[k] for k in block], np.arange(count), index_bits)
        del picked
        order = step if order is None else order[step]
    return order


def _even_spans(count: int, pieces: int) -> list[tuple[int, int]]:
    cuts = (np.arange(pieces + 1) * count // max(pieces, 1)).tolist()
    return list(zip(cuts[:-1], cuts[1:]))


def _packed(order: np.ndarray, major: np.ndarray, minor: np.ndarray, minor_bits: int,
            position_bits: int, workers: int) -> np.ndarray:
    """(major + 1, minor, position in `order`) of each row of `order` in one word, a run of
    rows on each of `workers` threads (numpy's gathers release the GIL)."""
    packed = np.empty(len(order), np.uint64)

    def pack(span: tuple[int, int]) -> None:
        start, end = span
        rows, part = order[start:end], packed[start:end]
        np.add(major[rows], 1, out=part.view(np.int64), casting="unsafe")
        part <<= np.uint64(minor_bits)
        part |= minor[rows].astype(np.uint64)
        part <<= np.uint64(position_bits)
        part |= np.arange(start, end, dtype=np.uint64)

    map_on_threads(pack, _even_spans(len(order), workers), workers)
    return packed


def grouped_order(order: np.ndarray, major: np.ndarray, minor: np.ndarray,
                  workers: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`order` (every row once) stably sorted by (major key, minor key) (non-negative), rows
    with a negative major key left out; with each row's major key and the number of its
    (major, minor) group, from 0.

    Where they fit in a word, (major + 1, minor, position in `order`) are packed (on `workers`
    threads) and sorted; the keys and groups are read back from the sorted words: the rows are
    gathered once in the sorted order (on `workers` threads), the keys never."""
    count = len(order)
    minor_bits = int(minor.max(initial=0)).bit_length()
    position_bits = max(count - 1, 0).bit_length()
    if (int(major.max(initial=0)) + 1).bit_length() + minor_bits + position_bits > 64:
        major, minor = major[order], minor[order]
        kept = np.flatnonzero(major >= 0)
        at = kept[lexicographic_order(major[kept], minor[kept])]
        return order[at], major[at], np.cumsum(group_starts(major[at], minor[at])) - 1
    packed = _packed(order, major, minor, minor_bits, position_bits, workers)
    packed.sort()
    packed = packed[np.searchsorted(packed, np.uint64(1 << (minor_bits + position_bits))):]
    rows = np.empty(len(packed), order.dtype)

    def gather(span: tuple[int, int]) -> None:
        start, end = span
        positions = packed[start:end] & np.uint64((1 << position_bits) - 1)
        # "clip": with the default "raise", numpy buffers `out` (the positions are all valid)
        np.take(order, positions.view(np.int64), out=rows[start:end], mode="clip")

    map_on_threads(gather, _even_spans(len(packed), workers), workers)
    packed >>= np.uint64(position_bits)
    group = np.cumsum(group_starts(packed)) - 1
    packed >>= np.uint64(minor_bits)
    return rows, packed.view(np.int64) - 1, group


def group_starts(*sorted_keys: np.ndarray) -> np.ndarray:
    """Boolean array: True where any key differs from the previous row (rows already sorted)."""
    count = len(sorted_keys[0])
    starts = np.zeros(count, bool)
    if count:
        starts[0] = True
        for key in sorted_keys:
            starts[1:] |= key[1:] != key[:-1]
    return starts


def group_offsets(groups: np.ndarray) -> np.ndarray:
    """Run k of equal neighbouring values is rows offsets[k] to offsets[k + 1]."""
    groups = np.asarray(groups)
    return np.r_[np.flatnonzero(group_starts(groups)), len(groups)].astype(np.int64)


def group_chunks(offsets: np.ndarray, size: int) -> list[tuple[int, int]]:
    """(first, last) run numbers of consecutive chunks of about `size` rows (runs as given by
    :func:`group_offsets`): chunk (first, last) is runs first to last - 1, whole; a run larger
    than `size` is a chunk of its own."""
    chunks, first, runs = [], 0, len(offsets) - 1
    while first < runs:
        last = int(np.searchsorted(offsets, offsets[first] + size, "right")) - 1
        last = min(max(last, first + 1), runs)
        chunks.append((first, last))
        first = last
    return chunks


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending: a sort and a comparison of neighbours (np.unique hashes
    first, several times slower on millions of integers here)."""
    ordered = np.sort(values, axis=None)
    return ordered[group_starts(ordered)]


def code_points(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The texts as one int32 array of code points (lone surrogates included) and the rows'
    offsets into it: what the compiled kernels read."""
    if isinstance(texts, TextColumn):
        return texts.code_points()
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), np.int32)
    return codes, offsets


def string_codes(strings: Sequence[str]) -> np.ndarray:
    """Codes 0..k-1 in order of first appearance; equal codes exactly when strings are equal."""
    hashes = np.fromiter(map(hash, strings), np.int64, len(strings))
    codes, _ = first_occurrences(hashes)
    first = np.full(len(codes) and codes.max() + 1, -1, np.int64)
    rows = np.arange(len(codes))
    first[codes[::-1]] = rows[::-1]
    repeated = np.flatnonzero(first[codes] != rows)
    leaders = first[codes[repeated]].tolist()
    if all(strings[row] == strings[leader] for row, leader in zip(repeated.tolist(), leaders)):
        return codes
    return distinct_strings(strings)[0]


def distinct_strings(strings: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Each string's code 0..k-1 in order of first appearance, and the k distinct strings."""
    numbers: dict[str, int] = {}
    codes = np.array([numbers.setdefault(string, len(numbers)) for string in strings], np.int64)
    return codes, list(numbers)


def ordered_group_sums(keys: np.ndarray,
                       *values: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Distinct keys (sorted), how many rows each has, and per value array the sum of each key's
    values. A key's values are summed in the order its rows come (a stable sort keeps it), by
    `np.add.reduceat` over that key's run alone, so the sum depends on nothing but that run: any
    subset of rows holding all of a key's rows in the same order gives the same sum to the last
    bit. (pandas' groupby sum does not: a frame with a single key takes another path and can
    differ in the last bit.)"""
    if not len(keys):
        return keys[:0], np.zeros(0, np.int64), [value[:0].astype(np.float64) for value in values]
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(group_starts(sorted_keys))
    sizes = np.diff(np.append(starts, len(keys)))
    return sorted_keys[starts], sizes, [np.add.reduceat(value[order], starts) for value in values]


def dictionary_encoded(chunks: list[pa.Array]) -> tuple[pa.Array, np.ndarray]:
    """The distinct strings of `chunks` in order of first appearance, and each string's index
    among them (int32), without concatenating the chunks first."""
    encoded = pc.dictionary_encode(pa.chunked_array(chunks, pa.large_string()))
    if not encoded.num_chunks:  # empty chunks are dropped
        return pa.array([], pa.large_string()), np.zeros(0, np.int32)
    return encoded.chunk(0).dictionary, np.concatenate(
        [chunk.indices.to_numpy(zero_copy_only=False) for chunk in encoded.chunks])


@contextmanager
def garbage_collector_paused() -> Iterator[None]:
    """Millions of long-lived strings make every full collection slower; none form cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
