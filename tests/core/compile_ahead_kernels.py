"""Three small kernels for tests/core/test_compile_ahead.py, listed as a command lists its own
(:mod:`tapaco.build_kernels`): all three before the block."""

from numba import njit, types

FIRST = 3


@njit(nogil=True, cache=True)
def doubled(values):
    return values * 2


@njit(nogil=True, cache=True)
def total(values):
    found = 0
    for value in values:
        found += value
    return found


@njit(nogil=True, cache=True)
def largest(values):
    found = values[0]
    for value in values:
        found = max(found, value)
    return found


def kernels() -> list:
    int64 = types.Array(types.int64, 1, "C")
    return [(doubled, (int64,)), (total, (int64,)), (largest, (types.Array(types.int32, 1, "C"),))]
