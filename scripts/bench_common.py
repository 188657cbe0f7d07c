"""Helpers shared by the benchmark scripts: sizes, live child output, number formatting."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import IO


def disk_bytes(folder: Path) -> int:
    """Total size of the files under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def pump(stream: IO[str], sink: list[str]) -> None:
    """Echo the child's stderr live while keeping a copy."""
    for line in stream:
        sink.append(line)
        sys.stderr.write(line)
        sys.stderr.flush()


def fmt(value: float | None, spec: str = ",.1f") -> str:
    """Format a number, ``-`` (as wide as the spec asks) for a missing one."""
    if value is not None:
        return format(value, spec)
    width = spec.split(".")[0].strip(",")
    return "-".rjust(int(width) if width.isdigit() else 0)


def cleanup(paths: list[Path]) -> None:
    """Delete the given folders if they exist."""
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
