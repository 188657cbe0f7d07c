"""Parquet outputs with a Hugging Face dataset card, shared by `tapaco build`, `opusparcus rank`
and `opusparcus export-gem`.

A Parquet file is written deterministically (same rows and library versions, same bytes):
zstd-compressed, one schema declared up front. The card is the `README.md` that `datasets`
reads from a folder: a YAML header with `configs:` (each a name and its `data_files` per
split), licence, languages and pretty name, then how the data was built (the command with its
options, the library versions), where the licence comes from and what to cite.
`datasets.load_dataset(folder, config)` then loads it offline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tapaco.core.errors import OptionError

FORMATS = ("tsv", "parquet")


def write_parquet(path: Path, table: pa.Table) -> None:
    """Write `table` to `path` (inside a folder being filled; not atomic by itself)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")


@dataclass(frozen=True)
class Config:
    """One `datasets` configuration: its name and the file(s) of each split."""

    name: str
    splits: dict[str, str]
    default: bool = False


@dataclass(frozen=True)
class Card:
    pretty_name: str
    license: str
    summary: str
    configs: Sequence[Config]
    languages: Sequence[str] = ()
    command: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    citation: str = ""
    notes: str = ""
    licence_note: str = ""

    def text(self) -> str:
        return self._header() + self._body()

    def _header(self) -> str:
        lines = ["---", f"pretty_name: {_quoted(self.pretty_name)}",
                 f"license: {_quoted(self.license)}"]
        if self.languages:
            lines.append("language:")
            lines += [f"- {_quoted(lang)}" for lang in self.languages]
        if self.configs:  # none: a dataset without rows (`datasets` loads no empty split)
            lines.append("configs:")
        for config in self.configs:
            lines.append(f"- config_name: {_quoted(config.name)}")
            if config.default:
                lines.append("  default: true")
            lines.append("  data_files:")
            for split, path in config.splits.items():
                lines += [f"  - split: {_quoted(split)}", f"    path: {_quoted(path)}"]
        return "\n".join(lines + ["---", ""]) + "\n"

    def _body(self) -> str:
        parts = [f"# {self.pretty_name}", "", self.summary, ""]
        if self.fields:
            parts += ["## Fields", "", "| field | meaning |", "|---|---|"]
            parts += [f"| `{name}` | {meaning} |" for name, meaning in self.fields.items()]
            parts.append("")
        parts += ["## Configurations", "", "| config | splits |", "|---|---|"]
        parts += [f"| `{config.name}` | " + ", ".join(f"{split}: `{path}`" for split, path
                                                      in config.splits.items()) + " |"
                  for config in self.configs]
        parts.append("")
        if self.notes:
            parts += [self.notes, ""]
        if self.command:
            parts += ["## How it was built", "", "```sh", self.command, "```", ""]
        if self.versions:
            parts += ["| library | version |", "|---|---|"]
            parts += [f"| {name} | {version} |" for name, version in self.versions.items()]
            parts.append("")
        parts += ["## Licence", "", " ".join(filter(None, [f"`{self.license}`.",
                                                           self.licence_note])), ""]
        if self.citation:
            parts += ["## Citation", "", "```bibtex", self.citation.strip(), "```", ""]
        return "\n".join(parts)


def _quoted(value: str) -> str:
    """A YAML scalar: JSON's double-quoted strings are valid YAML."""
    return json.dumps(value, ensure_ascii=False)


def check_formats(formats: Sequence[str], allowed: Sequence[str] = FORMATS) -> None:
    """Raise an OptionError for `--format` unless `formats` names some of `allowed`."""
    if isinstance(formats, str) or not formats or not set(formats) <= set(allowed):
        raise OptionError("--format", f"expected some of {', '.join(allowed)}, got {formats!r}")


def parse_formats(value: str, allowed: Sequence[str] = FORMATS) -> tuple[str, ...]:
    """`tsv,parquet` -> ('tsv', 'parquet'): known names, at least one, in a fixed order."""
    named = [item.strip() for item in value.split(",") if item.strip()]
    unknown = [item for item in named if item not in allowed]
    if unknown or not named:
        raise ValueError(f"expected a comma-separated list of {', '.join(allowed)}, got "
                         f"{value!r}")
    return tuple(item for item in allowed if item in named)
