"""Read the sentences of an OPUS sentence document (raw text or `<w>`-tokenised XML).

A sentence is `<s id="..." [lists=".." tags=".."]>text</s>`. Where it holds `<w>` elements
its text is their tokens joined by single spaces (a tokenised document); otherwise it is the
character data of the `<s>` itself, child elements and their content left out, as OpusTools
reads raw documents (an OpenSubtitles raw `<s>` holds `<time .../>` elements around its
text). Entities are decoded and whitespace is collapsed.

Plain `<s id=".." [lists=".."] [tags=".."]>text</s>` sentences (Tatoeba's raw documents) are
read with numpy: the positions of `<`, `>` and `"` give each id, attribute list and text, ids
become keys (:mod:`tapaco.core.opus.sidekeys`) and the texts of a chunk are decoded at once; only
texts that need more than that (entities, runs of spaces, spaces at an end) are handled one by
one. OpenSubtitles sentences, once their one-line `<time/>` elements are dropped, are read by
one regular-expression pass a chunk, and anything else by the general one.

XML's other markup is read as XML defines it before any of these sees a chunk: comments are
dropped (a `</s>` inside one ends nothing), CDATA sections become their text (`a<![CDATA[<b>]]>c`
reads `a<b>c`), and a character XML 1.0 forbids (NUL and other C0 controls) is a one-line error
naming line and column.
"""

from __future__ import annotations

import html
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tapaco.core.arrays import index_ranges, next_at_or_after
from tapaco.core.errors import InputError
from tapaco.core.opus.sidekeys import parse_ids, plain_key, plain_text
from tapaco.core.opus.textstream import (
    MAX_UNBROKEN_BYTES,
    ByteChunk,
    FileRef,
    TextChunk,
    bad_utf8_offsets,
    byte_chunks,
)
from tapaco.core.opus.xmlcheck import malformed

_SENTENCE = re.compile(r"<s\b([^>]*?)(?:/>|>(.*?)</s\s*>)", re.S)
_RAW_SENTENCE = re.compile(r'<s id="([^"]*)"(?: lists="([^"]*)")?(?: tags="([^"]*)")?>([^<]*)</s>')
_SENTENCE_STARTS = ("<s ", "<s>", "<s/", "<s\n", "<s\t", "<s\r")
_TOKEN = re.compile(r"<w\b[^>]*>([^<]*)</w\s*>")
_TAG = re.compile(r"(<[^>]*>)")
_ONE_LINE_TIME = re.compile(r"<time\b[^>\n]*/>")
_ATTRIBUTE = re.compile(r'([\w:.-]+)\s*=\s*"([^"]*)"')


@dataclass
class Sentences:
    """The sentences of one document, as parallel lists; `tokenised` if it has `<w>` tokens.

    Ids are kept as keys (`keys`, for plain ids such as `s12`) and strings (`other_ids`, by
    index, for the rest); `ids` gives them all as strings.
    """

    texts: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    other_ids: dict[int, str] = field(default_factory=dict)
    tokenised: bool = False
    hashes: np.ndarray | None = None  # of the texts, by the reader's TextHasher if it had one

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def ids(self) -> list[str]:
        """Every sentence id, in document order."""
        ids = [plain_text(key) for key in self.keys.tolist()]
        for index, sentence_id in self.other_ids.items():
            ids[index] = sentence_id
        return ids


class TextHasher(Protocol):
    """Hashes texts to int64 as documents are read, while they are at hand (the keys a caller
    would otherwise compute by walking millions of texts again)."""

    def texts(self, texts: list[str]) -> np.ndarray:
        """A hash of each text."""

    def joined(self, texts: list[str], joined: bytes, exact: np.ndarray) -> np.ndarray:
        """A hash of each text, given `joined`: the UTF-8 of the texts, each followed by a
        newline, where `exact` (elsewhere an empty line: that text must be hashed alone)."""


