"""The characters every reader agrees on: what whitespace is, and which characters are no text.

Whitespace is what Python's `str.isspace` takes for it (what `str.split` splits on and
`str.strip` strips), listed in `WHITESPACE` so that the compiled kernels' tables and the regular
expressions (Python's, the `regex` module's, Arrow's) use the very same set. A sentence's
whitespace is stripped at its ends, and a run of it inside is collapsed to one space wherever
the run holds a tab, a newline, a carriage return or two spaces: no sentence keeps a character
that would end an output field or row.

A character XML 1.0 does not allow (its `Char` production: the C0 controls but tab, newline and
carriage return; U+FFFE and U+FFFF; surrogates, which UTF-8 cannot hold) is no text: in a
document, written or as a character reference, and in a Moses line alike, it is bad input.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper

WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
              + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000")
# whether each code point up to the last whitespace character is whitespace (for kernels)
IS_SPACE = np.zeros(ord(WHITESPACE[-1]) + 1, np.bool_)
IS_SPACE[[ord(char) for char in WHITESPACE]] = True
# the same set in Arrow's (RE2's) regular expression syntax, for a character class
WHITESPACE_RE2 = "".join(f"\\x{{{ord(char):x}}}" for char in WHITESPACE)

_TAB, _NEWLINE, _RETURN = 0x09, 0x0A, 0x0D
_AMPERSAND, _HASH, _LESS_THAN, _BANG, _QUESTION = (ord(char) for char in "&#<!?")
# the bytes a mark (see marks()) starts with: a forbidden character's (a C0 control's, or 0xEF
# of U+FFFE and U+FFFF), "&" and "<"
_MAY_START_MARK = np.zeros(256, np.bool_)
_MAY_START_MARK[[byte for byte in range(0x20) if byte not in (_TAB, _NEWLINE, _RETURN)]] = True
_MAY_START_MARK[[0xEF, _AMPERSAND, _LESS_THAN]] = True
_MARKS_AT_ONCE = 1024


@kernel_helper
def is_whitespace(code: int) -> bool:
    """Whether the code point is whitespace (for kernels)."""
    return code < len(IS_SPACE) and IS_SPACE[code]


def is_allowed(code: int) -> bool:
    """Whether XML 1.0 allows the character of this code point."""
    return (code in (_TAB, _NEWLINE, _RETURN) or 0x20 <= code <= 0xD7FF
            or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF)


@njit(nogil=True, cache=True)
def _next_marks(data: np.ndarray, start: int, out: np.ndarray) -> int:
    """Write to `out` the offsets, from `start` on, of the next marks (see :func:`marks`) of
    UTF-8 `data`, as many as it holds; how many were written."""
    count, size = 0, len(data)
    for at in range(start, size):
        byte = data[at]
        if not _MAY_START_MARK[byte]:
            continue
        if byte == 0xEF:
            found = (at + 2 < size and data[at + 1] == 0xBF
                     and (data[at + 2] == 0xBE or data[at + 2] == 0xBF))
        elif byte == _AMPERSAND:
            found = at + 1 < size and data[at + 1] == _HASH
        elif byte == _LESS_THAN:
            found = at + 1 < size and (data[at + 1] == _BANG or data[at + 1] == _QUESTION)
        else:
            found = True
        if found:
            out[count] = at
            count += 1
            if count == len(out):
                break
    return count


def marks(data: bytes) -> np.ndarray:
    """The offsets, in order, of what a reader of UTF-8 `data` must look at before it reads
    it, found in one compiled pass: each character XML forbids (a C0 control but tab, newline
    and return; U+FFFE or U+FFFF, bytes EF BF BE and EF BF BF), each `&#` (a character
    reference may start there) and each `<!` or `<?` (XML markup other than an element)."""
    array = np.frombuffer(data, np.uint8)
    parts, start = [], 0
    while True:
        out = np.empty(_MARKS_AT_ONCE, np.int64)
        count = in_background(_next_marks, array, start, out, size=len(array) - start)
        parts.append(out[:count])
        if count < len(out):
            return parts[0] if len(parts) == 1 else np.concatenate(parts)
        start = int(out[-1]) + 1


def forbidden_characters(data: bytes, found: np.ndarray | None = None
                         ) -> list[tuple[int, int, str]]:
    """Each character of UTF-8 `data` that XML forbids: its start, end and what it is
    (`found`: the data's :func:`marks`, if known)."""
    found = marks(data) if found is None else found
    array = np.frombuffer(data, np.uint8)
    lead = array[found]
    characters = []
    for at in found[(lead < 0x20) | (lead == 0xEF)].tolist():
        if data[at] < 0x20:
            characters.append((at, at + 1, f"character 0x{data[at]:02x}"))
        else:
            characters.append((at, at + 3, f"character U+FFF{data[at + 2] - 0xB0:X}"))
    return characters
