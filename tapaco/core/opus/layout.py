"""Where a release folder keeps its files: the two layouts every OPUS reader accepts.

- **folders**, the paths of OPUS's URLs below the version, as `download` lays them out:
  `xml/<a>-<b>.xml.gz`, `xml/<l>.zip`, `raw/<l>.zip`, `moses/<a>-<b>.txt.zip`, and what
  unpacking them gives (`xml/<a>-<b>.xml`, folders `xml/<a>-<b>/`, `xml/<l>/`,
  `moses/<a>-<b>/`).
- **opus_get**, the flat names OpusTools' `opus_get` gives the same files: the URL
  `https://object.pouta.csc.fi/OPUS-Tatoeba/v2023-04-12/xml/en-fr.xml.gz` with `/` as `_` after
  `OPUS-`, so `Tatoeba_v2023-04-12_xml_en-fr.xml.gz`, `Tatoeba_v2023-04-12_xml_en.zip`,
  `..._raw_en.zip`, `..._moses_en-fr.txt.zip` (`latest` for the version when it fetched the
  latest release). Language codes may hold `_` (`pt_br`), so a name is read as
  `<Corpus>_<version>_<folder>_<name>` with `<folder>` one of `xml`, `raw`, `moses`.

A folder holding both layouts, or opus_get files of several releases, is refused rather than
mixed: each release is read from a folder of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.errors import InputError, usage_error

FOLDERS = ("xml", "raw", "moses")
_OPUS_GET_NAME = re.compile(r"(?P<corpus>.+)_(?P<version>[^_]+)_(?P<folder>xml|raw|moses)_"
                            r"(?P<name>[^/]+)")
LAYOUTS = ("neither xml/ nor moses/ (OPUS's folders, as `download` writes them) nor files named "
           "as opus_get names them (<Corpus>_<version>_xml_<a>-<b>.xml.gz, _xml_<l>.zip, "
           "_raw_<l>.zip, _moses_<a>-<b>.txt.zip)")


@dataclass(frozen=True)
class Layout:
    """A release folder and how it names its files: `prefix` is opus_get's `<Corpus>_<version>`
    (`corpus` is its corpus), or empty for the folders layout."""

    root: Path
    prefix: str = ""
    corpus: str = ""

    @property
    def folders(self) -> bool:
        return not self.prefix

    def entries(self, folder: str) -> list[tuple[str, Path]]:
        """What `folder` holds, as (name in the folder, path), sorted by name."""
        if self.folders:
            base = self.root / folder
            if not base.is_dir():
                return []
            return [(entry.name, entry) for entry in sorted(base.iterdir())]
        start = f"{self.prefix}_{folder}_"
        return sorted((entry.name[len(start):], entry) for entry in self.root.iterdir()
                      if entry.name.startswith(start) and len(entry.name) > len(start))

    def file(self, folder: str, name: str) -> Path:
        """Where the file `folder/name` (a name without `/`) is."""
        if self.folders:
            return self.root / folder / name
        return self.root / f"{self.prefix}_{folder}_{name}"

    def unpacked(self, folder: str) -> Path | None:
        """The folder of unpacked files (`xml/de/1994/...`); None where the layout has none."""
        return self.root / folder if self.folders else None

    def shown(self, folder: str, name: str) -> str:
        """`folder/name` as the layout names it, for messages."""
        return f"{folder}/{name}" if self.folders else f"{self.prefix}_{folder}_{name}"


def _opus_get_prefixes(root: Path) -> dict[str, str]:
    """The opus_get releases whose files are in `root`: `<Corpus>_<version>` -> corpus."""
    found = {}
    for entry in root.iterdir():
        match = _OPUS_GET_NAME.fullmatch(entry.name)
        if match and entry.is_file():
            found[f"{match['corpus']}_{match['version']}"] = match["corpus"]
    return found


def release_layout(root: Path) -> Layout:
    """The layout of the release in `root` (the folders layout when it holds neither, so that
    the caller says what is missing); an InputError if it is not a folder or is ambiguous."""
    if not root.is_dir():
        raise InputError(root, "OPUS folder not found", kind="missing file")
    prefixes = _opus_get_prefixes(root)
    folders = [folder for folder in FOLDERS if (root / folder).is_dir()]
    if prefixes and folders:
        raise usage_error(root, f"holds both release folders ({', '.join(folders)}) and files "
                          f"opus_get wrote ({sorted(prefixes)[0]}_...); put each release in a "
                          "folder of its own")
    if len(prefixes) > 1:
        raise usage_error(root, "holds opus_get files of several releases "
                          f"({', '.join(sorted(prefixes))}); put each in a folder of its own")
    if prefixes:
        [(prefix, corpus)] = prefixes.items()
        return Layout(root, prefix, corpus)
    return Layout(root)
