"""A release built to exhaust memory: a 1 MB zip holding 1 GiB of spaces between two elements of
a sentence document. The build stops in one line (or skips the document) within a memory cap
far below what reading it whole would take."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import PROJECT, SAMPLE

SPACES = 1 << 30
CAP = 3 << 29  # 1.5 GiB of address space


def _bomb(root: Path) -> Path:
    shutil.copytree(SAMPLE, root)
    document = root / "xml" / "en.zip"
    with zipfile.ZipFile(document) as archive:
        (name,) = archive.namelist()
        data = archive.read(name)
    cut = data.index(b"<s ")
    with zipfile.ZipFile(document, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(name, "w", force_zip64=True) as member:
            member.write(data[:cut])
            piece = b" " * (1 << 22)
            for _ in range(SPACES // len(piece)):
                member.write(piece)
            member.write(data[cut:])
    assert document.stat().st_size < 2 << 20
    return root


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _build(root: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tapaco", "build", "--opus-dir", str(root), "--out", str(out),
         "--min-sets", "1", "--documents", "xml", "--quiet", *extra],
        capture_output=True, text=True, cwd=PROJECT, timeout=300, preexec_fn=_capped)


def test_a_gigabyte_of_spaces_in_a_document_is_one_line_in_bounded_memory(tmp_path):
    root = _bomb(tmp_path / "opus")
    stopped = _build(root, tmp_path / "stopped")
    assert stopped.returncode == 2, stopped.stderr[-3000:]
    assert stopped.stderr.count("\n") == 1 and "Traceback" not in stopped.stderr
    assert "en.zip[Tatoeba/xml/en/tatoeba.xml]: line 1: over 16 MiB without </s>" in (
        stopped.stderr)
    assert not (tmp_path / "stopped").exists()
    skipped = _build(root, tmp_path / "skipped", "--skip-bad-input")
    assert skipped.returncode == 0, skipped.stderr[-3000:]
    assert sorted(path.name for path in (tmp_path / "skipped").glob("*.txt")) == ["fr.txt"]
