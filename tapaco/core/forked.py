"""Run one function in a second process while this process goes on with other work.

The build splits work in two: this process takes one part, a child the other, and the child's
result comes back through a pipe (pickled). A forked child (:class:`Forked`) shares everything
read so far without copying it. Where `fork` is not available, or when only one core is, the
function simply runs here, when its result is asked for.

Every child process of the project (these, and :func:`process_pool`'s workers) ends with its
parent: on Linux the kernel kills it when the parent dies, even by SIGKILL or the OOM killer
(:func:`die_with_parent`), and it leaves Ctrl-C and SIGTERM to the parent, which stops its
children and reports the interrupt in one line.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from tapaco.core.interruptible import stopping_on_error
from tapaco.core.progress import peak_rss_mib


def can_fork() -> bool:
    """Whether a second process can share this one's memory (Linux and other `fork` systems)."""
    return "fork" in multiprocessing.get_all_start_methods()


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


_STOPS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back while children start: a child runs its parent's handlers
    until :func:`die_with_parent` replaces them, and one run there prints a traceback."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def die_with_parent(parent: int) -> None:
    """In a child process of `parent`: be killed when it dies (Linux), end now if it already
    has, and leave interrupts to it (it stops its children itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the line above took effect
        os._exit(1)


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `workers` forked processes that end with this one; leaving the block by an
    error or an interrupt kills them instead of waiting for their running tasks."""
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    with _stops_held():  # a forked pool starts all its workers with its first task
        pool.submit(int).result()
    try:
        yield pool
    except BaseException:
        for child in multiprocessing.active_children():
            child.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


_NO_MORE = object()


class SubmittedAhead(Iterator):
    """`function` over `items` in a pool (of processes or threads), results in order, with at
    most `ahead` tasks sent and not yet taken: the first ones are sent at once, the others as
    results are taken, so the tasks' arguments and results are held only a few at a time."""

    def __init__(self, pool: Executor, function: Callable, items: Iterable, ahead: int) -> None:
        self.pool, self.function, self.items = pool, function, iter(items)
        self.pending: deque[Future] = deque()
        for _ in range(ahead):
            self._send()

    def _send(self) -> None:
        item = next(self.items, _NO_MORE)
        if item is not _NO_MORE:
            self.pending.append(self.pool.submit(self.function, item))

    def __next__(self) -> object:
        if not self.pending:
            raise StopIteration
        result = self.pending.popleft().result()
        self._send()
        return result


