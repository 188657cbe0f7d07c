"""Compiled kernels of the edit distances (:mod:`opusparcus.edit_distance`), over code points,
without the GIL.

Both distances run Myers' bit-parallel algorithm in Hyyrö's blocked form: the shorter sentence
(the pattern, m code points) is cut into blocks of 64, one machine word per block and position
of the longer one (the text, n code points), so a pair costs ceil(m / 64) x n word steps. The
blocks are taken a strip of :data:`STRIP_BLOCKS` at a time across the whole text, each strip
handing the horizontal deltas of its bottom row to the next: a strip's bit masks then have a
row per distinct code point of its 2,048 at most, whatever the alphabet. The plain
(Levenshtein) distance charges the text's first characters (the top row counts up) and drops
the pair's common prefix and suffix first; the adjusted distance lets the pattern start and end
anywhere in the text (the top row stays 0, the best bottom cell wins).

:func:`advance` does a bounded amount of work a call and keeps where it stopped in a
:class:`Workspace`'s arrays, inside a pair too, so that its caller can be interrupted between
calls (:mod:`tapaco.core.interruptible`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.kernel_helper import kernel_helper

STRIP_BLOCKS = 32
_STRIP = 64 * STRIP_BLOCKS
_CODES = 0x110000
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)

# The cursor's fields: where advance() is, and the pair in progress.
ROW, STRIP, COLUMN, SCORE, BEST, SWAPPED, PATTERN_FROM, PATTERN_TO, TEXT_FROM, TEXT_TO = range(10)


class Workspace:
    """What :func:`advance` keeps between calls: the distances found, the cursor, the code
    points' rows in the strip's masks, the masks, the strip's vertical deltas and the deltas
    handed from strip to strip (`longest`: the longest sentence of a pair)."""

    def __init__(self, rows: int, longest: int) -> None:
        self.found = np.zeros(rows, np.int64)
        self.cursor = np.zeros(10, np.int64)
        self.cursor[STRIP] = -1
        self.table = np.zeros(_CODES, np.int16)
        self.masks = np.empty((_STRIP + 1, STRIP_BLOCKS), np.uint64)
        self.vertical = np.empty((2, STRIP_BLOCKS), np.uint64)
        self.carry = np.zeros(longest if longest > _STRIP else 0, np.int8)

    def arrays(self) -> tuple:
        return self.found, self.cursor, self.table, self.masks, self.vertical, self.carry


@kernel_helper
def _masks(pattern, start, end, table, masks) -> None:
    """For each distinct code point of pattern[start:end]: its row in `masks` (table[code],
    from 1; row 0 stays empty for the others) and there the bits of its positions."""
    blocks = (end - start + 63) // 64
    rows = 0
    for at in range(start, end):
        code = pattern[at]
        row = table[code]
        if row == 0:
            rows += 1
            row = rows
            table[code] = row
            masks[row, :blocks] = 0
        masks[row, (at - start) >> 6] |= _ONE << np.uint64((at - start) & 63)
    masks[0, :blocks] = 0


@kernel_helper
def _forget(pattern, start, end, table) -> None:
    for at in range(start, end):
        table[pattern[at]] = 0


@kernel_helper
def _block(equal, positive, negative, plus, minus, high):
    """One block of 64 pattern positions at one text position (Hyyrö's step): the new vertical
    deltas, and the horizontal delta leaving its bottom (bit `high`) given the one entering its
    top (`plus`, `minus`: 1 or 0 each)."""
    vertical = equal | negative
    equal |= minus
    horizontal = (((equal & positive) + positive) ^ positive) | equal
    horizontal_plus = negative | ~(horizontal | positive)
    horizontal_minus = positive & horizontal
    out_plus = (horizontal_plus >> high) & _ONE
    out_minus = (horizontal_minus >> high) & _ONE
    horizontal_plus = (horizontal_plus << _ONE) | plus
    horizontal_minus = (horizontal_minus << _ONE) | minus
    return (horizontal_minus | ~(vertical | horizontal_plus), horizontal_plus & vertical,
            out_plus, out_minus)


@kernel_helper
def _strip(text, begin, end, table, masks, blocks, high, positive, negative, top, carry, reads,
           writes, score, best):
    """Run a strip of `blocks` (their bit masks `masks[table[code]]`) over text[begin:end]. The
    horizontal delta entering its top row is `top` (1 or 0: the first strip), or what the strip
    above left in `carry` (`reads`); the one leaving its bottom row (bit `high` of the last
    block) goes to `carry` for the strip below (`writes`), and the bottom row's value (`score`)
    and least value so far (`best`) are returned."""
    last = blocks - 1
    for at in range(begin, end):
        equal = masks[table[text[at]]]
        change = carry[at] if reads else top
        plus = np.uint64(change > 0)
        minus = np.uint64(change < 0)
        for block in range(last):
            positive[block], negative[block], plus, minus = _block(
                equal[block], positive[block], negative[block], plus, minus, np.uint64(63))
        positive[last], negative[last], plus, minus = _block(
            equal[last], positive[last], negative[last], plus, minus, high)
        change = np.int64(plus) - np.int64(minus)
        if writes:
            carry[at] = change
        score += change
        best = min(best, score)
    return score, best


@kernel_helper
def _one_word(pattern, text, table, masks, infix) -> int:
    """The distance of a pattern of 1 to 64 code points: one block, its deltas in registers."""
    _masks(pattern, np.int64(0), len(pattern), table, masks)
    high = np.uint64(len(pattern) - 1)
    top = np.uint64(0 if infix else 1)
    positive, negative = _ONES, np.uint64(0)
    score = best = len(pattern)
    for code in text:
        positive, negative, plus, minus = _block(masks[table[code], 0], positive, negative, top,
                                                 np.uint64(0), high)
        score += np.int64(plus) - np.int64(minus)
        best = min(best, score)
    _forget(pattern, np.int64(0), len(pattern), table)
    return best if infix else score


@kernel_helper
def _start_pair(codes_a, offsets_a, codes_b, offsets_b, infix, row, found, cursor, table,
                masks) -> bool:
    """Set the cursor on pair `row`: which side is the pattern, and for the plain distance the
    common prefix and suffix left out. False when the pair needs no strip (its distance is
    written: an empty pattern, or one of one word)."""
    a_from, a_to = offsets_a[row], offsets_a[row + 1]
    b_from, b_to = offsets_b[row], offsets_b[row + 1]
    if not infix:
        while a_from < a_to and b_from < b_to and codes_a[a_from] == codes_b[b_from]:
            a_from += 1
            b_from += 1
        while a_from < a_to and b_from < b_to and codes_a[a_to - 1] == codes_b[b_to - 1]:
            a_to -= 1
            b_to -= 1
    swapped = a_to - a_from > b_to - b_from
    if swapped:
        a_from, a_to, b_from, b_to = b_from, b_to, a_from, a_to
    if a_from == a_to:
        found[row] = 0 if infix else b_to - b_from
        return False
    if a_to - a_from <= 64:
        pattern, text = (codes_b, codes_a) if swapped else (codes_a, codes_b)
        found[row] = _one_word(pattern[a_from:a_to], text[b_from:b_to], table, masks, infix)
        return False
    cursor[SWAPPED] = swapped
    cursor[PATTERN_FROM], cursor[PATTERN_TO] = a_from, a_to
    cursor[TEXT_FROM], cursor[TEXT_TO] = b_from, b_to
    cursor[STRIP], cursor[COLUMN] = 0, 0
    cursor[SCORE] = cursor[BEST] = a_to - a_from
    return True


@kernel_helper
def _go_on(codes_a, codes_b, infix, cursor, table, masks, vertical, carry, budget) -> int:
    """Go on with the pair at the cursor for about `budget` word steps (a text position at
    least); the steps spent. The cursor's strip is -1 again when the pair is done."""
    pattern, text = (codes_b, codes_a) if cursor[SWAPPED] else (codes_a, codes_b)
    text = text[cursor[TEXT_FROM]:cursor[TEXT_TO]]
    strip_from = cursor[PATTERN_FROM] + cursor[STRIP] * _STRIP
    strip_to = min(cursor[PATTERN_TO], strip_from + _STRIP)
    blocks = (strip_to - strip_from + 63) // 64
    spent = 0
    if cursor[COLUMN] == 0:
        _masks(pattern, strip_from, strip_to, table, masks)
        vertical[0, :blocks] = _ONES
        vertical[1, :blocks] = 0
        spent += strip_to - strip_from
    begin = cursor[COLUMN]
    end = min(len(text), begin + max(1, (budget - spent) // blocks))
    final = strip_to == cursor[PATTERN_TO]
    score, best = _strip(text, begin, end, table, masks, blocks,
                         np.uint64((strip_to - strip_from - 1) & 63), vertical[0], vertical[1],
                         0 if infix else 1, carry, cursor[STRIP] > 0, not final, cursor[SCORE],
                         cursor[BEST])
    if final:  # its bottom row is the pattern's last
        cursor[SCORE], cursor[BEST] = score, best
    cursor[COLUMN] = end
    if end == len(text):
        _forget(pattern, strip_from, strip_to, table)
        cursor[STRIP] = -1 if final else cursor[STRIP] + 1
        cursor[COLUMN] = 0
    return spent + (end - begin) * blocks


@njit(nogil=True, cache=True)
def advance(codes_a, offsets_a, codes_b, offsets_b, infix, found, cursor, table, masks,
            vertical, carry, budget) -> bool:
    """Go on with the distances of the pairs (row k: codes_a[offsets_a[k]:offsets_a[k + 1]] and
    the same of b; `infix`: the adjusted distance, else Levenshtein) from `cursor`, into
    `found`, for about `budget` word steps. True when every pair is done."""
    rows = len(offsets_a) - 1
    spent = 0
    while cursor[ROW] < rows and spent < budget:
        row = cursor[ROW]
        if cursor[STRIP] < 0:
            spent += 16 + offsets_a[row + 1] - offsets_a[row] + offsets_b[row + 1] - offsets_b[row]
            if not _start_pair(codes_a, offsets_a, codes_b, offsets_b, infix, row, found, cursor,
                               table, masks):
                cursor[ROW] += 1
                continue
        spent += _go_on(codes_a, codes_b, infix, cursor, table, masks, vertical, carry,
                        budget - spent)
        if cursor[STRIP] < 0:
            found[row] = cursor[BEST] if infix else cursor[SCORE]
            cursor[ROW] += 1
    return cursor[ROW] == rows
