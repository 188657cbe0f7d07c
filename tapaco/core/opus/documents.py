"""Read the sentences of an OPUS sentence document (raw text or `<w>`-tokenised XML).

A sentence is `<s id="..." [lists=".." tags=".."]>text</s>`. Where it holds `<w>` elements
its text is their tokens joined by single spaces (a tokenised document); otherwise it is the
character data of the `<s>` itself, child elements and their content left out, as OpusTools
reads raw documents (an OpenSubtitles raw `<s>` holds `<time .../>` elements around its
text). References are decoded as XML reads them (:mod:`tapaco.core.opus.xml_text`) and
whitespace is collapsed (:mod:`tapaco.core.characters`).

A chunk whose sentences are all `<s id=".." [lists=".."] [tags=".."]>body</s>`, the body
holding at most `<w>` tokens and one-line `<time .../>` elements (Tatoeba's and OpenSubtitles'
raw and tokenised documents), is read by a compiled scanner
(:mod:`tapaco.core.opus.document_kernels`): ids become keys (:mod:`tapaco.core.opus.sidekeys`)
and the texts of a chunk stay UTF-8, a :class:`tapaco.core.text_column.TextColumn`. Any other
chunk is read by regular expressions, sentence by sentence: that general path is the reference
the scanner is tested against.

XML's other markup is read as XML defines it before any of these sees a chunk
(:mod:`tapaco.core.opus.xml_markup`: comments and processing instructions dropped, CDATA
sections as their text), and bad input is found (:mod:`tapaco.core.opus.document_checks`: a
byte that is not UTF-8, a character XML 1.0 forbids, written or as a reference).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tapaco.core.errors import InputError
from tapaco.core.opus.document_checks import checked
from tapaco.core.opus.document_kernels import ScannedSentences, scan_sentences
from tapaco.core.opus.sidekeys import plain_key, plain_text
from tapaco.core.opus.textstream import ByteChunk, FileRef, TextChunk, byte_chunks
from tapaco.core.opus.xml_markup import markup_resolved
from tapaco.core.opus.xml_text import attribute_value, unescape
from tapaco.core.opus.xmlcheck import malformed
from tapaco.core.text_column import TextColumn

# an attribute value, in either quotes, may hold ">"
_SENTENCE = re.compile(r"""<s\b((?:[^>"']|"[^"]*"|'[^']*')*?)(?:/>|>(.*?)</s\s*>)""", re.S)
_SENTENCE_STARTS = ("<s ", "<s>", "<s/", "<s\n", "<s\t", "<s\r")
_TOKEN = re.compile(r"<w\b[^>]*>([^<]*)</w\s*>")
_TAG = re.compile(r"(<[^>]*>)")
_ONE_LINE_TIME = re.compile(r"<time\b[^>\n]*/>")
_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


@dataclass
class Sentences:
    """The sentences of one document, as parallel columns; `tokenised` if it has `<w>` tokens.

    Ids are kept as keys (`keys`, for plain ids such as `s12`) and strings (`other_ids`, by
    index, for the rest); `ids` gives them all as strings.
    """

    texts: TextColumn = field(default_factory=lambda: TextColumn.of([]))
    lists: TextColumn = field(default_factory=lambda: TextColumn.of([]))
    tags: TextColumn = field(default_factory=lambda: TextColumn.of([]))
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    other_ids: dict[int, str] = field(default_factory=dict)
    tokenised: bool = False

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def ids(self) -> list[str]:
        """Every sentence id, in document order."""
        ids = [plain_text(key) for key in self.keys.tolist()]
        for index, sentence_id in self.other_ids.items():
            ids[index] = sentence_id
        return ids


class _Builder:
    """Collects a document's sentences chunk by chunk."""

    def __init__(self) -> None:
        self.sentences = Sentences()
        self.key_parts: list[np.ndarray] = []
        self.column_parts: list[tuple[TextColumn, TextColumn, TextColumn]] = []
        self.count = 0

    def add(self, ids: list[str] | None, texts: TextColumn, lists: TextColumn, tags: TextColumn,
            keys: np.ndarray | None = None, other_ids: dict[int, str] | None = None) -> None:
        """Sentences of a chunk, their ids as strings, or as keys and other ids."""
        if ids is not None:
            keys, other_ids = _keys_of(ids)
        self.sentences.other_ids.update((self.count + i, value) for i, value in other_ids.items())
        self.key_parts.append(keys)
        self.column_parts.append((texts, lists, tags))
        self.count += len(texts)

    def finish(self) -> Sentences:
        if self.key_parts:
            self.sentences.keys = np.concatenate(self.key_parts)
        for name, parts in zip(("texts", "lists", "tags"), zip(*self.column_parts)):
            setattr(self.sentences, name, TextColumn.concatenate(parts))
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
        text = unescape(text)
    if "\n" in text or "\t" in text or "\r" in text or "  " in text:
        return " ".join(text.split())
    return text.strip()


def _attributes(raw: str) -> dict[str, str]:
    """The attributes of a sentence's open tag; its id as written but for references, the
    others read as values (see :func:`tapaco.core.opus.xml_text.attribute_value`)."""
    if raw.startswith(' id="') and raw.count('"') == 2 and "&" not in raw:
        return {"id": raw[5:raw.rindex('"')]}
    return {name: unescape(double + single) if name == "id" else attribute_value(double + single)
            for name, double, single in _ATTRIBUTE.findall(raw)}


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
    builder.add(ids, TextColumn.of(texts), TextColumn.of(lists), TextColumn.of(tags))


def _add_scanned_chunk(builder: _Builder, chunk: ByteChunk) -> bool:
    """Read a chunk in the common form with the compiled scanner; False (nothing added) if it
    is not in that form."""
    raw = chunk.data
    scanned = scan_sentences(raw)
    if scanned is None:
        return False
    alone = np.flatnonzero(scanned.alone)
    texts = scanned.texts.with_rows(alone, [
        sentence_text(raw[start:end].decode("utf-8"))
        for start, end in scanned.text_bounds[alone].tolist()])
    lists, tags = _attribute_values(scanned, raw)
    others = {index: raw[start:end].decode("utf-8") for index, (start, end) in zip(
        np.flatnonzero(~scanned.plain).tolist(), scanned.id_bounds[~scanned.plain].tolist())}
    builder.sentences.tokenised |= scanned.tokenised
    builder.add(None, texts, lists, tags, keys=scanned.keys, other_ids=others)
    return True


def _attribute_values(scanned: ScannedSentences, raw: bytes) -> tuple[TextColumn, TextColumn]:
    """The sentences' `lists` and `tags`; where the scanner left one to the reference, both
    read from the open tag by :func:`_attributes`."""
    rows = np.flatnonzero(scanned.value_alone.any(axis=1))
    if not len(rows):
        return scanned.lists, scanned.tags
    read = [_attributes(raw[start - len(' id="'):end - 1].decode("utf-8"))
            for start, end in zip(scanned.id_bounds[rows, 0].tolist(),
                                  scanned.text_bounds[rows, 0].tolist())]
    return (scanned.lists.with_rows(rows, [values.get("lists", "") for values in read]),
            scanned.tags.with_rows(rows, [values.get("tags", "") for values in read]))


def read_sentences(ref: FileRef, archive: zipfile.ZipFile | None = None,
                   bad_sentence: Callable[[InputError], None] | None = None) -> Sentences:
    """All sentences of one document, in document order (`archive`: the open zip of `ref`).
    Bad input (a byte that is not UTF-8, a character
    XML forbids) makes the document bad, or, given `bad_sentence`, is reported there and costs
    only the sentence it is in (see :mod:`tapaco.core.opus.document_checks`)."""
    builder = _Builder()
    seen_root = False
    start = ""
    for chunk in markup_resolved(byte_chunks(ref, b"</s>", archive), ref):
        chunk = checked(chunk, ref, bad_sentence)
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
