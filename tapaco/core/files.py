"""Atomic writes: a file or a folder appears complete under its name, or not at all.

Everything is written under a temporary name beside its target (same file system) and renamed
into place when complete; a failed or interrupted write removes what it made, including the
folders it had to create. Deciding *whether* a path may be written is :mod:`tapaco.core.outputs`.
"""

from __future__ import annotations

import codecs
import fcntl
import glob
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from tapaco.core.errors import InputError, usage_error
from tapaco.core.scratch import held, holding

Content = TypeVar("Content")


def temporary_name(path: Path, kind: str) -> Path:
    """A hidden sibling of `path` private to this process (`.name.tmp-PID`)."""
    return path.with_name(f".{path.name}.{kind}-{os.getpid()}")


def dead_leftovers(path: Path, kind: str) -> list[Path]:
    """The :func:`temporary_name` siblings of `path` of this kind whose process is gone (killed
    before it could clean up: SIGKILL, the OOM killer, a power cut).

    Gone means: no process has the pid in its name, and none holds its flock, which its writer
    holds while it lives (:func:`tapaco.core.scratch.holding`). The lock keeps the temporary of
    a live writer whose pid this process cannot see (another machine or container writing to
    the same folder)."""
    prefix = f".{path.name}.{kind}-"
    found = []
    for candidate in path.parent.glob(f"{glob.escape(prefix)}*"):
        pid = candidate.name[len(prefix):]
        if pid.isdigit() and pid.isascii() and not _alive(int(pid)) and not held(candidate):
            found.append(candidate)
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_dead_temporaries(path: Path) -> None:
    """Remove what writes of `path` by processes now dead left under their temporary name."""
    for leftover in dead_leftovers(path, "tmp"):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


@contextmanager
def created_folders(folder: Path) -> Iterator[None]:
    """Create `folder` and its missing parents; remove the ones created if the body fails."""
    missing = []
    for candidate in [folder, *folder.parents]:
        if candidate.exists():
            break
        missing.append(candidate)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        yield
    except BaseException:
        for made in missing:
            try:
                made.rmdir()
            except OSError:
                break
        raise


def write_file_atomically(path: Path, content: str | bytes) -> None:
    """Write one file (text as UTF-8) through a synced temporary name in the same folder, so a
    crash leaves the old file or the new one, never half of it."""
    remove_dead_temporaries(path)
    temporary = temporary_name(path, "tmp")
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        with open(temporary, "wb") as handle, holding(temporary):
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextmanager
def folder_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive advisory lock on the folder of `path` for the body.

    The folder, not the file, is locked: an atomic write replaces the file (a new inode), so a
    lock on the old one would not exclude the next writer. No lock file is left behind.
    """
    descriptor = os.open(path.absolute().parent, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def update_file_atomically(path: Path, read: Callable[[Path], Content],
                           change: Callable[[Content], str]) -> tuple[Content, os.stat_result]:
    """Read `path`, apply `change` (which edits what was read and returns the new text) and
    write it atomically, all under :func:`folder_lock`: writers that each change their own part
    of one file (two annotators' columns) never lose each other's changes. Returns what was
    read, as changed, and the status of the file written (to recognise it later)."""
    with folder_lock(path):
        content = read(path)
        write_file_atomically(path, change(content))
        return content, os.stat(path)


# what a header check reads of a first line: any header, and a row of a language file
FIRST_LINE_BYTES = 16 << 20
_PACKED = {b"BZh": "a bz2-compressed file", b"PAR1": "a Parquet file", b"\x1f\x8b": "a gzip file",
           b"PK\x03\x04": "a zip file"}


def read_plain_text(path: Path, reads: str, first_line_only: bool = False) -> str:
    """A UTF-8 text file a command reads (or its first line, up to FIRST_LINE_BYTES); a packed
    file (a `.bz2` or Parquet release), one that is not a regular file (a device such as
    /dev/zero, a pipe: no end to read to) or any other that is not UTF-8 is a one-line error
    saying what the command `reads`."""
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise usage_error(path, f"is not a regular file (a device or a pipe); this "
                                  f"command reads {reads}")
            data = handle.readline(FIRST_LINE_BYTES) if first_line_only else handle.read()
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}",
                         kind="missing file") from error
    packed = next((name for magic, name in _PACKED.items() if data.startswith(magic)), None)
    if packed is not None:
        raise usage_error(path, f"is {packed}; this command reads {reads} (uncompressed text)")
    cut = first_line_only and len(data) == FIRST_LINE_BYTES and not data.endswith(b"\n")
    try:  # a cut line may end inside a character: that character is left out
        return codecs.getincrementaldecoder("utf-8")().decode(data, final=not cut)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(path, f"not UTF-8 text (byte 0x{data[error.start]:02x}); this "
                         f"command reads {reads}", f"line {line}", kind="encoding") from None


def tab_separated_rows(text: str) -> list[list[str]]:
    """The rows of a tab-separated text without quoting (a TaPaCo language file, an annotation
    file), as csv reads them with QUOTE_NONE but with no limit on a field's length (csv stops
    at 131,072 characters, and a sentence may be longer)."""
    lines = re.split(r"\r\n|\r|\n", text)
    if lines[-1] == "":
        lines.pop()
    return [line.split("\t") if line else [] for line in lines]


def json_text(data: dict) -> str:
    """JSON as every command writes it: indented, UTF-8 kept, key order kept, final newline.

    NaN and infinities are not JSON: they must be replaced (by null) before writing.
    """
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(path: Path, data: dict) -> None:
    """Write `data` as JSON into a file of a folder being filled (not atomic by itself)."""
    path.write_text(json_text(data), encoding="utf-8")


def fill_folder_atomically(out: Path, fill: Callable[[Path], None],
                           replace: Callable[[Path, Path], None]) -> None:
    """Call `fill(folder)` on a fresh temporary folder beside `out`, then move it to `out`.

    An existing `out` is handed to `replace(out, new)`, which must put `new` in its place
    (see :class:`tapaco.core.outputs.OutputFolder`: it removes only the tool's own files).
    """
    with created_folders(out.parent):
        remove_dead_temporaries(out)
        temporary = temporary_name(out, "tmp")
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir()
        try:
            with holding(temporary):
                fill(temporary)
                if out.exists():
                    replace(out, temporary)
                else:
                    temporary.rename(out)
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise
