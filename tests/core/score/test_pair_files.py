"""The files `score` reads rows from: rows come back unchanged whatever their length (a 2 MiB
header was cut to 1 MiB), a compressed file cut short is one line naming it (an EOFError
traceback), and a UTF-8 byte order mark is the signature it is, not text of the first row."""

from __future__ import annotations

import bz2
import gzip
import random
from pathlib import Path

import pytest

from tests.core.score.reference import pair_score, read_vectors, set_member_scores
from tests.core.score.test_vector_files import _one_line_error
from tests.core.score.test_vectors_score import WORDS, random_pairs, run_score, write_vectors

MIB = 1 << 20


def test_a_long_header_and_long_rows_come_back_unchanged(tmp_path: Path) -> None:
    vectors = write_vectors(tmp_path / "words.vec")
    header = "reference\tparaphrase\t" + "n" * (2 * MIB)
    rows = [f"{a}\t{b}\t{'x' * (3 * MIB) if k == 1 else k}"
            for k, (a, b) in enumerate(random_pairs(5))]
    rows.append("the cat " * (MIB // 4) + "\tthe mat\tlong sentence")
    source = tmp_path / "enrich.tsv"
    source.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    assert run_score("--pairs", source, "--model", vectors, "--out",
                     tmp_path / "out.tsv").returncode == 0
    out = (tmp_path / "out.tsv").read_text(encoding="utf-8").split("\n")
    assert out[0] == header + "\tparaphrase_score"
    assert [line.rsplit("\t", 1)[0] for line in out[1:-1]] == rows
    reference = read_vectors(vectors)
    assert [line.rsplit("\t", 1)[1] for line in out[1:-1]] == [
        pair_score(*row.split("\t")[:2], reference) for row in rows]


def test_a_row_longer_than_memory_allows_is_one_line(tmp_path: Path) -> None:
    """A line is read whole up to 16 MiB at least; far longer is an error, not a cut."""
    vectors = write_vectors(tmp_path / "words.vec")
    source = tmp_path / "pairs.tsv"
    for text, line in (("a\tb\n" + "c" * (40 * MIB) + "\td\n", "line 2"),
                       ("c" * (40 * MIB) + "\td\n", "line 1")):
        source.write_text(text)
        _one_line_error(run_score("--pairs", source, "--columns", "1,2", "--header", "--model",
                                  vectors, "--out", tmp_path / "out.tsv"),
                        f"pairs.tsv: {line}: over 16 MiB without")
    assert not (tmp_path / "out.tsv").exists()


@pytest.mark.parametrize("suffix", [".bz2", ".gz"])
@pytest.mark.parametrize("rows", [50, 200_000])
def test_a_compressed_pairs_file_cut_short_is_one_line(tmp_path: Path, suffix: str,
                                                       rows: int) -> None:
    """Cut in the first block (read to recognise the format) or far into the file."""
    vectors = write_vectors(tmp_path / "words.vec")
    rng = random.Random(4)
    text = "".join(f"en-N{k}\t{' '.join(rng.choices(WORDS, k=6))}\t"
                   f"{' '.join(rng.choices(WORDS, k=5))}\t1\t1\t1\t0\n" for k in range(rows))
    data = (bz2 if suffix == ".bz2" else gzip).compress(text.encode())
    source = tmp_path / f"en-train.txt{suffix}"
    source.write_bytes(data[:len(data) * 2 // 3])
    _one_line_error(run_score("--pairs", source, "--model", vectors, "--out",
                              tmp_path / "out.tsv"),
                    f"en-train.txt{suffix}", "truncated compressed stream (the file ends early)")
    assert not (tmp_path / "out.tsv").exists()


def test_a_byte_order_mark_is_no_text_of_the_first_row(tmp_path: Path) -> None:
    """The first sentence of a plain TSV and the first set id of a language file kept the
    mark: the word `\\ufeffthe` is no word of the vectors, `\\ufeff1` no set id."""
    vectors = write_vectors(tmp_path / "words.vec")
    reference = read_vectors(vectors)
    pairs = [("the cat sits", "a cat"), *random_pairs(20)]
    plain = tmp_path / "pairs.tsv"
    plain.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    marked = tmp_path / "marked.tsv"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    for source in (plain, marked):
        assert run_score("--pairs", source, "--columns", "1,2", "--model", vectors, "--out",
                         tmp_path / f"{source.stem}.out.tsv").returncode == 0
    out = (tmp_path / "marked.out.tsv").read_text(encoding="utf-8").splitlines()
    assert out == (tmp_path / "pairs.out.tsv").read_text(encoding="utf-8").splitlines()
    assert [line.rsplit("\t", 1)[1] for line in out] == [pair_score(a, b, reference)
                                                         for a, b in pairs]
    build = tmp_path / "build"
    build.mkdir()
    texts = ["The cat sits.", "A cat is sitting.", "What's this?"]
    rows = "".join(f"1\t{k}\t{text}\t\t\n" for k, text in enumerate(texts))
    (build / "en.txt").write_bytes(b"\xef\xbb\xbf" + rows.encode())
    done = run_score("--sets", build, "--lang", "en", "--model", vectors, "--out",
                     tmp_path / "sets.tsv")
    assert done.returncode == 0, done.stderr
    assert [line.rsplit("\t", 1)[1] for line in (tmp_path / "sets.tsv").read_text().splitlines()
            ] == set_member_scores(texts, reference)
