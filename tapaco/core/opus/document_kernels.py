"""Compiled reading of a sentence document's common form, one pass over a chunk's UTF-8.

:func:`scan_sentences` reads a chunk whose every sentence is
`<s id=".." [lists=".."] [tags=".."]>body</s>`, the body holding nothing but character data,
XML's predefined entities, `<w ...>token</w>` elements and one-line `<time .../>` elements
(Tatoeba's and OpenSubtitles' raw and tokenised documents). It returns arrays: each id's key
(:mod:`tapaco.core.opus.sidekeys`) or its byte range, the texts as
:func:`tapaco.core.opus.documents.sentence_text` gives them and the attribute values, as
columns (:class:`tapaco.core.text_column.TextColumn`). A text or value that needs more
(another entity; in a text, a whitespace character outside ASCII) is flagged for the
reference; a chunk in any other form is declined as a whole, for the general reader. The
caller has checked that the chunk is UTF-8 without characters XML forbids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tapaco.core.characters import WHITESPACE, is_whitespace
from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.opus.sidekeys import plain_id_key
from tapaco.core.opus.xml_bytes import ends_a_name
from tapaco.core.ranges import equal_ranges, starts_with
from tapaco.core.text_column import TextColumn
from tapaco.core.utf8 import code_point_at

_LT, _GT, _QUOTE, _AMP, _SLASH, _SPACE, _TAB, _NEWLINE, _RETURN = (
    ord(c) for c in '<>"&/ \t\n\r')
# numpy numbers: ord() inside a kernel would compile numba's str support, and a plain int
# passed to a kernel would compile it once for each value
_BANG, _QUESTION, _S, _W = (np.uint8(ord(c)) for c in "!?sw")


def _bytes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), np.uint8)


_OPEN = _bytes('<s id="')
_LISTS = _bytes(' lists="')
_TAGS = _bytes(' tags="')
# XML's predefined entities after their "&" (one after another, from the offsets), and the byte
# each stands for. Tables are module constants: numba compiles them into the kernels.
_ENTITY_NAMES = _bytes("lt;gt;quot;apos;amp;")
_ENTITY_OFFSETS = np.array([0, 3, 6, 11, 16, 20])
_ENTITY_BYTES = np.array([ord(c) for c in "<>\"'&"], np.uint8)


@kernel_helper
def _may_end_a_name(byte) -> bool:
    """Whether an element's name can end before this byte: a word boundary for the reference's
    regular expressions, or any byte above ASCII (an element the scanner then declines)."""
    return ends_a_name(byte) or byte >= 0x80


@kernel_helper
def _tag_end(data, at) -> int:
    """After the tag starting at `at`, or -1 if it holds another `<` (or never ends) or is
    markup other than an element's tag (`<!`, `<?`)."""
    if at + 1 >= len(data) or data[at + 1] == _BANG or data[at + 1] == _QUESTION:
        return -1
    for end in range(at + 1, len(data)):
        if data[end] == _LT:
            return -1
        if data[end] == _GT:
            return end + 1
    return -1


@kernel_helper
def _entity(data, at):
    """The byte the XML predefined entity at `at` (its "&") stands for and its length, or
    (0, 0)."""
    for index in range(len(_ENTITY_BYTES)):
        start, end = _ENTITY_OFFSETS[index], _ENTITY_OFFSETS[index + 1]
        if equal_ranges(data, at + 1, at + 1 + end - start, _ENTITY_NAMES, start, end):
            return _ENTITY_BYTES[index], end - start + 1
    return np.uint8(0), 0


