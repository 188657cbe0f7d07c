"""`rank --memory-limit ... --temp-dir D` killed by SIGKILL while its pairs are on disk leaves
`D/opusparcus-pairs-*`; the next run removes it and writes the right release, and a run still
alive (here stopped with SIGSTOP) keeps its folder and finishes as if alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PROJECT, write_moses
from test_rank_languages import _files

from opusparcus.rank import RankOptions, rank

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="SIGKILL and SIGSTOP of a real run")

PIVOTS, TARGETS = 90, 300  # 90 x 300 x 299 / 2 = 4M pairs: 500 MB in memory, over any limit


def _release(root: Path) -> Path:
    """One en-fr bitext, all train, where each of 90 French lines translates the same 300
    English ones: few distinct pairs, each from 90 pivots."""
    rows, number = [], 0
    for pivot in range(PIVOTS):
        for target in range(TARGETS):
            number += 1
            rows.append(("en/2001/1/1.xml.gz", "fr/2001/1/1.xml.gz", str(number), str(number),
                         f"sentence {target} of the english side", f"phrase pivot {pivot} ."))
    return write_moses(root, "en-fr", rows, "OpenSubtitles", zipped=True)


def _start(release: Path, out: Path, temp: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(release), "--lang", "en",
         "--out", str(out), "--memory-limit", "256M", "--temp-dir", str(temp), "--workers", "1",
         "--quiet"], cwd=PROJECT, env={**os.environ, "PYTHONPATH": str(PROJECT)},
        stderr=subprocess.PIPE, text=True)


def _spilling(temp: Path, run: subprocess.Popen) -> Path:
    """The run's pairs folder once pairs are on disk in it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and run.poll() is None:
        for folder in temp.glob("opusparcus-pairs-*"):
            if any(path.stat().st_size for path in folder.glob("*.keys")):
                return folder
        time.sleep(0.005)
    raise AssertionError(f"no pairs on disk (exit {run.poll()}): {run.stderr.read()}")


def _wait_stopped(pid: int) -> None:
    """Until the process is stopped (a write it was in has returned)."""
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        time.sleep(0.005)


def _contents(folder: Path) -> dict[str, int]:
    return {path.name: path.stat().st_size for path in folder.iterdir()}


def _finished(run: subprocess.Popen) -> None:
    _, errors = run.communicate(timeout=300)
    assert run.returncode == 0, errors


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The release and what ranking it in memory writes."""
    folder = tmp_path_factory.mktemp("leftovers")
    root = _release(folder / "opus")
    rank(root, "en", folder / "memory", RankOptions(workers=1))
    return root, _files(folder / "memory" / "en")


def test_a_killed_runs_pairs_are_removed_by_the_next_run(release, tmp_path):
    root, expected = release
    temp = tmp_path / "temp"
    temp.mkdir()
    killed = _start(root, tmp_path / "killed", temp)
    leftover = _spilling(temp, killed)
    killed.kill()
    killed.communicate()
    assert leftover.is_dir() and sum(_contents(leftover).values()) > 0
    _finished(_start(root, tmp_path / "out", temp))
    assert list(temp.iterdir()) == []
    assert _files(tmp_path / "out" / "en") == expected


def test_a_live_runs_pairs_are_kept(release, tmp_path):
    root, expected = release
    temp = tmp_path / "temp"
    temp.mkdir()
    paused = _start(root, tmp_path / "paused", temp)
    try:
        folder = _spilling(temp, paused)
        paused.send_signal(signal.SIGSTOP)
        _wait_stopped(paused.pid)
        held, own = _contents(folder), sorted(path.name for path in temp.iterdir())
        assert folder.name in own  # with its ranked runs' folder
        _finished(_start(root, tmp_path / "other", temp))
        assert sorted(path.name for path in temp.iterdir()) == own
        assert _contents(folder) == held
    finally:
        paused.send_signal(signal.SIGCONT)
    _finished(paused)
    assert list(temp.iterdir()) == []
    assert _files(tmp_path / "paused" / "en") == expected
    assert _files(tmp_path / "other" / "en") == expected
