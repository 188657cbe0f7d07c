"""Read the sentences of an OPUS sentence document (raw text or `<w>`-tokenised XML).

A sentence is `<s id="..." [lists=".." tags=".."]>text</s>`. Where it holds `<w>` elements
its text is their tokens joined by single spaces (a tokenised document); otherwise it is the
character data of the `<s>` itself, child elements and their content left out, as OpusTools
reads raw documents (an OpenSubtitles raw `<s>` holds `<time .../>` elements around its
text). Entities are decoded and whitespace is collapsed. Plain `<s id="..">text</s>`
sentences, and OpenSubtitles ones once their one-line `<time/>` elements are dropped, are read
by one regular-expression pass a chunk.
"""

from __future__ import annotations

import html
import re
import zipfile
from dataclasses import dataclass, field

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import FileRef, TextChunk, text_chunks
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
    """The sentences of one document, as parallel lists; `tokenised` if it has `<w>` tokens."""

    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    tokenised: bool = False

    def __len__(self) -> int:
        return len(self.ids)


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


def _add_raw_chunk(sentences: Sentences, found: list[tuple[str, str, str, str]]) -> None:
    """Fast path: every sentence is `<s id=".." [lists=".."] [tags=".."]>plain text</s>`."""
    ids, lists, tags, bodies = zip(*found)
    sentences.ids.extend(ids)
    sentences.texts.extend(map(_plain_text, bodies))
    sentences.lists.extend(_attribute_values(lists))
    sentences.tags.extend(_attribute_values(tags))


def _without_times(chunk: TextChunk) -> TextChunk:
    """The chunk without its one-line `<time .../>` elements (line numbers stay right)."""
    if "<time" not in chunk.text:
        return chunk
    return TextChunk(_ONE_LINE_TIME.sub("", chunk.text), chunk.first_line)


def _add_chunk(sentences: Sentences, chunk: TextChunk, ref: FileRef) -> None:
    chunk = _without_times(chunk)
    starts = sum(chunk.text.count(start) for start in _SENTENCE_STARTS)
    raw = _RAW_SENTENCE.findall(chunk.text) if "<w" not in chunk.text else []
    if raw and len(raw) == starts:
        _add_raw_chunk(sentences, raw)
        return
    found = _SENTENCE.findall(chunk.text)
    if len(found) != starts:
        last_good = max(chunk.text.rfind("</s>"), 0)
        raise malformed(ref, f"line {chunk.line_at(last_good)}", "unterminated <s> element")
    sentences.tokenised = sentences.tokenised or _TOKEN.search(chunk.text) is not None
    for raw_attributes, body in found:
        attributes = _attributes(raw_attributes)
        if "id" not in attributes:
            raise InputError(ref, "<s> element without an id attribute",
                             f"line {chunk.line_at(chunk.text.find(raw_attributes))}",
                             kind="malformed XML")
        sentences.ids.append(attributes["id"])
        sentences.texts.append(sentence_text(body))
        sentences.lists.append(attributes.get("lists", ""))
        sentences.tags.append(attributes.get("tags", ""))


def read_sentences(ref: FileRef, archive: zipfile.ZipFile | None = None) -> Sentences:
    """All sentences of one document, in document order (`archive`: the open zip of `ref`)."""
    sentences = Sentences()
    seen_root = False
    start = ""
    for chunk in text_chunks(ref, b"</s>", archive):
        seen_root = seen_root or "<" in chunk.text
        start = start or chunk.text.lstrip()[:20]
        _add_chunk(sentences, chunk, ref)
    if not seen_root:
        problem = (f"not an XML document: no element in it (it starts {start!r})" if start
                   else "empty document: no XML content")
        raise InputError(ref, problem, "line 1", kind="malformed XML")
    return sentences
