"""A child process's peak memory, watched while it runs: a test of bounded reading must not
itself grow without bound when the bug is back."""

from __future__ import annotations

import subprocess
import time


def wait_with_small_peak(process: subprocess.Popen, limit_mib: float = 500,
                         wait: float = 30) -> float:
    """Wait (at most `wait` s) for `process` to end, reading its peak resident memory (Linux's
    VmHWM) as it runs; it is killed as soon as that is over `limit_mib`, or when the time is
    up. Asserts that neither happened; the last peak read, in MiB."""
    peak = 0.0
    deadline = time.monotonic() + wait
    try:
        while process.poll() is None and time.monotonic() < deadline and peak < limit_mib:
            try:
                with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
                    peak = max([peak] + [int(line.split()[1]) / 1024 for line in status
                                         if line.startswith("VmHWM:")])
            except OSError:  # it ended between poll and open
                pass
            time.sleep(0.01)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert peak < limit_mib, f"the process reached {peak:.0f} MiB"
    assert time.monotonic() < deadline, f"the process still ran after {wait} s"
    return peak