# What a byte of a sentence body asks of the scanner: nothing (copied as it is), or a look
_ORDINARY, _SPACE_BYTE, _BREAK, _ENTITY, _MARKUP, _MAYBE_SPACE = range(6)
BYTE_KINDS = np.zeros(256, np.uint8)
BYTE_KINDS[_SPACE] = _SPACE_BYTE
BYTE_KINDS[[_NEWLINE, _TAB, _RETURN]] = _BREAK
BYTE_KINDS[_AMP] = _ENTITY
BYTE_KINDS[_LT] = _MARKUP
# lead bytes of the UTF-8 of every whitespace character above ASCII (U+0085 to U+3000)
BYTE_KINDS[[char.encode()[0] for char in WHITESPACE if char > "\x7f"]] = _MAYBE_SPACE


@kernel_helper
def _copy_text(data, at, out, written, begin):
    """Copy character data from `at` up to the next `<` (or the end) to `out[written:]`,
    entities decoded; returns where it stopped, the new end of `out`, whether the text (which
    began at `out[begin]`) needs its whitespace collapsed, and whether the reference must read
    it (an entity XML does not predefine, a whitespace character above ASCII)."""
    collapse, alone = False, False
    size = len(data)
    while at < size:
        byte = data[at]
        kind = BYTE_KINDS[byte]
        if kind == _ORDINARY:
            out[written] = byte
            written += 1
            at += 1
        elif kind == _MARKUP:
            break
        elif kind == _ENTITY:
            char, length = _entity(data, at)
            alone |= length == 0
            out[written] = char
            written += 1
            at += max(length, 1)
        elif kind == _MAYBE_SPACE:
            code, length = code_point_at(data, at)
            alone |= is_whitespace(code)
            for k in range(length):
                out[written + k] = data[at + k]
            written += length
            at += length
        else:
            collapse |= kind == _BREAK or (written > begin and out[written - 1] == _SPACE)
            out[written] = byte
            written += 1
            at += 1
    return at, written, collapse, alone


@kernel_helper
def _token_content(data, at) -> int:
    """Where the content of the `<w ...>` element at `at` starts, or -1 unless its open tag
    holds no `<` and does not close itself."""
    for end in range(at + 2, len(data)):
        if data[end] == _LT:
            return -1
        if data[end] == _GT:
            return -1 if data[end - 1] == _SLASH else end + 1
    return -1


@kernel_helper
def _closes(data, at, name) -> bool:
    """Whether `</name>` is at `at`."""
    return (at + 3 < len(data) and data[at] == _LT and data[at + 1] == _SLASH
            and data[at + 2] == name and data[at + 3] == _GT)


@kernel_helper
def _body(data, start, out, written):
    """Read a sentence body from `start` to its `</s>`, writing its text at `out[written:]` as
    the reference reads it: its `<w>` tokens joined by spaces if it has any, else its own
    character data (empty elements such as `<time/>` dropped). Returns where the `</s>` is (-1: the
    chunk is declined), the new end of `out` (-1: the reference must read this text) and
    whether the body held tokens."""
    begin = written
    collapse, alone, tokens, elements = False, False, False, False
    at = start
    while True:
        before = written
        at, written, more_collapse, more_alone = _copy_text(data, at, out, written, begin)
        if tokens:  # character data between tokens is not the text
            written = before
        else:
            collapse |= more_collapse
            alone |= more_alone
        if at >= len(data):
            return -1, -1, False
        if _closes(data, at, _S):
            break
        if (at + 3 < len(data) and data[at + 1] == _SLASH and data[at + 2] == _S
                and _may_end_a_name(data[at + 3])):
            return -1, -1, False  # `</s >`: an end tag the reference reads
        if at + 2 < len(data) and data[at + 1] == _W and _may_end_a_name(data[at + 2]):
            content = _token_content(data, at)
            if content < 0:
                return -1, -1, False
            if tokens:
                collapse |= written > begin and out[written - 1] == _SPACE
                out[written] = _SPACE
                written += 1
            else:  # the first token: what came before is not the text
                written, collapse, alone, tokens = begin, False, False, True
            at, written, more_collapse, more_alone = _copy_text(data, content, out, written,
                                                                begin)
            collapse |= more_collapse
            alone |= more_alone
            if not _closes(data, at, _W):
                return -1, -1, False
            at += 4
            continue
        tag_end = _tag_end(data, at)
        if tag_end < 0:
            return -1, -1, False
        # an empty element (<time .../>) is dropped, as the reference drops it; the content of
        # another element would be left out of the text: only a tokenised sentence may have one
        elements |= data[tag_end - 2] != _SLASH
        at = tag_end
    if elements and not tokens:
        return -1, -1, False
    if alone:
        return at, -1, tokens
    if collapse:
        return at, _collapsed(out, begin, written), tokens
    return at, _stripped(out, begin, written), tokens


