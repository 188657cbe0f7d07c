"""Stream the text of an OPUS file (plain, gzip, bz2 or a zip member) in large UTF-8 chunks.

Chunks end on a boundary byte (``>`` for XML, a newline for Moses text) so that no element or
line is cut, and each chunk knows its first line number, for error messages. Corrupt or
truncated compression and non-UTF-8 bytes become :class:`~tapaco.core.errors.InputError` naming
file and place.

:class:`LineChunks` cuts a file into chunks of a given number of lines instead (the Moses
readers: the files of a bitext are read in step, line for line), without a Python object per
line: each chunk's newline positions are found with numpy.
"""

from __future__ import annotations

import bz2
import codecs
import io
import struct
import zipfile
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
from isal import igzip, isal_zlib

from tapaco.core.characters import forbidden_characters, marks
from tapaco.core.errors import InputError

CHUNK_BYTES = 8 << 20
# A line of a Moses file longer than this is no sentence (OpenSubtitles' longest lines are a few
# KB): it is skipped as bad input, without ever being held whole.
MAX_LINE_BYTES = 1 << 20
# The most bytes an XML file may hold between two chunk boundaries (`</s>` in documents, `>` in
# alignments): far more than any sentence, and a bound on the memory a chunk takes whatever the
# file holds (a zip of 1 MB can hold 1 GiB of spaces between two elements).
MAX_UNBROKEN_BYTES = 16 << 20
_NEWLINE = ord("\n")
_COUNT_BLOCK = 1 << 18
DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error, isal_zlib.error, zipfile.BadZipFile)
"""What reading a plain, gzip, bz2 or zip-member stream may raise: a file cut short, corrupt
data."""


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
    """Open a file (plain, gzip or bz2) or a zip member for binary reading, decompressing on the
    fly.

    `archive` is the zip of `ref.path` already open (a document store keeps its zips open);
    without it a zip member opens its archive anew.
    """
    try:
        if ref.member is not None and archive is not None:
            return _open_member(archive, ref.member)
        if ref.member is not None:
            with zipfile.ZipFile(ref.path) as opened:
                return _open_member(opened, ref.member)
        if ref.path.suffix in _MAGIC:
            _check_magic(ref.path)
        if ref.path.suffix == ".gz":
            return igzip.open(ref.path, "rb")
        if ref.path.suffix == ".bz2":
            return bz2.open(ref.path, "rb")
        return open(ref.path, "rb")
    except FileNotFoundError as error:
        raise InputError(ref, "file not found", kind="missing file") from error
    except KeyError as error:
        raise InputError(ref, "zip member not found", kind="missing file") from error
    except DECOMPRESSION_ERRORS as error:
        raise InputError(ref, f"cannot open: {error}", kind="corrupt file") from error


# what a compressed file starts with, by the suffix of its name
_MAGIC = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bzip2")}


def _check_magic(path: Path) -> None:
    """Raise :class:`InputError` if the file is not compressed as its name says (an empty file,
    or the start of one cut short, is left to the reader)."""
    magic, kind = _MAGIC[path.suffix]
    with open(path, "rb") as file:
        start = file.read(len(magic))
    if not magic.startswith(start):
        raise InputError(path, f"not a {kind} file: its name ends in {path.suffix} but it starts "
                         f"with bytes {start.hex(' ')}, not {magic.hex(' ')}", kind="corrupt file")


def _open_member(archive: zipfile.ZipFile, name: str) -> BinaryIO:
    """A member of an open zip (deflated members through isal; others, and encrypted ones,
    through zipfile)."""
    info = archive.getinfo(name)
    if (info.compress_type == zipfile.ZIP_DEFLATED and not info.flag_bits & 1
            and archive.filename is not None):
        return _DeflatedMember(Path(archive.filename), info)
    return archive.open(info)


_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip member's local file header (APPNOTE 4.3.7)
_INFLATE_BLOCK = 1 << 20


