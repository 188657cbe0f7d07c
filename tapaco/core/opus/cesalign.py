"""Stream cesAlign sentence alignments (`<linkGrp fromDoc toDoc>` of `<link xtargets="a b;c">`).

Each decompressed chunk is first read by a compiled scanner
(:mod:`tapaco.core.opus.cesalign_kernels`), which finds every side's bytes; plain ids become
integer keys (:mod:`tapaco.core.opus.sidekeys`) in the same pass, without a Python object per
link. A chunk that
the scanner declines (a `<link>` without xtargets, a value without `;`, another element named
`link...`) is read again by a regular-expression scan, which cheap structural checks back; the
expat pass of :mod:`tapaco.core.opus.xmlcheck` then names the exact place of an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np

from tapaco.core.errors import InputError
from tapaco.core.opus.cesalign_kernels import ScannedLinks, scan_links
from tapaco.core.opus.links import KeyedLinks, LinkBlock, language_of
from tapaco.core.opus.sidekeys import SideTable
from tapaco.core.opus.textstream import ByteChunk, FileRef, TextChunk, byte_chunks
from tapaco.core.opus.xmlcheck import malformed

_GROUP_START = re.compile(r"<linkGrp\b([^>]*)>")
# an attribute value is in double or single quotes
_LINK_TARGETS = re.compile(r"""<link\b[^>]*?\bxtargets\s*=\s*"""
                           r"""(?:"([^";]*);([^"]*)"|'([^';]*);([^']*)')""")
_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _documents_of(attributes: str) -> tuple[str, str] | None:
    values = {name: double + single for name, double, single in _ATTRIBUTE.findall(attributes)}
    if "fromDoc" not in values or "toDoc" not in values:
        return None
    return values["fromDoc"], values["toDoc"]


def _group_documents(attributes: str, ref: FileRef, chunk: TextChunk, offset: int) -> tuple:
    documents = _documents_of(attributes)
    if documents is None:
        raise InputError(
            ref, "<linkGrp> without fromDoc and toDoc attributes",
            f"line {chunk.line_at(offset)}", kind="malformed XML",
        )
    return documents


def _links_of_segment(segment: str, ref: FileRef, chunk: TextChunk, offset: int) -> list:
    found = [(double_from + single_from, double_to + single_to)
             for double_from, double_to, single_from, single_to in _LINK_TARGETS.findall(segment)]
    if len(found) != segment.count("<link"):
        bad = next(m for m in re.finditer(r"<link[^>]*>?", segment)
                   if not _LINK_TARGETS.match(m.group()))  # a <link...> the pattern misses
        position = f"line {chunk.line_at(offset + bad.start())}"
        raise malformed(ref, position, 'expected <link xtargets="ids;ids" .../>')
    return found


class _GroupState:
    def __init__(self, ref: FileRef, pair: tuple[str, str], table: SideTable) -> None:
        self.ref = ref
        self.pair = pair
        self.table = table
        self.documents: tuple[str, str] | None = None

    def keyed(self, from_keys: np.ndarray, to_keys: np.ndarray) -> KeyedLinks:
        from_doc, to_doc = self.documents
        return KeyedLinks(language_of(from_doc, self.pair[0]), from_doc,
                          language_of(to_doc, self.pair[1]), to_doc, from_keys, to_keys)

    def block(self, links: list, chunk: TextChunk, offset: int) -> KeyedLinks | None:
        if not links:
            return None
        if self.documents is None:
            first_link = chunk.text.find("<link", offset)
            raise InputError(self.ref, "<link> outside a <linkGrp>",
                             f"line {chunk.line_at(first_link)}", kind="malformed XML")
        from_sides, to_sides = (list(column) for column in zip(*links, strict=True))
        return self.keyed(self.table.keys(from_sides), self.table.keys(to_sides))


def _slow_blocks(chunk: TextChunk, state: _GroupState) -> Iterator[KeyedLinks]:
    """The regular-expression reading of a chunk; raises on what it cannot read."""
    position = 0
    for group in _GROUP_START.finditer(chunk.text):
        links = _links_of_segment(chunk.text[position:group.start()], state.ref, chunk, position)
        if (block := state.block(links, chunk, position)) is not None:
            yield block
        state.documents = _group_documents(group.group(1), state.ref, chunk, group.start())
        position = group.end()
    links = _links_of_segment(chunk.text[position:], state.ref, chunk, position)
    if (block := state.block(links, chunk, position)) is not None:
        yield block


def _fast_blocks(chunk: ByteChunk, state: _GroupState) -> list[KeyedLinks] | None:
    """The chunk's links read by the compiled scanner, or None where it must be read by the
    regular-expression scan."""
    raw = chunk.data
    if b"<" not in raw:
        return []
    scanned = scan_links(raw)
    if scanned is None:
        return None
    group_documents = []
    for start, end in scanned.group_attributes.tolist():
        documents = _documents_of(raw[start:end].decode("utf-8"))
        if documents is None:
            return None
        group_documents.append(documents)
    cuts = scanned.group_first_link.tolist()
    count = len(scanned.from_keys)
    if cuts[:1] != [0] and state.documents is None and count:
        return None  # links before any group: the slow scan reports them
    from_keys, to_keys = _keyed(raw, scanned, state.table)
    blocks = []
    for number, (start, end) in enumerate(zip([0, *cuts], [*cuts, count])):
        if number:
            state.documents = group_documents[number - 1]
        if end > start:
            picked = slice(start, end)
            blocks.append(state.keyed(from_keys[picked], to_keys[picked]))
    return blocks


def _keyed(raw: bytes, scanned: ScannedLinks, table: SideTable) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """The scanned links' from and to keys, the sides that are no plain ids keyed by `table`
    (all from sides first, as they come, then the to sides)."""
    others = scanned.other_sides
    if not len(others):
        return scanned.from_keys, scanned.to_keys
    others = others[np.argsort(others[:, 0] & 1, kind="stable")]
    keys = np.stack([scanned.from_keys, scanned.to_keys], axis=1).reshape(-1)
    keys[others[:, 0]] = table.keys([raw[start:end].decode("utf-8")
                                     for start, end in others[:, 1:].tolist()])
    return keys[0::2].copy(), keys[1::2].copy()


def _check_end(ref: FileRef, last: ByteChunk | None) -> None:
    if last is None or not last.data.rstrip().endswith(b"</cesAlign>"):
        line = last.line_at(len(last.data)) if last else 1
        raise malformed(ref, f"line {line}", "unexpected end of file: no closing </cesAlign>")


def read_cesalign_keys(ref: FileRef, pair: tuple[str, str],
                       table: SideTable) -> Iterator[KeyedLinks]:
    """Yield the links of one cesAlign file with sides keyed by `table`; `pair` names the
    languages if document paths lack them."""
    state = _GroupState(ref, pair, table)
    last = None
    for chunk in byte_chunks(ref, b">"):
        chunk.check_utf8(ref)
        if last is None and b"<cesAlign" not in chunk.data:
            raise malformed(ref, "line 1", "not a cesAlign file: no <cesAlign> element")
        if last is None or not chunk.data.isspace():
            last = chunk
        fast = _fast_blocks(chunk, state)
        yield from fast if fast is not None else _slow_blocks(chunk.decoded(ref), state)
    _check_end(ref, last)


def read_cesalign(ref: FileRef, pair: tuple[str, str]) -> Iterator[LinkBlock]:
    """Yield the links of one cesAlign file with sides as strings."""
    table = SideTable()
    for block in read_cesalign_keys(ref, pair, table):
        yield LinkBlock(str(ref), block.from_lang, block.from_doc, block.to_lang, block.to_doc,
                        table.texts(block.from_keys), table.texts(block.to_keys))
