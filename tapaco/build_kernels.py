"""The kernels `tapaco build` calls on its default path, each with the one set of argument types
its callers give it, in the order it needs them, for
:func:`tapaco.core.compile_ahead.compiled_ahead`: the first :data:`FIRST` read the release
(alignments and documents), the others build the graph, the surface keys and the filters. A
kernel called with other types is compiled on its first call, as any kernel is; the tests check
that the quick start calls each with these types only."""

from __future__ import annotations

from numba import types

FIRST = 5


def _array(dtype, dimensions: int = 1, readonly: bool = False) -> types.Array:
    return types.Array(dtype, dimensions, "C", readonly=readonly)


def kernels() -> list:
    """(dispatcher, argument types) of each kernel."""
    from tapaco import bleu_kernels, normalize_kernels
    from tapaco.components import _numbered, _unite
    from tapaco.core.characters import _next_marks
    from tapaco.core.hashing import _first_occurrences, repeats
    from tapaco.core.opus import cesalign_kernels, document_kernels
    from tapaco.core.text_column import _code_points, _gathered
    from tapaco.graph import _smallest_members

    chunk = _array(types.uint8, readonly=True)  # a view of a chunk read as `bytes`
    int64, int32, boolean = _array(types.int64), _array(types.int32), _array(types.bool_)
    return [
        (_next_marks, (chunk, types.int64, int64)),
        (document_kernels._scan, (chunk, _array(types.uint64), boolean, _array(types.int64, 2),
                                  _array(types.int64, 2), boolean,
                                  *(_array(types.uint8), int64) * 3, _array(types.bool_, 2))),
        (_gathered, (int64, _array(types.uint8), int64, _array(types.uint8), int64, int64,
                     _array(types.uint8))),
        (cesalign_kernels._scan, (chunk, _array(types.uint64), _array(types.uint64),
                                  _array(types.int64, 2), _array(types.int64, 2))),
        (_first_occurrences, (int64,)),
        # FIRST ends here
        (_unite, (int32, _array(types.int32, 2))),
        (repeats, (int64,)),
        (_numbered, (int32,)),
        (normalize_kernels.surface_hashes_of_utf8,
         (_array(types.uint8), int64, int32, int64, _array(types.int32, readonly=True))),
        (_smallest_members, (int64, int64, int64, types.int64)),
        (_code_points, (int64, _array(types.uint8), int64)),
        (normalize_kernels.unknown_code_points, (int32, boolean)),
        (normalize_kernels.key_codes, (int32, int64, boolean, _array(types.int32, 2),
                                       _array(types.int8))),
        (normalize_kernels.first_of_each_key, (int32, int64, int64, int64)),
        (bleu_kernels.keep_walk, (int64, _array(types.uint8), int64, int64, types.int64,
                                  types.float64)),
    ]