class _DeflatedMember(io.RawIOBase):
    """A deflated zip member, inflated by isal (faster than zlib in zipfile); its size and
    CRC-32 are checked at its end, as zipfile checks them. Reads through its own file handle."""

    def __init__(self, path: Path, info: zipfile.ZipInfo) -> None:
        super().__init__()
        self._info = info
        self._file = open(path, "rb")
        try:
            self._file.seek(info.header_offset)
            header = _LOCAL_HEADER.unpack(self._file.read(_LOCAL_HEADER.size))
        except (OSError, struct.error) as error:
            self._file.close()
            raise zipfile.BadZipFile(f"no local header for {info.filename!r}") from error
        if header[0] != b"PK\x03\x04":
            self._file.close()
            raise zipfile.BadZipFile(f"bad magic number for the header of {info.filename!r}")
        self._file.seek(header[10] + header[11], io.SEEK_CUR)
        self._compressed_left = info.compress_size
        self._inflate = isal_zlib.decompressobj(-15)
        self._blocks: deque[bytes] = deque()  # inflated, not yet read
        self._held = 0
        self._crc = self._size = 0
        self._ended = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while not self._ended and (size < 0 or self._held < size):
            self._inflate_block()
        taken: list[bytes] = []
        left = self._held if size < 0 else min(size, self._held)
        while left:
            block = self._blocks.popleft()
            if len(block) > left:
                self._blocks.appendleft(block[left:])
                block = block[:left]
            taken.append(block)
            left -= len(block)
        out = taken[0] if len(taken) == 1 else b"".join(taken)
        self._held -= len(out)
        return out

    def _inflate_block(self) -> None:
        """Inflate at most _INFLATE_BLOCK bytes (a block of compressed input may inflate a
        thousandfold: the rest waits in the inflater's unconsumed tail)."""
        block = self._inflate.unconsumed_tail
        if not block:
            block = self._file.read(min(self._compressed_left, _INFLATE_BLOCK))
            self._compressed_left -= len(block)
        out = self._inflate.decompress(block, _INFLATE_BLOCK)
        if self._inflate.eof or not (self._compressed_left or self._inflate.unconsumed_tail):
            out += self._inflate.flush()
            self._ended = True
        self._crc = zlib.crc32(out, self._crc)
        self._size += len(out)
        if out:
            self._blocks.append(out)
            self._held += len(out)
        if self._ended:
            self._check_end()

    def _check_end(self) -> None:
        name = self._info.filename
        if not self._inflate.eof:
            raise EOFError(f"the compressed data of {name!r} ends early")
        if self._size != self._info.file_size:
            raise zipfile.BadZipFile(f"{name!r} holds {self._size} bytes, not "
                                     f"{self._info.file_size}")
        if self._crc != self._info.CRC:
            raise zipfile.BadZipFile(f"bad CRC-32 for {name!r}")

    def close(self) -> None:
        self._file.close()
        super().close()


def _read_block(stream: BinaryIO, ref: FileRef, bytes_read: int) -> bytes:
    try:
        return stream.read(CHUNK_BYTES)
    except DECOMPRESSION_ERRORS as error:
        raise unreadable(ref, error, f"after {bytes_read} decompressed bytes") from error


def unreadable(ref: FileRef, error: BaseException, where: str = "") -> InputError:
    """The one-line error of a file that cannot be read to its end (`error`, one of
    :data:`DECOMPRESSION_ERRORS` or Arrow's reading it), `where` it stopped."""
    compressed = ref.member is not None or ref.path.suffix in (".gz", ".bz2")
    if isinstance(error, EOFError) or str(error).startswith("Truncated compressed stream"):
        reason = "truncated compressed stream (the file ends early)"
    elif compressed:
        reason = f"corrupt compressed data: {error}"
    else:
        reason = f"cannot be read: {error}"
    return InputError(ref, reason, where, kind="corrupt file")


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


def _is_utf8(data: bytes) -> bool:
    """Whether `data` is valid UTF-8 (checked by Arrow in C, without decoding)."""
    whole = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, len(data)], np.int64)), pa.py_buffer(data))
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _raise(error: InputError) -> None:
    raise error


def check_utf8(data: bytes, ref: FileRef, first_line: int) -> None:
    """Raise :class:`InputError` (line and column of the first bad byte) unless `data` is
    valid UTF-8; checked in C, without decoding."""
    if not _is_utf8(data):
        _decode(data, ref, first_line)  # raises, naming line and column
        raise InputError(ref, "invalid UTF-8", f"line {first_line}", kind="encoding")


