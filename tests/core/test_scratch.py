"""Scratch folders: removed when their run ends, found and removed by the next run when their
run was killed, and never removed while their run lives (whatever pid its marker names) or when
the tool did not make them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tapaco.core.scratch import MARKER, remove_dead_scratch, scratch_folder

PROJECT = Path(__file__).resolve().parents[2]
PREFIX = "opusparcus-pairs-"
# A run that makes a scratch folder, fills it, says where it is, and waits to be killed.
HOLDER = """
import sys, time
from pathlib import Path
from tapaco.core.scratch import scratch_folder
with scratch_folder(sys.argv[1], Path(sys.argv[2])) as folder:
    (folder / "0-0.keys").write_bytes(bytes(1000))
    print(folder, flush=True)
    time.sleep(600)
"""


class Holder:
    """A process holding a scratch folder in `parent`."""

    def __init__(self, parent: Path, prefix: str = PREFIX) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, prefix, str(parent)], stdout=subprocess.PIPE,
            text=True, env={**os.environ, "PYTHONPATH": str(PROJECT)})
        self.folder = Path(self.process.stdout.readline().strip())
        assert self.folder.is_dir()

    def kill(self, stop: signal.Signals = signal.SIGKILL) -> None:
        self.process.send_signal(stop)
        self.process.wait()
        self.process.stdout.close()


def _names(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


def test_a_scratch_folder_is_absolute_marked_and_removed_on_leaving(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "temp").mkdir()
    with scratch_folder(PREFIX, Path("temp")) as folder:
        assert folder.is_absolute() and folder.parent == tmp_path / "temp"
        assert folder.name.startswith(PREFIX)
        assert _names(folder) == {MARKER}
        assert (folder / MARKER).read_text().startswith(f"pid {os.getpid()} on ")
    assert _names(tmp_path / "temp") == set()
    with pytest.raises(KeyError), scratch_folder(PREFIX, tmp_path) as folder:
        raise KeyError
    assert not folder.exists()


def test_a_killed_runs_folder_is_removed_by_the_next_run(tmp_path):
    holder = Holder(tmp_path)
    holder.kill()
    assert holder.folder.is_dir(), "SIGKILL leaves the folder (nothing could remove it)"
    with scratch_folder(PREFIX, tmp_path) as mine:
        assert _names(tmp_path) == {mine.name}


def test_a_live_runs_folder_is_kept_also_a_stopped_one(tmp_path):
    holder = Holder(tmp_path)
    try:
        holder.process.send_signal(signal.SIGSTOP)
        assert remove_dead_scratch(tmp_path, PREFIX) == []
        with scratch_folder(PREFIX, tmp_path) as mine:
            assert _names(tmp_path) == {mine.name, holder.folder.name}
        assert (holder.folder / "0-0.keys").stat().st_size == 1000
    finally:
        holder.process.send_signal(signal.SIGCONT)
        holder.kill(signal.SIGTERM)


def test_the_lock_decides_not_the_pid(tmp_path):
    """A dead run's marker naming a pid now alive (reused) is still dead; a live run whose
    marker names a pid now gone is still alive."""
    holder = Holder(tmp_path)
    try:
        (holder.folder / MARKER).write_text("pid 999999999 on elsewhere\n")
        dead = tmp_path / f"{PREFIX}reused"
        dead.mkdir()
        (dead / MARKER).write_text(f"pid {os.getpid()} on here\n")
        assert remove_dead_scratch(tmp_path, PREFIX) == [dead]
        assert holder.folder.is_dir()
    finally:
        holder.kill()
    assert remove_dead_scratch(tmp_path, PREFIX) == [holder.folder]


def test_what_the_tool_did_not_make_is_never_removed(tmp_path):
    unmarked = tmp_path / f"{PREFIX}mine"  # a user's folder that happens to match
    unmarked.mkdir()
    (unmarked / "notes.txt").write_text("keep")
    being_made = tmp_path / f"{PREFIX}new"  # its marker not yet locked and in place
    being_made.mkdir()
    (being_made / f"{MARKER}.new").write_text("")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / MARKER).write_text("")
    (tmp_path / f"{PREFIX}link").symlink_to(other)
    (tmp_path / f"{PREFIX}file").write_text("")
    marker_link = tmp_path / f"{PREFIX}marker-link"
    marker_link.mkdir()
    (marker_link / MARKER).symlink_to(other / MARKER)
    other_prefix = tmp_path / "opusparcus-spark-dead"
    other_prefix.mkdir()
    (other_prefix / MARKER).write_text("")
    before = sorted(tmp_path.rglob("*"))
    assert remove_dead_scratch(tmp_path, PREFIX) == []
    assert sorted(tmp_path.rglob("*")) == before


def test_where_nothing_can_be_locked_scratch_is_kept_and_temporaries_go_by_pid(
        tmp_path, monkeypatch):
    """NFS refuses an exclusive flock on what is open read-only (EBADF): a folder nobody can
    tell is dead stays; a temporary beside an output is judged by its pid, as it was."""
    import errno

    import tapaco.core.scratch as scratch
    from tapaco.core.files import dead_leftovers

    def no_locks(descriptor: int, operation: int) -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    holder = Holder(tmp_path)
    holder.kill()
    temporary = tmp_path / f".out.tmp-{holder.process.pid}"
    temporary.mkdir()
    monkeypatch.setattr(scratch.fcntl, "flock", no_locks)
    assert remove_dead_scratch(tmp_path, PREFIX) == []
    assert dead_leftovers(tmp_path / "out", "tmp") == [temporary]
    monkeypatch.undo()
    assert remove_dead_scratch(tmp_path, PREFIX) == [holder.folder]
