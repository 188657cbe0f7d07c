"""The whole enrich command through both real backends, on a tiny random model built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapaco.cli import parser
from tapaco.enrich.command import run

SAMPLE = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"


def _arguments(model: Path, out: Path, *extra: str):
    """The enrich options of these tests; `extra` adds some (a --beam-size replaces the 2)."""
    beam = () if "--beam-size" in extra else ("--beam-size", "2")
    return parser().parse_args(["enrich", "--opus-dir", str(SAMPLE), "--pair", "de-en",
                                "--target", "en", "--model", str(model), "--out", str(out),
                                *beam, "--variants", "2", "--write-dropped",
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


def test_resume_after_an_interruption_neither_duplicates_nor_loses_lines(ct2_dir, tmp_path,
                                                                         monkeypatch):
    from tapaco.enrich import command
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
    arguments = _arguments(ct2_dir, resumed, "--beam-size", "1", "--window-size", "10")
    with monkeypatch.context() as patch:
        patch.setattr(command, "load_translator", lambda *_: FailsAfterTwoBatches())
        with pytest.raises(Interrupted):
            run(arguments)
    assert reference.read_bytes().startswith(resumed.read_bytes())
    assert resumed.read_bytes() != reference.read_bytes()
    run(arguments)
    assert resumed.read_bytes() == reference.read_bytes()


def _main(model: Path, out: Path, *extra: str) -> int:
    from tapaco.cli import main

    return main(["enrich", "--opus-dir", str(SAMPLE), "--pair", "de-en", "--target", "en",
                 "--model", str(model), "--out", str(out), *extra])


def _one_error_line(capsys: pytest.CaptureFixture) -> str:
    error = capsys.readouterr().err.strip().splitlines()
    # an option's error names the command, as argparse's do
    assert len(error) == 1 and error[0].startswith(("tapaco: error: ", "tapaco enrich: error: ")), (
        error)
    return error[0]


@pytest.mark.parametrize("which,backend,message", [
    ("ct2_dir", "transformers", "is a CTranslate2 model (model.bin), not a MarianMT checkpoint "
     "(config.json and weights); use --backend ctranslate2 (or auto)"),
    ("marian_dir", "ctranslate2", "is a MarianMT checkpoint (config.json and weights), not a "
     "CTranslate2 model (model.bin); use --backend transformers (or auto)")])
def test_a_backend_that_cannot_read_the_folder_is_one_line(which, backend, message, request,
                                                           tmp_path, capsys):
    model = request.getfixturevalue(which)
    capsys.readouterr()  # building the model may print progress (when this test builds it)
    assert _main(model, tmp_path / "o.tsv", "--backend", backend) == 2
    assert _one_error_line(capsys) == f"tapaco: error: {model}: {message}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module", ["ctranslate2", "sentencepiece"])
def test_a_missing_extra_says_how_to_install_it(module, ct2_dir, tmp_path, monkeypatch, capsys):
    import sys

    from tapaco.core.errors import MissingDependency
    from tapaco.enrich.backends import load_translator

    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    assert _main(ct2_dir, tmp_path / "o.tsv") == 2
    line = _one_error_line(capsys)
    assert f"{module} is not installed" in line and "pip install" in line and "[enrich]" in line
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(MissingDependency, match="pip install"):
        load_translator(ct2_dir)


def test_transformers_refuses_integer_compute_types(marian_dir, tmp_path, capsys):
    assert _main(marian_dir, tmp_path / "o.tsv", "--compute-type", "int8") == 2
    assert "--compute-type: int8 is CTranslate2's" in _one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("which", ["marian_dir", "ct2_dir"])
def test_cuda_without_a_gpu_is_one_line(which, request, tmp_path, capsys):
    ctranslate2 = pytest.importorskip("ctranslate2", reason="CUDA checks of the NMT backends "
                                      "need the enrich extra")
    torch = pytest.importorskip("torch", reason="CUDA checks of the NMT backends need the "
                                "enrich extra")

    if torch.cuda.is_available() or ctranslate2.get_cuda_device_count():
        pytest.skip("a GPU is present")
    assert _main(request.getfixturevalue(which), tmp_path / "o.tsv", "--device", "cuda") == 2
    assert "--device: cuda: no CUDA device is visible" in _one_error_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_rerun_with_another_model_needs_overwrite(marian_dir, ct2_dir, tmp_path, capsys):
    out = tmp_path / "o.tsv"
    assert _main(ct2_dir, out, "--beam-size", "1") == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert _main(marian_dir, out, "--beam-size", "1") == 2
    line = _one_error_line(capsys)
    assert 'model.backend "ctranslate2", now "transformers"' in line and "--overwrite" in line
    assert out.read_bytes() == before