@dataclass(frozen=True)
class ByteChunk:
    """Undecoded bytes of a file, cut like a :class:`TextChunk` (for numpy parsing)."""

    data: bytes
    first_line: int

    def line_at(self, offset: int) -> int:
        """Line number (1-based) of a byte offset in this chunk."""
        return self.first_line + self.data.count(b"\n", 0, offset)

    def check_utf8(self, ref: FileRef) -> None:
        """Raise :class:`InputError` (line and column) unless the bytes are valid UTF-8
        (checked by Arrow, without decoding)."""
        if not self.is_utf8():
            check_utf8(self.data, ref, self.first_line)

    def is_utf8(self) -> bool:
        """Whether the bytes are valid UTF-8."""
        return self.data.isascii() or _is_utf8(self.data)

    def decoded(self, ref: FileRef) -> TextChunk:
        """The chunk as text."""
        return TextChunk(_decode(self.data, ref, self.first_line), self.first_line)

    @cached_property
    def marks(self) -> np.ndarray:
        """Where the chunk may hold bad input or XML markup other than elements (see
        :func:`tapaco.core.characters.marks`)."""
        return marks(self.data)

    def markup_starts(self) -> np.ndarray:
        """The offsets of the chunk's every `<!` and `<?`."""
        return self.marks[np.frombuffer(self.data, np.uint8)[self.marks] == ord("<")]


def byte_chunks(ref: FileRef, boundary: bytes,
                archive: zipfile.ZipFile | None = None) -> Iterator[ByteChunk]:
    """Yield the bytes of `ref` in chunks, each ending just after a `boundary` (not checked
    as UTF-8: see :meth:`ByteChunk.check_utf8`).

    `archive`: the open zip holding `ref`, if the caller keeps one (see :func:`open_binary`).
    """
    line = 1
    carry = b""
    bytes_read = 0
    with open_binary(ref, archive) as stream:
        while True:
            block = _read_block(stream, ref, bytes_read)
            bytes_read += len(block)
            if not block:
                if carry:
                    yield ByteChunk(carry, line)
                return
            # the last boundary of carry + block is the block's if it holds one (one that
            # straddles the two starts before it): the chunk is then copied once
            cut = block.rfind(boundary)
            if cut >= 0:
                cut += len(boundary)
                chunk = block if cut == len(block) and not carry else b"".join(
                    (carry, memoryview(block)[:cut]))
                carry = block[cut:]
            else:
                data = carry + block
                cut = data.rfind(boundary)
                if cut < 0:
                    if len(data) > MAX_UNBROKEN_BYTES:
                        raise InputError(
                            ref, f"over {MAX_UNBROKEN_BYTES >> 20} MiB without "
                            f"{boundary.decode()}: no sentence is that long (bytes "
                            f"{bytes_read - len(data):,}-{bytes_read:,})", f"line {line}",
                            kind="too long")
                    carry = data
                    continue
                cut += len(boundary)
                chunk, carry = data[:cut], data[cut:]
            yield ByteChunk(chunk, line)
            line += newline_count(chunk)


def newline_count(data: bytes | memoryview) -> int:
    """How many newlines `data` holds (counted by numpy, without the GIL, a block at a time:
    no comparison the size of `data` is allocated)."""
    array = np.frombuffer(data, np.uint8)
    return sum(int(np.count_nonzero(array[start:start + _COUNT_BLOCK] == _NEWLINE))
               for start in range(0, len(array), _COUNT_BLOCK))


def text_chunks(ref: FileRef, boundary: bytes,
                archive: zipfile.ZipFile | None = None) -> Iterator[TextChunk]:
    """Yield the decoded text of `ref` in chunks, each ending just after a `boundary`.

    `archive`: the open zip holding `ref`, if the caller keeps one (see :func:`open_binary`).
    """
    for chunk in byte_chunks(ref, boundary, archive):
        yield chunk.decoded(ref)


