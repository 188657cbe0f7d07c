"""Read Moses bitexts: `<Corpus>.<l1>-<l2>.<l1>`, `.<l2>` and optionally `.ids`.

They come zipped (`moses/<l1>-<l2>.txt.zip`) or extracted (`moses/<l1>-<l2>/`). The `.ids` file
(`l1doc<TAB>l2doc<TAB>l1 ids<TAB>l2 ids`) gives every line its documents and sentence ids;
without it each line is its own sentence, numbered from 1 in a pseudo-document per language.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.opus.links import LinkBlock, language_of
from tapaco.core.opus.textstream import FileRef, LineChunks

LINES_PER_BLOCK = 200_000


def _members(source: Path) -> list[FileRef]:
    if source.is_dir():
        return [FileRef(path) for path in sorted(source.iterdir()) if path.is_file()]
    try:
        with zipfile.ZipFile(source) as archive:
            names = sorted(name for name in archive.namelist() if not name.endswith("/"))
    except (OSError, zipfile.BadZipFile) as error:
        raise InputError(source, f"not a readable zip file: {error}",
                         kind="corrupt file") from error
    return [FileRef(source, name) for name in names]


def _find(members: list[FileRef], suffix: str) -> FileRef | None:
    for ref in members:
        if (ref.member or ref.path.name).endswith(suffix):
            return ref
    return None


def moses_files(source: Path, pair: tuple[str, str]) -> tuple[FileRef, FileRef, FileRef | None]:
    """The text files of both languages and the `.ids` file (None if absent) of a bitext."""
    members = _members(source)
    name = f"{pair[0]}-{pair[1]}"
    first = _find(members, f"{name}.{pair[0]}")
    second = _find(members, f"{name}.{pair[1]}")
    if first is None or second is None:
        missing = f"*.{name}.{pair[0]}" if first is None else f"*.{name}.{pair[1]}"
        raise InputError(source, f"Moses bitext without its {missing} file", kind="missing file")
    return first, second, _find(members, f"{name}.ids")


def clean_line(line: str) -> str:
    """A Moses line as a sentence: whitespace runs collapsed, ends stripped (see
    :mod:`tapaco.core.characters`)."""
    if "\t" in line or "  " in line or "\r" in line:
        return " ".join(line.split())
    return line.strip()


def _split_ids(lines: list[str], ref: FileRef, first_line: int) -> list[list[str]]:
    rows = [line.rstrip("\r").split("\t") for line in lines]
    for number, row in enumerate(rows):
        if len(row) != 4:
            raise InputError(ref, f"expected 4 tab-separated fields, found {len(row)}",
                             f"line {first_line + number}", kind="malformed ids")
    return rows


def _blocks_with_ids(source: str, pair, rows, first, second) -> Iterator[LinkBlock]:
    start = 0
    for end in range(1, len(rows) + 1):
        if end < len(rows) and rows[end][:2] == rows[start][:2]:
            continue
        from_doc, to_doc = rows[start][0], rows[start][1]
        yield LinkBlock(
            source, language_of(from_doc, pair[0]), from_doc, language_of(to_doc, pair[1]),
            to_doc, [row[2] for row in rows[start:end]], [row[3] for row in rows[start:end]],
            first[start:end], second[start:end],
        )
        start = end


def _numbered_block(source: str, pair, first_line: int, first, second) -> LinkBlock:
    numbers = [str(first_line + offset) for offset in range(len(first))]
    stem = f"moses.{pair[0]}-{pair[1]}"
    return LinkBlock(source, pair[0], f"{pair[0]}/{stem}", pair[1], f"{pair[1]}/{stem}",
                     numbers, list(numbers), first, second)


def read_moses(source: Path, pair: tuple[str, str],
               bad_line: Callable[[InputError], None] | None = None) -> Iterator[LinkBlock]:
    """Yield the links of a Moses bitext, with the texts of both sides. A text line too long,
    not UTF-8 or holding a control character goes to `bad_line` (raised by default) and reads
    as empty."""
    first, second, ids = moses_files(source, pair)
    readers = [LineChunks(first, bad_line=bad_line), LineChunks(second, bad_line=bad_line)]
    if ids is not None:
        readers.append(LineChunks(ids))
    try:
        while True:
            line = readers[0].line
            batches = [reader.take(LINES_PER_BLOCK).decoded() for reader in readers]
            batches[0] = [clean_line(text) for text in batches[0]]
            batches[1] = [clean_line(text) for text in batches[1]]
            lengths = {len(batch) for batch in batches}
            if len(lengths) > 1:
                short = min(readers, key=lambda r: r.line)
                raise InputError(short.ref, "fewer lines than the other files of the bitext",
                                 f"line {short.line}", kind="malformed Moses")
            if not batches[0]:
                return
            if len(readers) == 3:
                rows = _split_ids(batches[2], readers[2].ref, line)
                yield from _blocks_with_ids(str(source), pair, rows, batches[0], batches[1])
            else:
                yield _numbered_block(str(source), pair, line, batches[0], batches[1])
    finally:
        for reader in readers:
            reader.close()
