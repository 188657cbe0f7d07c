"""A first run's compiling on two cores. numba compiles a kernel on its first call, so a first run
would compile a command's kernels one after another on one core, and a forked reader would compile
the very kernels this process compiles at the same moment. A command that knows which kernels it
calls, and with which argument types (a module listing them, as :mod:`tapaco.build_kernels` and
:mod:`opusparcus.rank_kernels`), compiles them all before its first stage forks its readers (the
children inherit them): when this process had to compile (a cold cache), a forked child takes the
list from the back while this process takes it from the front (:class:`FromBothEnds`), each writing
what it compiles to numba's cache and loading from there what the other compiled. A warm run loads
every kernel from the cache, as their first calls would."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tapaco.core.forked import Forked, FromBothEnds


def _compile(kernel_and_types: tuple) -> None:
    """Compile the kernel for the argument types, or load it from numba's cache."""
    kernel, argument_types = kernel_and_types
    kernel.compile(argument_types)


def _compile_from_the_back(claims: FromBothEnds, kernels: list) -> int:
    count = 0
    for index in claims.back():
        _compile(kernels[index])
        count += 1
    return count


@contextmanager
def compiled_ahead(kernels: list, first: int, parallel: bool) -> Iterator[None]:
    """`kernels`, (dispatcher, argument types) in the order the command needs them, compiled or
    loaded; the `first` ones before the block runs, the others by when it ends. When the first
    one had to be compiled and `parallel`, a forked child compiles from the back of the list
    meanwhile (stopped if the block raises); a kernel the child claimed is loaded here from the
    cache, or compiled here too if it is not there yet."""
    kernel, argument_types = kernels[0]
    misses = sum(kernel.stats.cache_misses.values())
    _compile(kernels[0])
    if not parallel or sum(kernel.stats.cache_misses.values()) == misses:
        for item in kernels[1:first]:
            _compile(item)
        yield
        return
    rest = kernels[1:]
    claims = FromBothEnds(len(rest))
    with Forked(_compile_from_the_back, claims, rest) as second:
        for index in claims.front() if first > 1 else ():
            _compile(rest[index])
            if index + 2 >= first:
                break
        for item in kernels[1:first]:  # those the child claimed
            _compile(item)
        yield
        for index in claims.front():
            _compile(rest[index])
        second.result()
