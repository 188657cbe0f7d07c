"""Stage timing, peak memory and terminal progress for long runs.

Progress lines are drawn on stderr only when it is a terminal; timings are always recorded so
that `--timings FILE` and the benchmark scripts can report them.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from tapaco.core.json_input import json_object


def plural(count: int, noun: str, nouns: str = "") -> str:
    """`1 link`, `2 links` (`nouns`: the plural where it is not `noun` + s)."""
    return f"{count} {noun}" if count == 1 else f"{count} {nouns or noun + 's'}"


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB, in its own address space (Linux's
    VmHWM): the ru_maxrss of a process started by fork and exec keeps the peak of the process
    it was forked from (a benchmark's, a shell's). Elsewhere, ru_maxrss."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Progress:
    """Records how long each stage took and shows a live line on a terminal."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.stages: list[dict] = []
        self.started = time.perf_counter()
        self.notes: dict[str, object] = {}
        self._stage = ""
        self._last_draw = 0.0

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self._stage = name
        start = time.perf_counter()
        self.update("")
        yield
        seconds = time.perf_counter() - start
        self.stages.append({"name": name, "seconds": round(seconds, 3),
                            "peak_rss_mib": round(peak_rss_mib(), 1)})
        if self.enabled:
            self.stream.write(f"\r\x1b[K{name}: {seconds:.1f} s\n")
            self.stream.flush()

    def update(self, detail: str, done: int | None = None, total: int | None = None) -> None:
        """Redraw the live line at most ten times a second."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last_draw < 0.1:
            return
        self._last_draw = now
        count = f" {done}/{total}" if done is not None and total else ""
        self.stream.write(f"\r\x1b[K{self._stage}{count} {detail}"[:200])
        self.stream.flush()

    def note(self, name: str, value: object) -> None:
        """Record how a stage ran (e.g. in how many partitions), for `--timings FILE`."""
        self.notes[name] = value

    def timings(self, command: str = "") -> dict:
        """Stage timings as `--timings FILE` writes them; `command` marks whose they are."""
        return {"timings_of": command, "stages": list(self.stages), "notes": dict(self.notes),
                "total_seconds": round(time.perf_counter() - self.started, 3),
                "peak_rss_mib": round(peak_rss_mib(), 1)}


def timings_file_is_own(path: Path) -> bool:
    """Whether `path` holds timings this project wrote (so a rerun may replace it)."""
    data = json_object(path)
    return "timings_of" in data and "stages" in data
