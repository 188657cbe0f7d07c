"""Character data and attribute values of a document as XML 1.0 reads them.

A character reference (`&#233;`, `&#xE9;`) stands for its character, whichever it is: `&#x80;`
is U+0080 (HTML would read `€`). One to a character XML forbids (`&#0;`, `&#1;`, `&#xD800;`; see
:mod:`tapaco.core.characters`) is bad input, which :func:`bad_references` finds in a chunk's
bytes before any of its text is read. The five predefined entities are XML's; another named
entity is decoded as HTML names it (`&nbsp;`), and a `&` that starts no reference (`AT&T`, `&#`
without its `;`) is kept as written, as OpusTools reads such documents where XML parsers refuse
them. In an attribute value, tabs, newlines and returns become spaces, as XML makes literal
ones (and here references to them too: no value may end an output field).
"""

from __future__ import annotations

import html
import re

from tapaco.core.characters import is_allowed

_AMPERSAND = re.compile(r"&(?:#(x[0-9a-fA-F]+|[0-9]+);)?([^&]*)")
_REFERENCE_BYTES = re.compile(rb"&#(x[0-9a-fA-F]+|[0-9]+);")
_FIELD_BREAKS = str.maketrans("\t\n\r", "   ")
# the most digits a code point up to U+10FFFF takes, leading zeros aside
_MAX_DIGITS = {16: 6, 10: 7}


def referenced(number: str) -> str | None:
    """The character of a character reference's number (`x` and hex digits, or decimal
    digits), or None if XML does not allow it."""
    base = 16 if number[0] == "x" else 10
    digits = number.lstrip("x").lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS[base]:
        return None
    code = int(digits, base)
    return chr(code) if is_allowed(code) else None


def _decoded(match: re.Match) -> str:
    number, rest = match.groups()
    if number is not None:
        character = referenced(number)
        if character is None:
            raise ValueError(f"&#{number}; stands for a character XML does not allow")
        return character + rest
    if rest.startswith("#"):
        return "&" + rest
    return html.unescape("&" + rest)


def unescape(text: str) -> str:
    """`text` with its references decoded (see the module's docstring); ValueError for one to
    a character XML forbids."""
    return _AMPERSAND.sub(_decoded, text) if "&" in text else text


def attribute_value(raw: str) -> str:
    """An attribute's value as written between its quotes, read."""
    return unescape(raw).translate(_FIELD_BREAKS)


def bad_references(data: bytes, starts: list[int]) -> list[tuple[int, int, str]]:
    """Each character reference of `data` to a character XML forbids: its start, end and what
    it is (`starts`: where `data` has `&#`, the only places one may start)."""
    found = (_REFERENCE_BYTES.match(data, start) for start in starts)
    return [(match.start(), match.end(), f"character reference {match.group().decode()}")
            for match in found if match is not None and referenced(match.group(1).decode()) is None]
