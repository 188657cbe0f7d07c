"""Write text as a bz2 file of independent streams compressed on several threads.

The text is cut into segments of `segment_lines` lines (all of it when None), each segment into
blocks of at most `BLOCK_BYTES` at line ends (a line longer than that is a block of its own),
and each block is compressed into its own bz2 stream. The cuts depend on the text alone, so the
file is the same whatever the number of threads, and a segment's streams are the same whoever
compresses it: a writer that holds only some segments (a Spark task) writes their part of the
file (:func:`compressed_segment`). Concatenated bz2 streams
are a valid bz2 file: Python's `bz2`, `bzip2 -dc`, pandas and Arrow read them as one text.
`bz2.compress` releases the GIL while it works, so the threads compress in parallel.
"""

from __future__ import annotations

import bz2
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

import numpy as np

from tapaco.core.forked import SubmittedAhead

# bzip2's own block size at level 9: a stream this long compresses as well as a longer one
BLOCK_BYTES = 900_000
LEVEL = 9
EMPTY_FILE = bz2.compress(b"", LEVEL)


def line_blocks(pieces: Iterable[bytes], size: int) -> Iterator[bytes]:
    """The text of `pieces` (concatenated) cut into blocks: each ends at the last line end
    within its first `size` bytes, or at the first one after them, or at the end of the text.
    How the text is split into pieces changes nothing."""
    pending = b""
    for piece in pieces:
        pending += piece
        start = 0
        while len(pending) - start > size:
            end = (pending.rfind(b"\n", start, start + size) + 1
                   or pending.find(b"\n", start + size) + 1)
            if not end:
                break
            yield pending[start:end]
            start = end
        pending = pending[start:]
    if pending:
        yield pending


def line_segments(pieces: Iterable[bytes], lines: int) -> Iterator[bytes]:
    """The text of `pieces` cut after every `lines` lines."""
    pending, count = [], 0
    for piece in pieces:
        ends = np.flatnonzero(np.frombuffer(piece, np.uint8) == 10)
        start = 0
        for cut in ends[lines - count - 1::lines].tolist():
            pending.append(piece[start:cut + 1])
            yield b"".join(pending)
            pending, start = [], cut + 1
        count = (count + len(ends)) % lines
        if start < len(piece):
            pending.append(piece[start:])
    if pending:
        yield b"".join(pending)


def compressed_segment(segment: bytes) -> bytes:
    """One segment's part of the file: its blocks' streams, one after the other."""
    return b"".join(map(_compress, line_blocks([segment], BLOCK_BYTES)))


def _compress(block: bytes) -> bytes:
    return bz2.compress(block, LEVEL)


def _compressed(blocks: Iterator[bytes], workers: int) -> Iterator[bytes]:
    if workers == 1:
        yield from map(_compress, blocks)
        return
    with ThreadPoolExecutor(workers) as pool:
        yield from SubmittedAhead(pool, _compress, blocks, 2 * workers)


def write_bz2_blocks(out: BinaryIO, pieces: Iterable[bytes], workers: int,
                     segment_lines: int | None = None) -> None:
    """Write the text of `pieces` to `out` as bz2, one stream per block of `BLOCK_BYTES` of
    each segment of `segment_lines` lines, compressed by `workers` threads (in this one for 1),
    at most two blocks per thread in flight. An empty text is one empty stream, still a valid
    bz2 file (:data:`EMPTY_FILE`)."""
    blocks = (line_blocks(pieces, BLOCK_BYTES) if segment_lines is None else
              (block for segment in line_segments(pieces, segment_lines)
               for block in line_blocks([segment], BLOCK_BYTES)))
    wrote = False
    for stream in _compressed(blocks, workers):
        out.write(stream)
        wrote = True
    if not wrote:
        out.write(EMPTY_FILE)
