"""The rows of each release segment, found from the sorted partitions' row counts per split
(worked by hand); no Spark needed."""

from __future__ import annotations

from opusparcus.spark_numbering import Slice, segments


def test_segments_cross_partitions_and_skip_the_other_splits_rows():
    # partition 0: 3 train rows then 2 dev rows; 1: 4 train rows; 2 is empty; 3: 5 test rows
    sizes = {1: {0: 4}, 3: {2: 5}, 0: {0: 3, 1: 2}}
    assert segments(sizes, 4) == {
        0: [[Slice(0, 0, 3), Slice(1, 0, 1)], [Slice(1, 1, 4)]],
        1: [[Slice(0, 3, 5)]],
        2: [[Slice(3, 0, 4)], [Slice(3, 4, 5)]]}


def test_a_split_that_fills_its_last_segment_exactly_has_no_empty_one():
    assert segments({0: {0: 2}, 1: {0: 2, 2: 1}}, 2) == {
        0: [[Slice(0, 0, 2)], [Slice(1, 0, 2)]], 1: [], 2: [[Slice(1, 2, 3)]]}


def test_no_rows_no_segments():
    assert segments({}, 50_000) == {0: [], 1: [], 2: []}
