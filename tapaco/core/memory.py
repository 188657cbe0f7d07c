"""Memory sizes for `--memory-limit`: parsing "8G", the machine's memory and this process's.

The machine's memory is the smaller of the physical memory and the cgroup limit (a container
or a batch job slot), so the default share is a share of what this process may really use.
:func:`release_freed_memory` hands memory freed by numpy and Arrow back to the system, so that
this process's resident size measures what it holds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
from functools import cache
from pathlib import Path

import pyarrow as pa
import regex

DEFAULT_SHARE = 0.5
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE = regex.compile(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", regex.IGNORECASE)
_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"),
                  Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def parse_size(text: str) -> int:
    """Bytes of a size such as `8G`, `8GiB`, `512M`, `1.5g` or `1000000` (binary units)."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"expected a size such as 8G, 512M or 1.5GiB, got {text!r}")
    return int(float(match[1]) * _UNITS[match[2].lower()])


def format_size(size: int) -> str:
    """`size` bytes in the largest binary unit that keeps a whole or one-decimal number."""
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit.lower()]:
            return f"{size / _UNITS[unit.lower()]:.1f}".removesuffix(".0") + unit
    return str(size)


def machine_memory() -> int:
    """Bytes of memory this process may use: physical memory, or a smaller cgroup limit."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in _CGROUP_LIMITS:
        try:
            limit = path.read_text().strip()
        except OSError:
            continue
        if limit.isdigit():
            return min(physical, int(limit))
    return physical


def default_memory_limit() -> int:
    """The default `--memory-limit`: a share of the machine's memory."""
    return int(machine_memory() * DEFAULT_SHARE)


def current_rss() -> int:
    """Bytes of this process resident now (Linux /proc; elsewhere the peak so far)."""
    try:
        resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
        return resident_pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@cache
def _glibc_trim() -> ctypes._CFuncPtr | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def release_freed_memory() -> None:
    """Return freed memory to the system: Arrow's pool, and glibc's heap, where numpy arrays
    of up to 32 MB are carved and, once freed, stay part of the process until trimmed."""
    pa.default_memory_pool().release_unused()
    trim = _glibc_trim()
    if trim is not None:
        trim(0)
