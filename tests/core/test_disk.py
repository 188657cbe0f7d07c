"""tapaco.core.disk and errors.disk_error: a write that fails for want of room or of a writable
folder is one line naming the folder; other errors are left alone. (A real full disk and
read-only folder, across every command: tests/test_bad_input.py.)"""

from __future__ import annotations

import errno

import pytest

from tapaco.core.disk import check_folder
from tapaco.core.errors import DiskError, disk_error


def test_a_write_to_a_full_device_names_the_folder_checked(tmp_path):
    check_folder(tmp_path / "not yet made")
    with pytest.raises(OSError) as raised, open("/dev/full", "wb", buffering=0) as full:
        full.write(b"x")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename is None
    assert str(disk_error(raised.value)) == (f"no space left on {tmp_path}; free some space "
                                             "there or choose another folder")


def test_an_error_naming_a_file_names_its_folder(tmp_path):
    error = OSError(errno.EROFS, "Read-only file system", str(tmp_path / "out" / "x.tsv"))
    assert str(disk_error(error)) == (f"cannot write {tmp_path}: read-only file system; "
                                      "choose another folder")
    error = OSError(errno.EDQUOT, "Disk quota exceeded", str(tmp_path))
    assert str(disk_error(error)).startswith(f"disk quota exceeded on {tmp_path};")


@pytest.mark.parametrize("error", [OSError(errno.EACCES, "Permission denied", "/etc/shadow"),
                                   OSError(errno.ECONNRESET, "Connection reset"),
                                   FileNotFoundError(errno.ENOENT, "No such file", "x"),
                                   ValueError("not an OSError")])
def test_other_errors_are_not_said_to_be_the_disks(error):
    assert disk_error(error) is None


def test_a_folder_where_no_file_can_be_made_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    for folder, says in ((tmp_path / "file", f"cannot write {tmp_path / 'file'}: no file"),
                         ("/proc", "cannot write /proc: no file can be made there")):
        with pytest.raises(DiskError, match=says):
            check_folder(folder)
    check_folder(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]
