"""Stream the text of an OPUS file (plain, gzip or a zip member) in large UTF-8 chunks.

Chunks end on a boundary byte (``>`` for XML, a newline for Moses text) so that no element or
line is cut, and each chunk knows its first line number, for error messages. Corrupt or
truncated compression and non-UTF-8 bytes become :class:`~tapaco.core.errors.InputError` naming
file and place.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from isal import igzip, isal_zlib

from tapaco.core.errors import InputError

CHUNK_BYTES = 8 << 20
_DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error, isal_zlib.error, zipfile.BadZipFile)


@dataclass(frozen=True)
class FileRef:
    """A file on disk, or a member inside a zip archive."""

    path: Path
    member: str | None = None

    def __str__(self) -> str:
        return f"{self.path}[{self.member}]" if self.member else str(self.path)


@dataclass(frozen=True)
class TextChunk:
    text: str
    first_line: int

    def line_at(self, offset: int) -> int:
        """Line number (1-based) of a character offset in this chunk."""
        return self.first_line + self.text.count("\n", 0, offset)


def open_binary(ref: FileRef, archive: zipfile.ZipFile | None = None) -> BinaryIO:
    """Open a file, a gzip file or a zip member for binary reading (decompressing on the fly).

    `archive` is the zip of `ref.path` already open (a document store keeps its zips open);
    without it a zip member opens its archive anew.
    """
    try:
        if ref.member is not None:
            opened = archive if archive is not None else zipfile.ZipFile(ref.path)
            return opened.open(ref.member)
        if ref.path.suffix == ".gz":
            return igzip.open(ref.path, "rb")
        return open(ref.path, "rb")
    except FileNotFoundError as error:
        raise InputError(ref, "file not found", kind="missing file") from error
    except KeyError as error:
        raise InputError(ref, "zip member not found", kind="missing file") from error
    except _DECOMPRESSION_ERRORS as error:
        raise InputError(ref, f"cannot open: {error}", kind="corrupt file") from error


def _read_block(stream: BinaryIO, ref: FileRef, bytes_read: int) -> bytes:
    try:
        return stream.read(CHUNK_BYTES)
    except EOFError as error:
        raise InputError(
            ref, "truncated compressed stream (the file ends early)",
            f"after {bytes_read} decompressed bytes", kind="corrupt file",
        ) from error
    except _DECOMPRESSION_ERRORS as error:
        raise InputError(
            ref, f"corrupt compressed data: {error}",
            f"after {bytes_read} decompressed bytes", kind="corrupt file",
        ) from error


def _decode(data: bytes, ref: FileRef, first_line: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise InputError(
            ref, f"invalid UTF-8 byte 0x{data[error.start]:02x}",
            f"line {line}, column {column}", kind="encoding",
        ) from error


def text_chunks(ref: FileRef, boundary: bytes,
                archive: zipfile.ZipFile | None = None) -> Iterator[TextChunk]:
    """Yield the decoded text of `ref` in chunks, each ending just after a `boundary`.

    `archive`: the open zip holding `ref`, if the caller keeps one (see :func:`open_binary`).
    """
    line = 1
    carry = b""
    bytes_read = 0
    with open_binary(ref, archive) as stream:
        while True:
            block = _read_block(stream, ref, bytes_read)
            bytes_read += len(block)
            data = carry + block
            if not block:
                if data:
                    yield TextChunk(_decode(data, ref, line), line)
                return
            cut = data.rfind(boundary)
            if cut < 0:
                carry = data
                continue
            cut += len(boundary)
            carry = data[cut:]
            yield TextChunk(_decode(data[:cut], ref, line), line)
            line += data.count(b"\n", 0, cut)
