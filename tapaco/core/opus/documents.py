"""Read the sentences of an OPUS sentence document (raw text or `<w>`-tokenised XML).

A sentence is `<s id="..." [lists=".." tags=".."]>text</s>`; in tokenised documents the text is
the `<w>` tokens joined by single spaces. Entities are decoded and whitespace is collapsed.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import FileRef, TextChunk, text_chunks
from tapaco.core.opus.xmlcheck import malformed

_SENTENCE = re.compile(r"<s\b([^>]*?)(?:/>|>(.*?)</s\s*>)", re.S)
_RAW_SENTENCE = re.compile(r'<s id="([^"]*)"(?: lists="([^"]*)")?(?: tags="([^"]*)")?>([^<]*)</s>')
_SENTENCE_STARTS = ("<s ", "<s>", "<s/", "<s\n", "<s\t", "<s\r")
_TOKEN = re.compile(r"<w\b[^>]*>([^<]*)</w\s*>")
_ATTRIBUTE = re.compile(r'([\w:.-]+)\s*=\s*"([^"]*)"')


@dataclass
class Sentences:
    """The sentences of one document, as parallel lists."""

    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def sentence_text(body: str) -> str:
    """The text of a sentence element's content: raw text, or its `<w>` tokens joined."""
    text = " ".join(_TOKEN.findall(body)) if "<" in body else body
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


def _add_chunk(sentences: Sentences, chunk: TextChunk, ref: FileRef) -> None:
    starts = sum(chunk.text.count(start) for start in _SENTENCE_STARTS)
    raw = _RAW_SENTENCE.findall(chunk.text)
    if raw and len(raw) == starts:
        _add_raw_chunk(sentences, raw)
        return
    found = _SENTENCE.findall(chunk.text)
    if len(found) != starts:
        last_good = max(chunk.text.rfind("</s>"), 0)
        raise malformed(ref, f"line {chunk.line_at(last_good)}", "unterminated <s> element")
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


def read_sentences(ref: FileRef) -> Sentences:
    """All sentences of one document, in document order."""
    sentences = Sentences()
    seen_root = False
    for chunk in text_chunks(ref, b"</s>"):
        seen_root = seen_root or "<" in chunk.text
        _add_chunk(sentences, chunk, ref)
    if not seen_root:
        raise InputError(ref, "empty document: no XML content", "line 1", kind="malformed XML")
    return sentences