@kernel_helper
def _collapsed(out, begin, end):
    """" ".join(text.split()) of out[begin:end] in place (its whitespace is ASCII); the new
    end."""
    kept = begin
    for at in range(begin, end):
        byte = out[at]
        if byte == _SPACE or byte == _TAB or byte == _NEWLINE or byte == _RETURN:
            if kept > begin and out[kept - 1] != _SPACE:
                out[kept] = _SPACE
                kept += 1
        else:
            out[kept] = byte
            kept += 1
    if kept > begin and out[kept - 1] == _SPACE:
        kept -= 1
    return kept


@kernel_helper
def _stripped(out, begin, end):
    """text.strip() of out[begin:end] in place, where only spaces can be at its ends (a return
    anywhere makes the text collapsed); the new end."""
    first, last = begin, end
    while first < last and out[first] == _SPACE:
        first += 1
    while last > first and out[last - 1] == _SPACE:
        last -= 1
    if first > begin:
        for at in range(first, last):
            out[begin + at - first] = out[at]
    return begin + last - first


@kernel_helper
def _value_end(data, start) -> int:
    """The closing quote of an attribute value starting at `start`, or -1 if the value holds
    `<` or a newline (or never ends)."""
    for at in range(start, len(data)):
        byte = data[at]
        if byte == _QUOTE:
            return at
        if byte == _LT or byte == _NEWLINE:
            return -1
    return -1


@kernel_helper
def _copy_value(data, start, end, out, written):
    """Copy an attribute value as :func:`tapaco.core.opus.xml_text.attribute_value` reads it
    (XML's predefined entities decoded, a tab or return a space) to `out[written:]`; the new
    end, and whether the reference must read it instead (an entity XML does not predefine)."""
    alone = False
    at = start
    while at < end:
        byte = data[at]
        if byte == _AMP:
            char, length = _entity(data, at)
            alone |= length == 0
            out[written] = char
            at += max(length, 1)
        else:
            out[written] = _SPACE if byte == _TAB or byte == _RETURN else byte
            at += 1
        written += 1
    return written, alone