class _Builder:
    """Collects a document's sentences chunk by chunk, hashing their texts if given a hasher."""

    def __init__(self, hasher: TextHasher | None = None) -> None:
        self.sentences = Sentences()
        self.key_parts: list[np.ndarray] = []
        self.hasher = hasher
        self.hash_parts: list[np.ndarray] = []

    def add(self, ids: list[str] | None, texts: list[str], lists: list[str], tags: list[str],
            keys: np.ndarray | None = None, other_ids: dict[int, str] | None = None,
            joined: tuple[bytes, np.ndarray] | None = None) -> None:
        """Sentences of a chunk, their ids as strings, or as keys and other ids; `joined`: the
        texts' bytes and where they are exact, as :meth:`TextHasher.joined` takes them."""
        sentences = self.sentences
        offset = len(sentences.texts)
        if ids is not None:
            keys, other_ids = _keys_of(ids)
        sentences.other_ids.update((offset + i, value) for i, value in other_ids.items())
        self.key_parts.append(keys)
        sentences.texts.extend(texts)
        sentences.lists.extend(lists)
        sentences.tags.extend(tags)
        if self.hasher is not None:
            self.hash_parts.append(self.hasher.texts(texts) if joined is None
                                   else self.hasher.joined(texts, *joined))

    def finish(self) -> Sentences:
        if self.key_parts:
            self.sentences.keys = np.concatenate(self.key_parts)
        if self.hasher is not None:
            self.sentences.hashes = (np.concatenate(self.hash_parts) if self.hash_parts
                                     else np.zeros(0, np.int64))
        return self.sentences


def _keys_of(ids: list[str]) -> tuple[np.ndarray, dict[int, str]]:
    keys = np.zeros(len(ids), np.uint64)
    others = {}
    for index, sentence_id in enumerate(ids):
        key = plain_key(sentence_id)
        if key is None:
            others[index] = sentence_id
        else:
            keys[index] = key
    return keys, others


def _own_text(body: str) -> str:
    """The character data directly inside an element: child elements and their content out."""
    depth, kept = 0, []
    for number, piece in enumerate(_TAG.split(body)):
        if number % 2 == 0:
            kept.append(piece if depth == 0 else "")
        elif piece.startswith("</"):
            depth -= 1
        elif not piece.endswith("/>") and not piece.startswith(("<!", "<?")):
            depth += 1
    return "".join(kept)


def sentence_text(body: str) -> str:
    """The text of a sentence element's content: its `<w>` tokens joined if it has any, else
    its own character data."""
    text = body
    if "<" in body:
        tokens = _TOKEN.findall(body)
        text = " ".join(tokens) if tokens else _own_text(body)
    if "&" in text:
        text = html.unescape(text)
    if "\n" in text or "\t" in text or "  " in text:
        return " ".join(text.split())
    return text.strip()


def _attributes(raw: str) -> dict[str, str]:
    if raw.startswith(' id="') and raw.count('"') == 2:
        return {"id": raw[5:raw.rindex('"')]}
    return {name: html.unescape(value) for name, value in _ATTRIBUTE.findall(raw)}


def _plain_text(body: str) -> str:
    if "&" in body or "\n" in body or "\t" in body or "  " in body:
        return sentence_text(body)
    return body.strip()


def _attribute_values(values: tuple[str, ...]) -> list[str]:
    return [html.unescape(v) if "&" in v else v for v in values]


def _add_raw_chunk(builder: _Builder, found: list[tuple[str, str, str, str]]) -> None:
    """Regular-expression path: every sentence is `<s id=".." [lists=".."] [tags=".."]>plain
    text</s>`."""
    ids, lists, tags, bodies = zip(*found)
    builder.add(list(ids), list(map(_plain_text, bodies)), _attribute_values(lists),
                _attribute_values(tags))


