"""A first run's compiling ahead (tapaco.core.compile_ahead): the kernels a command lists are
the ones it calls, with the very argument types it gives them (else the list would compile a
second version); the listed kernels are compiled before the block, by this process or by the
forked child that shares the list, and all of them end in numba's cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import PROJECT, SAMPLE

QUICK_START = """
import json, sys
from pathlib import Path
from tapaco.build_kernels import kernels
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build
build(Path({sample!r}), Path({out!r}), BuildOptions(filters=FilterOptions(min_sets=1), workers=1))
print(json.dumps([[kernel.py_func.__qualname__, str(list(types)),
                   [str(list(called)) for called in kernel.signatures]]
                  for kernel, types in kernels()]))
"""

AHEAD = """
import json
from tapaco.core.compile_ahead import compiled_ahead
import compile_ahead_kernels as listing
kernels = listing.kernels()
with compiled_ahead("compile_ahead_kernels", parallel=True):
    here = [len(kernel.signatures) for kernel, _ in kernels]
print(json.dumps({"here": here,
                  "misses": [sum(kernel.stats.cache_misses.values()) for kernel, _ in kernels]}))
"""


def _run(code: str, cache: str | None = None) -> object:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT),
                                                                str(PROJECT / "tests" / "core")])}
    if cache:
        environment["NUMBA_CACHE_DIR"] = cache
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=PROJECT, env=environment, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_the_quick_start_calls_each_listed_kernel_with_its_listed_types_only(tmp_path):
    found = _run(QUICK_START.format(sample=str(SAMPLE), out=str(tmp_path / "out")))
    assert len(found) == 16
    for name, listed, called in found:
        assert called == [listed], name


def test_the_listed_kernels_are_compiled_before_the_block_and_all_end_in_the_cache(tmp_path):
    cache = str(tmp_path / "cache")
    cold = _run(AHEAD, cache)
    assert cold["here"] == [1, 1, 1]
    warm = _run(AHEAD, cache)  # every kernel loaded, whichever process compiled it
    assert warm == {"here": [1, 1, 1], "misses": [0, 0, 0]}
