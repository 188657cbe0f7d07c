"""Read a ranked Opusparcus file (training `.bz2` or dev/test candidates): 7 fields, best first
(8 when ranked by another scheme than summed PMI: the last is that score)."""

from __future__ import annotations

import bz2
from pathlib import Path

from tapaco.core.errors import InputError, usage_error
from tapaco.core.files import write_file_atomically

FIELDS = 7
FIELDS_WITH_SCHEME_SCORE = 8
ID_BYTES = 4096  # what ranked_language reads of a first row: its id, never a whole long row


def read_ranked(path: Path) -> list[list[str]]:
    """The rows of a ranked file; the rank of a row is its 1-based line number."""
    try:
        data = bz2.decompress(path.read_bytes()) if path.suffix == ".bz2" else path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read ranked file: {error}", kind="corrupt file") from error
    rows = [line.split("\t") for line in text.splitlines()]
    width = len(rows[0]) if rows and len(rows[0]) == FIELDS_WITH_SCHEME_SCORE else FIELDS
    for line, row in enumerate(rows, 1):
        if len(row) != width:
            raise InputError(path, f"expected {width} tab-separated fields, found {len(row)}",
                             f"line {line}", kind="malformed ranked file")
    return rows


def write_rows(path: Path, rows: list[list[str]]) -> None:
    """Write rows (bz2 for `.bz2`) through a temporary name."""
    data = "".join("\t".join(row) + "\n" for row in rows).encode("utf-8")
    write_file_atomically(path, bz2.compress(data, 9) if path.suffix == ".bz2" else data)


def ranked_language(path: Path) -> str:
    """The language of a ranked file, from its first row's id (`en-N1` -> `en`), reading only
    the start of that row."""
    try:
        opener = bz2.open if path.suffix == ".bz2" else open
        with opener(path, "rb") as handle:
            first, tab, _ = handle.readline(ID_BYTES).partition(b"\t")
            first = first.decode("utf-8")
    except (OSError, ValueError, EOFError, UnicodeDecodeError) as error:
        raise InputError(path, f"cannot read ranked file: {error}", kind="corrupt file") from error
    if first.strip() and not tab:
        raise InputError(path, f"the first row has no id (no tab in its first {ID_BYTES:,} "
                         "bytes): not a ranked file", "line 1", kind="malformed ranked file")
    if not first.strip():
        raise usage_error(path, "the ranked file is empty")
    return first.rsplit("-", 1)[0]
