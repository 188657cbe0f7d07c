"""Seeded choices that are the same on every machine and for any number of threads: a choice
about items (a, b) takes the hash of (seed, a, b), never a generator's running state."""

from __future__ import annotations

import numpy as np
from numba import njit

from tapaco.core.hashing import FNV_OFFSET, fnv1a_step, mixed


@njit(nogil=True, cache=True)
def seeded_key(seed: int, a: int, b: int) -> np.int64:
    """A non-negative pseudo-random key of (seed, a, b)."""
    value = fnv1a_step(fnv1a_step(fnv1a_step(FNV_OFFSET, seed), a), b)
    return mixed(value) & np.int64(0x7FFFFFFFFFFFFFFF)