@dataclass
class Lines:
    """Consecutive lines of a file, valid UTF-8: their bytes, and each line's start and end in
    them (the end excludes the newline); `first_line` is the number of the first one (1-based).
    A line that was too long or bad input is there as an empty line (see :class:`LineChunks`)."""

    data: bytes
    starts: np.ndarray
    ends: np.ndarray
    first_line: int

    def __len__(self) -> int:
        return len(self.starts)

    def strings(self) -> pa.Array:
        """The lines as an Arrow string array over `data`, without a copy (each line with its
        newline, if it has one)."""
        offsets = np.append(self.starts, len(self.data)).astype(np.int64)
        return pa.LargeStringArray.from_buffers(len(self), pa.py_buffer(offsets),
                                                pa.py_buffer(self.data))

    def decoded(self) -> list[str]:
        """The lines as Python strings, without their newlines."""
        return self.data.decode("utf-8").split("\n")[:len(self)]


def bad_utf8_ranges(data: bytes) -> list[tuple[int, int]]:
    """The start and end of every invalid UTF-8 sequence in `data` (one decoding in Python)."""
    ranges: list[tuple[int, int]] = []

    def record(error: UnicodeDecodeError) -> tuple[str, int]:
        ranges.append((error.start, error.end))
        return "", error.end

    codecs.register_error("tapaco-record-ranges", record)
    data.decode("utf-8", "tapaco-record-ranges")
    return ranges


def without_ranges(data: bytes, ranges: list[tuple[int, int]]) -> bytes:
    """`data` without the bytes of the (start, end) ranges (ascending, disjoint)."""
    pieces, kept_from = [], 0
    for start, end in ranges:
        pieces.append(data[kept_from:start])
        kept_from = end
    pieces.append(data[kept_from:])
    return b"".join(pieces)



