"""The output folder of `tapaco build` as `tapaco explain` reads it: its statistics, and the rows
of a set in each language file (read up to that set only)."""

from __future__ import annotations

from pathlib import Path

from tapaco.core.errors import InputError, usage_error
from tapaco.core.json_input import read_json
from tapaco.core.outputs import read_manifest
from tapaco.pipeline import COMMAND as BUILD_COMMAND


class BuildOutput:
    """The output folder of `tapaco build`: its statistics and the rows of a set per language."""

    def __init__(self, out: Path) -> None:
        self.path = Path(out)
        if not self.path.is_dir():
            what = "does not exist" if not self.path.exists() else "is not a folder"
            raise usage_error(self.path, f"{what}; --out names the output folder of "
                                         f"'{BUILD_COMMAND}'")
        manifest = read_manifest(self.path)
        if manifest is None or manifest.get("written_by") != BUILD_COMMAND:
            raise usage_error(self.path, f"is not a '{BUILD_COMMAND}' output folder (no "
                                         f"manifest.json written by {BUILD_COMMAND})")
        self.stats = self._statistics(self.path / "stats.json")
        files = list(manifest["files"])
        self.languages = sorted(name.removesuffix(".txt") for name in files
                                if name.endswith(".txt") and "/" not in name)
        if not self.languages and any(name.endswith(".parquet") for name in files):
            raise usage_error(self.path, "holds parquet files only; explain reads the <lang>.txt "
                                         "files: build again with --format tsv,parquet")
        self._rows: dict[int, dict[str, list[tuple[str, str]]]] = {}
        self._neighbours: dict[int, tuple[int | None, int | None]] = {}

    @staticmethod
    def _statistics(path: Path) -> dict:
        try:
            stats = read_json(path)
        except FileNotFoundError:
            raise usage_error(path, f"is missing: not a complete '{BUILD_COMMAND}' "
                                    "output") from None
        except OSError as error:
            raise usage_error(path, f"cannot be read as JSON ({error})") from None
        except InputError as error:
            raise usage_error(path, f"cannot be read as JSON ({error.message})") from None
        options = stats.get("options") if isinstance(stats, dict) else None
        graph = stats.get("graph") if isinstance(stats, dict) else None
        if (not isinstance(options, dict) or not isinstance(options.get("documents"), str)
                or not isinstance(graph, dict)):
            raise usage_error(path, f"is not the statistics of '{BUILD_COMMAND}' (no options."
                                    "documents or graph)")
        return stats

    @property
    def documents(self) -> str:
        return self.stats["options"]["documents"]

    @property
    def skip_bad_input(self) -> bool:
        return bool(self.stats["options"].get("skip_bad_input", False))

    def set_rows(self, set_id: int) -> dict[str, list[tuple[str, str]]]:
        """(sentence id, text) of the rows of set `set_id`, per language file that has any."""
        if set_id not in self._rows:
            rows, below, above = {}, None, None
            for lang in self.languages:
                found, before, after = _rows_of_set(self.path / f"{lang}.txt", set_id)
                if found:
                    rows[lang] = found
                below = before if below is None or (before is not None and before > below) \
                    else below
                above = after if above is None or (after is not None and after < above) \
                    else above
            self._rows[set_id] = rows
            self._neighbours[set_id] = (below, above)
        return self._rows[set_id]

    def require_set(self, set_id: int, lang: str | None = None) -> dict[str, list]:
        """The rows of set `set_id` (of `lang` only, when given); an InputError if there are
        none."""
        if lang is not None and lang not in self.languages:
            raise usage_error("--lang", f"{self.path} has no {lang}.txt (its languages: "
                                        f"{', '.join(self.languages) or 'none'})")
        rows = self.set_rows(set_id)
        if not rows:
            below, above = self._neighbours[set_id]
            nearest = " and ".join(str(i) for i in (below, above) if i is not None)
            hint = (f"; the nearest set ids in it are {nearest} (ids have gaps: they number "
                    "components before the filters)") if nearest else "; it holds no set"
            raise usage_error("--set", f"no {self.path}/<lang>.txt has a row of set {set_id}{hint}")
        if lang is not None and lang not in rows:
            raise usage_error("--lang", f"set {set_id} has no {lang} sentence in {self.path}/{lang}"
                                        f".txt (it has {', '.join(rows)})")
        return {lang: rows[lang]} if lang is not None else rows


def _rows_of_set(path: Path, set_id: int) -> tuple[list[tuple[str, str]], int | None,
                                                    int | None]:
    """Rows of `set_id` in a language file (sorted by set id: reading stops after them), and
    the nearest set ids before and after."""
    rows, before, after = [], None, None
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                head, _, rest = line.partition("\t")
                try:
                    current = int(head)
                except ValueError:
                    raise InputError(path, f"first field {head[:20]!r} is not a set id: not a "
                                     f"'{BUILD_COMMAND}' language file", f"line {number}",
                                     kind="usage") from None
                if current < set_id:
                    before = current
                elif current > set_id:
                    after = current
                    break
                else:
                    sentence, _, rest = rest.partition("\t")
                    rows.append((sentence, rest.split("\t", 1)[0].rstrip("\n")))
    except OSError as error:
        raise usage_error(path, f"cannot be read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise usage_error(path, f"is not UTF-8 text ({error.reason})") from None
    return rows, before, after
