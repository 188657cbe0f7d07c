"""The one definition of whitespace and of characters XML forbids, against Python's
`str.isspace` and expat."""

from __future__ import annotations

import re
import sys
import xml.parsers.expat as expat

import pytest

from tapaco.core.characters import (
    IS_SPACE,
    WHITESPACE,
    forbidden_characters,
    is_allowed,
    marks,
)


def test_whitespace_is_what_str_isspace_takes_for_it():
    every = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}
    assert set(WHITESPACE) == every and len(WHITESPACE) == len(every)
    assert {chr(code) for code in range(len(IS_SPACE)) if IS_SPACE[code]} == every


def _expat_allows(document: bytes) -> bool:
    try:
        expat.ParserCreate().Parse(document, True)
    except expat.ExpatError:
        return False
    return True


# every code point up to U+0100, those around the surrogates and the end of the BMP, and more
_CODES = [*range(0x101), *range(0xD7F0, 0xE010), *range(0xFFF0, 0x10010), 0x10FFFF, 0x110000]


def test_a_character_is_allowed_where_expat_allows_a_reference_to_it():
    assert [is_allowed(code) for code in _CODES] == [
        _expat_allows(f"<a>&#x{code:X};</a>".encode()) for code in _CODES]


def test_forbidden_characters_are_those_expat_refuses_written():
    codes = [code for code in _CODES  # (UTF-8 cannot hold a surrogate; < and & are markup)
             if not 0xD800 <= code < 0xE000 and code <= 0x10FFFF and chr(code) not in "<&"]
    found = {code for code in codes
             if forbidden_characters(f"<a>x{chr(code)}</a>".encode())}
    assert found == {code for code in codes
                     if not _expat_allows(f"<a>x{chr(code)}</a>".encode())}


@pytest.mark.parametrize("text, expected", [
    ("", []), ("a\tb\r\nc", []), ("\x00", [(0, 1, "character 0x00")]),
    ("é\x1f\ufffe\uffff\ufffd", [(2, 3, "character 0x1f"), (3, 6, "character U+FFFE"),
                                (6, 9, "character U+FFFF")]),
])
def test_forbidden_characters_say_where_and_what(text, expected):
    assert forbidden_characters(text.encode()) == expected


def _marks_by_regex(data: bytes) -> list[int]:
    """Where a character XML forbids, `&#`, `<!` or `<?` starts, found by a regular expression."""
    pattern = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|\xef\xbf[\xbe\xbf]|&#|<[!?]")
    return [found.start() for found in pattern.finditer(data)]


@pytest.mark.parametrize("data", [
    b"", b"<s id=\"1\">a &amp; b &#233; c</s>", b"<?xml version='1.0'?><!-- x --><s>\x01</s>",
    "\ufffe\uffff\ufffd&#".encode() + b"&<<!<?\xef\xbf", b"\x1f" * 3000 + b"&#x1;" * 700,
])
def test_marks_are_where_a_regular_expression_finds_them(data):
    assert marks(data).tolist() == _marks_by_regex(data)