class LineChunks:
    """Takes the lines of a file in chunks of a given number of lines, reading `block_bytes`
    of it at a time; `line` is the number of the next line to take.

    A line longer than `max_line_bytes` is never held whole (memory stays bounded whatever the
    input), and a line that is not valid UTF-8 or holds a character XML forbids (a control
    character: see :mod:`tapaco.core.characters`) is not passed on: each is handed to `bad_line`
    as an :class:`InputError` naming file and line (by default raised; a caller skipping bad
    input counts it instead) and then read as an empty line, so the line numbers, and the files
    of a bitext, stay in step.
    """

    def __init__(self, ref: FileRef, block_bytes: int = CHUNK_BYTES,
                 bad_line: Callable[[InputError], None] | None = None,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.ref = ref
        self.block_bytes = block_bytes
        self.bad_line = bad_line or _raise
        self.max_line_bytes = max_line_bytes
        self.stream = open_binary(ref)
        self.blocks: list[bytes] = []
        self.newlines: list[np.ndarray] = []  # positions in each block
        self.pending_lines = 0
        self.tail = 0  # bytes of the unfinished last line held in `blocks`
        self.skipping = False  # within a line found too long: its bytes are dropped
        self.done = False
        self.line = 1

    def _read(self) -> None:
        try:
            block = self.stream.read(self.block_bytes)
        except (OSError, EOFError) as error:
            raise InputError(self.ref, f"cannot read: {error}", f"line {self.line}",
                             kind="corrupt file") from error
        if not block:
            self.done = True
            if self.skipping:  # a last line found too long ends the file without a newline
                self.skipping = False
                self.bad_line(self._too_long(self.line + self.pending_lines))
                self._append(b"\n", np.zeros(1, np.int64))
            return
        found = np.flatnonzero(np.frombuffer(block, np.uint8) == _NEWLINE)
        block, found = self._without_long_lines(block, found)
        self._append(block, found)

    def _append(self, block: bytes, found: np.ndarray) -> None:
        self.blocks.append(block)
        self.newlines.append(found)
        self.pending_lines += len(found)

    def _without_long_lines(self, block: bytes, found: np.ndarray) -> tuple[bytes, np.ndarray]:
        """The block with the bytes of lines over `max_line_bytes` dropped (their newlines
        kept), the unfinished line's bytes held before it dropped too when that line is."""
        starts = np.concatenate([[0], found + 1])
        lengths = np.append(found, len(block)) - starts
        lengths[0] += self.tail
        too_long = lengths > self.max_line_bytes
        too_long[0] |= self.skipping
        if not too_long.any():
            self.tail = int(lengths[-1])
            return block, found
        first_line = self.line + self.pending_lines
        for index in np.flatnonzero(too_long[:len(found)]).tolist():
            self.bad_line(self._too_long(first_line + index))
        if too_long[0]:
            self._drop_tail()
        ends = np.append(found, len(block))
        block = without_ranges(block, [(int(starts[i]), int(ends[i]))
                                 for i in np.flatnonzero(too_long).tolist()])
        found = np.flatnonzero(np.frombuffer(block, np.uint8) == _NEWLINE)
        self.skipping = bool(too_long[-1])
        self.tail = 0 if self.skipping else int(lengths[-1])
        return block, found

    def _too_long(self, line: int) -> InputError:
        return InputError(self.ref, f"a line over {self.max_line_bytes:,} bytes, longer than "
                          "any sentence (--skip-bad-input skips it)", f"line {line}",
                          kind="line too long")

    def _drop_tail(self) -> None:
        """Drop the bytes of the unfinished line from the blocks held."""
        left = self.tail
        while left:
            last = self.blocks[-1]
            if len(last) <= left:
                self.blocks.pop()
                self.newlines.pop()
                left -= len(last)
            else:
                self.blocks[-1] = last[:-left]
                left = 0
        self.tail = 0

    def take(self, count: int) -> Lines:
        """The next `count` lines (fewer at the end of the file; a last line without a newline
        counts unless it is empty)."""
        while self.pending_lines < count and not self.done:
            self._read()
        data = b"".join(self.blocks)
        sizes = np.cumsum([0] + [len(block) for block in self.blocks[:-1]], dtype=np.int64)
        newlines = np.concatenate([found + size for found, size in zip(self.newlines, sizes)]
                                  or [np.zeros(0, np.int64)])
        ends = newlines[:count]
        cut = int(ends[-1]) + 1 if len(ends) else 0
        if len(ends) < count and cut < len(data):  # a last line without a newline
            ends = np.append(ends, len(data))
            cut = len(data)
        rest = data[cut:]
        self.blocks = [rest] if rest else []
        self.newlines = [newlines[len(ends):] - cut] if rest else []
        self.pending_lines = len(newlines) - min(len(newlines), count)
        starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64) if len(ends) else ends
        lines = self._valid(Lines(data[:cut], starts, ends.astype(np.int64), self.line))
        self.line += len(lines)
        return lines

    def _valid(self, lines: Lines) -> Lines:
        """The lines with those that are not UTF-8 or hold a character XML forbids (see
        :mod:`tapaco.core.characters`) reported and emptied."""
        utf8 = lines.data.isascii() or _is_utf8(lines.data)
        found = forbidden_characters(lines.data)
        if utf8 and not found:
            return lines
        problems = sorted([(start, f"invalid UTF-8 byte 0x{lines.data[start]:02x}", "encoding")
                           for start, _ in ([] if utf8 else bad_utf8_ranges(lines.data))]
                          + [(start, f"{what} is not allowed in text (nor in XML)",
                              "forbidden character") for start, _, what in found])
        offsets = np.array([start for start, _, _ in problems], np.int64)
        bad = np.searchsorted(lines.starts, offsets, side="right") - 1
        for number, index in enumerate(bad.tolist()):
            if number and index == bad[number - 1]:
                continue  # reported: a line is reported once
            offset, message, kind = problems[number]
            column = offset - int(lines.starts[index]) + 1
            self.bad_line(InputError(self.ref, message,
                                     f"line {lines.first_line + index}, column {column}",
                                     kind=kind))
        bad = np.unique(bad)
        data = without_ranges(lines.data, [(int(lines.starts[i]), int(lines.ends[i]))
                                     for i in bad.tolist()])
        lengths = lines.ends - lines.starts
        lengths[bad] = 0
        starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]]).astype(np.int64)
        return Lines(data, starts, starts + lengths, lines.first_line)

    def close(self) -> None:
        """Close the file."""
        self.stream.close()
