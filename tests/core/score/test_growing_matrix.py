"""The matrix a word-vector file is read into: rows appended in blocks come back in order,
whether the memory map grows in place or, where the system cannot remap it, as a copy."""

from __future__ import annotations

import mmap

import numpy as np
import pytest

from tapaco.core.score import growing_matrix
from tapaco.core.score.growing_matrix import GrowingMatrix, grown


class _NoRemap(mmap.mmap):
    """A map on a system without mremap (as CPython's resize fails there)."""

    def resize(self, size: int) -> None:
        raise SystemError("mmap: resizing not available--no mremap()")


@pytest.mark.parametrize("remap", [True, False])
def test_blocks_come_back_in_order_across_growths(monkeypatch, remap):
    monkeypatch.setattr(growing_matrix, "_FIRST_BYTES", 4096)
    if not remap:
        monkeypatch.setattr(growing_matrix, "_anonymous", lambda size: _NoRemap(
            -1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
    rng = np.random.default_rng(0)
    expected = rng.standard_normal((5000, 7)).astype(np.float32)
    rows = GrowingMatrix(7)
    at = 0
    for count in [1, 3, 100, 0, 900, 2000, 1996]:
        block = rows.block(count)
        block[:] = expected[at:at + count]
        del block
        at += count
    assert at == 5000
    matrix = rows.matrix()
    assert matrix.shape == (5000, 7) and matrix.dtype == np.float32
    assert np.array_equal(matrix, expected)


def test_a_map_that_cannot_be_remapped_is_copied_whole():
    memory = _NoRemap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory[:5] = b"hello"
    bigger = grown(memory, 3 * 4096)
    assert len(bigger) == 3 * 4096 and bigger[:6] == b"hello\0" and memory.closed
    smaller = grown(bigger, 3)
    assert smaller[:] == b"hel"
