"""Where a command may write: the checks every output passes before any work starts.

The rules, the same for every command:

- An output is never an input, never inside an input folder, and never holds an input.
- A folder output that exists is replaced only when it is empty or is this command's own
  earlier output: its `manifest.json` names the command and lists every file in it with its
  SHA-256. A file the tool did not write is never deleted, even with `--overwrite`; a file it
  wrote and someone changed since is replaced only with `--overwrite`. Replacing removes only
  the files the manifest lists.
- A file output that exists is replaced only when it is recognisably the command's own earlier
  output (each command says how), or with `--overwrite`; never when it is an input.
- The path must be writable: no parent is a file, a folder output is not an existing file (and
  the reverse), a file output is a regular file (never `/dev/null` replaced by a rename), and a
  probe file can be written where the temporary output will be (this refuses `/proc`, `/sys`,
  read-only places and a full disk: :mod:`tapaco.core.disk`).

A refusal is an :class:`~tapaco.core.errors.InputError` of kind "usage": the command line
prints it as one line and exits with status 2, having written nothing.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.disk import check_folder
from tapaco.core.errors import usage_error
from tapaco.core.files import dead_leftovers, fill_folder_atomically, json_text, temporary_name
from tapaco.core.files import write_file_atomically as _write_file
from tapaco.core.forked import map_on_threads
from tapaco.core.json_input import json_object
from tapaco.core.scratch import holding

MANIFEST = "manifest.json"
OVERWRITE_FOLDER_HELP = ("replace this command's earlier output even where it was changed since; "
                         "a file it did not write is never replaced (move it away), nor an "
                         "input")


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))


def _related(output: Path, inputs: Sequence[Path]) -> None:
    """Refuse an output equal to, inside, or holding one of the inputs."""
    out = _absolute(output).resolve()
    for given in inputs:
        source = _absolute(given).resolve()
        if out == source:
            raise usage_error(output, "is an input of this command; choose another output path")
        if out.is_relative_to(source):
            raise usage_error(output, f"is inside the input {given}; choose an output outside it")
        if source.is_relative_to(out):
            raise usage_error(output, f"holds the input {given}; writing there would replace it, "
                         "choose another output path")


def _check_writable(path: Path) -> None:
    """No parent is a file, and a file can be written where the output will go."""
    nearest = _absolute(path).parent
    while not nearest.exists():
        nearest = nearest.parent
    if not nearest.is_dir():
        raise usage_error(path, f"cannot be written: {nearest} is a file, not a folder")
    check_folder(nearest)


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _sha256s(folder: Path, names: list[str], workers: int) -> dict[str, str]:
    """The SHA-256 of each of these files, on `workers` threads (hashing releases the GIL)."""
    return dict(zip(names, map_on_threads(_sha256, [folder / name for name in names], workers)))


def _files_under(folder: Path) -> list[str]:
    """Relative paths of every non-folder entry below `folder` (links are not followed)."""
    found = []
    for root, folders, files in os.walk(folder):
        base = Path(root)
        for name in files + [d for d in folders if (base / d).is_symlink()]:
            found.append((base / name).relative_to(folder).as_posix())
    return sorted(found)


def read_manifest(folder: Path) -> dict | None:
    """The manifest of a folder this project wrote, or None."""
    manifest = json_object(folder / MANIFEST)
    return manifest if isinstance(manifest.get("files"), dict) else None


@dataclass(frozen=True)
class OutputFolder:
    """A folder a command fills completely; replaced only when it is the command's own.
    `workers`: threads that hash its files."""

    path: Path
    command: str
    inputs: Sequence[Path] = ()
    overwrite: bool = False
    workers: int = 1

    def check(self) -> None:
        """Raise a usage error unless the folder may be written; call before any work."""
        _related(self.path, self.inputs)
        if self.path.is_symlink():
            raise usage_error(self.path, "is a symbolic link; give the folder it points to "
                         f"({self.path.resolve()}) or another output path")
        if self.path.exists() and not self.path.is_dir():
            raise usage_error(self.path, "is an existing file, but a folder is written here; "
                         "choose another output path")
        _check_writable(self.path)
        if self.path.is_dir():
            self._check_replaceable()

    def _check_replaceable(self) -> None:
        present = _files_under(self.path)
        if not present:
            return
        manifest = read_manifest(self.path)
        if manifest is None or manifest.get("written_by") != self.command:
            raise usage_error(self.path, f"holds files not written by {self.command} (e.g. "
                         f"{present[0]}); choose a new output folder or empty this one")
        listed = manifest["files"]
        foreign = [name for name in present if name != MANIFEST and name not in listed]
        if foreign:
            raise usage_error(self.path, f"holds {foreign[0]}, which {self.command} did not write; "
                         "move it away or choose a new output folder")
        if self.overwrite:
            return
        digests = _sha256s(self.path, [name for name in present if name != MANIFEST],
                           self.workers)
        for name, digest in digests.items():
            if digest != listed[name].get("sha256"):
                raise usage_error(self.path, f"{name} was changed since {self.command} wrote it; "
                             "--overwrite replaces it, or choose a new output folder")

    def write(self, fill: Callable[[Path], None]) -> None:
        """Fill a temporary folder, add the manifest, and move it into place."""
        self._recover_dead_replacements()

        def fill_with_manifest(folder: Path) -> None:
            fill(folder)
            write_manifest(folder, self.command, self.workers)

        fill_folder_atomically(self.path, fill_with_manifest, self._replace)

    def _recover_dead_replacements(self) -> None:
        """A process killed while it replaced this folder left the earlier output under its
        `.old-PID` name: put it back if nothing took its place, else remove the files its
        manifest lists (as that process would have)."""
        for previous in dead_leftovers(self.path, "old"):
            if not self.path.exists():
                previous.rename(self.path)
            else:
                manifest = read_manifest(previous)
                _remove_listed(previous, manifest["files"] if manifest else {})

    def _replace(self, out: Path, new: Path) -> None:
        self._check_replaceable()
        manifest = read_manifest(out)
        previous = temporary_name(out, "old")
        with holding(out):
            out.rename(previous)
            new.rename(out)
            _remove_listed(previous, manifest["files"] if manifest else {})


def write_manifest(folder: Path, command: str, workers: int = 1) -> None:
    """`manifest.json`: the command that wrote the folder and the SHA-256 of every file
    (hashed on `workers` threads)."""
    from tapaco.core.versions import package_version

    digests = _sha256s(folder, [name for name in _files_under(folder) if name != MANIFEST],
                       workers)
    files = {name: {"bytes": (folder / name).stat().st_size, "sha256": digest}
             for name, digest in digests.items()}
    manifest = {"written_by": command, "version": package_version(), "files": files}
    (folder / MANIFEST).write_text(json_text(manifest), encoding="utf-8")


def _remove_listed(folder: Path, listed: dict) -> None:
    """Delete the listed files and the manifest, then the folders left empty; anything else
    stays where it is (the folder is then kept)."""
    for name in [*listed, MANIFEST]:
        (folder / name).unlink(missing_ok=True)
    for root, _, _ in sorted(os.walk(folder, topdown=False), key=lambda item: -len(item[0])):
        try:
            Path(root).rmdir()
        except OSError:
            pass
    if folder.exists():
        print(f"warning: {folder} keeps files that appeared while the output was written",
              file=sys.stderr)


@dataclass(frozen=True)
class OutputFile:
    """A single output file; an existing one is replaced only when it is the command's own
    (as `is_own` recognises it) or with `overwrite`, never when it is an input, and never when
    `protected` finds a reason to keep it (e.g. it holds labels people made)."""

    path: Path
    command: str
    inputs: Sequence[Path] = ()
    overwrite: bool = False
    is_own: Callable[[Path], bool] | None = None
    option: str = "--out"
    protected: Callable[[Path], str] | None = None

    def check(self) -> None:
        _related(self.path, self.inputs)
        parent = _absolute(self.path).parent
        if not parent.is_dir():
            what = "is a file" if parent.exists() else "does not exist"
            raise usage_error(self.path, f"cannot be written: its folder {parent} {what}")
        if self.path.is_dir():
            raise usage_error(self.path, f"is a folder, but {self.option} names a file here")
        if self.path.exists() or self.path.is_symlink():
            if not self.path.is_file() or self.path.is_symlink():
                raise usage_error(self.path, "is not a regular file; choose another path")
            reason = self.protected(self.path) if self.protected else ""
            if reason:
                raise usage_error(self.path, f"{reason}; {self.command} never replaces it, choose "
                             "another path")
            if not self.overwrite and not (self.is_own and self.is_own(self.path)):
                raise usage_error(self.path, f"exists and was not written by {self.command}; "
                             "--overwrite replaces it, or choose another path")
        _check_writable(self.path)

    def write(self, content: str | bytes) -> None:
        """Write the file atomically; what became protected since `check` is still kept."""
        reason = self.protected(self.path) if self.protected and self.path.is_file() else ""
        if reason:
            raise usage_error(self.path, f"{reason}; {self.command} never replaces it")
        _write_file(self.path, content)
