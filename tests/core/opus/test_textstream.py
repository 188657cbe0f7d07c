import bz2
import gzip
import random
import zipfile

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import FileRef, byte_chunks, open_binary


def read_in_pieces(ref: FileRef, size: int, archive: zipfile.ZipFile | None = None) -> bytes:
    with open_binary(ref, archive) as stream:
        pieces = []
        while piece := stream.read(size):
            pieces.append(piece)
    return b"".join(pieces)


def test_real_zip_members_read_as_zipfile_reads_them(shared_data):
    zips = sorted((shared_data / "tatoeba-v2-sample" / "xml").glob("*.zip"))
    assert zips
    for path in zips:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                expected = archive.read(info)
                ref = FileRef(path, info.filename)
                assert read_in_pieces(ref, 1 << 20) == expected
                assert read_in_pieces(ref, 777, archive) == expected


def _zip_of(path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_large_and_stored_members_read_whole(tmp_path):
    rng = random.Random(2)
    words = [bytes(rng.choices(b"abcdefghij \n", k=rng.randint(1, 9))) for _ in range(500)]
    text = b"".join(rng.choices(words, k=1_500_000))  # several inflate blocks
    noise = rng.randbytes(3 << 20)  # compresses to more than one block read
    deflated = _zip_of(tmp_path / "d.zip", {"a/text.xml": text, "noise": noise, "empty": b""})
    stored = _zip_of(tmp_path / "s.zip", {"a/text.xml": text}, zipfile.ZIP_STORED)
    for path, name, data in [(deflated, "a/text.xml", text), (deflated, "noise", noise),
                             (deflated, "empty", b""), (stored, "a/text.xml", text)]:
        assert read_in_pieces(FileRef(path, name), 8 << 20) == data
        assert read_in_pieces(FileRef(path, name), 4096) == data
    chunks = list(byte_chunks(FileRef(deflated, "a/text.xml"), b"\n"))
    assert b"".join(chunk.data for chunk in chunks) == text


def _reference_chunks(data: bytes, boundary: bytes, block: int) -> list[tuple[bytes, int]]:
    """The chunks byte_chunks should give, worked out from the whole data: after reading each
    block, everything up to the last boundary read so far not yet given; the rest at the end;
    each with the number of its first line."""
    chunks, given = [], 0
    for limit in range(block, len(data) + block, block):
        end = data.rfind(boundary, 0, min(limit, len(data)))
        if end >= 0 and end + len(boundary) > given:
            chunks.append(data[given:end + len(boundary)])
            given = end + len(boundary)
    chunks.append(data[given:])
    starts = [0]
    for chunk in chunks:
        starts.append(starts[-1] + len(chunk))
    return [(chunk, data.count(b"\n", 0, start) + 1)
            for chunk, start in zip(chunks, starts) if chunk]


@pytest.mark.parametrize("block, inflate_block", [(7, 5), (16, 64), (64, 3), (1000, 100)])
def test_chunks_end_after_the_last_boundary_read_so_far(tmp_path, monkeypatch, block,
                                                        inflate_block):
    """Chunks from a plain file and a deflated zip member (read in blocks of `block`
    bytes, inflated `inflate_block` at a time), a boundary often cut by a block's end."""
    from tapaco.core.opus import textstream

    monkeypatch.setattr(textstream, "CHUNK_BYTES", block)
    monkeypatch.setattr(textstream, "_INFLATE_BLOCK", inflate_block)
    rng = random.Random(block)
    data = b"".join(rng.choice([b"</s>", b"<s>", b"\n", b"ab", b"</", b"s>", b"\xc3\xa9"])
                    for _ in range(3000))
    plain = tmp_path / "d.xml"
    plain.write_bytes(data)
    zipped = _zip_of(tmp_path / "d.zip", {"d.xml": data})
    expected = _reference_chunks(data, b"</s>", block)
    for ref in (FileRef(plain), FileRef(zipped, "d.xml")):
        chunks = [(chunk.data, chunk.first_line) for chunk in byte_chunks(ref, b"</s>")]
        assert chunks == expected


def _damaged_zip(tmp_path, damage) -> FileRef:
    data = b"<s id='1'>hello</s>\n" * 50_000
    path = _zip_of(tmp_path / "bad.zip", {"m.xml": data})
    raw = bytearray(path.read_bytes())
    damage(raw)
    path.write_bytes(bytes(raw))
    return FileRef(path, "m.xml")


def _read_all(ref: FileRef) -> None:
    for _ in byte_chunks(ref, b"\n"):
        pass


def test_corrupt_deflate_data_is_a_corrupt_file(tmp_path):
    def flip(raw):
        for at in range(200, 400):
            raw[at] ^= 0x5A

    with pytest.raises(InputError, match="corrupt compressed data") as raised:
        _read_all(_damaged_zip(tmp_path, flip))
    assert raised.value.kind == "corrupt file"


def test_a_wrong_crc_is_a_corrupt_file(tmp_path):
    def wrong_crc(raw):
        central = raw.rindex(b"PK\x01\x02")
        raw[central + 16] ^= 0xFF  # the CRC-32 the central directory records

    with pytest.raises(InputError, match="bad CRC-32") as raised:
        _read_all(_damaged_zip(tmp_path, wrong_crc))
    assert raised.value.kind == "corrupt file"


def test_a_member_whose_data_ends_early_is_truncated(tmp_path):
    ref = _damaged_zip(tmp_path, lambda raw: None)
    with zipfile.ZipFile(ref.path) as archive:
        archive.getinfo(ref.member).compress_size -= 100
        with pytest.raises(InputError, match="truncated") as raised:
            for _ in byte_chunks(ref, b"\n", archive):
                pass
    assert raised.value.kind == "corrupt file"


def test_a_missing_local_header_cannot_be_opened(tmp_path):
    def no_header(raw):
        raw[0:4] = b"XXXX"

    with pytest.raises(InputError, match="cannot open") as raised:
        _read_all(_damaged_zip(tmp_path, no_header))
    assert raised.value.kind == "corrupt file"


def _first_forbidden(line: bytes) -> int:
    """Where the first character XML 1.0 forbids is (its Char production, character by
    character), or the line's length."""
    text = line.decode("utf-8", "replace")
    for position, char in enumerate(text):
        code = ord(char)
        if not (code in (9, 10, 13) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
                or code >= 0x10000):
            return len(text[:position].encode("utf-8", "replace"))
    return len(line)


def _reference_lines(data: bytes, limit: int) -> tuple[list[bytes], list[int], list[int],
                                                       list[int]]:
    """The lines as the Moses readers should see them, computed line by line in Python: a line
    over `limit` bytes, not UTF-8 or holding a character XML forbids reads as empty; the
    numbers of those lines apart (of a line both not UTF-8 and holding one, by which comes
    first)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    too_long, not_utf8, forbidden, seen = [], [], [], []
    for number, line in enumerate(lines, 1):
        try:
            line.decode("utf-8")
            bad_byte = len(line)
        except UnicodeDecodeError as error:
            bad_byte = error.start
        if len(line) > limit:
            too_long.append(number)
        elif bad_byte < len(line) or _first_forbidden(line) < len(line):
            (not_utf8 if bad_byte < _first_forbidden(line) else forbidden).append(number)
        seen.append(line if number not in too_long + not_utf8 + forbidden else b"")
    return seen, too_long, not_utf8, forbidden


@pytest.mark.parametrize("block_bytes", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("seed", range(4))
def test_line_chunks_empty_long_and_non_utf8_lines_and_report_them(tmp_path, block_bytes, seed):
    import random

    from tapaco.core.opus.textstream import LineChunks

    rng = random.Random(seed)
    pieces = [b"", b"ab", "é😀".encode(), b"x" * 40, b"y" * 41, b"\xff", b"caf\xc3", b"z" * 90,
              b"\x00", b"\x1f", b"\t\r", "\uffff".encode(), "\ufffd".encode(), b"\xef\xbf"]
    lines = [b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 3)))
             for _ in range(rng.randint(0, 60))]
    data = b"\n".join(lines) + rng.choice([b"\n", b""])
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    expected, too_long, not_utf8, forbidden = _reference_lines(data, limit=40)
    reported: list[InputError] = []
    chunks = LineChunks(FileRef(path), block_bytes, reported.append, max_line_bytes=40)
    seen = []
    while True:
        taken = chunks.take(rng.randint(1, 9))
        if not len(taken):
            break
        seen += [taken.data[start:end] for start, end in zip(taken.starts, taken.ends)]
        assert taken.strings().to_pylist() == [taken.data[start:end + 1].decode()
                                               for start, end in zip(taken.starts, taken.ends)]
    chunks.close()
    assert seen == expected
    by_kind = {"line too long": [], "encoding": [], "forbidden character": []}
    for error in reported:
        by_kind[error.kind].append(int(error.position.split()[1].rstrip(",")))
    assert by_kind == {"line too long": too_long, "encoding": not_utf8,
                       "forbidden character": forbidden}


def test_line_chunks_raise_a_bad_line_by_default(tmp_path):
    from tapaco.core.opus.textstream import LineChunks

    path = tmp_path / "t.txt"
    path.write_bytes(b"short\n" + b"x" * 100 + b"\nshort\n")
    chunks = LineChunks(FileRef(path), 16, max_line_bytes=50)
    with pytest.raises(InputError, match=r"t\.txt: line 2: a line over 50 bytes"):
        chunks.take(10)


@pytest.mark.parametrize("suffix, kind, start, magic", [(".gz", "gzip", "61 62", "1f 8b"),
                                                        (".bz2", "bzip2", "61 62 63", "42 5a 68")])
def test_a_file_not_compressed_as_its_name_says_is_said_so(tmp_path, suffix, kind, start, magic):
    """Not "truncated compressed stream": four bytes of junk named .gz are no gzip file at all
    (a compressed file cut short is still said to be truncated)."""
    path = tmp_path / f"de-en.xml{suffix}"
    path.write_bytes(b"abcd")
    with pytest.raises(InputError) as raised:
        list(byte_chunks(FileRef(path), b">"))
    assert str(raised.value) == (f"{path}: not a {kind} file: its name ends in {suffix} but it "
                                 f"starts with bytes {start}, not {magic}")
    assert raised.value.kind == "corrupt file"
    path.write_bytes(gzip.compress(b"<a/>" * 100)[:20] if suffix == ".gz"
                     else bz2.compress(b"<a/>" * 100)[:20])
    with pytest.raises(InputError, match="truncated"):
        list(byte_chunks(FileRef(path), b">"))
