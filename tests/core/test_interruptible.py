"""Ctrl-C ends a command at once whatever kernel runs: one cut into pieces, one waited for on a
helper thread, either in the main thread or on a pool's threads, which then give up."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import PROJECT

from opusparcus.moses_tokenizer import moses_tokenize
from tapaco.bleu import bleu_keep_mask
from tapaco.core import interruptible
from tapaco.core.interruptible import LARGE, in_background, in_pieces
from tapaco.core.opus.cesalign_kernels import scan_links
from tapaco.core.opus.document_kernels import scan_sentences
from tapaco.core.opus.moses_columns import parse_ids
from tapaco.core.opus.textstream import FileRef, Lines
from tapaco.core.score.embedders import VectorsEmbedder
from tapaco.core.score.word_vectors import WordVectors
from tapaco.core.tokenize_13a import token_ids
from tapaco.normalize import first_near_identical, near_identical_keys, surface_hashes

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


def _vectors() -> VectorsEmbedder:
    words = {"a": 0, "b": 1, "c": 2}
    return VectorsEmbedder(PROJECT, WordVectors(words, np.eye(3)), workers=2)


# Every kernel whose one call can run long, through its caller's public function.
_LONG_KERNELS = {
    "13a tokenizer": lambda: token_ids(["Hello , world ."]),
    "BLEU walk": lambda: bleu_keep_mask(np.zeros(2, np.int64), ["a b c", "a b d"], "13a"),
    "document scanner": lambda: scan_sentences(b'<s id="1"><w>a</w></s>\n'),
    "cesAlign scanner": lambda: scan_links(b'<linkGrp><link xtargets="1;1"/></linkGrp>\n'),
    ".ids fields": lambda: parse_ids(Lines(b"a/1/2.xml.gz\tb/1/2.xml.gz\t1\t1\n",
                                           np.array([0]), np.array([29]), 1), FileRef("x")),
    "Moses kernel": lambda: moses_tokenize(["Hello, world."], "en"),
    "near-identical keys": lambda: near_identical_keys(["Hello , World !"]),
    "filter (c)": lambda: first_near_identical(np.zeros(2, np.int64), ["A b", "a B"]),
    "surface hashes": lambda: surface_hashes(["Hello"]),
    "pair cosines": lambda: _vectors().pair_scores(["a b", "c"], ["b", "a c"]),
    "set cosines": lambda: _vectors().set_scores(["a b", "c", "a"], np.array([0, 3])),
}


@pytest.mark.parametrize("kernel", list(_LONG_KERNELS))
def test_every_long_kernel_is_waited_for_past_its_bound(kernel, monkeypatch):
    """With the bound at 0, each of these kernels runs on a helper thread (and gives what it
    gives in place): none can hold the command past a signal."""
    expected = _LONG_KERNELS[kernel]()
    helpers = []

    class Recorded(threading.Thread):
        def start(self) -> None:
            helpers.append(self.name)
            super().start()

    monkeypatch.setattr(interruptible, "LARGE", 0)
    monkeypatch.setattr(interruptible.threading, "Thread", Recorded)
    found = _LONG_KERNELS[kernel]()
    assert "kernel" in helpers
    assert repr(found) == repr(expected)
