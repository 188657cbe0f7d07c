"""Quality curves, their AUC, and the Figure 1 / comparison pictures."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from opusparcus.plot import acceptable_auc, category_curves

KEYS = ("good", "mostly-good", "mostly-bad", "bad")


def tiny_curves() -> dict[str, np.ndarray]:
    # ranks given out of order; categories by rank: 4, 3 (3.5), 2 (2.5), 1, 3
    return category_curves(np.array([4, 1, 5, 3, 2]), np.array([1.0, 4.0, 3.0, 2.5, 3.5]), 10)


def test_curves_by_hand():
    curves = tiny_curves()
    assert curves["rank"].tolist() == [1, 2, 3, 4, 5]
    expected = {
        "good": [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5],
        "mostly-good": [0, 1 / 2, 1 / 3, 1 / 4, 2 / 5],
        "mostly-bad": [0, 0, 1 / 3, 1 / 4, 1 / 5],
        "bad": [0, 0, 0, 1 / 4, 1 / 5],
        "acceptable": [1, 1, 2 / 3, 1 / 2, 3 / 5],
    }
    for key, values in expected.items():
        np.testing.assert_allclose(curves[key], values)
    np.testing.assert_allclose(sum(curves[key] for key in KEYS), np.ones(5))


def test_half_scores_take_the_lower_category():
    curves = category_curves(np.array([1, 2]), np.array([2.5, 3.5]), 2)
    np.testing.assert_allclose(curves["mostly-bad"], [1, 1 / 2])
    np.testing.assert_allclose(curves["mostly-good"], [0, 1 / 2])
    np.testing.assert_allclose(curves["acceptable"], [0, 1 / 2])


def test_bad_inputs_are_rejected():
    with pytest.raises(ValueError):
        category_curves(np.array([11]), np.array([4.0]), 10)
    with pytest.raises(ValueError):
        category_curves(np.array([1]), np.array([0.0]), 10)


def test_auc():
    one = {"rank": np.array([1, 5]), "acceptable": np.array([1.0, 1.0])}
    zero = {"rank": np.array([3]), "acceptable": np.array([0.0])}
    assert acceptable_auc(one, 100) == pytest.approx(1.0)
    assert acceptable_auc(zero, 100) == pytest.approx(0.0)
    half = {"rank": np.array([1, 3]), "acceptable": np.array([1.0, 0.0])}
    assert acceptable_auc(half, 4) == pytest.approx(0.5)
    assert 0 < acceptable_auc(tiny_curves(), 10) < 1


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_root(path: Path) -> ET.Element:
    root = ET.fromstring(path.read_bytes())
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    return root


def test_figure_is_written_and_deterministic(tmp_path):
    pytest.importorskip("matplotlib")
    from opusparcus.plot import plot_categories

    png, svg = plot_categories(tiny_curves(), 10, tmp_path / "a" / "en", "English")
    assert (png.name, svg.name) == ("en.png", "en.svg")
    assert png_size(png) == (800, 500)
    root = svg_root(svg)
    assert (root.get("width"), root.get("height")) == ("576pt", "360pt")
    again = plot_categories(tiny_curves(), 10, tmp_path / "b" / "en", "English")
    assert again[0].read_bytes() == png.read_bytes()
    assert again[1].read_bytes() == svg.read_bytes()
    assert not list(tmp_path.rglob("*.tmp"))


def test_comparison_ranks_the_better_scheme_higher(tmp_path):
    pytest.importorskip("matplotlib")
    from opusparcus.plot import plot_comparison

    scores = np.array([4.0, 4.0, 3.0, 2.0, 1.0, 1.0])
    good_first = category_curves(np.array([1, 2, 3, 4, 5, 6]), scores, 6)
    bad_first = category_curves(np.array([6, 5, 4, 3, 2, 1]), scores, 6)
    named = {"pmi": good_first, "joint": bad_first}
    paths, aucs = plot_comparison(named, {"pmi": 6, "joint": 6}, tmp_path / "compare")
    assert set(aucs) == {"pmi", "joint"}
    assert aucs["pmi"] > aucs["joint"]
    assert png_size(paths[0]) == (800, 500)
    svg_root(paths[1])
