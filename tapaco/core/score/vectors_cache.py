"""The converted copy of a word-vector file that `--vectors-cache DIR` keeps, so that later runs
memory-map its matrix instead of parsing the text again.

Each source file has its own folder in DIR, named by a digest of its path, size and time of
change: `matrix.npy` (float32, a row per word), `words.txt` (the words in row order, one a
line) and `record.json`, what the copy holds: the source (path, size, time of change, and a
SHA-256 digest of its size and its first and last MiB), the number of words and dimensions,
and the size of each file. A copy is used only when all of it agrees with its record and the
record with the source; one that does not (a file cut short, a word list longer than the
matrix, a source rewritten in place, a folder of an earlier version) is refused in one line
naming its folder, never read out of bounds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from tapaco.core.errors import InputError, OptionError
from tapaco.core.files import fill_folder_atomically
from tapaco.core.json_input import read_json

RECORD = "record.json"
MATRIX = "matrix.npy"
WORDS = "words.txt"
_FORMAT = 1
_ENDS_BYTES = 1 << 20


def copy_folder(cache: Path, source: Path) -> Path:
    """The folder in `cache` that holds (or will hold) the copy of `source`."""
    cache = Path(cache)
    if cache.exists() and not cache.is_dir():
        raise OptionError("--vectors-cache", f"{cache} is a file: give a folder (made if "
                                             "missing) to keep converted vector files in")
    stat = source.stat()
    text = f"{source.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    return cache / hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def source_record(source: Path) -> dict:
    """What identifies the source: path, size, time of change and a digest of its ends."""
    stat = source.stat()
    digest = hashlib.sha256(str(stat.st_size).encode())
    with open(source, "rb") as stream:
        digest.update(stream.read(_ENDS_BYTES))
        stream.seek(max(stat.st_size - _ENDS_BYTES, 0))
        digest.update(stream.read(_ENDS_BYTES))
    return {"path": str(source.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "ends_sha256": digest.hexdigest()}


def load_copy(folder: Path, source: Path) -> tuple[list[str], np.ndarray] | None:
    """The words and the memory-mapped matrix of the copy in `folder`; None when there is
    none. A copy that does not match its record is an :class:`InputError` naming `folder`."""
    if not folder.exists():
        return None
    record = _record(folder, source)
    for name in (MATRIX, WORDS):
        size = (folder / name).stat().st_size if (folder / name).is_file() else None
        if size != record["files"][name]:
            raise _refused(folder, source, f"{name} holds {size} bytes, the record says "
                                           f"{record['files'][name]}")
    try:
        matrix = np.load(folder / MATRIX, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as error:
        raise _refused(folder, source, f"{MATRIX} cannot be read: {error}") from error
    shape = (record["words"], record["dimensions"])
    if matrix.shape != shape or matrix.dtype != np.float32:
        raise _refused(folder, source, f"{MATRIX} holds {matrix.dtype} {matrix.shape}, the "
                                       f"record says float32 {shape}")
    try:
        words = (folder / WORDS).read_bytes().decode("utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise _refused(folder, source, f"{WORDS} is not UTF-8") from error
    if len(words) != record["words"]:
        raise _refused(folder, source, f"{WORDS} holds {len(words):,} words, the matrix "
                                       f"{record['words']:,} rows")
    return words, matrix


def _record(folder: Path, source: Path) -> dict:
    try:
        record = read_json(folder / RECORD)
    except FileNotFoundError as error:
        raise _refused(folder, source, f"it holds no {RECORD} (a copy made by an earlier "
                                       "version, or not a copy)") from error
    except (OSError, InputError) as error:
        reason = error.message if isinstance(error, InputError) else error
        raise _refused(folder, source, f"{RECORD} cannot be read: {reason}") from error
    if not _well_formed(record):
        raise _refused(folder, source, f"{RECORD} is not a record of this version")
    if record["source"] != source_record(source):
        raise _refused(folder, source, f"it was converted from another file than {source} "
                                       "is now")
    return record


def _well_formed(record: object) -> bool:
    if not isinstance(record, dict) or record.get("format") != _FORMAT:
        return False
    files = record.get("files")
    counts = [record.get("words"), record.get("dimensions")]
    if isinstance(files, dict):
        counts += [files.get(MATRIX), files.get(WORDS)]
    return isinstance(files, dict) and isinstance(record.get("source"), dict) and all(
        isinstance(count, int) and not isinstance(count, bool) and count >= 0
        for count in counts)


def _refused(folder: Path, source: Path, reason: str) -> InputError:
    return InputError(folder, f"the converted copy of {source.name} does not match its "
                              f"record: {reason}; remove this folder and it is converted "
                              "again", kind="corrupt file")


def save_copy(folder: Path, source: dict, words: list[str], matrix: np.ndarray) -> None:
    """Write the copy of the source `source` describes (:func:`source_record`, taken before
    it was parsed) into `folder`, whole or not at all."""

    def fill(temporary: Path) -> None:
        np.save(temporary / MATRIX, np.ascontiguousarray(matrix, np.float32))
        (temporary / WORDS).write_bytes("\n".join(words).encode("utf-8"))
        files = {name: (temporary / name).stat().st_size for name in (MATRIX, WORDS)}
        record = {"format": _FORMAT, "source": source, "words": len(words),
                  "dimensions": int(matrix.shape[1]), "files": files}
        (temporary / RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")

    fill_folder_atomically(folder, fill, _keep_theirs)


def _keep_theirs(out: Path, new: Path) -> None:
    """Another run converted the same file at the same time: its copy stays."""
    shutil.rmtree(new, ignore_errors=True)
