"""Scratch folders: a run's working space under a temporary folder (`--temp-dir`, else the
system's), removed when the run ends; and what a run killed before it could remove its own
(SIGKILL, the OOM killer, a power cut) left there, found and removed by the next run that makes
one with the same prefix.

A scratch folder is `<prefix><random>` and holds a marker file, :data:`MARKER`, on which its run
holds an exclusive `flock` for its whole life. The kernel drops that lock when the process dies,
however it dies, so a later run tells a dead run's folder (the lock can be taken) from a live
one's (it cannot), whether the live run is on this machine or another sharing the folder, and a
new process that happens to get the dead one's pid changes nothing. The marker is locked under
another name and renamed into place, so a folder being made is never taken for a dead one. Only
folders with the prefix, the marker and no owner are ever removed. The marker names the owner's
pid and host, for a person looking.

The temporaries written beside an output (`.OUT.tmp-PID`, :mod:`tapaco.core.files`) are held
the same way (:func:`holding`), so their clean-up keeps a live writer's (:func:`held`) even
when its pid is not one this process can see.
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

MARKER = ".pivot-paraphrase-miner-scratch"


@contextmanager
def scratch_folder(prefix: str, parent: Path | None = None) -> Iterator[Path]:
    """A new folder `<prefix>...` in `parent` (None: the system's temporary folder), as an
    absolute path (executors on other machines have another working folder); removed with
    its contents on leaving. Dead runs' folders of the same prefix are removed first."""
    where = Path(os.path.abspath(parent if parent is not None else tempfile.gettempdir()))
    remove_dead_scratch(where, prefix)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
    try:
        lock = _owned_marker(folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(lock)


def _owned_marker(folder: Path) -> int:
    """Create the marker of `folder`, locked; the descriptor that holds the lock."""
    partial = folder / f"{MARKER}.new"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _lock(descriptor, wait=True)
        os.write(descriptor, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        partial.rename(folder / MARKER)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _lock(descriptor: int, wait: bool = False) -> bool | None:
    """Take an exclusive flock: True, or False when another process holds it, or None where
    the file system cannot lock (NFS locks only what is open for writing, a few cannot at all:
    a scratch folder there is never removed, a temporary is left to its pid)."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


@contextmanager
def holding(path: Path) -> Iterator[None]:
    """Hold the flock of `path` (a file or a folder this run just made) for the body, so that
    :func:`held` tells it is in use."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        _lock(descriptor)
        yield
    finally:
        os.close(descriptor)


def held(path: Path) -> bool:
    """Whether a live process holds the flock of `path` (one that cannot be opened counts as
    held: what cannot be told is kept)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return True
    try:
        return _lock(descriptor) is False
    finally:
        os.close(descriptor)


def remove_dead_scratch(parent: Path, prefix: str) -> list[Path]:
    """Remove the scratch folders `<prefix>...` in `parent` whose run is gone; those removed."""
    removed = []
    for candidate in sorted(parent.glob(f"{glob.escape(prefix)}*")):
        if candidate.is_symlink() or not candidate.is_dir():
            continue
        with suppress(OSError):
            descriptor = os.open(candidate / MARKER, os.O_RDWR | os.O_NOFOLLOW)
            try:
                if _is_dead_marker(descriptor, candidate / MARKER):
                    shutil.rmtree(candidate, ignore_errors=True)
                    removed.append(candidate)
            finally:
                os.close(descriptor)
    return removed


def _is_dead_marker(descriptor: int, path: Path) -> bool:
    """Whether the opened marker is a regular file nobody holds a lock on and is still the one
    at `path` (not one a run removing the folder unlinked while this one opened it)."""
    opened = os.fstat(descriptor)
    if not stat.S_ISREG(opened.st_mode) or _lock(descriptor) is not True:
        return False
    try:
        current = os.lstat(path)
    except OSError:
        return False
    return (current.st_dev, current.st_ino) == (opened.st_dev, opened.st_ino)
