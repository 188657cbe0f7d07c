import json
import subprocess
import sys

import pytest
from conftest import PROJECT, SAMPLE, Sentence, write_moses

from opusparcus.cli import main, parser
from opusparcus.rank_command import summary


def test_rank_several_languages_with_timings(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(SAMPLE), "--langs",
         "fr,en", "--out", str(tmp_path / "out"), "--timings", str(tmp_path / "t.json")],
        capture_output=True, text=True, cwd=PROJECT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["en", "fr"]
    assert "fr: 82 links read" in result.stderr
    stages = json.loads((tmp_path / "t.json").read_text())["stages"]
    assert [stage["name"] for stage in stages[:2]] == ["fr,en: read bitexts",
                                                       "fr,en: merge vocabularies"]


def test_bad_input_exit_2_one_line_and_skip(opus, tmp_path):
    en, fr = "en/2000/1/1.xml.gz", "fr/2000/1/1.xml.gz"
    opus.sentences(en, Sentence("s1", "Yes ."), Sentence("s2", "Yeah ."))
    opus.sentences(fr, Sentence("s1", "Oui ."))
    opus.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s1"), ("s3", "s1")])
    root = opus.write("xml")
    arguments = ["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1", "--quiet"]
    assert main([*arguments, "--out", str(tmp_path / "a")]) == 2
    assert not (tmp_path / "a").exists()
    assert main([*arguments, "--out", str(tmp_path / "b"), "--skip-bad-input"]) == 0
    stats = json.loads((tmp_path / "b" / "en" / "stats.json").read_text())
    assert stats["bad_input"]["skipped"] == {"unknown sentence id": 1}
    assert stats["pairs_written"]["train"] == 1


def test_bad_input_message_from_a_worker_process(tmp_path, capsys):
    root = write_moses(tmp_path / "opus", "en-fr", [("en/2000/1/1.xml.gz", "fr/2000/1/1.xml.gz",
                                                      "1", "1", "Yes .", "Oui .")])
    (root / "moses" / "en-fr" / "Test.en-fr.ids").write_text("broken line\n")
    write_moses(root, "en-sv", [("en/2000/1/1.xml.gz", "sv/2000/1/1.xml.gz", "1", "1", "Yes .",
                                 "Ja .")])
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--out", str(tmp_path / "o"),
                 "--workers", "2"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "Test.en-fr.ids: line 1: expected 4 tab-separated fields" in error[0]


def test_skip_bad_input_leaves_a_corrupt_bitext_empty(tmp_path):
    row = ("en/2000/1/1.xml.gz", "fr/2000/1/1.xml.gz", "1", "1", "Yes .", "Oui .")
    root = write_moses(tmp_path / "opus", "en-fr", [row, (*row[:4], "Yeah .", "Oui .")])
    write_moses(root, "en-sv", [(row[0], "sv/2000/1/1.xml.gz", "1", "1", "Yes .", "Ja .")])
    (root / "moses" / "en-sv" / "Test.en-sv.ids").write_text("broken line\n")
    arguments = ["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1", "--quiet"]
    assert main([*arguments, "--out", str(tmp_path / "a")]) == 2
    assert main([*arguments, "--out", str(tmp_path / "b"), "--skip-bad-input"]) == 0
    stats = json.loads((tmp_path / "b" / "en" / "stats.json").read_text())
    assert stats["bad_input"]["skipped"] == {"malformed ids": 1}
    assert stats["bitexts"]["sv"]["one_to_one"] == 0
    assert stats["pairs_written"]["train"] == 1


def test_summary_counts_in_words_and_names_what_was_skipped(opus, tmp_path, capsys):
    en, fr = "en/2000/1/1.xml.gz", "fr/2000/1/1.xml.gz"
    opus.sentences(en, Sentence("s1", "Yes ."), Sentence("s2", "Yeah ."))
    opus.sentences(fr, Sentence("s1", "Oui ."))
    opus.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s1"), ("s3", "s1")])
    root = opus.write("xml")
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1",
                 "--out", str(tmp_path / "o"), "--skip-bad-input"]) == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    assert summary == ("en: 3 links read from 1 pivot, 3 one-to-one; pairs written: train 1, "
                       "dev 0, test 0; skipped bad input: unknown sentence id (1)")


def test_spark_master_needs_engine_spark(tmp_path, capsys):
    rank = ["rank", "--opus-dir", str(SAMPLE), "--lang", "en", "--out", str(tmp_path / "o"),
            "--spark-master", "local[2]"]
    for engine in ([], ["--engine", "local"]):
        with pytest.raises(SystemExit) as stopped:
            main([*rank, *engine])
        assert stopped.value.code == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert error == ["opusparcus rank: error: argument --spark-master: only applies with "
                         "--engine spark; see opusparcus rank --help"]
    assert parser().parse_args([*rank, "--engine", "spark"]).spark_master == "local[2]"
    assert not (tmp_path / "o").exists()


def test_an_empty_ranking_is_a_valid_bz2_file(shared_data, tmp_path):
    import shutil

    (tmp_path / "opus").mkdir()
    (tmp_path / "opus" / "moses").symlink_to(shared_data / "opensubtitles-v2018-moses")
    assert main(["rank", "--opus-dir", str(tmp_path / "opus"), "--lang", "en", "--workers",
                 "1", "--quiet", "--out", str(tmp_path / "o")]) == 0
    train = tmp_path / "o/en/train/en-train.txt.bz2"
    assert train.read_bytes().startswith(b"BZh")  # a 0-byte file is no bz2 file
    if shutil.which("bzip2"):
        assert subprocess.run(["bzip2", "-t", str(train)]).returncode == 0


