"""Byte tests the compiled XML scanners share (:mod:`tapaco.core.opus.document_kernels`,
:mod:`tapaco.core.opus.cesalign_kernels`); `starts_with` serves the Moses tokenizer's kernel
too."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def starts_with(data: np.ndarray, at: int, prefix: np.ndarray) -> bool:
    """Whether `prefix` is at `data[at:]`."""
    if at + len(prefix) > len(data):
        return False
    for k in range(len(prefix)):
        if data[at + k] != prefix[k]:
            return False
    return True


@njit(nogil=True, cache=True)
def is_space(byte: int) -> bool:
    """XML whitespace: space, tab, newline, carriage return."""
    return byte == 0x20 or byte == 0x09 or byte == 0x0A or byte == 0x0D


@njit(nogil=True, cache=True)
def ends_a_name(byte: int) -> bool:
    """Whether an element's name ends before this ASCII byte: whitespace, `>` or `/`."""
    return is_space(byte) or byte == 0x3E or byte == 0x2F
