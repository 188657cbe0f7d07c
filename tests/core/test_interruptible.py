"""Ctrl-C ends a command at once whatever kernel runs: one cut into pieces, one waited for on a
helper thread, either in the main thread or on a pool's threads, which then give up."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import PROJECT

from tapaco.core.interruptible import LARGE, in_background, in_pieces

# A command (run as the command lines run theirs) whose `work` is ended by Ctrl-C; `spin` is a
# kernel busy for minutes (a multiplication chain the compiler cannot shorten).
_COMMAND = """
import numpy as np
from numba import njit
from opusparcus.edit_distance import adjusted_edit_distances
from tapaco.core import errors
from tapaco.core.forked import map_on_threads
from tapaco.core.interruptible import LARGE, in_background

@njit(nogil=True)
def spin(steps):
    value = np.uint64(1)
    for _ in range(steps):
        value = value * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
    return value

spin(10)
adjusted_edit_distances(["warm"], ["up"])
rng = np.random.default_rng(0)
long_pair = ("".join(rng.choice(list("abc d"), 1_000_000)),
             "".join(rng.choice(list("abc d"), 1_000_000)))

def work():
    print("ready", flush=True)
    {call}

def main():
    return errors.exit_status("tapaco", work)
"""

_CALLS = {
    "an uncut kernel": "in_background(spin, 10**12, size=LARGE + 1)",
    "uncut kernels on a pool's threads": (
        "map_on_threads(lambda steps: in_background(spin, steps, size=LARGE + 1), "
        "[10**12, 10**12], 2)"),
    "the edit distance on a pool's threads": (
        "map_on_threads(lambda pair: adjusted_edit_distances([pair[0]], [pair[1]]), "
        "[long_pair, long_pair[::-1]], 2)"),
}


@pytest.mark.parametrize("call", list(_CALLS))
def test_ctrl_c_during_a_long_kernel_ends_the_command_at_once(call, tmp_path):
    (tmp_path / "probe.py").write_text(_COMMAND.replace("{call}", _CALLS[call]))
    command = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
         "from tapaco.core.errors import run_command\nsys.exit(run_command('tapaco', 'probe'))"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT)
    try:
        assert command.stdout.readline() == "ready\n"
        time.sleep(0.5)  # well inside the kernels
        sent = time.monotonic()
        command.send_signal(signal.SIGINT)
        _, error = command.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        command.kill()
    assert command.returncode == 130, error
    assert error == "tapaco: interrupted; earlier outputs are left as they were\n"
    assert took < 2, took


def test_a_kernel_waited_for_gives_its_result_or_its_error():
    values = np.arange(LARGE + 2)
    assert in_background(np.sum, values, size=len(values)) == values.sum()
    with pytest.raises(ValueError, match="boom"):
        in_background(lambda: (_ for _ in ()).throw(ValueError("boom")), size=LARGE + 1)


def test_pieces_run_until_the_work_is_done():
    left = [3]

    def step() -> bool:
        left[0] -= 1
        return left[0] == 0

    in_pieces(step)
    assert left == [0]
