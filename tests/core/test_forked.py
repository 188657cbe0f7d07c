"""The forked helper: results and errors come back; a cancelled child stops."""

import os
import time

import pytest

from tapaco.core.errors import InputError
from tapaco.core.forked import Forked, can_fork, usable_cores

needs_fork = pytest.mark.skipif(not (can_fork() and usable_cores() > 1),
                                reason="needs fork and two cores")


def _pid_and_sum(values: list[int]) -> tuple[int, int]:
    return os.getpid(), sum(values)


def _fail() -> None:
    raise InputError("some/file.xml", "bad thing", "line 3", kind="malformed XML")


@needs_fork
def test_the_function_runs_in_another_process_and_its_result_comes_back():
    with Forked(_pid_and_sum, list(range(1000))) as child:
        assert child.parallel
        pid, total = child.result()
    assert pid != os.getpid() and total == 499500
    assert child.child_peak_rss_mib > 0


def test_without_parallel_the_function_runs_here_when_asked():
    with Forked(_pid_and_sum, [1, 2], parallel=False) as child:
        assert not child.parallel
        assert child.result() == (os.getpid(), 3)


@pytest.mark.parametrize("parallel", [True, False])
def test_an_error_in_the_function_is_raised_by_result(parallel):
    with Forked(_fail, parallel=parallel) as child, pytest.raises(InputError) as raised:
        child.result()
    assert str(raised.value) == "some/file.xml: line 3: bad thing"
    assert raised.value.kind == "malformed XML"


@needs_fork
def test_leaving_the_block_without_the_result_stops_the_child():
    with Forked(time.sleep, 60) as child:
        process = child._process
    assert not process.is_alive()


@needs_fork
def test_a_script_without_a_main_guard_builds_once(tmp_path):
    """The build's second processes must not run the calling script again (multiprocessing's
    spawn would import it as its main module)."""
    import subprocess
    import sys

    from conftest import PROJECT, SAMPLE

    script = tmp_path / "user_script.py"
    script.write_text(
        "from pathlib import Path\n"
        "from tapaco.pipeline import build\n"
        f"build(Path({str(SAMPLE)!r}), Path({str(tmp_path / 'out')!r}))\n"
        "print('built')\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=PROJECT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("built") == 1
    assert (tmp_path / "out" / "stats.json").is_file()


def test_items_claimed_in_turn_are_each_claimed_once_in_the_order_given():
    from tapaco.core.forked import InTurn

    for order in ([], [0], [3, 1, 2, 0], list(range(9))[::-1]):
        turns = InTurn(order)
        first, second = turns.claims(), turns.claims()
        taken = [], []
        for turn in range(2 * len(order) + 2):
            found = next(first if turn % 3 else second, None)
            if found is not None:
                taken[turn % 3 == 0].append(found)
        assert sorted(taken[0] + taken[1]) == sorted(order)
        for mine in taken:
            assert mine == [item for item in order if item in mine]


def test_items_claimed_in_turn_by_threads_are_claimed_once():
    from tapaco.core.forked import InTurn, map_on_threads

    turns = InTurn(list(range(2000))[::-1])
    taken = map_on_threads(lambda _: list(turns.claims()), [0, 1], 2)
    assert sorted(taken[0] + taken[1]) == list(range(2000))


def test_items_claimed_from_both_ends_are_each_claimed_once():
    from tapaco.core.forked import FromBothEnds

    for count in (0, 1, 2, 7):
        claims = FromBothEnds(count)
        front, back = claims.front(), claims.back()
        taken_front, taken_back = [], []
        for turn in range(2 * count + 2):
            found = next(front if turn % 3 else back, None)
            if found is not None:
                (taken_front if turn % 3 else taken_back).append(found)
        assert sorted(taken_front + taken_back) == list(range(count))
        assert taken_front == sorted(taken_front) and taken_back == sorted(taken_back)[::-1]
        assert not taken_front or not taken_back or max(taken_front) < min(taken_back)
