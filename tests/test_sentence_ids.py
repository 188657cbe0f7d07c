import numpy as np
import pytest

from tapaco.sentence_ids import NO_NUMBER, document_label, numeric_keys, sentence_id


@pytest.mark.parametrize("side, expected", [
    ("s80", "80"), ("1276", "1276"), ("s7.0 s7.1 s7.2", "7"), ("s4.1 s4.2", "4.1+4.2"),
    ("s1 s2", "1+2"), ("s5.1", "5.1"), ("s7.1 s7.2", "7.1+7.2"),
])
def test_sentence_id(side, expected):
    assert sentence_id(side) == expected


def test_document_label():
    assert document_label("en/1988.xml.gz") == "1988"
    assert document_label("en/1994/123/456.xml.gz") == "1994/123/456"


def _column(sides: list[str]):  # noqa: ANN202 - a SideColumn
    from tapaco.core.opus.sidekeys import SideColumn, SideTable

    table = SideTable()
    return SideColumn(table.keys(sides), table)


def test_numeric_keys_of_plain_ids_and_of_other_sides():
    first, second = numeric_keys(_column(["s12", "3", "s400000000", "s4.2 s4.3", "abc", "s-5",
                                          "s1234567890123456789"]))
    assert first.tolist() == [12, 3, 400000000, 4, NO_NUMBER, 5, 123456789012345678]
    assert second.tolist() == [0, 0, 0, 2, 0, 0, 0]
    assert numeric_keys(_column([]))[0].dtype == np.int64


def test_ids_of_a_side_column_are_those_of_its_strings():
    import numpy as np

    from tapaco.sentence_ids import sentence_id, sentence_ids

    sides = ["s12", "7", "s0", "s4.0 s4.1", "s1 s2", "abc", "s012"]
    vertices = np.array([6, 0, 3, 1, 5, 2, 4])
    ids = sentence_ids(_column(sides), vertices).to_pylist()
    assert ids == ["012", "12", "4", "7", "abc", "0", "1+2"]
    assert ids == [sentence_id(sides[v]) for v in vertices]
