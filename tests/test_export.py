"""The released layout, byte for byte, and the statistics tables."""

from __future__ import annotations

from tapaco.export import language_file_text, stats_markdown


def test_layout_reproduces_the_released_tapaco_heads(shared_data):
    heads = sorted((shared_data / "tapaco-v1.0-head").glob("*.txt"))
    assert len(heads) == 73
    for path in heads:
        text = path.read_text(encoding="utf-8")
        complete = text.split("\n")[:-1]  # the last line was cut from the file
        rows = [line.split("\t") for line in complete]
        assert all(len(row) == 5 and row[0].isdigit() and row[1].isdigit() for row in rows)
        rebuilt = language_file_text((int(r[0]), r[1], r[2], r[3], r[4]) for r in rows)
        assert rebuilt == "".join(line + "\n" for line in complete), path.name


def test_stats_markdown_has_the_three_tables():
    stats = {"graph": {"vertices": 3}, "input": {"links": 2},
             "funnel": [{"step": "(a) x", "sentences_removed": 1, "sets_dissolved": 0,
                         "sets": 1, "sentences": 2}],
             "languages": {"en": {"sets": 1, "sentences": 2}}}
    text = stats_markdown(stats)
    for heading in ("Graph (Table 1)", "Filter funnel (Table 2)", "Languages (Table 3)"):
        assert f"## {heading}" in text
    assert "| en | 1 | 2 |" in text and "| (a) x | 1 | 0 | 1 | 2 |" in text
