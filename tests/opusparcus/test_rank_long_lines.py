"""`rank` on long sentences: a link with a sentence over `--max-sentence-length` characters on
either side is left out before pairing and counted; without the limit, long pairs are ranked
with exact distances, and Ctrl-C or SIGTERM ends the run at once whatever pair it is on."""

from __future__ import annotations

import bz2
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PROJECT, Sentence, write_moses
from test_rank_languages import _files

from opusparcus.cli import main
from opusparcus.rank import RankOptions, rank

_WORDS = "the house is green and we went there yesterday with my friend".split()


def _text(seed: int, length: int) -> str:
    """Words and single spaces, exactly `length` characters, ending in a word character."""
    rng = random.Random(seed)
    text = ""
    while len(text) < length + 1:
        text += rng.choice(_WORDS) + " "
    return text[:length - 1] + "x"


def _edited(text: str, seed: int) -> str:
    """`text` with some of its letters changed (its length kept)."""
    rng = random.Random(seed)
    chars = list(text)
    for at in rng.sample(range(len(chars)), len(chars) // 50):
        if chars[at] != " ":
            chars[at] = "z"
    return "".join(chars)


def _rank(root: Path, out: Path, *options: str, timeout: float = 300
          ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(root), "--lang", "en",
         "--out", str(out), *options], capture_output=True, text=True, cwd=PROJECT,
        timeout=timeout)


def _moses(root: Path, pairs: list[tuple[str, str]]) -> Path:
    return write_moses(root, "en-fr", [(f"en/2000/1/{n}.xml.gz", f"fr/2000/1/{n}.xml.gz", "1",
                                        "1", en, fr) for n, (en, fr) in enumerate(pairs)],
                       zipped=True)


def _short_pairs() -> list[tuple[str, str]]:
    """Ten links through five pivot sentences: five train pairs."""
    return [(f"Phrase {n} number {k} .", f"Pivot {n} .") for n in range(5) for k in range(2)]