def test_spark_without_pyspark_or_java_is_refused_before_reading(tmp_path, monkeypatch, capsys):
    import opusparcus.rank as rank_module
    import opusparcus.spark_session as spark_engine

    def must_not_read(*arguments, **options):
        raise AssertionError("the bitexts were read")

    monkeypatch.setattr(rank_module, "read_bitexts", must_not_read)
    arguments = ["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--engine", "spark",
                 "--out", str(tmp_path / "out"), "--quiet"]
    monkeypatch.setattr(spark_engine.importlib.util, "find_spec", lambda name: None)
    assert main(arguments) == 2
    assert "pip install 'pivot-paraphrase-miner[spark]'" in capsys.readouterr().err
    monkeypatch.undo()
    monkeypatch.setattr(rank_module, "read_bitexts", must_not_read)
    monkeypatch.setattr(spark_engine.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    if spark_engine.importlib.util.find_spec("pyspark") is not None:
        assert main(arguments) == 2
        assert "needs Java 17" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_rank_parquet_holds_the_release_rows(tmp_path):
    import bz2

    import pyarrow.parquet as pq


    runs = {}
    for formats in ("tsv", "tsv,parquet", "parquet"):
        out = tmp_path / formats.replace(",", "-")
        assert main(["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--out", str(out),
                     "--format", formats, "--quiet"]) == 0
        runs[formats] = out / "fr"
    text = bz2.decompress((runs["tsv"] / "train/fr-train.txt.bz2").read_bytes()).decode()
    expected = [{"id": f[0], "sent1": f[1], "sent2": f[2], "summed_pmi": float(f[3]),
                 "expected_count": float(f[4]), "pivots": int(f[5]), "edit_distance": int(f[6])}
                for f in (line.split("\t") for line in text.splitlines())]
    assert len(expected) == 24
    for formats in ("tsv,parquet", "parquet"):
        assert pq.read_table(runs[formats] / "data/train.parquet").to_pylist() == expected
        assert pq.read_table(runs[formats] / "data/dev_candidates.parquet").num_rows == 0
        assert ((runs[formats] / "stats.json").read_bytes()
                == (runs["tsv"] / "stats.json").read_bytes())
    assert ((runs["tsv,parquet"] / "train/fr-train.txt.bz2").read_bytes()
            == (runs["tsv"] / "train/fr-train.txt.bz2").read_bytes())
    assert not (runs["parquet"] / "train").exists()
    assert ((runs["parquet"] / "data/train.parquet").read_bytes()
            == (runs["tsv,parquet"] / "data/train.parquet").read_bytes())
    card = (runs["parquet"] / "README.md").read_text()
    assert '- split: "train"' in card and "dev_candidates" not in card.split("---")[1]
    assert "python -m opusparcus rank --opus-dir OPUS_DIR --lang fr --out OUT" in card


def test_rank_parquet_card_loads_with_datasets(tmp_path):
    datasets = pytest.importorskip("datasets", reason="the datasets library (test extra) is "
                                   "not installed")

    out = tmp_path / "out"
    assert main(["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--out", str(out),
                 "--format", "parquet", "--quiet"]) == 0
    loaded = datasets.load_dataset(str(out / "fr"), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["train"] and loaded["train"].num_rows == 24
    assert loaded["train"][0]["id"] == "fr-N1"


def test_summary_of_a_capped_undated_ranking_in_singular_words():
    stats = {"language": "fr", "links_read": 2, "one_to_one_links": 2, "links_without_year": 1,
             "bitexts": {"en": {"one_to_one": 2, "links_with_empty_text": 1}},
             "pairs_written": {"train": 1, "dev": 0, "test": 0},
             "splits": {"train": {"fanout_skips": {"pivots": 1, "links": 3, "pairs": 1}}},
             "bad_input": {"skipped": {}}}
    assert summary(stats) == (
        "fr: 2 links read from 1 pivot, 2 one-to-one (1 without a year, counted as train), "
        "1 link with an empty sentence left out; pairs written: train 1, dev 0, test 0; "
        "fan-out cap skipped 1 pivot sentence (1 pair)")


def test_overwrite_never_replaces_a_file_rank_did_not_write(tmp_path, capsys):
    """As `--overwrite`'s help says: neither a file added to an earlier OUT/<lang>/ nor a
    `--timings` file that rank did not write is replaced, with or without it."""
    arguments = ["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--quiet", "--overwrite"]
    assert main([*arguments, "--out", str(tmp_path / "out")]) == 0
    notes = tmp_path / "out" / "fr" / "notes.txt"
    notes.write_text("mine")
    assert main([*arguments, "--out", str(tmp_path / "out")]) == 2
    assert "holds notes.txt, which opusparcus rank did not write" in capsys.readouterr().err
    timings = tmp_path / "timings.json"
    timings.write_text("mine")
    assert main([*arguments, "--out", str(tmp_path / "new"), "--timings", str(timings)]) == 2
    assert "was not written by opusparcus rank" in capsys.readouterr().err
    assert notes.read_text() == timings.read_text() == "mine" and not (tmp_path / "new").exists()