def _without_times(chunk: TextChunk) -> TextChunk:
    """The chunk without its one-line `<time .../>` elements (line numbers stay right)."""
    if "<time" not in chunk.text:
        return chunk
    return TextChunk(_ONE_LINE_TIME.sub("", chunk.text), chunk.first_line)


def _add_chunk(builder: _Builder, chunk: TextChunk, ref: FileRef) -> None:
    chunk = _without_times(chunk)
    starts = sum(chunk.text.count(start) for start in _SENTENCE_STARTS)
    raw = _RAW_SENTENCE.findall(chunk.text) if "<w" not in chunk.text else []
    if raw and len(raw) == starts:
        _add_raw_chunk(builder, raw)
        return
    found = _SENTENCE.findall(chunk.text)
    if len(found) != starts:
        last_good = max(chunk.text.rfind("</s>"), 0)
        raise malformed(ref, f"line {chunk.line_at(last_good)}", "unterminated <s> element")
    builder.sentences.tokenised = (builder.sentences.tokenised
                                   or _TOKEN.search(chunk.text) is not None)
    ids, texts, lists, tags = [], [], [], []
    for raw_attributes, body in found:
        attributes = _attributes(raw_attributes)
        if "id" not in attributes:
            raise InputError(ref, "<s> element without an id attribute",
                             f"line {chunk.line_at(chunk.text.find(raw_attributes))}",
                             kind="malformed XML")
        ids.append(attributes["id"])
        texts.append(sentence_text(body))
        lists.append(attributes.get("lists", ""))
        tags.append(attributes.get("tags", ""))
    builder.add(ids, texts, lists, tags)


_LT, _GT, _QUOTE, _SLASH, _LETTER_S, _NEWLINE, _AMPERSAND, _TAB, _SPACE = (
    ord(c) for c in '<>"/s\n&\t ')
_LISTS, _TAGS = np.frombuffer(b' lists="', np.uint8), np.frombuffer(b' tags="', np.uint8)
_OPEN = np.frombuffer(b'<s id="', np.uint8)
_AFTER_S = np.zeros(256, bool)
_AFTER_S[[ord(c) for c in " >/\n\t\r"]] = True
# XML's predefined entities: where every "&" of a text opens one of them, decoding each where
# it starts gives what html.unescape gives
_XML_ENTITY_BYTES = ((b"&lt;", b"<"), (b"&gt;", b">"), (b"&quot;", b'"'), (b"&apos;", b"'"),
                     (b"&amp;", b"&"))
# what str.strip() removes, as UTF-8: a text starting or ending with one of these is stripped
# by the general path
_SPACES = [np.frombuffer(char.encode(), np.uint8)
           for char in map(chr, range(0x110000)) if char.isspace()]
_MAY_START_SPACE = np.zeros(256, bool)
_MAY_START_SPACE[[space[0] for space in _SPACES]] = True
_MAY_END_SPACE = np.zeros(256, bool)
_MAY_END_SPACE[[space[-1] for space in _SPACES]] = True


