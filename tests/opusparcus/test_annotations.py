"""Labels, annotation files and the paper's combination rule, on every pair of categories."""

from __future__ import annotations

import math

import pytest
from conftest import without_compile_notice

from opusparcus.combine import release_lines
from tapaco.core.agreement import cohen_kappa
from tapaco.core.annotation.pairs import (
    TRASH,
    Annotation,
    combine,
    combine_annotations,
    parse_label,
    read_annotations,
    write_annotations,
)
from tapaco.core.errors import InputError

# (first, second) -> combined score, worked out by hand from the paper's rules
BY_HAND = {
    (4, 4): 4.0, (4, 3): 3.5, (4, 2): None, (4, 1): None,
    (3, 4): 3.5, (3, 3): 3.0, (3, 2): 2.5, (3, 1): None,
    (2, 4): None, (2, 3): 2.5, (2, 2): 2.0, (2, 1): 1.5,
    (1, 4): None, (1, 3): None, (1, 2): 1.5, (1, 1): 1.0,
}


@pytest.mark.parametrize("pair, expected", sorted(BY_HAND.items()))
def test_combination_rule(pair, expected):
    assert combine(*pair) == expected


@pytest.mark.parametrize("other", [TRASH, 1, 2, 3, 4])
def test_trash_always_drops(other):
    assert combine(TRASH, other) is None and combine(other, TRASH) is None


@pytest.mark.parametrize("text, label", [
    ("4", 4), ("good", 4), ("Green", 4), ("3", 3), ("mostly-good", 3), ("light green", 3),
    ("light_green", 3), ("2", 2), ("mostly bad", 2), ("yellow", 2), ("1", 1), ("bad", 1),
    ("red", 1), ("t", TRASH), ("trash", TRASH), ("", None), ("  ", None),
])
def test_labels(text, label):
    assert parse_label(text) == label


@pytest.mark.parametrize("text", ["5", "0.5", "blue", "meh"])
def test_labels_outside_the_scale(text):
    with pytest.raises(ValueError, match="unknown label"):
        parse_label(text)


def _annotation(rank, pair_id, first, second):
    return Annotation(rank, pair_id, f"a {rank} .", f"b {rank} .", [first, second], 0)


def test_combined_agreement_table_and_release_lines():
    annotations = [_annotation(1, "en-D1", 4, 4), _annotation(2, "en-D2", 4, 3),
                   _annotation(3, "en-D3", 2, 4), _annotation(4, "en-D4", TRASH, 3),
                   _annotation(5, "en-D5", 1, 2), _annotation(6, "en-D6", 3, None)]
    combined = combine_annotations(annotations)
    assert combined.scores == [4.0, 3.5, 1.5]
    assert combined.agreement == {"4.0": 1, "3.5": 1, "3.0": 0, "2.5": 0, "2.0": 0, "1.5": 1,
                                  "1.0": 0, "trash": 1, "disagree": 1}
    assert combined.unfinished == 1
    assert release_lines(combined).splitlines() == [
        "en-D1\ta 1 .\tb 1 .\t4.0", "en-D2\ta 2 .\tb 2 .\t3.5", "en-D5\ta 5 .\tb 5 .\t1.5"]


def test_cohen_kappa_by_hand():
    # observed 3/4 agreement; marginals a: {4: 2, 3: 2}, b: {4: 1, 3: 3}; expected 2/16 + 6/16
    pairs = [(4, 4), (4, 3), (3, 3), (3, 3)]
    assert cohen_kappa(pairs) == pytest.approx((0.75 - 0.5) / (1 - 0.5))
    assert cohen_kappa([(4, 4), (4, 4)]) == 1.0
    assert math.isnan(cohen_kappa([(4, 4)]))  # one pair cannot tell chance from agreement


def test_file_round_trip_and_errors(tmp_path):
    path = tmp_path / "a.tsv"
    annotations = [_annotation(3, "en-N3", 4, None), _annotation(9, "en-N9", TRASH, 2)]
    write_annotations(path, annotations)
    assert [(a.rank, a.id, a.labels) for a in read_annotations(path)] == [
        (3, "en-N3", [4, None]), (9, "en-N9", [TRASH, 2])]
    text = path.read_text()
    for broken, message in [
        (text.replace("\ttrash\t2", "\ttrash\t7"), r"line 3: unknown label '7'"),
        (text + "9\ten-N3\tx\ty\t\t\n", r"line 4: duplicated id en-N3 \(also on line 2\)"),
        (text + "10\tfr-N10\tx\ty\t\t\n", r"line 4: id fr-N10 is not of language en"),
        ("rank\tid\n", "line 1: expected the header"),
    ]:
        path.write_text(broken)
        with pytest.raises(InputError, match=message):
            read_annotations(path)


def test_a_sentence_longer_than_csvs_field_limit_reads_and_combines(tmp_path, capsys):
    import csv

    from opusparcus.cli import main

    long = "word " * 40_000  # 200,000 characters: csv refuses fields over 131,072
    assert len(long) > csv.field_size_limit()
    path = tmp_path / "a.tsv"
    annotations = [Annotation(1, "en-D1", long.strip(), "b 1 .", [4, 4], 0),
                   Annotation(2, "en-D2", "a 2 .", long.strip(), [3, 4], 0)]
    write_annotations(path, annotations)
    assert [a.sentence1 for a in read_annotations(path)] == [long.strip(), "a 2 ."]
    assert main(["combine", "--annotations", str(path), "--out", str(tmp_path / "en-dev.txt")]
                ) == 0, capsys.readouterr().err
    assert long.strip() in (tmp_path / "en-dev.txt").read_text()
    report = capsys.readouterr().out
    assert "kept 2 pairs, Cohen's kappa" in report
    write_annotations(path, annotations[:1])
    assert main(["combine", "--annotations", str(path), "--out", str(tmp_path / "one.txt")]) == 0
    assert "kept 1 pairs, no Cohen's kappa (it needs at least two pairs" in capsys.readouterr().out


def test_a_packed_release_file_says_what_the_command_reads(tmp_path, capsys):
    import bz2

    from opusparcus.cli import main

    for name, data in (("en-train.txt.bz2", bz2.compress(b"1\ten-N1\ta\tb\n")),
                       ("en.parquet", b"PAR1\x15\x04\x15\x10" + bytes(40))):
        path = tmp_path / name
        path.write_bytes(data)
        assert main(["combine", "--annotations", str(path), "--out",
                     str(tmp_path / "c.tsv")]) == 2
        error = without_compile_notice(capsys.readouterr().err)
        assert error.count("\n") == 1 and "this command reads annotation files" in error
        assert ("bz2-compressed" if name.endswith(".bz2") else "Parquet") in error
