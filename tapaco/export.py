"""Write the corpus: `OUT/<lang>.txt` in TaPaCo's released format, `stats.json` and `stats.md`.

Each language file is UTF-8, tab-separated, no header, five fields per row: set id, sentence id,
text, lists, tags. Everything is written into a temporary folder beside OUT that replaces OUT
only once complete, so a failed or interrupted run never leaves a partial corpus.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path


def language_file_text(rows: list[tuple[int, str, str, str, str]]) -> str:
    """The released layout: one `set<TAB>id<TAB>text<TAB>lists<TAB>tags` line per row."""
    return "".join(f"{s}\t{i}\t{text}\t{lists}\t{tags}\n" for s, i, text, lists, tags in rows)


def write_atomically(out: Path, write: Callable[[Path], None]) -> None:
    """Call `write(folder)` on a fresh temporary folder, then move it to `out`."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    try:
        write(temporary)
        if out.exists():
            previous = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(previous)
            temporary.rename(out)
            shutil.rmtree(previous)
        else:
            temporary.rename(out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n",
                    encoding="utf-8")


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


def write_file_atomically(path: Path, content: str | bytes) -> None:
    """Write one file (text as UTF-8) through a synced temporary name in the same folder, so a
    crash leaves the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    data = content.encode("utf-8") if isinstance(content, str) else content
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    temporary.replace(path)
