"""The folders a command writes, checked before any work: :func:`check_folder` makes, fills
with one block and removes a probe file in a folder a command will write (its output's, a
temporary or a cache folder), so a read-only or full folder, or one over quota, is refused in
one line before the long work. A disk that fills up later is said in one line too, naming the
folder (:func:`tapaco.core.errors.disk_error`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tapaco.core.errors import cannot_write, writes_to
from tapaco.core.files import temporary_name


def check_folder(folder: Path) -> None:
    """Raise a :class:`~tapaco.core.errors.DiskError` unless a file can be made, filled with
    one block and removed in `folder` (or, while it does not exist, in its nearest existing
    parent, where it will be made); remember it as a folder this command writes."""
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
        raise cannot_write(folder, error) from None
    writes_to(folder)
