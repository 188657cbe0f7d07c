"""sacrebleu's 13a and zh tokenizers as a compiled kernel over code points, without the GIL: the
tokens of every row as exact ids (:func:`tokenize_13a`), for TaPaCo's BLEU filter and the
paraphrase score. Each of 13a's replacements and regular expressions runs pass by pass as
sacrebleu applies them, then its whitespace split; zh sets Chinese characters apart by spaces,
then runs 13a's regular expressions. The wrapper is :mod:`tapaco.core.tokenize_13a`.

Texts arrive as one int32 array of code points with row offsets (`str.encode("utf-32-le")`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.characters import is_whitespace
from tapaco.core.hashing import hash_range, slot_of, slots_for
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.ranges import copy_into, equal_ranges

_SKIPPED = np.array([ord(c) for c in "<skipped>"], np.int32)
_DASH_NEWLINE = np.array([ord("-"), ord("\n")], np.int32)
_NEWLINE = np.array([ord("\n")], np.int32)
_SPACE = np.array([ord(" ")], np.int32)
_NOTHING = np.zeros(0, np.int32)
_ENTITIES = tuple((np.array([ord(c) for c in entity], np.int32), np.array([ord(char)], np.int32))
                  for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"),
                                       ("&gt;", ">")))
# 13a's first regex, [\{-\~\[-\` -\&\(-\+\:-\@\/]: characters set apart by spaces
_ISOLATED = np.zeros(128, np.bool_)
for _low, _high in ((ord("{"), ord("~")), (ord("["), ord("`")), (ord(" "), ord("&")),
                    (ord("("), ord("+")), (ord(":"), ord("@")), (ord("/"), ord("/"))):
    _ISOLATED[_low:_high + 1] = True
# sacrebleu zh's Chinese characters: its ranges as Python compares one character with their
# bounds; two bounds are written as two characters (u'\u20000', u'\u2f800'), which makes those
# ranges U+2001..U+2A6D and U+2F81..U+2FA1
_CHINESE = np.zeros(0x10000, np.bool_)
for _low, _high in ((0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D),
                    (0xFA30, 0xFA6A), (0xFA70, 0xFAD9), (0x2001, 0x2A6D), (0x2F81, 0x2FA1),
                    (0xFF00, 0xFFEF), (0x2E80, 0x2EFF), (0x3000, 0x303F), (0x31C0, 0x31EF),
                    (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F), (0x31A0, 0x31BF),
                    (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0x2600, 0x26FF), (0x2700, 0x27BF),
                    (0x3200, 0x32FF), (0x3300, 0x33FF)):
    _CHINESE[_low:_high + 1] = True
TOKENIZERS = {"13a": 0, "zh": 1}  # the kernel's `tokenizer` codes


@kernel_helper
def _replace(source, length, old, new, target) -> int:
    """str.replace(old, new) of source[:length] into target; the new length."""
    out = np.int64(0)
    i = np.int64(0)
    while i < length:
        if source[i] == old[0] and i + len(old) <= length \
                and equal_ranges(source, i, i + len(old), old, np.int64(0), len(old)):
            out = copy_into(target, out, new)
            i += len(old)
        else:
            target[out] = source[i]
            out += 1
            i += 1
    return out


@kernel_helper
def _is_digit(code: int) -> bool:
    return 48 <= code <= 57


@kernel_helper
def _is_period_or_comma(code: int) -> bool:
    return code == 46 or code == 44


@kernel_helper
def _isolate(source, length, isolated, target) -> int:
    """13a's first regex (or zh's Chinese characters): ' c ' for every character c of the set
    (`isolated[c]`)."""
    out = 0
    for i in range(length):
        code = source[i]
        if code < len(isolated) and isolated[code]:
            target[out] = 32
            target[out + 1] = code
            target[out + 2] = 32
            out += 3
        else:
            target[out] = code
            out += 1
    return out


@kernel_helper
def _split_pairs(source, length, rule, target) -> int:
    """One of 13a's regexes on two characters, matched left to right without overlap as re.sub
    does: rule 0 ([^0-9])([\\.,]) -> '\\1 \\2 ', rule 1 ([\\.,])([^0-9]) -> ' \\1 \\2', rule 2
    ([0-9])(-) -> '\\1 \\2 '."""
    out = 0
    i = 0
    while i < length:
        if i + 1 < length:
            first, second = source[i], source[i + 1]
            if rule == 0:
                match = not _is_digit(first) and _is_period_or_comma(second)
            elif rule == 1:
                match = _is_period_or_comma(first) and not _is_digit(second)
            else:
                match = _is_digit(first) and second == 45
            if match:
                if rule == 1:
                    target[out] = 32
                    target[out + 1] = first
                    target[out + 2] = 32
                    target[out + 3] = second
                else:
                    target[out] = first
                    target[out + 1] = 32
                    target[out + 2] = second
                    target[out + 3] = 32
                out += 4
                i += 2
                continue
        target[out] = source[i]
        out += 1
        i += 1
    return out


@kernel_helper
def _tokenized_13a(codes, isolated, has, one, other) -> tuple:
    """sacrebleu's 13a of one line (rstripped as BLEU does): the buffer and length holding the
    tokenized text before its whitespace split (`one` and `other` are scratch buffers). A
    replacement runs only where the line holds its first character (`has`: scratch flags)."""
    length = len(codes)
    while length and is_whitespace(codes[length - 1]):
        length -= 1
    has[:] = False
    for code in codes[:length]:
        if code < 128:
            has[code] = True
    copy_into(one, np.int64(0), codes[:length])
    source, target = one, other
    if has[60]:  # '<'
        length = _replace(source, length, _SKIPPED, _NOTHING, target)
        source, target = target, source
    if has[10]:  # '\n'
        length = _replace(source, length, _DASH_NEWLINE, _NOTHING, target)
        length = _replace(target, length, _NEWLINE, _SPACE, source)
    if has[38]:  # '&'
        for entity, char in _ENTITIES:
            length = _replace(source, length, entity, char, target)
            source, target = target, source
    target[0] = 32
    copy_into(target, np.int64(1), source[:length])
    target[length + 1] = 32
    length = _isolate(target, length + 2, isolated, source)
    source, target = target, source
    for rule in range(3):
        if (has[45] if rule == 2 else has[44] or has[46]):  # '-', ',' or '.'
            length = _split_pairs(target, length, rule, source)
            source, target = target, source
    return target, length


@kernel_helper
def _tokenized_zh(codes, chinese, isolated, one, other) -> tuple:
    """sacrebleu's zh of one line (right-stripped as BLEU does, then stripped): each Chinese
    character set apart by spaces, then 13a's regular expressions; the buffer and length
    holding the text before its whitespace split (`one` and `other` are scratch buffers)."""
    start, end = 0, len(codes)
    while end > start and is_whitespace(codes[end - 1]):
        end -= 1
    while start < end and is_whitespace(codes[start]):
        start += 1
    length = _isolate(codes[start:end], end - start, chinese, one)
    length = _isolate(one, length, isolated, other)
    source, target = other, one
    for rule in range(3):
        length = _split_pairs(source, length, rule, target)
        source, target = target, source
    return source, length


@kernel_helper
def tokenized_line(codes, tokenizer, has, one, other) -> tuple:
    """sacrebleu's tokenizer (a code of :data:`TOKENIZERS`) of one line's code points (not in
    `one` or `other`, scratch buffers of 9 * len(codes) + 8; `has`: 128 scratch flags): the
    buffer and length holding the tokenized text before its whitespace split."""
    if tokenizer == 1:
        return _tokenized_zh(codes, _CHINESE, _ISOLATED, one, other)
    return _tokenized_13a(codes, _ISOLATED, has, one, other)


@kernel_helper
def token_bounds(buffer, at, length) -> tuple:
    """Start and end of the first token of buffer[at:length] (whitespace splits tokens);
    (length, length) when none is left."""
    while at < length and is_whitespace(buffer[at]):
        at += 1
    end = at
    while end < length and not is_whitespace(buffer[end]):
        end += 1
    return at, end


@kernel_helper
def numbered_line(codes, tokenizer, has, one, other, slots, hashes, pool, starts, count, ids,
                  n_ids) -> tuple:
    """Number the tokens of one line's code points (`codes`, by `tokenizer`, with the scratch
    of :func:`tokenized_line`) as they are found, into ids[n_ids:]: ids 0, 1, ... by first
    occurrence among the `count` distinct tokens numbered so far (their code points
    pool[starts[id]:starts[id + 1]], hashes `hashes`, in the table `slots`, which must keep
    twice as many slots as ids can be after the line: a token holds at least one of its
    line's code points). Returns the count of distinct tokens and of ids after the line."""
    buffer, length = tokenized_line(codes, tokenizer, has, one, other)
    i, j = token_bounds(buffer, np.int64(0), length)
    while i < length:
        value = hash_range(buffer, i, j)
        slot = slot_of(slots, hashes, pool, starts, starts[1:], value, buffer, i, j)
        if slots[slot] < 0:
            starts[count + 1] = copy_into(pool, starts[count], buffer[i:j])
            hashes[count] = value
            slots[slot] = count
            count += 1
        ids[n_ids] = slots[slot]
        n_ids += 1
        i, j = token_bounds(buffer, j, length)
    return count, n_ids


@njit(nogil=True, cache=True)
def tokenize_13a(codes, offsets, tokenizer):
    """Token ids (0, 1, ... by first occurrence) of every row, the row offsets into them, and the
    tokens' code points with their offsets. `tokenizer` is a code of :data:`TOKENIZERS`."""
    rows = len(offsets) - 1
    longest = 0
    for row in range(rows):
        longest = max(longest, offsets[row + 1] - offsets[row])
    one = np.empty(9 * longest + 8, np.int32)
    other = np.empty(9 * longest + 8, np.int32)
    has = np.zeros(128, np.bool_)
    # a token holds at least one of its row's code points: the texts bound every count
    ids = np.empty(len(codes), np.int64)
    id_offsets = np.zeros(rows + 1, np.int64)
    pool = np.empty(len(codes), np.int32)
    starts = np.zeros(len(codes) + 1, np.int64)
    hashes = np.empty(len(codes), np.int64)
    slots = np.full(64, -1, np.int64)
    count = 0
    n_ids = 0
    for row in range(rows):
        line = codes[offsets[row]:offsets[row + 1]]
        if 2 * (count + len(line)) > len(slots):
            size = 2 * len(slots)
            while 2 * (count + len(line)) > size:
                size *= 2
            slots = slots_for(hashes, count, size)
        count, n_ids = numbered_line(line, tokenizer, has, one, other, slots, hashes, pool,
                                     starts, count, ids, n_ids)
        id_offsets[row + 1] = n_ids
    return ids[:n_ids], id_offsets, pool[:starts[count]].copy(), starts[:count + 1].copy()
