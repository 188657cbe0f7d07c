"""How a command's process allocates memory, set first thing by each program's command line
(before numpy is imported): glibc's malloc and numpy's requests for huge pages.

A build allocates and frees arrays of megabytes chunk by chunk and stage by stage. By default
glibc gives each such array pages of its own (mmap) and hands them back when it is freed, or
trims them off its heap: the next array is then new pages the kernel must zero again. Arrays
under 64 MiB are carved from the heap here, and what is freed stays there for the next; bigger
ones (a whole corpus's columns, allocated a few times a run) still get pages of their own, given
back when freed, so that memory one stage freed does not stay held through the next. And numpy
asks for transparent huge pages (madvise) for every array of 4 MiB or more, so each first
touch zeroes 2 MiB, where arrays sized for the worst case (a scanner's output) touch a few
pages of them. Both cost system time. The heap kept would raise the peak, so the build and the
commands that bound their memory hand it back between stages (:mod:`tapaco.core.memory`).
"""

from __future__ import annotations

import ctypes
import os

# mallopt's parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
_OWN_PAGES_FROM = 64 << 20  # bytes: arrays this big are mapped apart
_NEVER_TRIM = 2**31 - 1  # (mallopt takes an int)


def reuse_freed_memory() -> None:
    """Have this process keep and reuse the memory it frees: every thread allocates from
    glibc's one main heap (by default each thread carves its arrays from a heap of its own,
    where memory another thread freed is of no use: two threads reading documents held
    ~500 MiB more than one), arrays under 64 MiB come from that heap rather than pages of their
    own, the heap's free top is not trimmed, and numpy does not ask for huge pages (unless
    NUMPY_MADVISE_HUGEPAGE says otherwise)."""
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # read when numpy is imported
    try:  # (this process's own symbols: find_library would start a subprocess)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(_M_ARENA_MAX, 1)
    mallopt(_M_MMAP_THRESHOLD, _OWN_PAGES_FROM)
    mallopt(_M_TRIM_THRESHOLD, _NEVER_TRIM)
