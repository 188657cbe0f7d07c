"""A float32 matrix that grows by rows as they are read, when how many will come is not known
(a word-vector file without a header, or one whose header may lie).

The rows live in an anonymous private memory map whose size doubles when full: only the pages
written are ever held (a doubled map costs address space, not memory), and on Linux the map
grows in place (mremap: nothing is copied, and the vectors are never held twice). Where a map
cannot grow in place it is copied once per doubling. The finished matrix is the map cut to the
rows written.
"""

from __future__ import annotations

import mmap

import numpy as np

_FIRST_BYTES = 64 << 20
_ITEM = np.dtype(np.float32).itemsize


class GrowingMatrix:
    """Rows of `columns` float32 values, appended in blocks: :meth:`block` gives the next
    `count` rows to fill, :meth:`matrix` the rows filled."""

    def __init__(self, columns: int) -> None:
        self.columns = columns
        self.rows = 0
        self._map = _anonymous(_FIRST_BYTES)

    def block(self, count: int) -> np.ndarray:
        """The next `count` rows (they count as written), to be filled and let go before the
        next call: the map cannot grow while an array shows it."""
        end = (self.rows + count) * self.columns * _ITEM
        if end > len(self._map):
            self._map = grown(self._map, max(end, 2 * len(self._map)))
        start = self.rows * self.columns * _ITEM
        self.rows += count
        return np.frombuffer(self._map, np.float32, count * self.columns,
                             start).reshape(count, self.columns)

    def matrix(self) -> np.ndarray:
        """The rows written, as a (rows, columns) matrix; no block may be appended after."""
        self._map = grown(self._map, max(self.rows * self.columns * _ITEM, 1))
        return np.frombuffer(self._map, np.float32, self.rows * self.columns).reshape(
            self.rows, self.columns)


def _anonymous(size: int) -> mmap.mmap:
    # private: a shared anonymous map grows its addresses in place but not the memory behind
    # them (a read beyond its first size is a bus error)
    return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)


def grown(memory: mmap.mmap, size: int) -> mmap.mmap:
    """`memory` resized to `size` bytes, its content kept: in place where the system can remap
    it, else as a copy."""
    try:
        memory.resize(size)
        return memory
    except SystemError:  # a system without mremap
        copy = _anonymous(size)
        kept = min(size, len(memory))
        with memoryview(copy) as target, memoryview(memory) as source:
            target[:kept] = source[:kept]
        memory.close()
        return copy
