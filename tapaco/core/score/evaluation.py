"""What the `evaluate` command of both programs shares: the model, opened as `score` opens it
(:func:`~tapaco.core.score.embedders.open_embedder`: its loading, batching and device), and the
JSON report, its path checked before any work and the file written under a temporary name
and renamed. The figures themselves are :mod:`tapaco.core.score.pair_metrics`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tapaco.core.disk import check_folder
from tapaco.core.files import json_text
from tapaco.core.json_input import json_object
from tapaco.core.outputs import OutputFile
from tapaco.core.score.embedders import Embedder, open_embedder

COMMAND = "evaluate"


@dataclass(frozen=True)
class ModelChoice:
    """The model to evaluate (a word-vector file or a sentence-transformers folder) and how to
    run it, as `score`'s options say."""

    model: Path
    backend: str | None = None
    device: str = "auto"
    batch_size: int = 256
    vectors_cache: Path | None = None

    def open(self) -> Embedder:
        return open_embedder(Path(self.model), self.backend, self.device, self.batch_size,
                             self.vectors_cache)


def is_own_report(path: Path) -> bool:
    """Whether `path` is a report an `evaluate` command wrote."""
    return json_object(path).get("command") == COMMAND


def report_file(out: Path, program: str, inputs: tuple[Path, ...], overwrite: bool,
                model: ModelChoice) -> OutputFile:
    """The report's output, checked now (before the model is loaded): never an input, replaced
    only when an `evaluate` wrote it or with `overwrite`."""
    output = OutputFile(Path(out), f"{program} {COMMAND}", (*inputs, Path(model.model)),
                        overwrite, is_own_report)
    output.check()
    if model.vectors_cache is not None:
        check_folder(model.vectors_cache)
    return output


def model_fields(embedder: Embedder) -> dict:
    """What the report says of the model: its path, backend and details."""
    return {"model": str(embedder.model), "backend": embedder.backend,
            "model_details": embedder.description()}


def write_report(output: OutputFile | None, report: dict) -> None:
    """Write the report (when there is an output) through a temporary name."""
    if output is not None:
        output.write(json_text(report))
