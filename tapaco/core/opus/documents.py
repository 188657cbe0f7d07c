"""Read the sentences of an OPUS sentence document (raw text or `<w>`-tokenised XML).

A sentence is `<s id="..." [lists=".." tags=".."]>text</s>`. Where it holds `<w>` elements
its text is their tokens joined by single spaces (a tokenised document); otherwise it is the
character data of the `<s>` itself, child elements and their content left out, as OpusTools
reads raw documents (an OpenSubtitles raw `<s>` holds `<time .../>` elements around its
text). Entities are decoded and whitespace is collapsed.

A chunk whose sentences are all `<s id=".." [lists=".."] [tags=".."]>body</s>`, the body
holding at most `<w>` tokens and one-line `<time .../>` elements (Tatoeba's and OpenSubtitles'
raw and tokenised documents), is read by a compiled scanner
(:mod:`tapaco.core.opus.document_kernels`): ids become keys (:mod:`tapaco.core.opus.sidekeys`)
and the texts of a chunk are decoded at once. Any other chunk is read by regular expressions,
sentence by sentence: that general path is the reference the scanner is tested against.

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

from tapaco.core.errors import InputError
from tapaco.core.interruptible import in_background
from tapaco.core.opus.document_kernels import ScannedSentences, first_forbidden, scan_sentences
from tapaco.core.opus.sidekeys import plain_key, plain_text
from tapaco.core.opus.textstream import (
    MAX_UNBROKEN_BYTES,
    ByteChunk,
    FileRef,
    TextChunk,
    bad_utf8_offsets,
    byte_chunks,
)
from tapaco.core.opus.xmlcheck import malformed

# an attribute value may hold ">"
_SENTENCE = re.compile(r'<s\b((?:[^>"]|"[^"]*")*?)(?:/>|>(.*?)</s\s*>)', re.S)
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


def _without_times(chunk: TextChunk) -> TextChunk:
    """The chunk without its one-line `<time .../>` elements (line numbers stay right)."""
    if "<time" not in chunk.text:
        return chunk
    return TextChunk(_ONE_LINE_TIME.sub("", chunk.text), chunk.first_line)


def _add_chunk(builder: _Builder, chunk: TextChunk, ref: FileRef) -> None:
    chunk = _without_times(chunk)
    starts = sum(chunk.text.count(start) for start in _SENTENCE_STARTS)
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


def _add_scanned_chunk(builder: _Builder, chunk: ByteChunk) -> bool:
    """Read a chunk in the common form with the compiled scanner; False (nothing added) if it
    is not in that form."""
    raw = chunk.data
    scanned = scan_sentences(raw)
    if scanned is None:
        return False
    texts = scanned.joined.decode("utf-8").split("\n")[:-1]
    for index in np.flatnonzero(scanned.alone).tolist():
        start, end = scanned.text_bounds[index].tolist()
        texts[index] = sentence_text(raw[start:end].decode("utf-8"))
    others = {index: raw[start:end].decode("utf-8") for index, (start, end) in zip(
        np.flatnonzero(~scanned.plain).tolist(), scanned.id_bounds[~scanned.plain].tolist())}
    builder.sentences.tokenised |= scanned.tokenised
    builder.add(None, texts, *_attribute_values_of(scanned), keys=scanned.keys,
                other_ids=others, joined=(scanned.joined, ~scanned.alone))
    return True


def _attribute_values_of(scanned: ScannedSentences) -> tuple[list[str], list[str]]:
    """Each sentence's `lists` and `tags` values, entities decoded."""
    count = len(scanned.keys)
    if scanned.values is None:
        return [""] * count, [""] * count
    values = scanned.values.decode("utf-8").split("\n")[:-1]
    for position in np.flatnonzero(scanned.value_ampersands.ravel()).tolist():
        values[position] = html.unescape(values[position])
    return values[0::2], values[1::2]


def _check_characters(chunk: ByteChunk, ref: FileRef) -> None:
    """Raise :class:`InputError` at the first character XML 1.0 does not allow."""
    at = in_background(first_forbidden, np.frombuffer(chunk.data, np.uint8),
                       size=len(chunk.data))
    if at >= 0:
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
        if not _add_scanned_chunk(builder, chunk):
            _add_chunk(builder, chunk.decoded(ref), ref)
    if not seen_root:
        problem = (f"not an XML document: no element in it (it starts {start!r})" if start
                   else "empty document: no XML content")
        raise InputError(ref, problem, "line 1", kind="malformed XML")
    return builder.finish()
