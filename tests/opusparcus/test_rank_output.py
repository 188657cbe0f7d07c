"""The written ranking does not depend on how it is written: rendering chunks, bz2 blocks and
the number of workers change no decompressed byte (checked against the text the single-stream
writer gave before blocks), the file is the same for any `--workers`, and the Parquet files
written from the rendered rows are the ones the text files' conversion gives."""

from __future__ import annotations

import bz2
import hashlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import write_moses

from opusparcus import export
from opusparcus.parquet_release import ranked_text_to_parquet
from opusparcus.rank import RankOptions, rank
from tapaco.core import bz2_blocks

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
# SHA-256 of the decompressed train, dev and test files that the writer before blocks (one bz2
# stream per 500,000 rows, so one here) gave for `_release`, by scheme
BEFORE_BLOCKS = {
    "summed-pmi": ("68c9dad070cf7c6a95e0980e8370f5b02720d084b3b2095135220b8e4c7b23c3",
                   "43bffe0dc811cbb2e42995d7f208a2988fb6804784d0d958960bc6e3708a9df7",
                   "fbc21c4e839368404b2805ecbaddac034d5adcb82f382d4da31414dc543661ea"),
    "joint": ("e4c64a461e30cc380cc836d2cce29e85803bf8d1efa4ddb0abb56fae28fef1e8",
              "5fa2a061ecc81b2ddc4c105645ce716b5720427170d07f1b538773b7282ac7c2",
              "f072da239a3ce71d92cfc4a4ed270e8079a9cbf7c8686239ba572f7df0b73a58"),
}
SPLIT_FILES = ("train/en-train.txt.bz2", "dev/en-dev-candidates.txt",
               "test/en-test-candidates.txt")
PARQUET_FILES = ("data/train.parquet", "data/dev_candidates.parquet",
                 "data/test_candidates.parquet")


def _release(root: Path) -> Path:
    """An en-fr release whose en ranking has ~14,000 train rows (1.1 MB of text) and ~1,700
    dev and test candidates each: 40 French pivots, each shared by 30 English sentences."""
    rows = []
    for n in range(1200):
        year = 2000 + n % 10
        words = [WORDS[(n * k + k * k) % len(WORDS)] for k in (1, 3, 7, 11)][:2 + n % 3]
        rows.append((f"en/{year}/{n % 30}/{n}.xml.gz", f"fr/{year}/{n % 30}/{n}.xml.gz", "1",
                     "1", " ".join(words) + f" {n % 97} .", f"Phrase {n % 40} ."))
    return write_moses(root, "en-fr", rows)


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    return _release(tmp_path_factory.mktemp("release") / "opus")


def _streams(data: bytes) -> list[bytes]:
    """Each bz2 stream of a file, decompressed on its own."""
    streams = []
    while data:
        decompressor = bz2.BZ2Decompressor()
        streams.append(decompressor.decompress(data))
        data = decompressor.unused_data
    return streams


@pytest.mark.parametrize("score", sorted(BEFORE_BLOCKS))
def test_text_is_as_before_and_the_file_the_same_for_any_workers(release, tmp_path, score,
                                                                  monkeypatch):
    monkeypatch.setattr(export, "ROWS_PER_CHUNK", 1000)  # 14 chunks: rendered by workers
    monkeypatch.setattr(bz2_blocks, "BLOCK_BYTES", 20_000)
    for workers in (1, 2):
        rank(release, "en", tmp_path / str(workers), RankOptions(workers=workers, score=score))
    folders = [tmp_path / "1/en", tmp_path / "2/en"]
    train = [(folder / SPLIT_FILES[0]).read_bytes() for folder in folders]
    assert train[0] == train[1]
    streams = _streams(train[0])
    assert len(streams) > 50 and all(len(s) <= 20_000 and s.endswith(b"\n") for s in streams)
    texts = [b"".join(streams)] + [(folders[0] / name).read_bytes() for name in SPLIT_FILES[1:]]
    assert tuple(hashlib.sha256(text).hexdigest() for text in texts) == BEFORE_BLOCKS[score]
    for name in SPLIT_FILES[1:]:
        assert (folders[0] / name).read_bytes() == (folders[1] / name).read_bytes()


@pytest.mark.parametrize("score", sorted(BEFORE_BLOCKS))
def test_parquet_from_the_rows_is_the_text_files_conversion(release, tmp_path, score,
                                                            monkeypatch):
    import opusparcus.parquet_release as parquet_release

    monkeypatch.setattr(export, "ROWS_PER_CHUNK", 1000)
    monkeypatch.setattr(parquet_release, "TEXT_BLOCK_BYTES", 50_000)  # ~22 train row groups
    rank(release, "en", tmp_path / "both", RankOptions(workers=2, score=score,
                                                       formats=("tsv", "parquet")))
    rank(release, "en", tmp_path / "only", RankOptions(workers=1, score=score,
                                                       formats=("parquet",)))
    both, only = tmp_path / "both/en", tmp_path / "only/en"
    assert not any((only / name).exists() for name in SPLIT_FILES)
    for text, parquet in zip(SPLIT_FILES, PARQUET_FILES):
        converted = tmp_path / "converted.parquet"
        ranked_text_to_parquet(both / text, converted, score != "summed-pmi")
        expected = pq.read_table(converted)
        assert pq.read_table(both / parquet).equals(expected)
        assert (both / parquet).read_bytes() == converted.read_bytes()
        assert (only / parquet).read_bytes() == converted.read_bytes()
    assert pq.ParquetFile(both / PARQUET_FILES[0]).metadata.num_row_groups > 10
