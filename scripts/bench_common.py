"""Helpers shared by the benchmark scripts: sizes, live child output, number formatting, and
the memory of a process tree (a command and the processes it forks)."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import IO

PAGE_MIB = os.sysconf("SC_PAGE_SIZE") / 2**20


def disk_bytes(folder: Path) -> int:
    """Total size of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def pump(stream: IO[str], sink: list[str]) -> None:
    """Echo the child's stderr live while keeping a copy."""
    for line in stream:
        sink.append(line)
        sys.stderr.write(line)
        sys.stderr.flush()


def fmt(value: float | None, spec: str = ",.1f") -> str:
    """Format a number, ``-`` (as wide as the spec asks) for a missing one."""
    if value is not None:
        return format(value, spec)
    width = spec.split(".")[0].strip(",")
    return "-".rjust(int(width) if width.isdigit() else 0)


def cleanup(paths: list[Path]) -> None:
    """Delete the given folders if they exist."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)


def group_memory_mib(group: int) -> tuple[float, float]:
    """(RSS, PSS) summed over the processes of a process group (a command and its workers).
    Summed RSS counts pages shared by forked workers once per process; PSS splits them."""
    rss_pages, pss_kib = 0, 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            if int(fields[2]) != group:
                continue
            rss_pages += int(fields[21])
            with open(f"/proc/{entry.name}/smaps_rollup", "rb") as fh:
                pss_kib += next(int(line.split()[1]) for line in fh if line.startswith(b"Pss:"))
        except (OSError, ValueError, IndexError, StopIteration):
            continue
    return rss_pages * PAGE_MIB, pss_kib / 1024


class MemoryWatch(threading.Thread):
    """Samples the process tree's memory; kills the group when its summed PSS exceeds
    ``limit_mib`` (0: no limit)."""

    def __init__(self, group: int, limit_mib: float, interval: float = 2.0) -> None:
        super().__init__(daemon=True)
        self.group, self.limit_mib, self.interval = group, limit_mib, interval
        self.peak_rss_mib = self.peak_pss_mib = 0.0
        self.killed = False
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            rss, pss = group_memory_mib(self.group)
            self.peak_rss_mib = max(self.peak_rss_mib, rss)
            self.peak_pss_mib = max(self.peak_pss_mib, pss)
            if self.limit_mib and pss > self.limit_mib and not self.killed:
                print(f"\nprocess tree memory {pss:,.0f} MiB above the limit: killing it",
                      file=sys.stderr, flush=True)
                self.killed = True
                os.killpg(self.group, signal.SIGKILL)
