"""Compiled kernel of the Moses tokenisation (:mod:`opusparcus.moses_tokenizer`), over code
points, without the GIL.

Each line goes through sacremoses' steps one after another, each step a left-to-right pass
that copies the line and rewrites what its regular expression matches, so a rule that consumes
its neighbours consumes them here too. The character classes are one table of bits per code
point (:data:`WHITESPACE` ... :data:`APOSTROPHE`); the non-breaking prefixes are hashed, and
compared in full where a hash matches. The multidot markers are written and
read back as sacremoses writes and reads them, so a text holding ``DOTMULTI`` comes out as from
sacremoses. A line longer than :data:`MAX_LINE` is declined, for the batch path.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.hashing import hash_range
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.ranges import copy_into, equal_ranges, starts_with

#: Bits of the class table (numpy numbers: a plain int constant passed to a kernel would compile
#: it once for each value).
WHITESPACE, JUNK, PADDED, DIGIT, ALPHA, LOWER, LETTER_S, APOSTROPHE = (np.uint8(1 << bit)
                                                                      for bit in range(8))
#: Apostrophe rules: every "'" padded, English's five, French and Italian's four.
ANY_APOSTROPHE, ENGLISH, FRENCH_ITALIAN = 0, 1, 2
#: What a prefix table entry is: kept before a dot, or kept before a number only.
KEPT, NUMERIC_ONLY = 1, 2
#: Longer lines are left to the batch path (a line grows at most 16-fold here).
MAX_LINE = 20_000

_SPACE, _DOT, _COMMA, _APOSTROPHE, _NEWLINE = 32, 46, 44, 39, 10
_MULTI = np.array([ord(c) for c in "MULTI"], np.int32)
_DOT_LETTERS = np.array([ord(c) for c in "DOT"], np.int32)
_GROWTH = 16
# The apostrophe rules ``([before])[']([after])``, one a row: the class bits before and whether
# the character must be in the class, the same after, whether a space goes before and after
# the "'".
_ENGLISH_RULES = np.array([[ALPHA, 0, ALPHA, 0, 1, 1], [ALPHA | DIGIT, 0, ALPHA, 1, 1, 1],
                           [ALPHA, 1, ALPHA, 0, 1, 1], [ALPHA, 1, ALPHA, 1, 1, 0],
                           [DIGIT, 1, LETTER_S, 1, 1, 0]], np.uint8)
_FRENCH_ITALIAN_RULES = np.array([[ALPHA, 0, ALPHA, 0, 1, 1], [ALPHA, 0, ALPHA, 1, 1, 1],
                                  [ALPHA, 1, ALPHA, 0, 1, 1], [ALPHA, 1, ALPHA, 1, 0, 1]],
                                 np.uint8)


@kernel_helper
def _has(classes, code, bits) -> bool:
    return (classes[code] & bits) != 0


@kernel_helper
def _spaces_squeezed(src, n, dst, classes) -> int:
    """Whitespace runs -> " ", then the junk control characters deleted, then stripped."""
    m = 0
    in_space = False
    for at in range(n):
        code = src[at]
        if _has(classes, code, WHITESPACE):
            if not in_space:
                dst[m] = _SPACE
                m += 1
                in_space = True
            continue
        in_space = False
        if not _has(classes, code, JUNK):
            dst[m] = code
            m += 1
    start = 0
    while start < m and dst[start] == _SPACE:
        start += 1
    end = m
    while end > start and dst[end - 1] == _SPACE:
        end -= 1
    for at in range(start, end):
        dst[at - start] = dst[at]
    return end - start


@kernel_helper
def _padded(src, n, dst, classes, bits) -> int:
    """" c " for every character of a class of `bits` (PADDED: PAD_NOT_ISALNUM; APOSTROPHE:
    NON_SPECIFIC_APOSTROPHE)."""
    m = 0
    for at in range(n):
        code = src[at]
        if _has(classes, code, bits):
            dst[m] = _SPACE
            dst[m + 1] = code
            dst[m + 2] = _SPACE
            m += 3
        else:
            dst[m] = code
            m += 1
    return m


@kernel_helper
def _multidots_marked(src, n, dst) -> int:
    """A run of k >= 2 dots -> " " + "DOT" * k + "MULTI", and " " if anything follows."""
    m = np.int64(0)
    at = 0
    while at < n:
        end = at
        while end < n and src[end] == _DOT:
            end += 1
        if end - at < 2:
            dst[m] = src[at]
            m += 1
            at += 1
            continue
        dst[m] = _SPACE
        m += 1
        for _ in range(end - at):
            m = copy_into(dst, m, _DOT_LETTERS)
        m = copy_into(dst, m, _MULTI)
        if end < n:
            dst[m] = _SPACE
            m += 1
        at = end
    return m


@kernel_helper
def _commas_after_non_digits(src, n, dst, classes) -> int:
    """COMMA_SEPARATE_1: ``([^IsN])[,]`` -> ``\\1 , ``."""
    m = 0
    at = 0
    while at < n:
        if at + 1 < n and src[at + 1] == _COMMA and not _has(classes, src[at], DIGIT):
            dst[m] = src[at]
            dst[m + 1] = _SPACE
            dst[m + 2] = _COMMA
            dst[m + 3] = _SPACE
            m += 4
            at += 2
        else:
            dst[m] = src[at]
            m += 1
            at += 1
    return m


@kernel_helper
def _commas_before_non_digits(src, n, dst, classes) -> int:
    """COMMA_SEPARATE_2: ``[,]([^IsN])`` -> `` , \\1``, then COMMA_SEPARATE_3:
    ``([IsN])[,]$`` -> ``\\1 , ``."""
    m = 0
    at = 0
    while at < n:
        if src[at] == _COMMA and at + 1 < n and not _has(classes, src[at + 1], DIGIT):
            dst[m] = _SPACE
            dst[m + 1] = _COMMA
            dst[m + 2] = _SPACE
            dst[m + 3] = src[at + 1]
            m += 4
            at += 2
        else:
            dst[m] = src[at]
            m += 1
            at += 1
    if m >= 2 and dst[m - 1] == _COMMA and _has(classes, dst[m - 2], DIGIT):
        dst[m - 1] = _SPACE
        dst[m] = _COMMA
        dst[m + 1] = _SPACE
        m += 2
    return m


@kernel_helper
def _apostrophe_rule(src, n, dst, classes, rule) -> int:
    """``([before])[']([after])`` -> ``\\1`` + (" " if spaced before) + "'" + (" " if spaced
    after) + ``\\2`` (`rule`: a row of the rules' tables)."""
    m = 0
    at = 0
    while at < n:
        if (at + 2 < n and src[at + 1] == _APOSTROPHE
                and _has(classes, src[at], rule[0]) == (rule[1] != 0)
                and _has(classes, src[at + 2], rule[2]) == (rule[3] != 0)):
            dst[m] = src[at]
            m += 1
            if rule[4]:
                dst[m] = _SPACE
                m += 1
            dst[m] = _APOSTROPHE
            m += 1
            if rule[5]:
                dst[m] = _SPACE
                m += 1
            dst[m] = src[at + 2]
            m += 1
            at += 3
        else:
            dst[m] = src[at]
            m += 1
            at += 1
    return m


@kernel_helper
def _prefix_kind(codes, start, end, prefix_hashes, prefix_kinds, prefix_offsets,
                 prefix_codes) -> int:
    """KEPT, NUMERIC_ONLY or 0 for codes[start:end]."""
    key = hash_range(codes, start, end)
    at = np.searchsorted(prefix_hashes, key)
    while at < len(prefix_hashes) and prefix_hashes[at] == key:
        if equal_ranges(prefix_codes, prefix_offsets[at], prefix_offsets[at + 1], codes, start,
                        end):
            return prefix_kinds[at]
        at += 1
    return 0


@kernel_helper
def _token_end(src, n, start) -> int:
    end = start
    while end < n and src[end] != _SPACE:
        end += 1
    return end


@kernel_helper
def _prefix_keeps_its_dot(src, start, end, next_start, next_end, classes, prefix_hashes,
                          prefix_kinds, prefix_offsets, prefix_codes) -> bool:
    """sacremoses' test on a token start:end+1 ending in "." (the prefix is start:end) before
    the token next_start:next_end (empty at the end of the line)."""
    has_dot = False
    has_alpha = False
    for at in range(start, end):
        has_dot = has_dot or src[at] == _DOT
        has_alpha = has_alpha or _has(classes, src[at], ALPHA)
    if has_dot and has_alpha:
        return True
    kind = _prefix_kind(src, start, end, prefix_hashes, prefix_kinds, prefix_offsets,
                        prefix_codes)
    if kind == KEPT:
        return True
    if next_end > next_start:
        following = src[next_start]
        if _has(classes, following, LOWER):
            return True
        if kind == NUMERIC_ONLY and 48 <= following <= 57:
            return True
    return False


@kernel_helper
def _nonbreaking_prefixes(src, n, dst, classes, prefix_hashes, prefix_kinds, prefix_offsets,
                          prefix_codes) -> int:
    """handles_nonbreaking_prefixes: tokens joined by single spaces, a token ending in "." split
    before the dot unless its prefix keeps it."""
    m = 0
    start = np.int64(0)
    while start < n and src[start] == _SPACE:
        start += 1
    while start < n:
        end = _token_end(src, n, start)
        next_start = end
        while next_start < n and src[next_start] == _SPACE:
            next_start += 1
        next_end = _token_end(src, n, next_start)
        if m:
            dst[m] = _SPACE
            m += 1
        for at in range(start, end):
            dst[m] = src[at]
            m += 1
        if (end - start >= 2 and src[end - 1] == _DOT
                and not _prefix_keeps_its_dot(src, start, end - 1, next_start, next_end,
                                              classes, prefix_hashes, prefix_kinds,
                                              prefix_offsets, prefix_codes)):
            dst[m - 1] = _SPACE
            dst[m] = _DOT
            m += 1
        start = next_start
    return m


@kernel_helper
def _trailing_dot_apostrophe(dst, m) -> int:
    """TRAILING_DOT_APOSTROPHE: a final ".'" -> " . ' "."""
    if m >= 2 and dst[m - 2] == _DOT and dst[m - 1] == _APOSTROPHE:
        dst[m - 2] = _SPACE
        dst[m - 1] = _DOT
        dst[m] = _SPACE
        dst[m + 1] = _APOSTROPHE
        dst[m + 2] = _SPACE
        m += 3
    return m


@kernel_helper
def _multidots_restored(src, n, dst) -> int:
    """``(?:DOT)+MULTI`` -> one dot per DOT."""
    m = 0
    at = np.int64(0)
    while at < n:
        if src[at] == _MULTI[0] and starts_with(src[:n], at, _MULTI):
            dots = 0
            while m - 3 * dots >= 3 and starts_with(dst[:m], m - 3 * (dots + 1), _DOT_LETTERS):
                dots += 1
            if dots:
                m -= 3 * dots
                dst[m:m + dots] = _DOT
                m += dots
                at += 5
                continue
        dst[m] = src[at]
        m += 1
        at += 1
    return m


@kernel_helper
def _present(text, n, classes) -> tuple:
    """Whether the text holds a padded character, a comma, an apostrophe, a run of dots (or
    "MULTI", which the restoring of multidots reads)."""
    padded = comma = apostrophe = dots = False
    for at in range(n):
        code = text[at]
        padded = padded or _has(classes, code, PADDED)
        comma = comma or code == _COMMA
        apostrophe = apostrophe or code == _APOSTROPHE
        dots = dots or (code == _DOT and at + 1 < n and text[at + 1] == _DOT) or (
            code == _MULTI[0] and starts_with(text[:n], at, _MULTI))
    return padded, comma, apostrophe, dots


@kernel_helper
def _apostrophes_split(one, two, n, classes, apostrophes) -> tuple:
    """The apostrophe rules of the language on one[:n]; (whether the result is in `two` rather
    than `one`, its length)."""
    if apostrophes == ANY_APOSTROPHE:
        return True, _padded(one, n, two, classes, APOSTROPHE)
    rules = _ENGLISH_RULES if apostrophes == ENGLISH else _FRENCH_ITALIAN_RULES
    for rule in range(len(rules)):
        source, target = (one, two) if rule % 2 == 0 else (two, one)
        n = _apostrophe_rule(source, n, target, classes, rules[rule])
    return len(rules) % 2 == 1, n


@kernel_helper
def _tokenized_line(src, n, one, two, classes, apostrophes, prefix_hashes, prefix_kinds,
                    prefix_offsets, prefix_codes) -> tuple:
    """The line src[:n] tokenised; (the buffer holding it, its length). A step whose character
    the line does not hold is skipped: it would copy the line unchanged."""
    n = _spaces_squeezed(src, n, one, classes)
    padded, comma, apostrophe, dots = _present(one, n, classes)
    if padded:
        n = _padded(one, n, two, classes, PADDED)
        one, two = two, one
    if dots:
        n = _multidots_marked(one, n, two)
        one, two = two, one
    if comma:
        n = _commas_after_non_digits(one, n, two, classes)
        n = _commas_before_non_digits(two, n, one, classes)
    if apostrophe:
        in_two, n = _apostrophes_split(one, two, n, classes, apostrophes)
        if in_two:
            one, two = two, one
    n = _nonbreaking_prefixes(one, n, two, classes, prefix_hashes, prefix_kinds,
                              prefix_offsets, prefix_codes)
    n = _trailing_dot_apostrophe(two, n)
    if not dots:
        return two, n
    return one, _multidots_restored(two, n, one)


@njit(nogil=True, cache=True)
def tokenize_lines(codes, offsets, classes, apostrophes, prefix_hashes, prefix_kinds,
                   prefix_offsets, prefix_codes):
    """Every line codes[offsets[i]:offsets[i + 1]] tokenised: the results joined by newlines
    (a declined line leaves an empty one), and which lines were declined."""
    lines = len(offsets) - 1
    declined = np.zeros(lines, np.bool_)
    out = np.empty(_GROWTH * len(codes) + 4 * lines + 16, np.int32)
    longest = 0
    for line in range(lines):
        longest = max(longest, offsets[line + 1] - offsets[line])
    size = _GROWTH * min(longest, MAX_LINE) + 16
    one = np.empty(size, np.int32)
    two = np.empty(size, np.int32)
    m = 0
    for line in range(lines):
        if line:
            out[m] = _NEWLINE
            m += 1
        start, end = offsets[line], offsets[line + 1]
        if end - start > MAX_LINE:
            declined[line] = True
            continue
        result, n = _tokenized_line(codes[start:end], end - start, one, two, classes,
                                    apostrophes, prefix_hashes, prefix_kinds, prefix_offsets,
                                    prefix_codes)
        for at in range(n):
            out[m] = result[at]
            m += 1
    return out[:m].copy(), declined
