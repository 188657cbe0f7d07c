"""`@kernel_helper`: a compiled function the kernels call, compiled into each kernel that calls
it (whose cache file then holds it) without the Python entry, C entry and cache file of its own
that `@njit(nogil=True, cache=True)` compiles for every function: the quick start's first run
compiles some forty helpers, each as costly as a small kernel. Called from Python (a wrapper, a
test), a helper runs a twin compiled with a Python entry, on first use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit
from numba.core.registry import CPUDispatcher

# numba's options for a function that only compiled code calls (called from Python, such a
# dispatcher would jump to an entry it does not have)
_WITHOUT_ENTRIES = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}


class _KernelHelper(CPUDispatcher):
    _for_python = None

    def for_python(self) -> CPUDispatcher:
        """The twin that calls from Python run (a kernel list can compile it ahead)."""
        if self._for_python is None:
            self._for_python = njit(nogil=True, cache=True)(self.py_func)
        return self._for_python

    def __call__(self, *args: Any) -> Any:
        return self.for_python()(*args)


def kernel_helper(function: Callable) -> CPUDispatcher:
    """The function compiled for the kernels that call it (see the module's docstring)."""
    return _KernelHelper(py_func=function, locals={}, targetoptions=dict(_WITHOUT_ENTRIES))
