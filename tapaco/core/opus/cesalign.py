"""Stream cesAlign sentence alignments (`<linkGrp fromDoc toDoc>` of `<link xtargets="a b;c">`).

A regular-expression scan over large decompressed chunks is several times faster than an XML
parser; cheap structural checks catch what the scan cannot read, and the expat pass of
:mod:`tapaco.core.opus.xmlcheck` then names the exact place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tapaco.core.errors import InputError
from tapaco.core.opus.links import LinkBlock, language_of
from tapaco.core.opus.textstream import FileRef, TextChunk, text_chunks
from tapaco.core.opus.xmlcheck import malformed

_GROUP_START = re.compile(r"<linkGrp\b([^>]*)>")
_LINK_TARGETS = re.compile(r'<link\b[^>]*?\bxtargets="([^";]*);([^"]*)"')
_ATTRIBUTE = re.compile(r'([\w:.-]+)\s*=\s*"([^"]*)"')


def _group_documents(attributes: str, ref: FileRef, chunk: TextChunk, offset: int) -> tuple:
    values = dict(_ATTRIBUTE.findall(attributes))
    if "fromDoc" not in values or "toDoc" not in values:
        raise InputError(
            ref, "<linkGrp> without fromDoc and toDoc attributes",
            f"line {chunk.line_at(offset)}", kind="malformed XML",
        )
    return values["fromDoc"], values["toDoc"]


def _links_of_segment(segment: str, ref: FileRef, chunk: TextChunk, offset: int) -> list:
    found = _LINK_TARGETS.findall(segment)
    if len(found) != segment.count("<link"):
        bad = next(m for m in re.finditer(r"<link\b[^>]*>?", segment)
                   if not _LINK_TARGETS.match(m.group()))
        position = f"line {chunk.line_at(offset + bad.start())}"
        raise malformed(ref, position, 'expected <link xtargets="ids;ids" .../>')
    return found


class _GroupState:
    def __init__(self, ref: FileRef, pair: tuple[str, str]) -> None:
        self.ref = ref
        self.pair = pair
        self.documents: tuple[str, str] | None = None

    def block(self, links: list, chunk: TextChunk, offset: int) -> LinkBlock | None:
        if not links:
            return None
        if self.documents is None:
            first_link = chunk.text.find("<link", offset)
            raise InputError(self.ref, "<link> outside a <linkGrp>",
                             f"line {chunk.line_at(first_link)}", kind="malformed XML")
        from_doc, to_doc = self.documents
        from_sides, to_sides = (list(column) for column in zip(*links, strict=True))
        return LinkBlock(
            str(self.ref), language_of(from_doc, self.pair[0]), from_doc,
            language_of(to_doc, self.pair[1]), to_doc, from_sides, to_sides,
        )


def _check_end(ref: FileRef, last: TextChunk | None) -> None:
    if last is None or not last.text.rstrip().endswith("</cesAlign>"):
        line = last.line_at(len(last.text)) if last else 1
        raise malformed(ref, f"line {line}", "unexpected end of file: no closing </cesAlign>")


def read_cesalign(ref: FileRef, pair: tuple[str, str]) -> Iterator[LinkBlock]:
    """Yield the links of one cesAlign file; `pair` names the languages if paths lack them."""
    state = _GroupState(ref, pair)
    last = None
    for chunk in text_chunks(ref, b">"):
        if last is None and "<cesAlign" not in chunk.text:
            raise malformed(ref, "line 1", "not a cesAlign file: no <cesAlign> element")
        if last is None or not chunk.text.isspace():
            last = chunk
        position = 0
        for group in _GROUP_START.finditer(chunk.text):
            links = _links_of_segment(chunk.text[position:group.start()], ref, chunk, position)
            if (block := state.block(links, chunk, position)) is not None:
                yield block
            state.documents = _group_documents(group.group(1), ref, chunk, group.start())
            position = group.end()
        links = _links_of_segment(chunk.text[position:], ref, chunk, position)
        if (block := state.block(links, chunk, position)) is not None:
            yield block
    _check_end(ref, last)
