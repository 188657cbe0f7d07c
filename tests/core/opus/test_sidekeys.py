"""Side keys: the cesAlign scanner's parsing of ids against a regular-expression reference,
table round trips."""

import random
import re

import numpy as np
import pytest

from tapaco.core.opus.cesalign_kernels import scan_links
from tapaco.core.opus.sidekeys import BARE, STRING, SideColumn, SideTable

_PLAIN = re.compile(r"(s?)(0|[1-9][0-9]{0,17})")


def _reference_key(text: str) -> int | None:
    """The key the module documents for a plain id, None for any other string."""
    match = _PLAIN.fullmatch(text)
    if match is None:
        return None
    return int(match.group(2)) | (0 if match.group(1) else int(BARE))


def _parsed(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The keys the cesAlign scanner gives each text as the from side and the to side of a
    link (both must agree), and whether it read it as a plain id."""
    raw = "".join(f'<link xtargets="{text};{text}"/>\n' for text in texts).encode()
    scanned = scan_links(raw)
    others = scanned.other_sides[:, 0]
    plain = np.ones(len(texts), bool)
    plain[others[others % 2 == 0] // 2] = False
    assert (others[others % 2 == 1] // 2).tolist() == np.flatnonzero(~plain).tolist()
    assert (scanned.from_keys == scanned.to_keys).all()
    return scanned.from_keys, plain


EDGE_CASES = ["s1", "s0", "0", "7", "s01", "01", "s", "", "s1 s2", "s1.0", "abc", "s12a",
              "x12", "٣", "s٣", "s-1", "9s", "123456789012345678", "s123456789012345678",
              "s1234567890123456789", "1234567890123456789", "s 1", " s1"]


def _random_texts(count: int) -> list[str]:
    rng = random.Random(7)
    texts = []
    for _ in range(count):
        texts.append("".join(rng.choice("s0123456789 .a") for _ in range(rng.randint(0, 21))))
        texts.append(rng.choice(["s", ""]) + str(rng.randint(0, 10 ** rng.randint(1, 19))))
    return texts


@pytest.mark.parametrize("texts", [EDGE_CASES, _random_texts(5000), ["s5"], ["s"], [""]])
def test_the_scanner_parses_ids_as_the_reference(texts):
    keys, plain = _parsed(texts)
    expected = [_reference_key(text) for text in texts]
    assert plain.tolist() == [key is not None for key in expected]
    assert [k for k, p in zip(keys.tolist(), plain.tolist()) if p] == [
        key for key in expected if key is not None]


def test_table_keys_agree_with_the_scanner_and_read_back():
    texts = EDGE_CASES + _random_texts(2000)
    table = SideTable()
    keys = table.keys(texts)
    parsed, plain = _parsed(texts)
    assert (keys[plain] == parsed[plain]).all()
    assert ((keys[~plain] & STRING) == STRING).all()
    assert table.texts(keys) == texts
    assert table.key("") == int(STRING)
    again = table.keys(texts)
    assert (again == keys).all()
    distinct = {}
    for text, key in zip(texts, keys.tolist()):
        assert distinct.setdefault(key, text) == text  # one string per key


def test_side_column_reads_as_a_list_of_strings():
    table = SideTable()
    texts = ["s3", "7", "s1 s2", "s3"]
    column = SideColumn(table.keys(texts), table)
    assert len(column) == 4
    assert list(column) == texts
    assert column[2] == "s1 s2"
    assert column[1:3] == ["7", "s1 s2"]
