"""Long compiled kernels run in bounded pieces, so that Ctrl-C and SIGTERM end a command at once.

A numba kernel keeps the thread that called it until it returns: a signal's Python handler runs
only once the main thread is back in Python, and a pool of threads is waited for until its
running tasks end. So a kernel that can run long on one call (a pathological pair, a 100 MB
line) does a bounded amount of work a call (:data:`STEPS`, a few tens of milliseconds) and is
called again to go on (:func:`in_pieces`). Between two calls the main thread runs a pending
signal's handler, and a worker thread of :func:`tapaco.core.forked.map_on_threads` gives up once
the pool is stopping (:func:`stopping_on_error`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager

STEPS = 1 << 24  # a kernel call's work: machine-word steps, code points or bytes

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
