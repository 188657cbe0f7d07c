"""Memory sizes: parsing `--memory-limit` values and reading the machine's memory."""

from __future__ import annotations

import pytest

from tapaco.core.memory import current_rss, format_size, machine_memory, parse_size


@pytest.mark.parametrize(("text", "size"), [
    ("1000", 1000), ("8G", 8 * 1024**3), ("8GiB", 8 * 1024**3), ("8gb", 8 * 1024**3),
    ("512M", 512 * 1024**2), ("1.5g", 3 * 1024**3 // 2), (" 2 T ", 2 * 1024**4), ("64k", 65536),
])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "8X", "-1G", "8 G B", "1e9"])
def test_parse_size_refuses_what_is_not_a_size(text):
    with pytest.raises(ValueError, match="expected a size"):
        parse_size(text)


@pytest.mark.parametrize(("size", "text"), [(256 * 1024**2, "256M"), (3 * 1024**3 // 2, "1.5G"),
                                            (1000, "1000"), (2048, "2K")])
def test_format_size(size, text):
    assert format_size(size) == text


def test_this_process_fits_in_the_machine():
    assert 0 < current_rss() < machine_memory()
