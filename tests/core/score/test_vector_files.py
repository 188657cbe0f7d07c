"""Word-vector files that are not what they say: values that are no finite float32, a header
announcing more than the file holds, a file cut short, a byte order mark, word2vec's binary
format, and `--vectors-cache` copies that do not match their record. Each is read right or
refused in one line naming file and line (or the copy's folder), never scored silently wrong,
never a traceback, and memory stays bounded by what the file holds."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from conftest import PROJECT

from tapaco.core.errors import InputError
from tapaco.core.score import word_vectors
from tapaco.core.score.word_vectors import read_word_vectors
from tests.core.score.reference import pair_score, read_vectors
from tests.core.score.test_vectors_score import random_pairs, run_score, write_vectors


def _one_line_error(done: subprocess.CompletedProcess, *says: str) -> str:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(("tapaco: error: ", "tapaco score: error: ")), (
        done.stderr)  # an option's error names the command, as argparse's do
    for text in says:
        assert text in lines[0], lines[0]
    return lines[0]


def _pairs(folder: Path, count: int = 30) -> Path:
    source = folder / "pairs.tsv"
    source.write_text("".join(f"{a}\t{b}\n" for a, b in random_pairs(count)), encoding="utf-8")
    return source


def _score(folder: Path, model: Path, out: str, *options: str) -> subprocess.CompletedProcess:
    return run_score("--pairs", folder / "pairs.tsv", "--columns", "1,2", "--model", model,
                     "--out", folder / out, *options)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e39", "-4e38"])
def test_a_value_that_is_no_finite_float32_is_bad_input_naming_its_line(tmp_path, value):
    """Before, such a value gave every sentence holding the word an empty score, silently."""
    _pairs(tmp_path)
    vectors = tmp_path / "words.vec"
    vectors.write_text(f"4 2\nthe 1 2\n\ncat 0.5 {value}\ndog 1 1\nsits 2 1\n")
    error = _one_line_error(_score(tmp_path, vectors, "out.tsv"),
                            f"words.vec: line 4: the value '{value}' is not a finite number")
    assert "Traceback" not in error and not (tmp_path / "out.tsv").exists()


def test_the_line_is_named_in_any_block_of_the_file(tmp_path, monkeypatch):
    """Arrow parses the file in blocks and skips empty lines: a bad line in a later block, after
    empty lines in earlier blocks and in its own, is named by its own number."""
    monkeypatch.setattr(word_vectors, "_BLOCK_BYTES", 256)
    lines = ["3000 3", *(f"w{k} {k % 7} 0.5 -1" for k in range(3000))]
    lines[1000:1000] = ["", "", "\r"]  # w999 is on line 1004
    lines[2500:2500] = ["", "\r"]  # w2497 on line 2501, w2498 on 2504
    path = tmp_path / "many.vec"
    for bad, says in [("w2498 1 2", "2 values where the first vector has 3"),
                      ("w2498 1 2 x", "the value 'x' is not a number"),
                      ("w2498 1 2 1e40", "the value '1e40' is not a finite number")]:
        path.write_text("\n".join(lines[:2503] + [bad] + lines[2504:]) + "\n")
        with pytest.raises(InputError) as raised:
            read_word_vectors(path)
        assert raised.value.position == "line 2504" and says in raised.value.message
    path.write_text("\n".join(lines) + "\n")
    vectors = read_word_vectors(path)
    assert vectors.matrix.shape == (3000, 3) and vectors.row_of["w2999"] == 2999
    assert vectors.matrix[2999].tolist() == [2999 % 7, 0.5, -1]


def test_a_header_announcing_more_than_the_file_can_hold_is_refused(tmp_path):
    """`4194304 100000` before one vector: 1.5 TiB were allocated for a 200 KB file."""
    _pairs(tmp_path)
    vectors = tmp_path / "lies.vec"
    vectors.write_text("4194304 100000\nthe " + " ".join(["1"] * 100000) + "\n")
    _one_line_error(_score(tmp_path, vectors, "out.tsv"),
                    "lies.vec: line 1: the header says 4,194,304 words of 100,000 dimensions, "
                    f"more than the file's {vectors.stat().st_size:,} bytes can hold")


@pytest.mark.parametrize(("count", "refused"), [(3, False), (4, True)])
def test_the_header_is_held_to_the_shortest_lines_a_file_can_have(tmp_path, count, refused):
    """Three vectors of two values take 6 bytes a line at least (`a 1 2` and a newline): 22
    bytes with the header hold 3, not 4."""
    path = tmp_path / "short.vec"
    path.write_text(f"{count} 2\na 1 2\nb 3 4\nc 5 6\n")
    if refused:
        with pytest.raises(InputError, match="the header says 4 words of 2 dimensions, more "
                                             "than the file's 22 bytes can hold"):
            read_word_vectors(path)
    else:
        assert read_word_vectors(path).matrix.tolist() == [[1, 2], [3, 4], [5, 6]]


LOAD_BOUNDED = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from tapaco.core.score.word_vectors import read_word_vectors
vectors = read_word_vectors(Path(sys.argv[1]))
print((sorted(vectors.row_of.items()), vectors.matrix.tolist()))
"""


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_compressed_file_with_a_lying_header_is_read_in_bounded_memory(tmp_path, suffix):
    """A compressed file's size bounds nothing: the matrix grows with the lines read, not with
    the header's 4,194,304 x 1,000 (16 GiB), within a 3 GiB address space."""
    rows = {"the": [k / 8 for k in range(1000)], "cat": [-k / 4 for k in range(1000)]}
    text = "4194304 1000\n" + "".join(f"{word} {' '.join(map(str, values))}\n"
                                      for word, values in rows.items())
    path = tmp_path / f"lies.vec{suffix}"
    path.write_bytes((gzip if suffix == ".gz" else bz2).compress(text.encode()))
    done = subprocess.run([sys.executable, "-c", LOAD_BOUNDED, str(path)], capture_output=True,
                          text=True, cwd=PROJECT, env={**os.environ, "PYTHONPATH": str(PROJECT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str(([("cat", 1), ("the", 0)],
                                       [rows["the"], rows["cat"]]))


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
@pytest.mark.parametrize("kept", [0.3, 0.9])
def test_a_compressed_file_cut_short_is_one_line(tmp_path, suffix, kept):
    """Cut in its first block (read for the layout) or later (read by Arrow): EOFError was a
    traceback."""
    _pairs(tmp_path)
    rng = np.random.default_rng(0)
    lines = [f"w{k} " + " ".join(f"{x:.5f}" for x in rng.standard_normal(50))
             for k in range(6000)]
    data = (gzip if suffix == ".gz" else bz2).compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / f"cut.vec{suffix}"
    path.write_bytes(data[:int(len(data) * kept)])
    _one_line_error(_score(tmp_path, path, "out.tsv"),
                    f"cut.vec{suffix}", "truncated compressed stream (the file ends early)")
    assert not (tmp_path / "out.tsv").exists()


def test_a_header_of_other_digits_is_no_traceback(tmp_path):
    """`² 2`: str.isdigit took it for a header, int() raised."""
    _pairs(tmp_path)
    vectors = tmp_path / "digits.vec"
    vectors.write_text("² 2\nthe 1 2\n", encoding="utf-8")
    _one_line_error(_score(tmp_path, vectors, "out.tsv"), "digits.vec: line 2")


@pytest.mark.parametrize("header", [True, False])
def test_a_byte_order_mark_is_read_as_such(tmp_path, header):
    _pairs(tmp_path, 60)
    plain = write_vectors(tmp_path / "plain.vec", header=header)
    marked = tmp_path / "marked.vec"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    for model in (plain, marked):
        assert _score(tmp_path, model, f"{model.name}.tsv").returncode == 0
    scored = (tmp_path / "marked.vec.tsv").read_text()
    assert scored == (tmp_path / "plain.vec.tsv").read_text()
    reference = read_vectors(plain)
    assert [line.split("\t")[2] for line in scored.splitlines()] == [
        pair_score(a, b, reference) for a, b in random_pairs(60)]


def test_word2vecs_binary_format_is_named(tmp_path):
    _pairs(tmp_path)
    binary = tmp_path / "GoogleNews-vectors.bin"
    records = b"".join(word + b" " + struct.pack("<4f", *values) + b"\n" for word, values in
                       [(b"the", (0.25, -1.5, 3.0, 1e-3)), (b"cat", (2.0, 0.5, -0.1, 7.0))])
    binary.write_bytes(b"2 4\n" + records)
    _one_line_error(_score(tmp_path, binary, "out.tsv"),
                    "GoogleNews-vectors.bin: line 2: is in word2vec's binary format: give the "
                    "text format (.vec/.txt")


def test_device_cuda_is_refused_for_word_vectors(tmp_path):
    """It was silently ignored: the vectors backend runs on the CPU."""
    _pairs(tmp_path)
    vectors = write_vectors(tmp_path / "words.vec")
    _one_line_error(_score(tmp_path, vectors, "out.tsv", "--device", "cuda"),
                    "--device: cuda: the vectors backend (a word-vector file) runs on the CPU")
    assert _score(tmp_path, vectors, "out.tsv", "--device", "cpu").returncode == 0


def _cached(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A vector file scored once through a cache: the file, the cache, the copy's folder."""
    _pairs(tmp_path)
    vectors = write_vectors(tmp_path / "words.vec")
    cache = tmp_path / "cache"
    done = _score(tmp_path, vectors, "first.tsv", "--vectors-cache", cache)
    assert done.returncode == 0, done.stderr
    (copy,) = cache.iterdir()
    return vectors, cache, copy


def test_the_copy_records_what_it_holds(tmp_path):
    vectors, cache, copy = _cached(tmp_path)
    record = json.loads((copy / "record.json").read_text())
    data = vectors.read_bytes()
    expected_digest = hashlib.sha256(str(len(data)).encode() + data[:1 << 20]
                                     + data[-(1 << 20):]).hexdigest()
    words = len(read_vectors(vectors)) + 1  # 'cat' is listed twice
    assert record == {
        "format": 1, "words": words, "dimensions": 5,
        "source": {"path": str(vectors.resolve()), "size": len(data),
                   "mtime_ns": vectors.stat().st_mtime_ns, "ends_sha256": expected_digest},
        "files": {"matrix.npy": (copy / "matrix.npy").stat().st_size,
                  "words.txt": (copy / "words.txt").stat().st_size}}
    assert np.load(copy / "matrix.npy").shape == (words, 5)


@pytest.mark.parametrize("damage", ["extra word", "extra word, its size recorded",
                                    "many extra words", "matrix cut short",
                                    "matrix of another shape, its size recorded", "no record",
                                    "record of more words", "record not json"])
def test_a_copy_that_does_not_match_its_record_is_refused(tmp_path, damage):
    """A word list longer than the matrix read out of bounds (empty scores with one word too
    many, SIGSEGV with 5M); a cut matrix.npy was a traceback."""
    vectors, cache, copy = _cached(tmp_path)
    words, matrix, record = copy / "words.txt", copy / "matrix.npy", copy / "record.json"
    if damage == "extra word":
        words.write_bytes(words.read_bytes() + b"\nzebra")
    elif damage == "many extra words":
        words.write_bytes(words.read_bytes() + b"\nw" * 200_000)
    elif damage == "matrix cut short":
        matrix.write_bytes(matrix.read_bytes()[:-7])
    elif damage == "matrix of another shape, its size recorded":
        data = json.loads(record.read_text())
        np.save(matrix, np.load(matrix).reshape(-1, 1))
        data["files"]["matrix.npy"] = matrix.stat().st_size
        record.write_text(json.dumps(data))
    elif damage == "no record":
        record.unlink()
    elif damage == "extra word, its size recorded":
        data = json.loads(record.read_text())
        words.write_bytes(words.read_bytes() + b"\nzebra")
        data["files"]["words.txt"] = words.stat().st_size
        record.write_text(json.dumps(data))
    elif damage == "record of more words":
        data = json.loads(record.read_text())
        data["words"] += 1
        record.write_text(json.dumps(data))
    else:
        record.write_text("{")
    before = sorted((path.name, path.read_bytes()) for path in copy.iterdir())
    _one_line_error(_score(tmp_path, vectors, "second.tsv", "--vectors-cache", cache),
                    f"{copy}: the converted copy of words.vec does not match its record",
                    "remove this folder")
    assert sorted((path.name, path.read_bytes()) for path in copy.iterdir()) == before
    assert not (tmp_path / "second.tsv").exists()


def test_a_source_rewritten_in_place_is_not_read_from_its_old_copy(tmp_path):
    """Same path, size and time of change, other vectors: the digest of its ends differs."""
    vectors, cache, copy = _cached(tmp_path)
    stat = vectors.stat()
    text = vectors.read_text()
    vectors.write_text(text.replace("the ", "teh ", 1))
    os.utime(vectors, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    _one_line_error(_score(tmp_path, vectors, "second.tsv", "--vectors-cache", cache),
                    "converted from another file than", "remove this folder")


def test_a_cache_that_is_a_file_is_an_option_error(tmp_path):
    _pairs(tmp_path)
    vectors = write_vectors(tmp_path / "words.vec")
    (tmp_path / "cache").write_text("mine\n")
    _one_line_error(_score(tmp_path, vectors, "out.tsv", "--vectors-cache", tmp_path / "cache"),
                    str(tmp_path / "cache"))
    assert (tmp_path / "cache").read_text() == "mine\n"


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_arrow_reads_the_file_itself(tmp_path, monkeypatch, suffix):
    """Given a Python file object, Arrow's own threads read it on: when a bad line ended the
    program, one of them could still be reading at its exit, which aborted it (status 134, in
    about one run of ten) instead of exiting 2. Arrow is given its own stream of the file."""
    given = []
    open_csv = word_vectors.pa_csv.open_csv

    def recording(stream, **options):
        given.append(stream)
        return open_csv(stream, **options)

    monkeypatch.setattr(word_vectors.pa_csv, "open_csv", recording)
    text = b"2 2\nthe 1 2\ncat 1 x\n"
    path = tmp_path / f"words.vec{suffix}"
    path.write_bytes({"": bytes, ".gz": gzip.compress, ".bz2": bz2.compress}[suffix](text))
    with pytest.raises(InputError, match="the value 'x' is not a number"):
        read_word_vectors(path)
    assert len(given) == 1 and isinstance(given[0], pa.NativeFile)
    assert not isinstance(given[0], pa.PythonFile)
