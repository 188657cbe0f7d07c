"""Compiled kernels of the near-identical key (:func:`tapaco.normalize.near_identical_key`) and
filter (c), over code points, without the GIL.

A key is built from per-code-point tables (:class:`tapaco.normalize.NearIdenticalTables`): each
code point's case fold with punctuation and spaces dropped (at most three code points). A text
holding a code point the tables cannot decide alone (one NFKC changes, a combining mark, a
character that composes with the one before it) is left to the reference, reported by row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, hash_range, mixed, slot_of
from tapaco.core.utf8 import code_point_at

MAX_FOLDED = 3


@njit(nogil=True, cache=True)
def key_codes(codes, offsets, decidable, folded, folded_length):
    """The key code points of every row, the rows' offsets into them, and which rows hold a code
    point the tables do not decide (their key is left empty)."""
    rows = len(offsets) - 1
    keys = np.empty(MAX_FOLDED * len(codes), np.int32)
    key_offsets = np.zeros(rows + 1, np.int64)
    undecided = np.zeros(rows, np.bool_)
    out = 0
    for row in range(rows):
        start = out
        for at in range(offsets[row], offsets[row + 1]):
            code = codes[at]
            if code < 0 or not decidable[code]:
                undecided[row] = True
                out = start
                break
            for k in range(folded_length[code]):
                keys[out] = folded[code, k]
                out += 1
        key_offsets[row + 1] = out
    return keys[:out].copy(), key_offsets, undecided


@njit(nogil=True, cache=True)
def without_dropped(codes, offsets, dropped, as_they_are):
    """The code points of every row but those `dropped` marks (all of them in the rows
    `as_they_are` marks), and the rows' offsets into them."""
    rows = len(offsets) - 1
    kept = np.empty(len(codes), np.int32)
    kept_offsets = np.zeros(rows + 1, np.int64)
    out = 0
    for row in range(rows):
        for at in range(offsets[row], offsets[row + 1]):
            if as_they_are[row] or not dropped[codes[at]]:
                kept[out] = codes[at]
                out += 1
        kept_offsets[row + 1] = out
    return kept[:out].copy(), kept_offsets


@njit(nogil=True, cache=True)
def unknown_code_points(codes, known):
    """The distinct code points of `codes` not marked in `known`, ascending."""
    met = np.zeros(len(known), np.bool_)
    count = 0
    for code in codes:
        if not known[code] and not met[code]:
            met[code] = True
            count += 1
    found = np.empty(count, np.int64)  # (np.flatnonzero would compile on a first run)
    at = 0
    for code in range(len(met) if count else 0):
        if met[code]:
            found[at] = code
            at += 1
    return found


@njit(nogil=True, cache=True)
def first_of_each_key(codes, starts, ends, set_offsets):
    """Filter (c): True for the first row of each key (codes[starts[row]:ends[row]]) in its set
    (set k: rows set_offsets[k] to set_offsets[k + 1])."""
    keep = np.ones(len(starts), np.bool_)
    hashes = np.empty(len(starts), np.int64)
    table = np.empty(64, np.int64)
    for k in range(len(set_offsets) - 1):
        lo, hi = set_offsets[k], set_offsets[k + 1]
        size = 4
        while size < 2 * (hi - lo):
            size *= 2
        if size > len(table):
            table = np.empty(size, np.int64)
        slots = table[:size]
        slots[:] = -1
        for row in range(lo, hi):
            hashes[row] = hash_range(codes, starts[row], ends[row])
            slot = slot_of(slots, hashes, codes, starts, ends, hashes[row], codes, starts[row],
                           ends[row])
            if slots[slot] < 0:
                slots[slot] = row
            else:
                keep[row] = False
    return keep


@njit(nogil=True, cache=True)
def surface_hashes_of_utf8(data, offsets, replaced, replacement_offsets, replacements):
    """The hash of the surface key of every text (text k: the valid UTF-8
    `data[offsets[k]:offsets[k + 1]]`; each code point `replaced` marks stands for its
    replacement), the same in every interpreter. An ASCII byte is looked up in a table of its
    own (the large table is only read for the others)."""
    hashes = np.empty(len(offsets) - 1, np.int64)
    ascii_replaced = replaced[:128].copy()
    for row in range(len(offsets) - 1):
        value = FNV_OFFSET
        at = offsets[row]
        while at < offsets[row + 1]:
            code = np.int64(data[at])
            if code < 0x80:
                index = ascii_replaced[code]
                at += 1
            else:
                code, width = code_point_at(data, at)
                index = replaced[code]
                at += width
            if index < 0:
                value = fnv1a_step(value, code)
            else:
                for k in range(replacement_offsets[index], replacement_offsets[index + 1]):
                    value = fnv1a_step(value, np.int64(replacements[k]))
        hashes[row] = mixed(value)
    return hashes