class _Failure:
    """An exception raised in the child, sent back to be raised again here."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _run_and_send(function: Callable[..., Any], args: tuple, parent: int,  # noqa: ANN001
                  receiver, sender) -> None:
    die_with_parent(parent)
    receiver.close()  # this process's copy: the parent's dying must break the pipe
    try:
        result = function(*args)
    except BaseException as error:  # noqa: BLE001 - every failure goes back to the parent
        result = _Failure(error)
    sender.send((result, peak_rss_mib()))
    sender.close()


class _SecondProcess:
    """A context manager that stops the second process on leaving (unless its result was
    taken), whether there is a process, and the largest peak memory any of them reported."""

    _process: object | None = None
    largest_peak_rss_mib = 0.0  # MiB; a forked child's pages shared with this one count in both

    def _record_peak(self, peak_rss_mib: float) -> None:
        self.child_peak_rss_mib = peak_rss_mib
        _SecondProcess.largest_peak_rss_mib = max(_SecondProcess.largest_peak_rss_mib,
                                                  peak_rss_mib)

    def __enter__(self) -> _SecondProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.cancel()

    @property
    def parallel(self) -> bool:
        """Whether the function runs in another process."""
        return self._process is not None

    def cancel(self) -> None:
        raise NotImplementedError


class Forked(_SecondProcess):
    """`function(*args)` started in a forked child process (or deferred, where it cannot be).

    Use it as a context manager: leaving the block before :meth:`result` (an error in this
    process's part) stops the child. `forks`: the function starts processes of its own (a
    daemonic child may not; the block still stops it, and it still dies with this process).
    """

    def __init__(self, function: Callable[..., Any], *args: Any, parallel: bool = True,
                 forks: bool = False) -> None:
        self._function, self._args = function, args
        self._process = self._receiver = None
        self.child_peak_rss_mib = 0.0
        if parallel and can_fork() and usable_cores() > 1:
            context = multiprocessing.get_context("fork")
            self._receiver, sender = context.Pipe(duplex=False)
            self._process = context.Process(
                target=_run_and_send, args=(function, args, os.getpid(), self._receiver, sender),
                daemon=not forks)
            with _stops_held():
                self._process.start()
            sender.close()

    def cancel(self) -> None:
        """Stop the child if its result was not taken."""
        if self._process is not None and self._receiver is not None:
            self._receiver.close()
            self._receiver = None
            self._process.terminate()
            self._process.join()

    def ready(self) -> bool:
        """Whether the child has sent its result (:meth:`result` would not wait for it)."""
        return self._receiver is not None and self._receiver.poll()

    def result(self) -> Any:
        """The function's return value; its exception is raised here."""
        if self._process is None:
            return self._function(*self._args)
        try:
            result, peak = self._receiver.recv()
        except EOFError:
            self._receiver.close()
            self._receiver = None
            self._process.join()
            raise RuntimeError(f"the second process ended without a result (exit code "
                               f"{self._process.exitcode})") from None
        except BaseException:  # an interrupt while waiting: stop the child, never wait for it
            self.cancel()
            raise
        self._receiver.close()
        self._receiver = None
        self._process.join()
        self._record_peak(peak)
        if isinstance(result, _Failure):
            raise result.error
        return result


class FromBothEnds:
    """Items 0..count-1, each claimed once: this process takes them from the front
    (:meth:`front`), a forked child from the back (:meth:`back`), until the two meet. The work
    splits by how fast each side goes, not by a share fixed in advance; the caller puts the
    results back in item order, so they do not depend on where the two met."""

    def __init__(self, count: int) -> None:
        self._next = multiprocessing.RawArray("q", [0, count - 1])
        self._lock = multiprocessing.Lock()

    def _claim(self, end: int, step: int) -> int | None:
        with self._lock:
            index = self._next[end]
            if self._next[0] > self._next[1]:
                return None
            self._next[end] = index + step
            return index

    def front(self) -> Iterator[int]:
        """Indexes claimed from the front, increasing."""
        while (index := self._claim(0, 1)) is not None:
            yield index

    def back(self) -> Iterator[int]:
        """Indexes claimed from the back, decreasing."""
        while (index := self._claim(1, -1)) is not None:
            yield index


class InTurn:
    """Items claimed once each in a given order by threads (:func:`map_on_threads`): whichever
    is free takes the next (:meth:`claims`). Biggest first, they finish together; the caller
    puts the results back in item order."""

    def __init__(self, order: Iterable[int]) -> None:
        self._order = iter(order)
        self._lock = threading.Lock()

    def claims(self) -> Iterator[int]:
        """The items this thread claims, in the order's order."""
        while True:
            with self._lock:
                item = next(self._order, None)
            if item is None:
                return
            yield item


def map_on_threads(function: Callable[[Any], Any], items: list, workers: int) -> list:
    """`function` of every item, in order, on up to `workers` threads (here alone when one is
    enough): for work that releases the GIL, such as compiled kernels. An exception here
    (Ctrl-C) stops the threads' kernels at their next piece (:mod:`tapaco.core.interruptible`)."""
    if workers <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    with stopping_on_error(ThreadPoolExecutor(min(workers, len(items)))) as pool:
        return list(pool.map(function, items))


def largest_child_peak_rss_mib() -> float:
    """The largest peak resident memory a second process of this one reported, in MiB."""
    return _SecondProcess.largest_peak_rss_mib

