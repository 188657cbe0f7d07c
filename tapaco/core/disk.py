"""The folders a command writes, checked before any work: :func:`check_folder` makes, fills
(with one block, or the room the command needs) and removes a probe file in a folder a command
will write (its output's, a temporary or a cache folder), so a read-only or full folder, or one
over quota, is refused in one line before the long work. A disk that fills up later is said in
one line too, naming the folder (:func:`tapaco.core.errors.disk_error`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tapaco.core.errors import cannot_write, writes_to
from tapaco.core.files import folder_lock, temporary_name


def check_folder(folder: Path, room: int = 0) -> None:
    """Raise a :class:`~tapaco.core.errors.DiskError` unless a file of `room` bytes (at least
    one block) can be made, synced and removed in `folder` (or, while it does not exist, in its
    nearest existing parent, where it will be made); remember it as a folder this command
    writes."""
    folder = Path(os.path.abspath(folder))
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    probe = temporary_name(folder / "write", "probe")
    try:
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            left = max(room, os.fstatvfs(descriptor).f_bsize)
            block = bytes(min(left, 1 << 20))
            while left:
                written = os.write(descriptor, block[:left])
                if written == 0:  # a short write: the disk is full
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                left -= written
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
            probe.unlink()
    except OSError as error:
        raise cannot_write(folder, error) from None
    writes_to(folder)


def check_updatable(path: Path, growth: int = 0) -> None:
    """Refuse, in one line naming its folder, a file that
    :func:`~tapaco.core.files.update_file_atomically` could not update: that writes a new copy
    beside it under the folder's lock, so here, under that lock, a copy's worth of bytes (its
    size plus `growth`) must fit beside it."""
    with folder_lock(path):
        check_folder(path.absolute().parent, path.stat().st_size + growth)