def test_long_lines_sharing_a_pivot_are_left_out_and_counted(tmp_path):
    """Three lines of ~870 KB sharing a pivot (the ranking was still writing after 300 s)."""
    root = _moses(tmp_path / "opus", [(_text(k, 870_000), "Oui .") for k in range(3)]
                  + _short_pairs())
    finished = _rank(root, tmp_path / "out", timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert "3 links with a sentence over 10000 characters left out" in finished.stderr
    stats = json.loads((tmp_path / "out" / "en" / "stats.json").read_text())
    assert stats["bitexts"]["fr"]["links_with_long_text"] == 3
    assert stats["options"]["max_sentence_length"] == 10_000
    assert stats["pairs_written"] == {"train": 5, "dev": 0, "test": 0}


def _limit_pairs() -> tuple[list[tuple[str, str]], str, str]:
    """Two en sentences of exactly 10,000 characters and one of 10,001 through one pivot, and
    a link whose fr side has 10,001."""
    first = _text(1, 10_000)
    second = _edited(first, 2)
    return ([(first, "Pivot ."), (second, "Pivot ."), (_text(3, 10_001), "Pivot ."),
             ("Yes .", "Oui ."), ("Yeah .", "Oui ."), ("Right .", _text(4, 10_001))],
            first, second)


def _xml(opus, pairs: list[tuple[str, str]]) -> Path:
    en, fr = "en/2000/1/1.xml.gz", "fr/2000/1/1.xml.gz"
    for n, (english, french) in enumerate(pairs, 1):
        opus.sentences(en, Sentence(f"s{n}", english))
        opus.sentences(fr, Sentence(f"s{n}", french))
    opus.links("en-fr", en, fr, [(f"s{n}", f"s{n}") for n in range(1, len(pairs) + 1)])
    return opus.write("xml")


@pytest.mark.parametrize("form", ["moses", "xml"])
def test_the_limit_counts_the_characters_of_either_side(form, opus, tmp_path):
    pairs, first, second = _limit_pairs()
    root = _moses(tmp_path / "opus", pairs) if form == "moses" else _xml(opus, pairs)
    base = ["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1", "--quiet"]
    assert main([*base, "--out", str(tmp_path / "limited")]) == 0
    stats = json.loads((tmp_path / "limited" / "en" / "stats.json").read_text())
    assert stats["bitexts"]["fr"]["links_with_long_text"] == 2
    assert _written_pairs(tmp_path / "limited") == {frozenset((first, second)),
                                                     frozenset(("Yes .", "Yeah ."))}
    assert main([*base, "--out", str(tmp_path / "all"), "--max-sentence-length", "none"]) == 0
    stats = json.loads((tmp_path / "all" / "en" / "stats.json").read_text())
    assert stats["bitexts"]["fr"]["links_with_long_text"] == 0
    assert len(_written_pairs(tmp_path / "all")) == 4


def _train_rows(out: Path) -> list[list[str]]:
    text = bz2.decompress((out / "en" / "train" / "en-train.txt.bz2").read_bytes())
    return [line.split("\t") for line in text.decode().splitlines()]


def _written_pairs(out: Path) -> set[frozenset[str]]:
    return {frozenset(row[1:3]) for row in _train_rows(out)}


def test_long_pairs_get_their_exact_distance(tmp_path):
    """Without the limit, pairs of long sentences are written with the distance edlib gives
    (the kernel past 64 code points is the blocked bit-parallel one)."""
    edlib = pytest.importorskip("edlib", reason="edlib (test extra) is the reference")
    first = _text(5, 30_000)
    root = _moses(tmp_path / "opus", [(first, "Pivot ."), (_edited(first, 6)[:-700], "Pivot ."),
                                      (_text(7, 25_000), "Pivot .")])
    finished = _rank(root, tmp_path / "out", "--max-sentence-length", "none", timeout=120)
    assert finished.returncode == 0, finished.stderr
    rows = _train_rows(tmp_path / "out")
    assert len(rows) == 3
    for row in rows:
        short, long = sorted((row[1], row[2]), key=len)
        assert int(row[6]) == edlib.align(short, long, mode="HW", task="distance")[
            "editDistance"]


@pytest.mark.parametrize(("signal_sent", "status", "word"), [
    (signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_long_pairs_are_written_ends_the_run_at_once(tmp_path, signal_sent,
                                                                     status, word):
    """Three lines of 400,000 characters through one pivot, no limit: the write stage works on
    pairs of a few seconds each; the signal comes in the middle of one."""
    root = _moses(tmp_path / "opus", [(_text(k, 400_000), "Oui .") for k in range(3)])
    out = tmp_path / "out"
    command = subprocess.Popen(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(root), "--lang", "en",
         "--out", str(out), "--max-sentence-length", "none"],
        stderr=subprocess.PIPE, text=True, cwd=PROJECT)
    try:
        end = time.monotonic() + 120
        while not (out.is_dir() and any(path.name.startswith(".en.") for path in out.iterdir())):
            assert time.monotonic() < end and command.poll() is None, "never wrote"
            time.sleep(0.01)
        time.sleep(1)  # in the write stage: its temporary folder exists
        assert command.poll() is None, "the write stage ended already"
        sent = time.monotonic()
        command.send_signal(signal_sent)
        _, error = command.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        command.kill()
    assert command.returncode == status, error
    assert error == f"opusparcus: {word}; earlier outputs are left as they were\n"
    assert took < 2, took
    assert sorted(path.name for path in tmp_path.iterdir()) == ["opus"]  # nothing half-written


def test_both_engines_leave_out_the_same_links(tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs the 'spark' extra (pyspark)")
    if shutil.which("java") is None:
        pytest.skip("the Spark engine needs Java 17 (no java on PATH)")
    root = _moses(tmp_path / "opus", [(_text(k, 40 + k), "Oui .") for k in range(4)]
                  + _short_pairs())
    local = rank(root, "en", tmp_path / "local", RankOptions(workers=1, max_sentence_length=41))
    spark = rank(root, "en", tmp_path / "spark", RankOptions(
        workers=1, max_sentence_length=41, engine="spark", spark_master="local[2]"))
    assert spark == local
    assert local["bitexts"]["fr"]["links_with_long_text"] == 2
    assert local["pairs_written"]["train"] == 6
    assert _files(tmp_path / "spark" / "en") == _files(tmp_path / "local" / "en")
