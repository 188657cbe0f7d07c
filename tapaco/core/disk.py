"""The folders a command writes: checked before any work, and named when a write fails there.

:func:`check_folder` makes, fills with one block and removes a probe file in a folder a command
will write (its output's, a temporary or a cache folder): a read-only or full folder, or one
over quota, is refused before the long work in one line. A disk that fills up later makes a
write fail with `ENOSPC`, usually without a file name: :func:`disk_error` turns such an error
into one line naming the folder whose file system has the least room left, of those checked
and the default temporary folder.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from tapaco.core.errors import InputError
from tapaco.core.files import temporary_name

_FULL = {errno.ENOSPC: "no space left on", errno.EDQUOT: "disk quota exceeded on"}
_NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}
_checked: list[Path] = []  # the folders this process checked, in order


class DiskError(InputError):
    """A folder a command writes is full, over quota, read-only or not permitted."""

    def __init__(self, folder: str | Path, message: str) -> None:
        super().__init__(folder, message, kind="usage")

    def __reduce__(self):
        return (DiskError, (self.path, self.message))

    def __str__(self) -> str:
        return self.message


def check_folder(folder: Path) -> None:
    """Raise a DiskError unless a file can be made, filled with one block and removed in
    `folder` (or, while it does not exist, in its nearest existing parent, where it will be
    made); remember it as a folder this command writes."""
    folder = Path(os.path.abspath(folder))
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    probe = temporary_name(folder / "write", "probe")
    try:
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            block = min(os.fstatvfs(descriptor).f_bsize, 1 << 16)
            if os.write(descriptor, bytes(block)) < block:  # a short write: the disk is full
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        finally:
            os.close(descriptor)
            probe.unlink()
    except OSError as error:
        raise _refusal(folder, error) from None
    if folder not in _checked:
        _checked.append(folder)


def disk_error(error: BaseException) -> DiskError | None:
    """The one line for an OSError that says the disk is full or over quota, or a folder is
    read-only (naming the folder), or None for any other error."""
    if not isinstance(error, OSError) or (error.errno not in _FULL
                                          and error.errno != errno.EROFS):
        return None
    if error.filename:
        folder = Path(os.path.abspath(error.filename))
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
    else:
        folder = _fullest()
    return _refusal(folder, error)


def _refusal(folder: Path | None, error: OSError) -> DiskError:
    where = folder if folder is not None else "the device"
    if error.errno in _FULL:
        return DiskError(where, f"{_FULL[error.errno]} {where}; free some space there or "
                         "choose another folder")
    reason = (error.strerror or str(error)).lower()
    if error.errno not in _NOT_WRITABLE:
        reason = f"no file can be made there ({reason})"
    return DiskError(where, f"cannot write {where}: {reason}; choose another folder")


def _fullest() -> Path | None:
    """Of the checked folders and the default temporary folder, the one whose file system has
    the least room left (the latest checked where several share a file system)."""
    room = {}
    for folder in [*reversed(_checked), Path(tempfile.gettempdir())]:
        try:
            status = os.statvfs(folder)
        except OSError:
            continue
        room[folder] = status.f_bavail * status.f_frsize
    return min(room, key=room.__getitem__) if room else None
