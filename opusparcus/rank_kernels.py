"""The kernels `opusparcus rank` calls on its default path (the local engine, summed-pmi, tsv), and
those `opusparcus pairs` calls, each with the one set of argument types its callers give it, for
:func:`tapaco.core.compile_ahead.compiled_ahead`: first the ones that read the bitexts (only those
of the forms the release holds; the forked readers inherit them), then the ones that merge the
vocabularies and score, rank and write (rank) or make the rows (pairs). A kernel called with other
types (another scheme, Parquet) is compiled on its first call, as any kernel is; the tests check
that the quick start and Moses releases call each listed kernel with these types only."""

from __future__ import annotations

from numba import types


def _array(dtype, dimensions: int = 1, readonly: bool = False) -> types.Array:
    return types.Array(dtype, dimensions, "C", readonly=readonly)


CHUNK = _array(types.uint8, readonly=True)  # a view of a chunk read as `bytes`
INT64, INT32, BOOLEAN = _array(types.int64), _array(types.int32), _array(types.bool_)


def reading(documents: bool, columns: bool, tokenized: bool) -> list:
    """(dispatcher, argument types) of the kernels that read the bitexts: cesAlign files with
    sentence documents (`documents`), Moses bitexts read as columns (`columns`), and the Moses
    tokenizer (`tokenized`: Moses columns or raw documents), the costliest first."""
    from opusparcus import moses_kernels
    from tapaco.core.characters import _next_marks
    from tapaco.core.hashing import _first_occurrences, hash_range
    from tapaco.core.opus import cesalign_kernels, document_kernels, moses_columns

    found = [(_next_marks, (CHUNK, types.int64, INT64))]  # cheap: tells a cold cache
    if tokenized:
        found.append((moses_kernels.tokenize_lines, (
            _array(types.int32, readonly=True), INT64, _array(types.uint8), types.int64,
            INT64, INT64, INT64, INT32)))
    if documents:
        found += [(document_kernels._scan, (CHUNK, _array(types.uint64), BOOLEAN,
                                            _array(types.int64, 2), _array(types.int64, 2),
                                            BOOLEAN, *(_array(types.uint8), INT64) * 3,
                                            _array(types.bool_, 2))),
                  (cesalign_kernels._scan, (CHUNK, _array(types.uint64), _array(types.uint64),
                                            _array(types.int64, 2), _array(types.int64, 2)))]
    if columns:
        found += [(moses_columns._parse_ids, (CHUNK, INT64, INT64, BOOLEAN,
                                              _array(types.int16, 2))),
                  (_first_occurrences, (INT64,))]
    if tokenized:
        found.append((hash_range.for_python(), (INT32, types.int64, types.int64)))
    return found


def _merging() -> list:
    """The kernels that merge the vocabularies (the first while the bitexts are read)."""
    from opusparcus import vocabulary

    uint8 = _array(types.uint8)
    return [(vocabulary.merge_ranks, (INT64, uint8, INT64, uint8, INT32, INT32, INT32)),
            (vocabulary.gather, (INT32, INT64, uint8, INT64, uint8, INT64))]


def ranking() -> list:
    """(dispatcher, argument types) of the kernels that merge the vocabularies (the first, while
    the bitexts are read), score, rank and write, in that order."""
    from opusparcus import edit_distance_kernels, ranked_runs, row_kernels
    from tapaco.core.text_column import _code_points, _gathered

    uint8, float64 = _array(types.uint8), _array(types.float64)
    readonly_int32 = _array(types.int32, readonly=True)
    return [
        *_merging(),
        (_gathered, (INT64, uint8, INT64, uint8, INT64, INT64, uint8)),
        (_code_points, (INT64, uint8, INT64)),
        (edit_distance_kernels.advance, (INT32, INT64, INT32, INT64, types.boolean, INT64, INT64,
                                         _array(types.int16), _array(types.uint64, 2),
                                         _array(types.uint64, 2), _array(types.int8),
                                         types.int64)),
        (ranked_runs.merged_positions, (_array(types.float64, readonly=True), readonly_int32,
                                        readonly_int32, INT64, INT64, BOOLEAN, INT64)),
        (row_kernels.fixed6_slots, (float64,)),
        (row_kernels.packed_slots, (_array(types.uint8, 2), INT64, INT64, uint8)),
        (row_kernels.rendered_rows, (CHUNK, types.int64,
                                     types.UniTuple(types.Tuple((INT64, uint8)), 4), INT64,
                                     INT64)),
    ]


def pairing(negatives: bool) -> list:
    """(dispatcher, argument types) of the kernels that merge the vocabularies (the first, while
    the bitexts are read) and make the training rows, with their `negatives` or none."""
    from tapaco.core.pairs import negatives as negative_kernels
    from tapaco.core.pairs.overlap import _overlaps
    from tapaco.core.pairs.positives import _oriented
    from tapaco.core.pairs.words import _word_hashes
    from tapaco.core.text_column import _gathered

    uint8, int64_2d = _array(types.uint8), _array(types.int64, 2)
    return [
        *_merging(),
        (_oriented, (INT64, INT64, types.int64)),
        (_word_hashes, (INT64, uint8, int64_2d, int64_2d)),
        *([(negative_kernels._hard_negatives, (*(INT64,) * 8, *(types.int64,) * 4)),
           (negative_kernels._random_negatives, (types.int64, *(INT64,) * 4, types.int64,
                                                 types.int64))] if negatives else []),
        (_overlaps, (INT64,) * 4),
        (_gathered, (INT64, uint8, INT64, uint8, INT64, INT64, uint8)),
    ]
