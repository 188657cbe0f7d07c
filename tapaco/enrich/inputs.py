"""Where enrichment pairs come from: an OPUS bitext, plain Moses files, or TaPaCo sets.

Each yields (source sentence, reference) pairs, streaming: the source side (not the target
language) is translated into the target language and the output is paired with the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.opus import DocumentLocator, LinkBlock, find_alignment_sources, read_sentences


def _side_text(texts: dict[str, str], side: str) -> str | None:
    parts = [texts.get(sentence_id) for sentence_id in side.split()]
    return None if not parts or None in parts else " ".join(parts)


class _Documents:
    """Sentence texts by id of the most recently used documents (blocks come grouped)."""

    def __init__(self, opus_dir: Path) -> None:
        self.locator = DocumentLocator(opus_dir, ("raw", "xml"))
        self.cache: dict[str, dict[str, str]] = {}

    def texts(self, document: str) -> dict[str, str]:
        if document not in self.cache:
            if len(self.cache) > 8:
                self.cache.pop(next(iter(self.cache)))
            sentences = read_sentences(self.locator.locate(document))
            self.cache[document] = dict(zip(sentences.ids, sentences.texts))
        return self.cache[document]


def _block_pairs(block: LinkBlock, target: str, documents: _Documents) -> Iterator[tuple[str, str]]:
    forward = block.to_lang == target
    if block.from_texts is not None:
        sources, references = ((block.from_texts, block.to_texts) if forward
                               else (block.to_texts, block.from_texts))
        yield from ((s, r) for s, r in zip(sources, references) if s and r)
        return
    source_doc, reference_doc = ((block.from_doc, block.to_doc) if forward
                                 else (block.to_doc, block.from_doc))
    source_sides, reference_sides = ((block.from_sides, block.to_sides) if forward
                                     else (block.to_sides, block.from_sides))
    source_texts, reference_texts = documents.texts(source_doc), documents.texts(reference_doc)
    for source_side, reference_side in zip(source_sides, reference_sides):
        source = _side_text(source_texts, source_side)
        reference = _side_text(reference_texts, reference_side)
        if source and reference:
            yield source, reference


def bitext_pairs(opus_dir: Path, pair: str, target: str) -> Iterator[tuple[str, str]]:
    """(source, reference) pairs of the OPUS bitext `pair` (e.g. `cs-en`), target `target`."""
    langs = tuple(pair.split("-"))
    if len(langs) != 2 or target not in langs:
        raise InputError("--pair", f"{pair!r} is not a language pair containing {target!r}",
                         kind="usage")
    sources = [s for s in find_alignment_sources(opus_dir) if sorted(s.langs) == sorted(langs)]
    if not sources:
        raise InputError(opus_dir, f"no {pair} bitext in this release", kind="usage")
    documents = _Documents(opus_dir)
    for block in sources[0].link_blocks():
        yield from _block_pairs(block, target, documents)


def moses_pairs(source_file: Path, reference_file: Path) -> Iterator[tuple[str, str]]:
    """(source, reference) pairs from two line-aligned plain text files."""
    lines = 0
    with open(source_file, encoding="utf-8") as sources, \
            open(reference_file, encoding="utf-8") as references:
        for source, reference in zip(sources, references, strict=False):
            lines += 1
            if source.strip() and reference.strip():
                yield source.strip(), reference.strip()
        if sources.readline() or references.readline():
            raise InputError(source_file, f"{source_file.name} and {reference_file.name} have "
                             "different numbers of lines", f"line {lines + 1}",
                             kind="malformed Moses")


def tapaco_set_pairs(sets_dir: Path, from_lang: str, target: str) -> Iterator[tuple[str, str, str]]:
    """(set id, source sentence, reference) for every sentence of `from_lang` in a TaPaCo output.

    The reference is the first sentence of the same set in the target language ("" if none).
    """
    source_file, target_file = sets_dir / f"{from_lang}.txt", sets_dir / f"{target}.txt"
    if not source_file.is_file():
        raise InputError(source_file, "no TaPaCo file for this language", kind="missing file")
    first_of_set: dict[str, str] = {}
    if target_file.is_file():
        for line in target_file.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            first_of_set.setdefault(fields[0], fields[2] if len(fields) > 2 else "")
    for number, line in enumerate(source_file.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("\t")
        if len(fields) < 3:
            raise InputError(source_file, "expected TaPaCo's 5 tab-separated fields",
                             f"line {number}", kind="malformed TaPaCo file")
        yield fields[0], fields[2], first_of_set.get(fields[0], "")
