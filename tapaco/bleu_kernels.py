"""Compiled kernels of TaPaCo's BLEU filter (:mod:`tapaco.bleu`), over code points, without the GIL.

Tokens arrive as exact ids from the 13a kernel (:mod:`tapaco.core.tokenize_13a_kernels`).
:func:`keep_walk`: TaPaCo's walk over each set, with the clipped n-gram matches of a pair
counted on sorted n-gram ids and the score computed with sacrebleu's float operations; pairs
scoring within a tolerance of the threshold are reported, so the caller can check them against
sacrebleu itself.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tapaco.core.hashing import mixed, slot_of
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.ranges import copy_into

MAX_ORDER = 4
SMOOTH_VALUE = 0.1
TOLERANCE = 1e-6
NEAR_FIELDS = 9  # ref, hyp, four matches, hyp length, ref length, over (as the kernel decided)


@kernel_helper
def _set_grams(ids, id_offsets, lo, hi, grams, hashes, table, no_ranges):
    """Ids of the n-grams of order 1..4 of rows lo..hi (one set), at their first token relative
    to the set's first token, each row's ids of each order sorted; exact within the set (an
    n-gram is its (n-1)-gram's id and its last token, numbered in a table of those keys, which
    `no_ranges`, zeros, make integer keys)."""
    base = id_offsets[lo]
    tokens = id_offsets[hi] - base
    size = 64
    while size < 2 * tokens:
        size *= 2
    copy_into(grams[0], np.int64(0), ids[base:base + tokens])
    slots = table[:size]
    nothing = np.int64(0)
    for order in range(1, MAX_ORDER):
        slots[:] = -1
        count = 0
        for row in range(lo, hi):
            for at in range(id_offsets[row] - base, id_offsets[row + 1] - base - order):
                value = mixed(np.uint64((grams[order - 1, at] << 32) | ids[base + at + order]))
                slot = slot_of(slots, hashes, no_ranges, no_ranges, no_ranges, value, no_ranges,
                               nothing, nothing)
                if slots[slot] < 0:
                    hashes[count] = value
                    slots[slot] = count
                    count += 1
                grams[order, at] = slots[slot]
    for order in range(MAX_ORDER):
        for row in range(lo, hi):
            _sort_small(grams[order], id_offsets[row] - base, id_offsets[row + 1] - base - order)


@kernel_helper
def _sort_small(values, lo, hi) -> None:
    """Sort values[lo:hi] in place: a sentence's n-grams, by Shell's sort with Knuth's gaps
    (insertion sort for a few; numpy's sort would compile a general one on the first run)."""
    gap = 1
    while gap < (hi - lo) // 3:
        gap = 3 * gap + 1
    while gap:
        for i in range(lo + gap, hi):
            value = values[i]
            j = i
            while j - gap >= lo and values[j - gap] > value:
                values[j] = values[j - gap]
                j -= gap
            values[j] = value
        gap //= 3


@kernel_helper
def _common(values, i, i_end, j, j_end) -> int:
    """Size of the multiset intersection of the sorted values[i:i_end] and values[j:j_end]
    (clipped matches)."""
    found = 0
    while i < i_end and j < j_end:
        if values[i] < values[j]:
            i += 1
        elif values[i] > values[j]:
            j += 1
        else:
            found += 1
            i += 1
            j += 1
    return found


@kernel_helper
def bleu_score(correct, hyp_len: int, ref_len: int) -> float:
    """sacrebleu's BLEU.compute_bleu with floor smoothing and effective order, in its float
    operations and their order."""
    bp = 1.0
    if hyp_len < ref_len:
        bp = math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0
    if correct[0] == 0:  # no unigram matched: none matched
        return 0.0
    log_sum = 0.0
    order = 0
    for n in range(1, MAX_ORDER + 1):
        total = hyp_len - n + 1
        if total <= 0:
            break
        order = n
        if correct[n - 1] == 0:
            log_sum += math.log(100. * SMOOTH_VALUE / total)
        else:
            log_sum += math.log(100. * correct[n - 1] / total)
    return bp * math.exp(log_sum / order)


@njit(nogil=True, cache=True)
def keep_walk(ids, id_offsets, set_offsets, max_bleu):
    """TaPaCo's filter over sets of rows (set k: rows set_offsets[k] to set_offsets[k + 1]):
    a row is dropped when its BLEU as hypothesis against an earlier kept row of its set, as
    reference, exceeds `max_bleu`. Returns the keep mask and the pairs scored within TOLERANCE
    of `max_bleu` (NEAR_FIELDS columns)."""
    rows = len(id_offsets) - 1
    keep = np.ones(rows, np.bool_)
    near = np.empty((16, NEAR_FIELDS), np.int64)
    n_near = 0
    correct = np.zeros(MAX_ORDER, np.int64)
    largest = 1
    for k in range(len(set_offsets) - 1):
        largest = max(largest, id_offsets[set_offsets[k + 1]] - id_offsets[set_offsets[k]])
    grams = np.empty((MAX_ORDER, largest), np.int64)
    table = 64
    while table < 2 * largest:
        table *= 2
    hashes = np.empty(table, np.int64)
    slots = np.empty(table, np.int64)
    no_ranges = np.zeros(table, np.int64)
    for k in range(len(set_offsets) - 1):
        lo, hi = set_offsets[k], set_offsets[k + 1]
        if hi - lo < 2:
            continue
        _set_grams(ids, id_offsets, lo, hi, grams, hashes, slots, no_ranges)
        base = id_offsets[lo]
        for hyp in range(lo + 1, hi):
            hyp_len = id_offsets[hyp + 1] - id_offsets[hyp]
            for ref in range(lo, hyp):
                if not keep[ref]:
                    continue
                ref_len = id_offsets[ref + 1] - id_offsets[ref]
                for order in range(MAX_ORDER):
                    correct[order] = _common(
                        grams[order], id_offsets[hyp] - base, id_offsets[hyp + 1] - base - order,
                        id_offsets[ref] - base, id_offsets[ref + 1] - base - order)
                score = bleu_score(correct, hyp_len, ref_len)
                over = score > max_bleu
                if abs(score - max_bleu) <= TOLERANCE:
                    if n_near == len(near):
                        grown = np.empty((2 * len(near), NEAR_FIELDS), np.int64)
                        for row in range(n_near):
                            copy_into(grown[row], np.int64(0), near[row])
                        near = grown
                    near[n_near, 0] = ref
                    near[n_near, 1] = hyp
                    copy_into(near[n_near], np.int64(2), correct)
                    near[n_near, 6] = hyp_len
                    near[n_near, 7] = ref_len
                    near[n_near, 8] = over
                    n_near += 1
                if over:
                    keep[hyp] = False
                    break
    return keep, near[:n_near].copy()
