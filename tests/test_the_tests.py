"""The suite's own guards: every test ends within a limit, also one looping inside a compiled
kernel; a bounds-checked run (NUMBA_BOUNDSCHECK=1, as CI runs the suite once more) finds an
out-of-bounds read that a normal run passes over, and keeps its compiled code apart from the
normal run's."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import keep_bounds_checked_code_apart

PAST_THE_END = '''
import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def total(values):
    found = 0
    for at in range(len(values) + 1):  # one past the end
        found += values[at]
    return found


try:
    total(np.arange(4))
    print("read past the end")
except IndexError:
    print("IndexError")
'''


def test_every_test_has_a_limit_that_also_stops_compiled_code(pytestconfig):
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert 0 < float(pytestconfig.getini("timeout")) <= 600
    # the signal method's exception would wait for a looping kernel to return
    assert pytestconfig.getini("timeout_method") == "thread"


def test_a_bounds_checked_run_finds_a_read_past_the_end_with_its_own_cache(tmp_path):
    (tmp_path / "kernel.py").write_text(PAST_THE_END)
    normal = {key: value for key, value in os.environ.items()
              if key not in ("NUMBA_BOUNDSCHECK", "NUMBA_CACHE_DIR")}
    checked = {**normal, "NUMBA_BOUNDSCHECK": "1"}
    keep_bounds_checked_code_apart(checked)

    def run(environment: dict[str, str]) -> str:
        return subprocess.run([sys.executable, "kernel.py"], cwd=tmp_path, env=environment,
                              capture_output=True, text=True, check=True, timeout=300).stdout

    assert run(normal) == "read past the end\n"  # and cached, beside kernel.py
    assert run(checked) == "IndexError\n"  # not the unchecked code cached before
    assert run(normal) == "read past the end\n"  # nor does it leave its code to normal runs
