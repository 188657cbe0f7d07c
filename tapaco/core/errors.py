"""Input errors that name the file and place, and the log of what `--skip-bad-input` skipped."""

from __future__ import annotations

import errno
import gc
import os
import re
import signal
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from importlib import import_module
from pathlib import Path


class InputError(Exception):
    """A problem with an input file: which file, where in it, what was expected."""

    def __init__(self, path: str | Path, message: str, position: str = "", kind: str = "") -> None:
        self.path = str(path)
        self.message = message
        self.position = position
        self.kind = kind or "bad input"
        super().__init__(str(self))

    def __reduce__(self):
        return (InputError, (self.path, self.message, self.position, self.kind))

    def __str__(self) -> str:
        where = f"{self.path}: {self.position}" if self.position else self.path
        return f"{where}: {self.message}"


def usage_error(path: str | Path, message: str) -> InputError:
    """A one-line error about what the user named (a folder, a file), not about its bytes."""
    return InputError(path, message, kind="usage")


class OptionError(InputError, ValueError):
    """An option out of its range, from the command line or the library API alike."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(option, message, kind="usage")

    def __reduce__(self):
        return (OptionError, (self.path, self.message))


def require(condition: bool, option: str, message: str) -> None:
    """Raise an OptionError for `option` (e.g. `--bleu-max`) unless `condition` holds."""
    if not condition:
        raise OptionError(option, message)


class MissingDependency(RuntimeError):
    """An optional extra is not installed; the message says how to install it."""


class BadInputLog:
    """Raises input errors, or (when skipping is allowed) counts them and keeps a few examples."""

    examples_kept = 20

    def __init__(self, skip: bool = False) -> None:
        self.skip = skip
        self.counts: Counter[str] = Counter()
        self.examples: list[str] = []

    def report(self, error: InputError) -> None:
        """Raise `error`, or record it as skipped when skipping is allowed."""
        if not self.skip:
            raise error
        self.counts[error.kind] += 1
        if len(self.examples) < self.examples_kept:
            self.examples.append(str(error))

    def merge(self, other: BadInputLog) -> None:
        """Add what `other` (the log of later input) recorded."""
        self.counts.update(other.counts)
        room = self.examples_kept - len(self.examples)
        self.examples.extend(other.examples[:max(room, 0)])

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def as_dict(self) -> dict:
        return {"skipped": dict(sorted(self.counts.items())), "examples": list(self.examples)}


_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with control characters (terminal escapes, carriage returns, newlines, bidi
    overrides) shown as escapes: what names and messages from a file or a server print as."""
    return _HIDDEN.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)


class DiskError(InputError):
    """A folder a command writes is full, over quota, read-only or not permitted; the message
    names it."""

    def __init__(self, folder: str | Path, message: str) -> None:
        super().__init__(folder, message, kind="usage")

    def __reduce__(self):
        return (DiskError, (self.path, self.message))

    def __str__(self) -> str:
        return self.message


_FULL = {errno.ENOSPC: "no space left on", errno.EDQUOT: "disk quota exceeded on"}
_NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}
_written_folders: list[Path] = []  # checked by :func:`tapaco.core.disk.check_folder`, in order


def writes_to(folder: Path) -> None:
    """Remember `folder` as one this command writes, checked before the work."""
    if folder not in _written_folders:
        _written_folders.append(folder)


def cannot_write(folder: Path | None, error: OSError) -> DiskError:
    """The one line for `error`, met writing in `folder`."""
    where = folder if folder is not None else "the device"
    if error.errno in _FULL:
        return DiskError(where, f"{_FULL[error.errno]} {where}; free some space there or "
                         "choose another folder")
    reason = (error.strerror or str(error)).lower()
    if error.errno not in _NOT_WRITABLE:
        reason = f"no file can be made there ({reason})"
    return DiskError(where, f"cannot write {where}: {reason}; choose another folder")


def disk_error(error: BaseException) -> DiskError | None:
    """The one line for an OSError that says the disk is full or over quota, or a folder is
    read-only, or None for any other error. The folder named is the file's, or (a write that
    failed for want of room names no file) the one whose file system has the least room left
    of those this command writes and the default temporary folder."""
    if not isinstance(error, OSError) or (error.errno not in _FULL
                                          and error.errno != errno.EROFS):
        return None
    if error.filename:
        folder = Path(os.path.abspath(error.filename))
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
    else:
        folder = _fullest()
    return cannot_write(folder, error)


