"""Where enrichment pairs come from: an OPUS bitext, plain Moses files, or TaPaCo sets.

Each yields (source sentence, reference) pairs, streaming: the source side (not the target
language) is translated into the target language and the output is paired with the reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import zip_longest
from pathlib import Path

from tapaco.core.errors import InputError, usage_error
from tapaco.core.opus import DocumentStore, LinkBlock, find_alignment_sources


def _side_texts(store: DocumentStore, document: str, sides: list[str],
                moses_texts: list[str] | None) -> list[str | None]:
    """Texts of link sides: from the document where one exists (a side it lacks falls back to
    its Moses line), else the Moses lines; None for a side without text."""
    found = store.find(document)
    if found is None:
        if moses_texts is None:
            raise store.missing(document)
        return list(moses_texts)
    if moses_texts is None:
        return [found.side_text(side) for side in sides]
    return [text if (text := found.side_text(side)) is not None else line
            for side, line in zip(sides, moses_texts)]


def _block_pairs(block: LinkBlock, target: str,
                 store: DocumentStore) -> Iterator[tuple[str, str]]:
    forward = block.to_lang == target
    source = (block.from_doc, block.from_sides, block.from_texts)
    reference = (block.to_doc, block.to_sides, block.to_texts)
    if not forward:
        source, reference = reference, source
    pairs = zip(_side_texts(store, *source), _side_texts(store, *reference))
    yield from ((s, r) for s, r in pairs if s and r)


def bitext_pairs(opus_dir: Path, pair: str, target: str) -> Iterator[tuple[str, str]]:
    """(source, reference) pairs of the OPUS bitext `pair` (e.g. `cs-en`), target `target`."""
    langs = tuple(pair.split("-"))
    if len(langs) != 2 or target not in langs:
        raise usage_error("--pair", f"{pair!r} is not a language pair containing {target!r}")
    sources = [s for s in find_alignment_sources(opus_dir) if sorted(s.langs) == sorted(langs)]
    if not sources:
        raise usage_error(opus_dir, f"no {pair} bitext in this release")
    with DocumentStore(opus_dir) as store:
        for block in sources[0].link_blocks():
            yield from _block_pairs(block, target, store)


def _line_count(path: Path) -> int:
    """Lines of a text file; a last line without a newline counts too."""
    lines, last = 0, b"\n"
    try:
        with open(path, "rb") as stream:
            while block := stream.read(1 << 24):
                lines += block.count(b"\n")
                last = block[-1:]
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror}", kind="missing file") from error
    return lines + (last != b"\n")


def _unequal_lines(source_file: Path, reference_file: Path, line: int) -> InputError:
    return InputError(source_file, f"{source_file.name} and {reference_file.name} have "
                      "different numbers of lines", f"line {line}", kind="malformed Moses")


def check_line_counts(source_file: Path, reference_file: Path) -> None:
    """Refuse two files of unequal line counts before anything is read or written."""
    counts = _line_count(source_file), _line_count(reference_file)
    if counts[0] != counts[1]:
        raise _unequal_lines(source_file, reference_file, min(counts) + 1)


def moses_pairs(source_file: Path, reference_file: Path) -> Iterator[tuple[str, str]]:
    """(source, reference) pairs from two line-aligned plain text files.

    Unequal line counts are an InputError at the first line one file lacks.
    """
    with open(source_file, encoding="utf-8") as sources, \
            open(reference_file, encoding="utf-8") as references:
        for number, (source, reference) in enumerate(zip_longest(sources, references), 1):
            if source is None or reference is None:
                raise _unequal_lines(source_file, reference_file, number)
            if source.strip() and reference.strip():
                yield source.strip(), reference.strip()


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
