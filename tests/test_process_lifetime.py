"""Child processes end with their parent, even one killed by SIGKILL; Ctrl-C and SIGTERM end a
command with one line (exit 130 / 143), no traceback from any process, nothing half-written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import PROJECT

from tapaco.core.forked import can_fork, usable_cores

needs_two_processes = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and can_fork() and usable_cores() > 1),
    reason="children that die with their parent: Linux, fork and two cores")

# A parent starting one child of each kind, each busy for a minute, then waiting itself.
PARENT = """
import os, sys, time
from tapaco.core.forked import Forked, process_pool
forked = Forked(time.sleep, 60)
with process_pool(1) as pool:
    pool.submit(time.sleep, 60)
    import multiprocessing
    time.sleep(1)
    children = [p.pid for p in multiprocessing.active_children()]
    print(" ".join(map(str, children)), flush=True)
    time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone_within(pids: list[int], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not any(_alive(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _wait_until(condition, seconds: float = 30) -> None:  # noqa: ANN001 - () -> bool
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().split(") ")[1].split()
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@needs_two_processes
def test_children_die_with_a_parent_killed_by_sigkill():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True,
                              cwd=PROJECT)
    try:
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(children) == 2 and all(_alive(pid) for pid in children)
        parent.kill()
        parent.wait()
        assert _gone_within(children, 5), [pid for pid in children if _alive(pid)]
    finally:
        parent.kill()
        for pid in _children(parent.pid):
            os.kill(pid, signal.SIGKILL)


def _long_bitext(root: Path, links: int = 400_000) -> Path:
    """An en-fr Moses bitext whose ranking takes a few seconds."""
    (root / "moses").mkdir(parents=True)
    with zipfile.ZipFile(root / "moses" / "en-fr.txt.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("T/T.en-fr.ids", "".join(
            f"en/{2000 + n % 20}/{n // 50}/1.xml.gz\tfr/{2000 + n % 20}/{n // 50}/1.xml.gz\t1\t1\n"
            for n in range(links)))
        archive.writestr("T/T.en-fr.en", "".join(f"Phrase {n % 20_011} .\n"
                                                 for n in range(links)))
        archive.writestr("T/T.en-fr.fr", "".join(f"Pivot {n % 9_973} .\n" for n in range(links)))
    return root


@needs_two_processes
@pytest.mark.parametrize(("signal_sent", "status", "word"), [
    (signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("moment", ["while importing", "while its workers read"])
def test_a_signal_ends_rank_in_one_line(tmp_path, signal_sent, status, word, moment):
    root = _long_bitext(tmp_path / "opus")
    out = tmp_path / "out"
    command = subprocess.Popen(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(root), "--lang", "en",
         "--out", str(out), "--workers", "2", "--quiet"],
        stderr=subprocess.PIPE, text=True, cwd=PROJECT)
    if moment == "while importing":  # numpy mapped: the libraries are loading
        _wait_until(lambda: "numpy" in Path(f"/proc/{command.pid}/maps").read_text())
    else:
        _wait_until(lambda: _children(command.pid))
    children = _children(command.pid)
    command.send_signal(signal_sent)
    _, error = command.communicate(timeout=60)
    assert command.returncode == status, error
    assert error.startswith("opusparcus: ") and word in error and error.count("\n") == 1, error
    assert _gone_within(children, 5)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["opus"]  # no output, no temp


@needs_two_processes
def test_ctrl_c_while_waiting_for_a_forked_result_stops_the_child_at_once():
    waiting = subprocess.Popen(
        [sys.executable, "-c", "import time\nfrom tapaco.core.forked import Forked\n"
         "with Forked(time.sleep, 60) as child:\n"
         "    print(child._process.pid, flush=True)\n"
         "    child.result()\n"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=PROJECT)
    child = int(waiting.stdout.readline())
    time.sleep(0.3)
    started = time.monotonic()
    waiting.send_signal(signal.SIGINT)
    waiting.wait(timeout=20)
    assert time.monotonic() - started < 5  # the child ignores Ctrl-C: it must be stopped
    assert _gone_within([child], 5)


def _script(lines: str) -> subprocess.CompletedProcess:
    """Run Python `lines` in the project, its handlers of Ctrl-C and SIGTERM installed."""
    script = "import os, sys, time\nfrom tapaco.core import errors\nerrors.stop_on_signals()\n"
    return subprocess.run([sys.executable, "-c", script + lines], capture_output=True, text=True,
                          cwd=PROJECT, timeout=60)


def _ended_in_one_line(finished: subprocess.CompletedProcess, status: int, word: str) -> None:
    assert finished.returncode == status, finished.stderr
    assert finished.stderr == f"tapaco: {word}; earlier outputs are left as they were\n"


_EACH_SIGNAL = pytest.mark.parametrize(("signal_sent", "status", "word"), [
    (signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])


@_EACH_SIGNAL
def test_a_signal_that_an_importing_extension_turns_into_its_own_error_still_ends_in_one_line(
        signal_sent, status, word):
    # numpy, importing its C parts when the signal arrives, raises ImportError from it.
    _ended_in_one_line(_script(
        "def importing():\n"
        "    try:\n"
        f"        os.kill(os.getpid(), {int(signal_sent)})\n"
        "        time.sleep(5)\n"
        "    except BaseException as caught:\n"
        "        raise ImportError('PyCapsule_Import could not import module') from caught\n"
        "raise SystemExit(errors.exit_status('tapaco', importing))\n"), status, word)


def test_an_error_without_a_signal_is_not_taken_for_one():
    finished = _script("def failing():\n"
                       "    raise ImportError('broken install')\n"
                       "errors.exit_status('tapaco', failing)\n")
    assert finished.returncode == 1 and "ImportError: broken install" in finished.stderr


@_EACH_SIGNAL
def test_a_signal_during_a_finalizer_still_ends_the_command_in_one_line(signal_sent, status,
                                                                        word):
    # numba's llvmlite frees its objects in __del__: an exception raised there cannot leave it
    _ended_in_one_line(_script(
        "class Freed:\n"
        "    def __del__(self):\n"
        f"        os.kill(os.getpid(), {int(signal_sent)})\n"
        "        time.sleep(0.5)\n"
        "def work():\n"
        "    Freed()\n"
        "    time.sleep(5)\n"
        "    print('went on', file=sys.stderr)\n"
        "raise SystemExit(errors.exit_status('tapaco', work))\n"), status, word)


@_EACH_SIGNAL
def test_a_signal_that_leaves_an_object_half_built_ends_in_one_line(signal_sent, status, word):
    # llvmlite's PassBuilder, when the signal lands in its constructor during numba's first
    # compile: its __del__ then fails on the attribute the constructor never set
    _ended_in_one_line(_script(
        "class HalfBuilt:\n"
        "    def __init__(self):\n"
        f"        os.kill(os.getpid(), {int(signal_sent)})\n"
        "        time.sleep(5)\n"
        "        self.handle = 1\n"
        "    def __del__(self):\n"
        "        del self.handle\n"
        "def work():\n"
        "    HalfBuilt()\n"
        "raise SystemExit(errors.exit_status('tapaco', work))\n"), status, word)
