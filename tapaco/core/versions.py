"""Versions that decide the output, recorded in every `stats.json` (as sacrebleu prints a
signature): this package's, and those of the libraries whose internals exactness relies on."""

from __future__ import annotations

from importlib import metadata

PACKAGE = "pivot-paraphrase-miner"


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def package_version() -> str:
    return _version(PACKAGE)


def library_versions(*distributions: str) -> dict[str, str]:
    """This package's version and those of `distributions`, by name."""
    return {PACKAGE: package_version(), **{name: _version(name) for name in distributions}}


def signature(command: str, versions: dict[str, str], options: dict) -> str:
    """A one-line signature like sacrebleu's: `tapaco-build|pivot-paraphrase-miner:0.1.0|...`."""
    parts = [command.replace(" ", "-")]
    parts += [f"{name}:{version}" for name, version in versions.items()]
    parts += [f"{key}:{_compact(value)}" for key, value in options.items()]
    return "|".join(parts)


def _compact(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value)) or "all"
    return str(value)
