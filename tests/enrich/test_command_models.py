"""The whole enrich command through both real backends, on a tiny random model built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapaco.cli import parser
from tapaco.enrich.command import run

SAMPLE = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"


def _arguments(model: Path, out: Path, *extra: str):
    return parser().parse_args(["enrich", "--opus-dir", str(SAMPLE), "--pair", "de-en",
                                "--target", "en", "--model", str(model), "--out", str(out),
                                "--beam-size", "2", "--variants", "2", "--write-dropped",
                                "--max-batch-tokens", "64", *extra])


@pytest.mark.parametrize("which", ["marian_dir", "ct2_dir"])
def test_enrich_through_each_backend(which, request, tmp_path):
    model = request.getfixturevalue(which)
    out = tmp_path / "out.tsv"
    stats = run(_arguments(model, out))
    rows = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    unconstrained = [row for row in rows if row[3] == "0"]
    assert stats["sentences"] == 44 and len(unconstrained) == 44  # one for every input line
    assert {row[3] for row in rows} >= {"0", "1"}
    for row in rows:
        suppressed = set(filter(None, row[4].split(";")))
        assert not suppressed & set(row[1].lower().split()), row


def test_resume_after_an_interruption_neither_duplicates_nor_loses_lines(ct2_dir, tmp_path):
    from tapaco.enrich.backends import load_translator

    reference = tmp_path / "reference.tsv"
    run(_arguments(ct2_dir, reference, "--beam-size", "1"))

    class Interrupted(Exception):
        pass

    class FailsAfterTwoBatches:
        def __init__(self) -> None:
            self.inner = load_translator(ct2_dir)
            self.calls = 0

        def translate(self, *args, **kwargs):
            self.calls += 1
            if self.calls > 2:
                raise Interrupted
            return self.inner.translate(*args, **kwargs)

    resumed = tmp_path / "resumed.tsv"
    arguments = _arguments(ct2_dir, resumed, "--beam-size", "1")
    from tapaco.enrich import pipeline

    original = pipeline.EnrichOptions.window_size
    try:
        pipeline.EnrichOptions.window_size = 10
        with pytest.raises(Interrupted):
            run(arguments, FailsAfterTwoBatches())
        assert resumed.read_bytes() != reference.read_bytes()
        run(arguments)
    finally:
        pipeline.EnrichOptions.window_size = original
    assert resumed.read_bytes() == reference.read_bytes()
