"""A full disk or a read-only folder for a command under test, made with mount(2) in a forked
child's own mount namespace: the folder is what it was for every other process, and nothing is
left mounted however the child ends. Needs root (CAP_SYS_ADMIN); :func:`mount_problem` says why
not when it cannot be done here.

States: "full" (a tmpfs holding the folder's files, then a filler up to the last byte),
"nearly full" (the same with `NEARLY_FULL_FREE` bytes left) and "read-only" (the folder bound
read-only onto itself).
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

from tapaco.core.forked import die_with_parent

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
TMPFS_SIZE = 1 << 20
NEARLY_FULL_FREE = 8192
FILLER = ".filler"


class MountFailed(Exception):
    """mount(2) or unshare(2) refused (not root, or not allowed in this container)."""


def _call(result: int, what: str) -> None:
    if result != 0:
        raise MountFailed(f"{what}: {os.strerror(ctypes.get_errno())}")


def _make(folder: Path, state: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    _call(libc.unshare(CLONE_NEWNS), "unshare")
    _call(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    target = os.fsencode(folder)
    if state == "read-only":
        _call(libc.mount(target, target, None, MS_BIND, None), "mount --bind")
        _call(libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None),
              "mount -o remount,ro")
        return
    kept = {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*")
            if path.is_file()}
    _call(libc.mount(b"tmpfs", target, b"tmpfs", 0, f"size={TMPFS_SIZE}".encode()), "tmpfs")
    for name, data in kept.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    filler = os.open(folder / FILLER, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(filler, bytes(1 << 16)):
            pass
    except OSError:
        pass
    os.close(filler)
    if state == "nearly full":
        os.truncate(folder / FILLER, max(os.path.getsize(folder / FILLER) - NEARLY_FULL_FREE, 0))


def contents(folder: Path) -> dict[str, str | None]:
    """Every entry below `folder`: a file's SHA-256, None for a folder."""
    return {path.relative_to(folder).as_posix():
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            for path in sorted(folder.rglob("*"))}


def run_with(folder: Path, state: str,
             run: Callable[[], int]) -> tuple[int, str, dict[str, str | None]]:
    """`run()` in a forked child with `folder` in `state`: its exit status, what it printed on
    stderr, and the folder's contents after it (as :func:`contents`). Raises MountFailed when
    the state cannot be made here."""
    reader, writer = os.pipe()
    parent = os.getpid()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's result goes through the pipe
        os.close(reader)
        die_with_parent(parent)  # a test ended by its timeout takes the child along
        _child(folder, state, run, writer)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        outcome = pickle.load(pipe)
    os.waitpid(child, 0)
    if isinstance(outcome, MountFailed):
        raise outcome
    return outcome


def _child(folder: Path, state: str, run: Callable[[], int], writer: int) -> None:
    try:
        _make(folder, state)
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        try:
            status = run()
        except SystemExit as stopped:
            status = stopped.code
        outcome: object = (status, sys.stderr.getvalue(), contents(folder))
    except MountFailed as failed:
        outcome = failed
    except BaseException as error:  # noqa: BLE001 - the parent reports it
        outcome = (-1, f"{type(error).__name__}: {error}", {})
    with os.fdopen(writer, "wb") as pipe:
        pickle.dump(outcome, pipe)
    os._exit(0)


def mount_problem() -> str:
    """Why a full or read-only folder cannot be made here ('' when it can)."""
    if os.geteuid() != 0:
        return "a full disk and a read-only folder are made with mount(2), which needs root"
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        run_with(probe, "read-only", lambda: 0)
    except MountFailed as failed:
        return f"mount(2) is not allowed here ({failed})"
    return ""
