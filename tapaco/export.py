"""Write the corpus: `OUT/<lang>.txt` in TaPaCo's released format, `stats.json` and `stats.md`.

Each language file is UTF-8, tab-separated, no header, five fields per row: set id, sentence id,
text, lists, tags. The folder itself is written atomically by :mod:`tapaco.core.outputs`.
"""

from __future__ import annotations


def language_file_text(rows: list[tuple[int, str, str, str, str]]) -> str:
    """The released layout: one `set<TAB>id<TAB>text<TAB>lists<TAB>tags` line per row."""
    return "".join(f"{s}\t{i}\t{text}\t{lists}\t{tags}\n" for s, i, text, lists, tags in rows)


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def stats_markdown(stats: dict) -> str:
    """The paper's Tables 1-3 as Markdown: graph sizes, filter funnel, per-language sizes."""
    graph = stats["graph"]
    lines = ["# TaPaCo build statistics", "", "## Graph (Table 1)", ""]
    lines += _table(["item", "count"], [[key.replace("_", " "), value]
                                        for key, value in graph.items()])
    lines += ["", "## Filter funnel (Table 2)", ""]
    lines += _table(["step", "sentences removed", "sets dissolved", "sets left",
                     "sentences left"],
                    [[s["step"], s["sentences_removed"], s["sets_dissolved"], s["sets"],
                      s["sentences"]] for s in stats["funnel"]])
    lines += ["", "## Languages (Table 3)", ""]
    lines += _table(["language", "sets", "sentences"],
                    [[lang, v["sets"], v["sentences"]] for lang, v in stats["languages"].items()])
    lines += ["", "## Input", ""]
    lines += _table(["item", "count"], [[key.replace("_", " "), value]
                                        for key, value in stats["input"].items()])
    return "\n".join(lines) + "\n"
