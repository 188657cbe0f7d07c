"""The line that tells a user why a first run waits: numba compiles the kernels on their first
use and keeps them in its cache (beside the modules, or in NUMBA_CACHE_DIR), so later runs load
them at once. The line is written when the first kernel is actually compiled (a cache miss), on
stderr, once, by the command's own process. Every command of both programs installs it, through
:func:`tapaco.core.options.run_parsed`, unless given `--quiet`."""

from __future__ import annotations

import os
import sys

from numba.core import event

NOTICE = ("compiling the kernels: a first run does it once (this can take a minute), later "
          "runs load them from numba's cache")


class _FirstCompile(event.Listener):
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.said = False

    def on_start(self, ev: event.Event) -> None:
        if not self.said and os.getpid() == self.pid:
            self.said = True
            erase = "\r\x1b[K" if sys.stderr.isatty() else ""  # a progress line drawn there
            print(erase + NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


_listener: _FirstCompile | None = None


def say_when_kernels_compile() -> None:
    """From now on, write :data:`NOTICE` when a kernel first has to be compiled."""
    global _listener
    if _listener is None:
        _listener = _FirstCompile()
        event.register("numba:compile", _listener)
