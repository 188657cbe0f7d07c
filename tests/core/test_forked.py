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


def test_a_fresh_process_runs_an_importable_function_and_sends_the_result():
    with Forked(_pid_and_sum, [4, 5], fresh=True) as child:
        pid, total = child.result()
    assert total == 9
    assert pid != os.getpid() or not child.parallel