def _fullest() -> Path | None:
    room = {}
    for folder in [*reversed(_written_folders), Path(tempfile.gettempdir())]:
        try:
            status = os.statvfs(folder)
        except OSError:
            continue
        room[folder] = status.f_bavail * status.f_frsize
    return min(room, key=room.__getitem__) if room else None  # the latest of equals


class Terminated(BaseException):
    """SIGTERM, raised where the program is (as Ctrl-C raises KeyboardInterrupt), so that its
    temporary outputs are removed on the way out."""


_signals_received: list[int] = []


def _terminate(signum: int, frame: object) -> None:
    _signals_received.append(signum)
    raise Terminated


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, raised by the command line's own handler: CPython makes a process that saw a
    plain KeyboardInterrupt inside some C-level evaluation (an extension importing) end by
    SIGINT at exit even after the program caught it, instead of with the status it chose."""


def _interrupt(signum: int, frame: object) -> None:
    _signals_received.append(signum)
    raise Interrupted


def _signal_in_a_finalizer(unraisable: sys.UnraisableHookArgs) -> None:
    """Ctrl-C or SIGTERM raised while Python ran a finalizer (a `__del__`, e.g. while numba
    compiles) cannot leave it: deliver the signal again, to the main thread's next instruction,
    instead of printing it and going on. Once a signal is ending the command, a finalizer that
    fails on an object the signal left half-built (llvmlite's, when it lands inside numba's
    first compile) prints nothing either: the command's one line says what happened."""
    if isinstance(unraisable.exc_value, (Terminated, Interrupted)):
        signum = _signals_received.pop()
        # sent again a moment later by another thread: it lands after this hook returns
        again = threading.Timer(0.01, os.kill, (os.getpid(), signum))
        again.daemon = True
        again.start()
        return
    if not _signals_received:
        sys.__unraisablehook__(unraisable)


INTERRUPTED = "interrupted; earlier outputs are left as they were"
TERMINATED = "terminated; earlier outputs are left as they were"


def stop_on_signals() -> None:
    """From now on SIGTERM raises Terminated and Ctrl-C Interrupted wherever the program is
    (unless Ctrl-C was given another handler), also when they arrive in a finalizer."""
    signal.signal(signal.SIGTERM, _terminate)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    sys.unraisablehook = _signal_in_a_finalizer


def run_command(program: str, module: str) -> int:
    """`program`'s command line: `module.main()`, imported here so that Ctrl-C or SIGTERM
    while the libraries load also ends in one line."""
    stop_on_signals()
    loaded: list[Callable[[], int]] = []
    status = exit_status(program, lambda: loaded.append(import_module(module).main))
    status = loaded[0]() if loaded else status
    # The interpreter's last collection walks every object left, which is slow once numba has
    # loaded kernels (also after Ctrl-C); nothing of a finished command needs it.
    gc.freeze()
    return status


def usage_error_line(usage: str, message: str) -> str:
    """How every error in a command line's options reads, argparse's and those found after it:
    `usage` is the program and command (`tapaco build`)."""
    return f"{usage}: error: {message}; see {usage} --help"


def exit_status(program: str, action: Callable[[], None], command: str = "") -> int:
    """Run a command's `action`: 0 when it completes, 2 with a one-line error for bad input,
    130 when interrupted by Ctrl-C and 143 by SIGTERM (outputs are only ever moved into place
    complete, and temporary ones removed). An option error names `command` as argparse does."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    earlier = signal.signal(signal.SIGTERM, _terminate) if in_main_thread else None
    try:
        action()
    except OptionError as error:
        usage = f"{program} {command}" if command else program
        print(usage_error_line(usage, f"argument {error.path}: {printable(error.message)}"),
              file=sys.stderr)
        return 2
    except (InputError, MissingDependency) as error:
        print(f"{program}: error: {printable(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{program}: {INTERRUPTED}", file=sys.stderr)
        return 130
    except Terminated:
        print(f"{program}: {TERMINATED}", file=sys.stderr)
        return 143
    except Exception as error:
        full_or_read_only = disk_error(error)
        if full_or_read_only is not None:
            print(f"{program}: error: {printable(str(full_or_read_only))}", file=sys.stderr)
            return 2
        # An extension that was loading (numpy importing its C parts) turns the signal's
        # exception into its own ImportError: the signal, not that error, ended the command.
        if not _signals_received:
            raise
        interrupted = _signals_received[-1] == signal.SIGINT
        print(f"{program}: {INTERRUPTED if interrupted else TERMINATED}", file=sys.stderr)
        return 130 if interrupted else 143
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, earlier)
    return 0
