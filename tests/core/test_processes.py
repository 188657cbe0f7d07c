"""Child processes end with their parent, and signals end a command with one line.

Real processes: a build whose alignment reading thread blocks on a named pipe (an alignment
file nobody writes) is killed, interrupted (SIGINT to its process group, as Ctrl-C does) or
terminated; it must end within seconds, with every child it has, and print nothing but one
line.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tapaco.core.forked import can_fork, usable_cores

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and can_fork() and usable_cores() > 1),
    reason="needs Linux (/proc), fork and two cores")

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE = PROJECT / "tapaco" / "sample" / "tatoeba-v2"
INTERRUPTED = "tapaco: interrupted; earlier outputs are left as they were\n"
TERMINATED = "tapaco: terminated; earlier outputs are left as they were\n"


def _start(argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT)})


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that just ended
            pass
    return found


def _wait_for(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _ended(pid: int) -> bool:
    """Gone, or a zombie nobody reaps (an orphan's new parent may not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _reader_of(fifo: Path) -> int | None:
    """The writing end of `fifo` once a reader has opened it (its reads then wait for data
    that never comes), else None."""
    try:
        return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # ENXIO: nobody reads it yet
        return None


def _blocked_build(tmp_path: Path) -> tuple[subprocess.Popen, list[int], int]:
    """A build whose reader waits forever on a named pipe; returns it, its children and the
    pipe's writing end (to close once the build has ended)."""
    opus = tmp_path / "opus"
    shutil.copytree(SAMPLE, opus)
    fifo = opus / "xml" / "en-fr.xml.gz"
    fifo.unlink()
    os.mkfifo(fifo)
    build = _start(["-m", "tapaco", "build", "--opus-dir", "opus", "--out", "out",
                    "--min-sets", "1", "--workers", "2"], tmp_path)
    writer = None

    def opened() -> bool:
        nonlocal writer
        writer = _reader_of(fifo)
        return writer is not None

    _wait_for(opened)
    return build, _children(build.pid), writer


def test_a_killed_build_leaves_no_child_behind(tmp_path):
    build, children, writer = _blocked_build(tmp_path)
    build.kill()
    build.wait(timeout=20)  # not communicate: an orphan would hold stderr open
    _wait_for(lambda: all(_ended(child) for child in children), seconds=5)
    os.close(writer)


@pytest.mark.parametrize("stop, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("whom", ["group", "process"])
def test_a_stopped_build_prints_one_line_and_ends_its_children(tmp_path, stop, status, whom):
    build, children, writer = _blocked_build(tmp_path)
    (os.killpg if whom == "group" else os.kill)(build.pid, stop)
    _, error = build.communicate(timeout=20)
    assert (build.returncode, error) == (status, INTERRUPTED if status == 130 else TERMINATED)
    _wait_for(lambda: all(_ended(child) for child in children), seconds=5)
    assert sorted(os.listdir(tmp_path)) == ["opus"]
    os.close(writer)


@pytest.mark.parametrize("stop, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_while_libraries_load_prints_one_line(tmp_path, stop, status):
    build = _start(["-m", "tapaco", "build", "--opus-dir", str(SAMPLE), "--out", "out"],
                   tmp_path)
    _wait_for(lambda: "numpy" in Path(f"/proc/{build.pid}/maps").read_text(), seconds=20)
    os.killpg(build.pid, stop)
    _, error = build.communicate(timeout=20)
    assert (build.returncode, error) == (status, INTERRUPTED if status == 130 else TERMINATED)
    assert os.listdir(tmp_path) == []


SCRIPT = """
import sys, time
from tapaco.core.errors import exit_status
from tapaco.core.forked import Forked, process_pool

def big() -> bytes:
    return bytes(1 << 22)

def pool() -> None:
    with process_pool(2) as workers:
        print(*[p.pid for p in workers._processes.values()], flush=True)
        list(workers.map(time.sleep, [60]))  # the other worker waits for a task

def forked() -> None:
    with Forked(big) as child:
        print(child._process.pid, flush=True)
        time.sleep(60)

sys.exit(exit_status("tapaco", {"pool": pool, "forked": forked}[sys.argv[1]]))
"""


def _with_children(tmp_path: Path, kind: str) -> tuple[subprocess.Popen, list[int]]:
    (tmp_path / "script.py").write_text(SCRIPT)
    process = _start(["script.py", kind], tmp_path)
    return process, [int(pid) for pid in process.stdout.readline().split()]


@pytest.mark.parametrize("kind", ["forked", "pool"])
def test_children_die_with_a_killed_parent(tmp_path, kind):
    """A forked child blocked on sending its large result, a pool's workers."""
    process, children = _with_children(tmp_path, kind)
    assert children and all(not _ended(child) for child in children)
    process.kill()
    process.wait(timeout=20)
    _wait_for(lambda: all(_ended(child) for child in children), seconds=5)


@pytest.mark.parametrize("kind", ["forked", "pool"])
def test_ctrl_c_ends_children_without_their_tracebacks(tmp_path, kind):
    process, children = _with_children(tmp_path, kind)
    os.killpg(process.pid, signal.SIGINT)
    _, error = process.communicate(timeout=20)
    assert (process.returncode, error) == (130, INTERRUPTED)
    _wait_for(lambda: all(_ended(child) for child in children), seconds=5)


@pytest.mark.parametrize("stop, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("whom", ["group", "process"])
def test_a_rank_stopped_while_compiling_ahead_prints_one_line_and_ends_its_child(
        tmp_path, stop, status, whom):
    """On an empty numba cache the rank forks a second process that compiles its kernels
    (tapaco.core.compile_ahead) while it compiles the others itself."""
    rank = subprocess.Popen(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(SAMPLE), "--lang", "fr",
         "--out", "out", "--quiet"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT), "NUMBA_CACHE_DIR": str(tmp_path / "c")})
    _wait_for(lambda: _children(rank.pid), seconds=120)
    children = _children(rank.pid)
    (os.killpg if whom == "group" else os.kill)(rank.pid, stop)
    _, error = rank.communicate(timeout=20)
    said = "interrupted" if status == 130 else "terminated"
    assert (rank.returncode, error) == (
        status, f"opusparcus: {said}; earlier outputs are left as they were\n")
    _wait_for(lambda: all(_ended(child) for child in children), seconds=5)
    assert sorted(os.listdir(tmp_path)) == ["c"]
