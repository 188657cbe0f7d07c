"""Bad Moses lines in `rank`: a line too long to be a sentence, or not UTF-8, costs its own link
only (with --skip-bad-input) or stops the run with one line; memory stays bounded either way."""

from __future__ import annotations

import bz2
import json
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import PROJECT, without_compile_notice

from opusparcus.cli import main

LINKS = 60
LONG_LINE = 4  # 1-based: the line of en that is too long or not UTF-8


def _rows(english: list[bytes]) -> dict[str, bytes]:
    ids = "".join(f"en/2000/1/{n}.xml.gz\tfr/2000/1/{n}.xml.gz\t1\t1\n" for n in range(LINKS))
    french = "".join(f"Pivot {n % 7} .\n" for n in range(LINKS))
    return {"Test/Test.en-fr.ids": ids.encode(), "Test/Test.en-fr.fr": french.encode(),
            "Test/Test.en-fr.en": b"".join(line + b"\n" for line in english)}


def _english() -> list[bytes]:
    return [f"Phrase {n % 11} .".encode() for n in range(LINKS)]


def _bitext(root: Path, members: dict[str, bytes], long_line_bytes: int = 0) -> Path:
    """`moses/en-fr.txt.zip`; with `long_line_bytes`, en's line LONG_LINE is that many bytes
    of words, written in pieces (the zip stays ~0.1 % of it)."""
    (root / "moses").mkdir(parents=True)
    with zipfile.ZipFile(root / "moses" / "en-fr.txt.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            if name.endswith(".en") and long_line_bytes:
                lines = data.split(b"\n")
                with archive.open(name, "w", force_zip64=True) as member:
                    member.write(b"\n".join(lines[:LONG_LINE - 1]) + b"\n")
                    piece = b"abcdefg " * (1 << 17)
                    for start in range(0, long_line_bytes, len(piece)):
                        member.write(piece[:long_line_bytes - start])
                    member.write(b"\n" + b"\n".join(lines[LONG_LINE:]))
            else:
                archive.writestr(name, data)
    return root


def _capped(gib: float):
    def cap() -> None:
        limit = int(gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return cap


def _rank(root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(root), "--lang", "en",
         "--out", str(out), "--workers", "1", *extra],
        capture_output=True, text=True, cwd=PROJECT, timeout=120, preexec_fn=_capped(2))
    done.stderr = without_compile_notice(done.stderr)
    return done


def _train(out: Path) -> bytes:
    return bz2.decompress((out / "en" / "train" / "en-train.txt.bz2").read_bytes())


def _without_line_4(tmp_path: Path) -> Path:
    """The same bitext without the link of line LONG_LINE at all: what a skipped line must
    leave (the pairs of the other links)."""
    members = _rows(_english())
    for name in members:
        lines = members[name].split(b"\n")
        members[name] = b"\n".join(lines[:LONG_LINE - 1] + lines[LONG_LINE:])
    main(["rank", "--opus-dir", str(_bitext(tmp_path / "reference", members)), "--lang", "en",
          "--out", str(tmp_path / "reference-out"), "--workers", "1", "--quiet"])
    return tmp_path / "reference-out"


def test_a_100_mb_line_is_one_line_error_or_skipped_in_bounded_memory(tmp_path):
    root = _bitext(tmp_path / "opus", _rows(_english()), long_line_bytes=100_000_000)
    stopped = _rank(root, tmp_path / "stopped")
    assert stopped.returncode == 2, stopped.stderr[-2000:]
    assert stopped.stderr.count("\n") == 1 and "Traceback" not in stopped.stderr
    assert f"Test.en-fr.en]: line {LONG_LINE}: a line over 1,048,576 bytes" in stopped.stderr
    assert not (tmp_path / "stopped").exists()

    skipped = _rank(root, tmp_path / "skipped", "--skip-bad-input")
    assert skipped.returncode == 0, skipped.stderr[-2000:]
    stats = json.loads((tmp_path / "skipped" / "en" / "stats.json").read_text())
    assert stats["bad_input"]["skipped"] == {"line too long": 1}
    assert f"line {LONG_LINE}" in stats["bad_input"]["examples"][0]
    assert _train(tmp_path / "skipped") == _train(_without_line_4(tmp_path))


@pytest.mark.parametrize("bad, message, kind", [
    (b"\xff", "invalid UTF-8 byte 0xff", "encoding"),
    (b"\x00", "character 0x00 is not allowed in text", "forbidden character"),
    (b"\x1b", "character 0x1b is not allowed in text", "forbidden character"),
    ("\uffff".encode(), "character U+FFFF is not allowed in text", "forbidden character")])
def test_a_bad_byte_costs_its_own_link_only(tmp_path, capsys, bad, message, kind):
    """Not UTF-8, or a character XML forbids (a control character), as in documents."""
    english = _english()
    english[LONG_LINE - 1] = b"Phrase " + bad + b" ."
    root = _bitext(tmp_path / "opus", _rows(english))
    arguments = ["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1"]
    assert main([*arguments, "--out", str(tmp_path / "stopped")]) == 2
    error = capsys.readouterr().err
    assert f"line {LONG_LINE}, column 8: {message}" in error
    assert main([*arguments, "--out", str(tmp_path / "skipped"), "--skip-bad-input"]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"en: {LINKS} links read from 1 pivot, {LINKS} one-to-one")
    assert line.endswith(f"skipped bad input: {kind} (1)")
    assert _train(tmp_path / "skipped") == _train(_without_line_4(tmp_path))


def test_a_pivot_with_no_usable_link_is_named(tmp_path, capsys):
    members = _rows(_english())
    members["Test/Test.en-fr.fr"] = b"\xff\n" * LINKS
    root = _bitext(tmp_path / "opus", members)
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1",
                 "--out", str(tmp_path / "out"), "--skip-bad-input"]) == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "read from 0 pivots (no usable link through fr)" in line
    assert f"encoding ({LINKS})" in line