@njit(nogil=True, cache=True)
def _scan(data, keys, plain, id_bounds, text_bounds, alone, texts, text_offsets,
          lists_out, list_offsets, tags_out, tag_offsets, value_alone):
    """The loop of :func:`scan_sentences`, into preallocated arrays; the count of sentences
    (-1: the chunk is declined) and whether any had tokens."""
    count, tokenised = np.int64(0), False
    text_offsets[0] = list_offsets[0] = tag_offsets[0] = 0
    at = np.int64(0)
    size = len(data)
    while at < size:
        if data[at] != _LT:
            at += 1
            continue
        if (at + 3 < size and data[at + 1] == _SLASH and data[at + 2] == _S
                and _may_end_a_name(data[at + 3])):
            return -1, False  # a </s> outside a sentence
        if at + 2 < size and data[at + 1] == _W and _may_end_a_name(data[at + 2]):
            # a token outside sentences: not read, but the document is tokenised
            content = _token_content(data, at)
            end = content
            while 0 <= end < size and data[end] != _LT:
                end += 1
            if content < 0 or not _closes(data, end, _W):
                return -1, False
            tokenised = True
            at = end + 4
            continue
        if not (at + 2 < size and data[at + 1] == _S and _may_end_a_name(data[at + 2])):
            at += 1  # another element's tag, outside sentences
            continue
        if not starts_with(data, at, _OPEN) or count == len(keys):  # (no room: impossible)
            return -1, False
        id_start = at + len(_OPEN)
        id_end = id_start
        while id_end < size and data[id_end] != _QUOTE:
            byte = data[id_end]
            if byte == _LT or byte == _GT or byte == _AMP:
                return -1, False
            id_end += 1
        if id_end >= size:
            return -1, False
        keys[count], plain[count] = plain_id_key(data, id_start, id_end)
        id_bounds[count, 0], id_bounds[count, 1] = id_start, id_end
        position = id_end + 1
        lists = (-1, -1)
        tags = (-1, -1)
        if starts_with(data, position, _LISTS):
            end = _value_end(data, position + len(_LISTS))
            if end < 0:
                return -1, False
            lists = (position + len(_LISTS), end)
            position = end + 1
        if starts_with(data, position, _TAGS):
            end = _value_end(data, position + len(_TAGS))
            if end < 0:
                return -1, False
            tags = (position + len(_TAGS), end)
            position = end + 1
        if position >= size or data[position] != _GT:
            return -1, False
        list_offsets[count + 1], value_alone[count, 0] = _copy_value(
            data, lists[0], lists[1], lists_out, list_offsets[count])
        tag_offsets[count + 1], value_alone[count, 1] = _copy_value(
            data, tags[0], tags[1], tags_out, tag_offsets[count])
        body = position + 1
        end, text_end, has_tokens = _body(data, body, texts, text_offsets[count])
        tokenised |= has_tokens
        if end < 0:
            return -1, False
        text_bounds[count, 0], text_bounds[count, 1] = body, end
        alone[count] = text_end < 0
        text_offsets[count + 1] = text_offsets[count] if text_end < 0 else text_end
        count += 1
        at = end + 4
    return count, tokenised


@dataclass(frozen=True)
class ScannedSentences:
    """What :func:`scan_sentences` found: per sentence its id's key and whether the id is
    plain, the byte ranges of its id and body, whether its text is left to the reference
    (`alone`: an empty text here); the texts, the `lists` and the `tags` values, whether the
    reference must read a sentence's lists or tags (`value_alone`: empty here); whether any
    sentence had `<w>` tokens."""

    keys: np.ndarray
    plain: np.ndarray
    id_bounds: np.ndarray
    text_bounds: np.ndarray
    alone: np.ndarray
    texts: TextColumn
    lists: TextColumn
    tags: TextColumn
    value_alone: np.ndarray
    tokenised: bool


def scan_sentences(raw: bytes) -> ScannedSentences | None:
    """The sentences of a chunk in the common form (see the module's docstring), or None."""
    data = np.frombuffer(raw, np.uint8)
    # room for as many sentences as the shortest the scanner reads (<s id=""></s>) would make;
    # only the pages the sentences fill are ever touched
    bound = len(raw) // 13 + 1
    keys = np.empty(bound, np.uint64)
    plain = np.empty(bound, np.bool_)
    id_bounds = np.empty((bound, 2), np.int64)
    text_bounds = np.empty((bound, 2), np.int64)
    alone = np.empty(bound, np.bool_)
    value_alone = np.empty((bound, 2), np.bool_)
    columns = [(np.empty(len(data), np.uint8), np.empty(bound + 1, np.int64)) for _ in range(3)]
    count, tokenised = in_background(
        _scan, data, keys, plain, id_bounds, text_bounds, alone, *columns[0], *columns[1],
        *columns[2], value_alone, size=len(data))
    if count < 0:
        return None
    texts, lists, tags = (TextColumn(offsets[:count + 1], buffer[:offsets[count]])
                          for buffer, offsets in columns)
    return ScannedSentences(keys[:count], plain[:count], id_bounds[:count], text_bounds[:count],
                            alone[:count], texts, lists, tags, value_alone[:count],
                            tokenised)
