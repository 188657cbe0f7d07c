"""Converting release text files to Parquet: every row as the text has it."""

from __future__ import annotations

import bz2

import pyarrow.parquet as pq
import pytest

from opusparcus.parquet_release import ranked_text_to_parquet

TRICKY = ['He said "no" .', '"', "null", "NaN", "N/A", "#", "a,b;c", "  spaced  ", "ünïcødé 日本"]


def _lines(scheme: bool) -> list[str]:
    lines = []
    for n, text in enumerate(TRICKY, 1):
        fields = [f"en-N{n}", text, text + " !", f"{n / 7:.6f}".rstrip("0"), "0.5", str(n), "3"]
        lines.append("\t".join(fields + ([f"-{n}.25"] if scheme else [])))
    return lines


@pytest.mark.parametrize(("suffix", "scheme"), [(".txt.bz2", False), (".txt", True)])
def test_rows_are_the_text_rows(tmp_path, suffix, scheme):
    lines = _lines(scheme)
    data = "".join(line + "\n" for line in lines).encode()
    text = tmp_path / f"en-train{suffix}"
    text.write_bytes(bz2.compress(data) if suffix.endswith("bz2") else data)
    assert ranked_text_to_parquet(text, tmp_path / "train.parquet", scheme) == len(lines)
    rows = pq.read_table(tmp_path / "train.parquet").to_pylist()
    expected = []
    for line in lines:
        f = line.split("\t")
        row = {"id": f[0], "sent1": f[1], "sent2": f[2], "summed_pmi": float(f[3]),
               "expected_count": float(f[4]), "pivots": int(f[5]), "edit_distance": int(f[6])}
        if scheme:
            row["score"] = float(f[7])
        expected.append(row)
    assert rows == expected


def test_an_empty_release_file_gives_an_empty_table_with_the_schema(tmp_path):
    text = tmp_path / "empty.txt.bz2"
    text.write_bytes(bz2.compress(b""))
    assert ranked_text_to_parquet(text, tmp_path / "empty.parquet") == 0
    table = pq.read_table(tmp_path / "empty.parquet")
    assert table.num_rows == 0 and table.schema.names[:3] == ["id", "sent1", "sent2"]
