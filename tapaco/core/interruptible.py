"""Long compiled kernels run so that Ctrl-C and SIGTERM end a command at once.

A numba kernel keeps the thread that called it until it returns: a signal's Python handler runs
only once the main thread is back in Python, and a pool of threads is waited for until its
running tasks end. So a kernel whose one call can run long is either

- cut: it does a bounded amount of work a call (:data:`STEPS` machine-word steps, a few tens of
  milliseconds) and is called again to go on from where it stopped (:func:`in_pieces`; the edit
  distances, where one pair of long sentences is ceil(m / 64) x n steps), or
- waited for: a call over more than :data:`LARGE` code points or bytes (one 100 MB line) runs
  on a helper thread that the caller waits for a moment at a time (:func:`in_background`;
  the kernels whose work on one row, document chunk or set cannot be cut).

Between two pieces, or two moments of waiting, the main thread runs a pending signal's handler,
and a worker thread of :func:`tapaco.core.forked.map_on_threads` gives up once its pool is
stopping (:func:`stopping_on_error`). A kernel given up while waited for runs on, its result
unused, until the program ends (it only reads and writes its own arrays).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, TypeVar

STEPS = 1 << 24  # a piece of a cut kernel: machine-word steps
LARGE = 1 << 20  # an input past which an uncut kernel is waited for: code points, bytes, rows
MOMENT = 0.05  # seconds between two looks at the signals while waiting for a kernel

Result = TypeVar("Result")

_stopping = threading.Event()


class Stopped(Exception):
    """A worker thread's kernel given up because the pool that runs it is stopping."""


def between_pieces() -> None:
    """Where a kernel's work is cut: a worker thread gives up here when its pool is stopping
    (in the main thread, being back in Python is enough: a pending signal's handler runs)."""
    if _stopping.is_set() and threading.current_thread() is not threading.main_thread():
        raise Stopped


def in_pieces(step: Callable[[], bool]) -> None:
    """Call `step` (one bounded piece of a kernel's work; True when all is done) until done."""
    while not step():
        between_pieces()


def in_background(kernel: Callable[..., Result], *args: Any, size: int) -> Result:
    """`kernel(*args)`, a compiled kernel that releases the GIL and cannot be cut: here when
    its input (`size` code points, bytes or rows) is at most :data:`LARGE`, else on a helper
    thread waited for a moment at a time, so that a signal (or a stopping pool) ends the wait."""
    if size <= LARGE:
        return kernel(*args)
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, kernel(*args)))
        except BaseException as error:  # noqa: BLE001 - raised again in the caller
            outcome.append((False, error))

    helper = threading.Thread(target=run, name="kernel", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(MOMENT)
        between_pieces()
    done, value = outcome[0]
    if not done:
        raise value
    return value


@contextmanager
def stopping_on_error(pool: Executor) -> Iterator[Executor]:
    """A pool of threads whose tasks, when an exception (Ctrl-C, SIGTERM, an error) leaves the
    block, give up at their next piece of work instead of being waited for to the end."""
    try:
        yield pool
    except BaseException:
        _stopping.set()
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        finally:
            _stopping.clear()
        raise
    pool.shutdown()
