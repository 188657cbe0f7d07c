"""bz2 files written in independent blocks: where the text is cut, and that every reader reads
the concatenated streams as the one text."""

from __future__ import annotations

import bz2
import io
import random
import shutil
import subprocess

import pytest

from tapaco.core import bz2_blocks
from tapaco.core.bz2_blocks import line_blocks, write_bz2_blocks


def _text(lines: int, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b"".join(b"x" * rng.choice([0, 1, 5, 40, 130]) + b"\t\xc3\xa9\n"
                    for _ in range(lines))


def _cut_whole(text: bytes, size: int) -> list[bytes]:
    """The rule, on the whole text at once: the longest run of whole lines within `size`
    bytes, or one line when even that is longer."""
    lines = text.splitlines(keepends=True)
    blocks, block = [], b""
    for line in lines:
        if block and len(block) + len(line) > size:
            blocks.append(block)
            block = b""
        block += line
    return blocks + ([block] if block else [])


def _pieces(text: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(text)), 20))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def _streams(data: bytes) -> list[bytes]:
    """Each bz2 stream of a file, decompressed on its own."""
    streams = []
    while data:
        decompressor = bz2.BZ2Decompressor()
        streams.append(decompressor.decompress(data))
        assert decompressor.eof
        data = decompressor.unused_data
    return streams


@pytest.mark.parametrize("size", [1, 60, 200, 1000])
def test_blocks_are_whole_lines_within_the_size_however_the_text_arrives(size):
    text = _text(300) + b"y" * 250 + b"\n" + b"tail without a line end"
    expected = _cut_whole(text, size)
    rng = random.Random(size)
    for pieces in ([text], [bytes([byte]) for byte in text[:400]] + [text[400:]],
                   _pieces(text, rng), _pieces(text, rng)):
        assert list(line_blocks(pieces, size)) == expected


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_file_of_many_blocks_is_the_same_for_any_workers_and_reads_as_one_text(
        workers, monkeypatch):
    monkeypatch.setattr(bz2_blocks, "BLOCK_BYTES", 1000)
    text = _text(2000)
    out = io.BytesIO()
    write_bz2_blocks(out, _pieces(text, random.Random(workers)), workers)
    data = out.getvalue()
    assert _streams(data) == _cut_whole(text, 1000)
    one = io.BytesIO()
    write_bz2_blocks(one, [text], 1)
    assert data == one.getvalue()
    with bz2.open(io.BytesIO(data)) as stream:
        assert stream.read() == text


def test_bzip2_and_pandas_read_every_block(tmp_path, monkeypatch):
    monkeypatch.setattr(bz2_blocks, "BLOCK_BYTES", 1000)
    text = _text(2000, seed=1)
    path = tmp_path / "rows.tsv.bz2"
    with open(path, "wb") as out:
        write_bz2_blocks(out, [text], 2)
    assert len(_streams(path.read_bytes())) > 50
    if shutil.which("bzip2"):
        assert subprocess.run(["bzip2", "-dc", str(path)], capture_output=True,
                              check=True).stdout == text
    pandas = pytest.importorskip("pandas", reason="pandas is not installed")
    frame = pandas.read_csv(path, sep="\t", header=None, names=["x", "e"], dtype=str,
                            keep_default_na=False, quoting=3, compression="bz2")
    assert len(frame) == 2000 and set(frame["e"]) == {"é"}
    assert "".join(frame["x"]) == "".join(line.split("\t")[0] for line in
                                          text.decode().splitlines())


def test_an_empty_text_is_a_valid_empty_bz2_file():
    out = io.BytesIO()
    write_bz2_blocks(out, iter(()), 2)
    assert out.getvalue() == bz2.compress(b"") and bz2.decompress(out.getvalue()) == b""


def _segments_cut_whole(text: bytes, lines: int, size: int) -> list[bytes]:
    rows = text.splitlines(keepends=True)
    segments = [b"".join(rows[start:start + lines]) for start in range(0, len(rows), lines)]
    return [block for segment in segments for block in _cut_whole(segment, size)]


@pytest.mark.parametrize("lines", [1, 7, 150, 5000])
def test_streams_never_span_a_segment_and_a_segment_compresses_alone(lines, monkeypatch):
    """...so a writer holding one segment (a Spark task) writes that segment's part of the
    file, whatever pieces the text came in."""
    monkeypatch.setattr(bz2_blocks, "BLOCK_BYTES", 1000)
    text = _text(2000, seed=2)
    out = io.BytesIO()
    write_bz2_blocks(out, _pieces(text, random.Random(lines)), 2, segment_lines=lines)
    assert _streams(out.getvalue()) == _segments_cut_whole(text, lines, 1000)
    rows = text.splitlines(keepends=True)
    parts = [bz2_blocks.compressed_segment(b"".join(rows[start:start + lines]))
             for start in range(0, len(rows), lines)]
    assert out.getvalue() == b"".join(parts)
