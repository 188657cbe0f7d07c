"""The row-rendering kernels against Python's own formatting: every number as
`f"{value:.6f}"` stripped (ties, signed zeros, neighbours of ties, random bit patterns, values
too large for the kernel), and whole rows as an f-string renders them."""

from __future__ import annotations

import numpy as np
import pytest

from opusparcus.export import format_rows, number_column


def _printed(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _hard_values() -> np.ndarray:
    rng = np.random.default_rng(7)
    ties = (rng.integers(0, 10**9, 20_000) + 0.5) / 1e6
    edges = [0.0, -0.0, 1.0, -1.0, 0.5e-6, -0.5e-6, 1.5e-6, 2.5e-6, 0.0078125, -0.0078125,
             1e-7, -1e-7, 4e-7, -4e-7, 0.9999995, -0.9999995, 999999.9999995, 0.1, 1 / 3,
             -2 / 3, 100.0, 10.5, 2**52 / 1e6, np.nextafter(2**52 / 1e6, 0), 9.1e9, 1e20,
             -1e300, 5e-324, float("nan"), float("inf"), float("-inf")]
    return np.concatenate([
        edges, ties, np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf), -ties,
        rng.normal(0, 30, 50_000), np.round(rng.normal(0, 100, 50_000), 6),
        rng.exponential(1, 50_000) * 10.0 ** rng.integers(-9, 11, 50_000),
        rng.integers(0, 2**64 - 1, 50_000, np.uint64, endpoint=True).view(np.float64)])


def test_numbers_print_as_python_prints_them():
    values = _hard_values()
    assert number_column(values).strings() == [_printed(value) for value in values.tolist()]


@pytest.mark.parametrize("scheme", [False, True])
def test_rows_render_as_an_f_string_does(scheme):
    rng = np.random.default_rng(3)
    words = ["a", "Hello !", "Ça va ?", "日本語です。", "x" * 70, "𝔘𝔫𝔦", "tab-free", ""]
    first = [words[k] for k in rng.integers(0, len(words), 500)]
    second = [words[k] + " ." for k in rng.integers(0, len(words), 500)]
    pmi, expected, score = rng.normal(0, 10, 500), rng.exponential(2, 500), rng.normal(0, 1, 500)
    pivots = rng.integers(1, 12, 500).astype(np.int16)
    rows = format_rows("en", "N", 99_998, first, second, pmi, expected, pivots,
                       score if scheme else None).decode("utf-8").splitlines()
    assert len(rows) == 500
    for k, row in enumerate(rows):
        fields = row.split("\t")
        extra = f"\t{_printed(score[k])}" if scheme else ""
        expected_row = (f"en-N{99_998 + k}\t{first[k]}\t{second[k]}\t{_printed(pmi[k])}\t"
                        f"{_printed(expected[k])}\t{pivots[k]}\t{fields[6]}{extra}")
        assert row == expected_row
        assert int(fields[6]) >= 0
