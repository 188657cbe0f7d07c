"""Link sides and sentence ids as uint64 keys, so the compiled scanners can parse them.

`s<n>` (Tatoeba) is n itself and a bare `<n>` (OpenSubtitles) is ``BARE | n``, for n of 1 to 18
digits without a leading zero (or `0`); any other string (several ids, an empty side, other
names) is ``STRING | i``, its index in a :class:`SideTable`. A key stands for exactly one string,
so matching sides to sentence ids, or interning sides, is sorting and hashing integers rather
than building a Python string per id.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

import numpy as np

from tapaco.core.kernel_helper import kernel_helper

BARE = np.uint64(1 << 62)
STRING = np.uint64(1 << 63)
EMPTY = STRING  # the empty side: index 0 of every table
NUMBER = np.uint64((1 << 62) - 1)
_MAX_DIGITS = 18
_DIGIT_0, _LETTER_S = ord("0"), ord("s")
_INTERNING = threading.Lock()


def plain_key(text: str) -> int | None:
    """The key of a plain id (`s<n>`: n, `<n>`: BARE | n), None for any other string."""
    digits = text[1:] if text.startswith("s") else text
    if (digits.isascii() and digits.isdigit() and len(digits) <= _MAX_DIGITS
            and (digits[0] != "0" or len(digits) == 1)):
        return int(digits) | (0 if digits is not text else int(BARE))
    return None


def plain_text(key: int) -> str:
    """The string of a plain id's key."""
    number = key & int(NUMBER)
    return str(number) if key & int(BARE) else f"s{number}"


class SideTable:
    """The strings that are not plain ids, numbered in order of first use ("" is 0)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {"": 0}
        self.strings: list[str] = [""]

    def key(self, text: str) -> int:
        """The key of one side or sentence id."""
        plain = plain_key(text)
        if plain is not None:
            return plain
        found = self.index.get(text)
        if found is None:
            with _INTERNING:  # (threads reading documents share a table)
                found = self.index.get(text)
                if found is None:
                    found = self.index[text] = len(self.strings)
                    self.strings.append(text)
        return int(STRING) | found

    def keys(self, texts: Sequence[str]) -> np.ndarray:
        """The keys of many strings (a Python call each: for what numpy parsing left over)."""
        return np.fromiter(map(self.key, texts), np.uint64, len(texts))

    def text(self, key: int) -> str:
        """The string a key stands for."""
        key = int(key)
        if key & int(STRING):
            return self.strings[key & ~int(STRING)]
        return plain_text(key)

    def texts(self, keys: np.ndarray) -> list[str]:
        """The strings of many keys."""
        return [self.text(key) for key in keys.tolist()]


@kernel_helper
def plain_id_key(data: np.ndarray, start: int, end: int) -> tuple[np.uint64, bool]:
    """The key of the id in bytes [start, end) of `data` and whether it is a plain id (else
    the key is 0)."""
    with_s = end > start and data[start] == _LETTER_S
    first = start + 1 if with_s else start
    digits = end - first
    if digits < 1 or digits > _MAX_DIGITS or (data[first] == _DIGIT_0 and digits > 1):
        return np.uint64(0), False
    key = np.uint64(0)
    for at in range(first, end):
        digit = np.int64(data[at]) - _DIGIT_0
        if digit < 0 or digit > 9:
            return np.uint64(0), False
        key = key * np.uint64(10) + np.uint64(digit)
    return (key if with_s else key | BARE), True


class SideColumn(Sequence[str]):
    """Link sides as keys and their table, read as strings one at a time where needed."""

    def __init__(self, keys: np.ndarray, table: SideTable) -> None:
        self.keys = keys
        self.table = table

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, index):  # noqa: ANN001 - int or slice, as a list
        if isinstance(index, slice):
            return self.table.texts(self.keys[index])
        return self.table.text(self.keys[index])

    def __iter__(self) -> Iterator[str]:
        return iter(self.table.texts(self.keys))
