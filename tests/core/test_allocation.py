"""A command's allocation settings (:mod:`tapaco.core.allocation`), each read back in a fresh
interpreter: where glibc put arrays of 32 MiB and 96 MiB (arrays of 64 MiB or more get pages of
their own) and what it kept once the smaller was freed (mallinfo2); numpy's huge-page switch."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import ctypes, json, sys
if sys.argv[1] == "tuned":
    from tapaco.core.allocation import reuse_freed_memory
    reuse_freed_memory()
import numpy as np

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Info
before = mallinfo2()
array = np.ones(32 << 20, np.uint8)
held = mallinfo2()
del array
freed = mallinfo2()
big = np.ones(96 << 20, np.uint8)
big_held = mallinfo2()
core = getattr(np, "_core", None) or np.core
print(json.dumps({"mapped_apart": held.hblkhd - before.hblkhd, "heap_kept": freed.arena,
                  "big_mapped_apart": big_held.hblkhd - freed.hblkhd,
                  "huge_pages": bool(core.multiarray._get_madvise_hugepage())}))
"""
_MIB = 1 << 20


def _glibc_has_mallinfo2() -> bool:
    try:
        return hasattr(ctypes.CDLL(None), "mallinfo2")
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc_has_mallinfo2(),
                                reason="glibc's malloc (mallinfo2) only")


def _probe(mode: str, **environment: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "NUMPY_MADVISE_HUGEPAGE"}
    env.update(environment)
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def test_a_command_carves_arrays_from_its_heap_and_keeps_them_when_freed():
    found = _probe("tuned")
    assert found["mapped_apart"] == 0
    assert found["heap_kept"] >= 32 * _MIB
    assert found["big_mapped_apart"] >= 96 * _MIB
    assert found["huge_pages"] is False


def test_without_the_settings_glibc_maps_arrays_apart_and_returns_them():
    """The probe's reading of glibc's defaults, which the command changes."""
    found = _probe("default")
    assert found["mapped_apart"] >= 32 * _MIB
    assert found["heap_kept"] < 32 * _MIB


def test_numpy_huge_pages_stay_as_the_environment_asks():
    assert _probe("tuned", NUMPY_MADVISE_HUGEPAGE="1")["huge_pages"] is True