def _space_at_an_end(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each range [starts, ends) begins or ends with a whitespace character (checked
    in full only where its first or last byte can belong to one)."""
    found = np.zeros(len(starts), bool)
    nonempty = np.flatnonzero(ends > starts)
    maybe = nonempty[_MAY_START_SPACE[data[starts[nonempty]]]
                     | _MAY_END_SPACE[data[ends[nonempty] - 1]]]
    if not len(maybe):
        return found
    padded = np.concatenate([data, np.zeros(4, np.uint8)])
    starts, ends = starts[maybe], ends[maybe]
    for space in _SPACES:
        fits = ends - starts >= len(space)
        at_start, at_end = fits.copy(), fits
        for k, byte in enumerate(space):
            at_start &= padded[starts + k] == byte
            at_end &= padded[np.maximum(ends - len(space) + k, 0)] == byte
        found[maybe[at_start | at_end]] = True
    return found


def _holding(positions: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each range [starts, ends) holds one of the sorted `positions`."""
    return np.searchsorted(positions, starts) < np.searchsorted(positions, ends)


# Ranges covering less than 1/this of the data are gathered by index, not by a mask over it all.
_GATHER_BELOW = 8


@dataclass
class _Entities:
    """XML entities inside byte ranges: where each starts (its "&"), its length in bytes, the
    byte it decodes to, and the range holding it."""

    at: np.ndarray
    length: np.ndarray
    char: np.ndarray
    holder: np.ndarray


def _xml_entities(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> _Entities | None:
    """The XML entities of the ascending ranges [starts, ends); None if some "&" in them opens
    none (as in no file OPUS writes: another entity may decode to a space)."""
    at = np.flatnonzero(data == _AMPERSAND)
    holder = np.searchsorted(starts, at, side="right") - 1
    inside = holder >= 0
    inside[inside] = at[inside] < ends[holder[inside]]
    at, holder = at[inside], holder[inside]
    length, char = np.zeros(len(at), np.int64), np.zeros(len(at), np.uint8)
    last = len(data) - 1
    for entity, decoded in _XML_ENTITY_BYTES:
        found = length == 0
        for offset, byte in enumerate(entity[1:], 1):
            found &= data[np.minimum(at + offset, last)] == byte
        length[found], char[found] = len(entity), decoded[0]
    return None if (length == 0).any() else _Entities(at, length, char, holder)


def _joined_ranges(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                   entities: _Entities | None = None) -> bytes:
    """The byte ranges [starts, ends) of `data` joined, each followed by a newline, `entities`
    inside them decoded: ascending ranges with no newline inside, each followed by at least one
    byte of its own (overwritten by the newline)."""
    sizes = ends - starts + 1
    if entities is None and sizes.sum() * _GATHER_BELOW < len(data):
        joined = data[index_ranges(starts, sizes)]
        joined[np.cumsum(sizes) - 1] = _NEWLINE
        return joined.tobytes()
    cuts = np.column_stack([starts, ends + 1]).ravel()
    lengths = np.diff(cuts, prepend=0, append=len(data))
    inside = np.zeros(len(lengths), bool)
    inside[1::2] = True
    keep = np.repeat(inside, lengths)
    if entities is not None and len(entities.at):
        tails = entities.length - 1  # the bytes after each "&", dropped
        keep[index_ranges(entities.at + 1, tails)] = False
        sizes = sizes - np.bincount(entities.holder, tails, len(starts)).astype(np.int64)
    joined = data[keep]
    joined[np.cumsum(sizes) - 1] = _NEWLINE
    if entities is not None:
        joined[np.flatnonzero(joined == _AMPERSAND)] = entities.char
    return joined.tobytes()


def decoded_ranges(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The byte ranges [starts, ends) of `data` as strings, decoded at once (ranges as
    :func:`_joined_ranges` takes them)."""
    return _joined_ranges(data, starts, ends).decode("utf-8").split("\n")[:-1]


@dataclass
class _Layout:
    """Where a chunk's sentences are: `<s` offsets, id ends, open-tag ends, `</s>` offsets,
    and the offsets of every `"` in the chunk."""

    opens: np.ndarray
    id_ends: np.ndarray
    tag_ends: np.ndarray
    closes: np.ndarray
    quotes: np.ndarray


# More tags than this besides <s> and </s> (an OpenSubtitles <time/> in every sentence) send a
# chunk to the general reader at once; a few are the document's own (<?xml?>, <document>).
_OTHER_TAGS = 8


def _layout(data: np.ndarray) -> _Layout | None:
    """The sentences of a chunk if every one is `<s id="..."...>text</s>` with no `<` in the
    text, else None."""
    less = np.flatnonzero(data == _LT)
    padded = np.concatenate([data, np.zeros(len(_OPEN), np.uint8)])
    starts_s = less[(padded[less + 1] == _LETTER_S) & _AFTER_S[padded[less + 2]]]
    closes = less[(padded[less + 1] == _SLASH) & (padded[less + 2] == _LETTER_S)
                  & (padded[less + 3] == _GT)]
    if len(starts_s) != len(closes) or len(less) - 2 * len(closes) > _OTHER_TAGS:
        return None
    if len(starts_s) == 0:
        return _Layout(starts_s, starts_s, starts_s, closes, starts_s)
    if not all((padded[starts_s + k] == byte).all() for k, byte in enumerate(_OPEN)):
        return None
    quotes = np.flatnonzero(data == _QUOTE)
    id_ends = next_at_or_after(quotes, starts_s + len(_OPEN))
    tag_ends = next_at_or_after(np.flatnonzero(data == _GT), starts_s)
    after_tag = next_at_or_after(less, np.maximum(tag_ends, 0))
    fits = ((id_ends >= 0).all() and (id_ends < tag_ends).all() and (after_tag == closes).all()
            and (starts_s[1:] > closes[:-1]).all())
    return _Layout(starts_s, id_ends, tag_ends, closes, quotes) if fits else None


def _starting_with(padded: np.ndarray, starts: np.ndarray, prefix: np.ndarray) -> np.ndarray:
    found = np.ones(len(starts), bool)
    for offset, byte in enumerate(prefix):
        found &= padded[starts + offset] == byte
    return found


def _values(data: np.ndarray, starts: np.ndarray, ends: np.ndarray,
            ampersands: np.ndarray) -> list[str]:
    """Attribute values [starts, ends) (each followed by its closing quote), entities decoded."""
    values = decoded_ranges(data, starts, ends)
    for index in np.flatnonzero(_holding(ampersands, starts, ends)).tolist():
        values[index] = html.unescape(values[index])
    return values


def _attribute_lists(data: np.ndarray, layout: _Layout) -> tuple[list[str], list[str]] | None:
    """`lists` and `tags` of every sentence; None unless each open tag holds after its id
    nothing, ` lists=".."`, ` tags=".."`, or both in that order."""
    count = len(layout.opens)
    lists, tags = [""] * count, [""] * count
    having = np.flatnonzero(layout.tag_ends > layout.id_ends + 1)
    if not len(having):
        return lists, tags
    starts, ends = layout.id_ends[having] + 1, layout.tag_ends[having]
    padded = np.concatenate([data, np.zeros(len(_LISTS), np.uint8)])
    has_lists = _starting_with(padded, starts, _LISTS)
    lists_end = np.where(has_lists, next_at_or_after(layout.quotes, starts + len(_LISTS)),
                         starts - 1)
    rest = lists_end + 1
    has_tags = _starting_with(padded, rest, _TAGS)
    tags_end = np.where(has_tags, next_at_or_after(layout.quotes, rest + len(_TAGS)), rest - 1)
    unclosed = (has_lists & (lists_end < 0)) | (has_tags & (tags_end < 0))
    if unclosed.any() or (tags_end + 1 != ends).any():
        return None
    if _holding(np.flatnonzero(data == _NEWLINE), starts, ends).any():
        return None
    ampersands = np.flatnonzero(data == _AMPERSAND)
    for found, values, value_starts, value_ends in (
            (has_lists, lists, starts + len(_LISTS), lists_end),
            (has_tags, tags, rest + len(_TAGS), tags_end)):
        picked = _values(data, value_starts[found], value_ends[found], ampersands)
        for index, value in zip(having[found].tolist(), picked):
            values[index] = value
    return lists, tags


def _texts(data: np.ndarray, raw: bytes, starts: np.ndarray,
           ends: np.ndarray) -> tuple[list[str], bytes, np.ndarray]:
    """The texts of the bodies [starts, ends): decoded together, their XML entities too where
    every "&" opens one (else the texts holding one are read one by one); texts that need space
    collapsing or stripping one by one. Also their joined bytes and where those are exact (as
    :meth:`TextHasher.joined` takes them)."""
    spaces = data == _SPACE
    flags = (data == _NEWLINE) | (data == _TAB)
    flags[:-1] |= spaces[:-1] & spaces[1:]
    marked = _holding(np.flatnonzero(flags), starts, ends) | _space_at_an_end(data, starts, ends)
    plain_ends = np.where(marked, starts, ends)
    entities = _xml_entities(data, starts, plain_ends)
    joined = _joined_ranges(data, starts, plain_ends, entities)
    texts = joined.decode("utf-8").split("\n")[:-1]
    exact = ~marked
    if entities is None:
        holding = _holding(np.flatnonzero(data == _AMPERSAND), starts, plain_ends)
        exact &= ~holding
        for index in np.flatnonzero(holding).tolist():
            texts[index] = sentence_text(texts[index])
    for index in np.flatnonzero(marked).tolist():
        texts[index] = _plain_text(raw[starts[index]:ends[index]].decode("utf-8"))
    return texts, joined, exact


def _add_fast_chunk(builder: _Builder, chunk: ByteChunk) -> bool:
    """Read a chunk of plain raw sentences with numpy; False (nothing added) if it is not one."""
    raw = chunk.data
    data = np.frombuffer(raw, np.uint8)
    layout = _layout(data)
    if layout is None:
        return False
    attributes = _attribute_lists(data, layout)
    if attributes is None:
        return False
    keys, plain = parse_ids(data, layout.opens + len(_OPEN), layout.id_ends)
    others = {index: raw[a:b].decode("utf-8") for index, a, b in zip(
        np.flatnonzero(~plain).tolist(), (layout.opens[~plain] + len(_OPEN)).tolist(),
        layout.id_ends[~plain].tolist())}
    texts, joined, exact = _texts(data, raw, layout.tag_ends + 1, layout.closes)
    builder.add(None, texts, *attributes, keys=keys, other_ids=others, joined=(joined, exact))
    return True


_FORBIDDEN = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _check_characters(chunk: ByteChunk, ref: FileRef) -> None:
    """Raise :class:`InputError` at the first character XML 1.0 does not allow."""
    found = _FORBIDDEN.search(chunk.data)
    if found:
        at = found.start()
        column = at - (chunk.data.rfind(b"\n", 0, at) + 1) + 1
        raise InputError(ref, f"character 0x{chunk.data[at]:02x} is not allowed in XML",
                         f"line {chunk.line_at(at)}, column {column}", kind="malformed XML")


_COMMENT, _CDATA = (b"<!--", b"-->"), (b"<![CDATA[", b"]]>")


def _markup_resolved(chunks: Iterator[ByteChunk], ref: FileRef) -> Iterator[ByteChunk]:
    """The chunks with comments dropped (see :func:`_line_keeper`) and
    CDATA sections as escaped text, cut again after a `</s>`; chunks without either pass as
    they are."""
    inside: tuple[bytes, bytes] | None = None
    carry, first_line = b"", 1
    for chunk in chunks:
        if inside is None and not carry and b"<!" not in chunk.data:
            yield chunk
            continue
        resolved, inside = _resolve_markup(chunk.data, inside)
        data = carry + resolved
        if carry == b"":
            first_line = chunk.first_line
        end = data.rfind(b"</s>")
        cut = 0 if end < 0 else end + len(b"</s>")
        carry = data[cut:]
        if len(carry) > MAX_UNBROKEN_BYTES:
            raise InputError(ref, f"over {MAX_UNBROKEN_BYTES >> 20} MiB without </s> outside "
                             "comments: no sentence is that long", f"line {first_line}",
                             kind="too long")
        if cut:
            yield ByteChunk(data[:cut], first_line)
            first_line += data.count(b"\n", 0, cut)
    if carry:
        yield ByteChunk(carry, first_line)


def _line_keeper(newlines: int) -> bytes:
    """What a comment of that many newlines becomes: nothing, or a processing instruction
    holding them (read as nothing too, and the lines after it keep their numbers)."""
    return b"<?" + b"\n" * newlines + b"?>" if newlines else b""


def _resolve_markup(data: bytes, inside: tuple[bytes, bytes] | None
                    ) -> tuple[bytes, tuple[bytes, bytes] | None]:
    """`data` with comments and CDATA resolved (see :func:`_markup_resolved`), starting inside
    the section `inside` if any; also the section it ends inside."""
    out, position = bytearray(), 0
    while position < len(data):
        if inside is None:
            start = data.find(b"<!", position)
            if start < 0:
                out += data[position:]
                break
            out += data[position:start]
            inside = next((section for section in (_COMMENT, _CDATA)
                           if data.startswith(section[0], start)), None)
            if inside is None:  # a declaration (<!DOCTYPE ...>): left as it is
                out += b"<!"
                position = start + 2
            else:
                position = start + len(inside[0])
            continue
        end = data.find(inside[1], position)
        content = data[position:len(data) if end < 0 else end]
        out += (_line_keeper(content.count(b"\n")) if inside is _COMMENT
                else content.replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;"))
        if end < 0:
            break
        position, inside = end + len(inside[1]), None
    return bytes(out), inside


def _without_bad_sentences(chunk: ByteChunk, ref: FileRef,
                           bad_sentence: Callable[[InputError], None]) -> ByteChunk:
    """The chunk without every sentence holding bytes that are not UTF-8 (as if the document
    did not hold it; its newlines kept, so later lines keep their numbers), each reported to
    `bad_sentence`; bytes outside a sentence are left for the UTF-8 check."""
    data = chunk.data
    dropped: list[tuple[int, int]] = []
    for offset in bad_utf8_offsets(data):
        opening, end = data.rfind(b"<s", 0, offset), data.find(b"</s>", offset)
        if opening < 0 or end < 0 or data.rfind(b"</s>", 0, offset) > opening:
            continue
        if dropped and dropped[-1][0] == opening:
            continue
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        bad_sentence(InputError(ref, f"invalid UTF-8 byte 0x{data[offset]:02x} in a sentence; "
                                "the sentence is left out", f"line {chunk.line_at(offset)}, "
                                f"column {column}", kind="encoding"))
        dropped.append((opening, end + len(b"</s>")))
    pieces, kept_from = [], 0
    for start, end in dropped:
        pieces += [data[kept_from:start], b"\n" * data.count(b"\n", start, end)]
        kept_from = end
    pieces.append(data[kept_from:])
    return ByteChunk(b"".join(pieces), chunk.first_line)


def read_sentences(ref: FileRef, archive: zipfile.ZipFile | None = None,
                   hasher: TextHasher | None = None,
                   bad_sentence: Callable[[InputError], None] | None = None) -> Sentences:
    """All sentences of one document, in document order (`archive`: the open zip of `ref`),
    their texts hashed by `hasher` if given. A sentence that is not UTF-8 makes the document
    bad, or, given `bad_sentence`, is reported there and left out."""
    builder = _Builder(hasher)
    seen_root = False
    start = ""
    for chunk in _markup_resolved(byte_chunks(ref, b"</s>", archive), ref):
        if bad_sentence is not None and not chunk.is_utf8():
            chunk = _without_bad_sentences(chunk, ref, bad_sentence)
        chunk.check_utf8(ref)
        _check_characters(chunk, ref)
        if b"<" in chunk.data:
            seen_root = True
        elif not start:
            start = chunk.decoded(ref).text.lstrip()[:20]
        if not _add_fast_chunk(builder, chunk):
            _add_chunk(builder, chunk.decoded(ref), ref)
    if not seen_root:
        problem = (f"not an XML document: no element in it (it starts {start!r})" if start
                   else "empty document: no XML content")
        raise InputError(ref, problem, "line 1", kind="malformed XML")
    return builder.finish()
