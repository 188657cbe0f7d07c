"""Bad options, inputs and outputs of `tapaco enrich`, table-driven through `tapaco.cli.main`.

Each case runs in a fresh workspace (a copy of the Tatoeba sample, plain source and reference
files, a small TaPaCo folder, a stand-in model folder, a user's notes) and must end with exactly
one stderr line, exit status 2, and the workspace byte for byte as it was: no output, no
checkpoint, no folder created.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_translator import UpperCaser, snapshot, use_fake_model

from tapaco.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"
SOURCES = ["Ich esse .", "Er schläft .", "Wir gehen nach Hause ."]
REFERENCES = ["I eat .", "He sleeps .", "We go home ."]


@dataclass
class Case:
    name: str
    argv: str  # `{w}` is the workspace; split on spaces
    message: str  # a part of the one error line
    setup: Callable[[Path], None] | None = None


def _workspace(root: Path) -> Path:
    shutil.copytree(SAMPLE, root / "opus")
    (root / "src.txt").write_text("".join(f"{line}\n" for line in SOURCES), encoding="utf-8")
    (root / "ref.txt").write_text("".join(f"{line}\n" for line in REFERENCES), encoding="utf-8")
    (root / "sets").mkdir()
    (root / "sets" / "fr.txt").write_text("3\t30\tJe mange .\t\t\n7\t70\tNon .\t\t\n")
    (root / "sets" / "en.txt").write_text("3\t5\tI eat .\t\t\n")
    (root / "notes.txt").write_text("a user's notes\n")
    (root / "results").mkdir()
    return root


def _write(relative: str, text: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return setup


BASE = "enrich --target en --model {w}/model"
PLAIN = BASE + " --source-file {w}/src.txt --reference-file {w}/ref.txt"
OPUS = BASE + " --opus-dir {w}/opus --pair de-en"
SETS = BASE + " --sets {w}/sets --from-lang fr"
OUT = " --out {w}/o.tsv"

CASES = [
    # option ranges, checked before anything is read or written
    Case("beam size 0", PLAIN + OUT + " --beam-size 0", "--beam-size: must be from 1 to 64"),
    Case("beam size 100000 (hung)", PLAIN + OUT + " --beam-size 100000", "--beam-size"),
    Case("beam size not whole", PLAIN + OUT + " --beam-size 2.5", "--beam-size"),
    Case("negative variants", PLAIN + OUT + " --variants -1", "--variants: must be from 0"),
    Case("too many variants", PLAIN + OUT + " --variants 17", "--variants: must be from 0"),
    Case("max batch tokens 0", PLAIN + OUT + " --max-batch-tokens 0", "--max-batch-tokens"),
    Case("batch size 0", PLAIN + OUT + " --batch-size 0", "--batch-size: must be at least 1"),
    Case("window size 0", PLAIN + OUT + " --window-size 0", "--window-size: must be at least"),
    Case("decoding length 0", PLAIN + OUT + " --max-decoding-length 0",
         "--max-decoding-length"),
    Case("decoding length 513", PLAIN + OUT + " --max-decoding-length 513",
         "--max-decoding-length"),
    Case("length ratio 0", PLAIN + OUT + " --max-length-ratio 0", "--max-length-ratio"),
    Case("length ratio nan", PLAIN + OUT + " --max-length-ratio nan", "--max-length-ratio"),
    Case("max tokens 0", PLAIN + OUT + " --max-tokens 0", "--max-tokens: must be at least 1"),
    Case("unigram overlap 1.5", PLAIN + OUT + " --max-unigram-overlap 1.5",
         "--max-unigram-overlap: must be from 0 to 1"),
    Case("max BLEU nan", PLAIN + OUT + " --max-bleu nan", "--max-bleu: expected a finite"),
    Case("max BLEU -5", PLAIN + OUT + " --max-bleu -5", "--max-bleu: must be from 0 to 100"),
    Case("max BLEU 101", PLAIN + OUT + " --max-bleu 101", "--max-bleu: must be from 0 to 100"),
    Case("min logprob 0.5", PLAIN + OUT + " --min-logprob 0.5", "--min-logprob: must be at most"),
    Case("min logprob -inf", PLAIN + OUT + " --min-logprob=-inf", "--min-logprob: expected a"),
    Case("never-suppress top -1", PLAIN + OUT + " --never-suppress-top -1",
         "--never-suppress-top"),
    Case("never-suppress ratio 0", PLAIN + OUT + " --never-suppress-df-ratio 0", "'none'"),
    Case("never-suppress ratio 1.5", PLAIN + OUT + " --never-suppress-df-ratio 1.5",
         "--never-suppress-df-ratio: must be from 0 to 1"),
    Case("never-suppress ratio abc", PLAIN + OUT + " --never-suppress-df-ratio abc",
         "expected a number or 'none'"),
    # input modes
    Case("opus-dir without pair", BASE + " --opus-dir {w}/opus" + OUT, "--opus-dir needs --pair"),
    Case("source-file without references", BASE + " --source-file {w}/src.txt" + OUT,
         "--source-file needs --reference-file"),
    Case("pair with plain files", PLAIN + " --pair de-en" + OUT, "--pair: is for --opus-dir"),
    Case("from-lang is the target", BASE + " --sets {w}/sets --from-lang en --out {w}/m",
         "is the --target en"),
    # where the output goes
    Case("out is the source file", PLAIN + " --out {w}/src.txt", "is an input"),
    Case("out is the reference file", PLAIN + " --out {w}/ref.txt", "is an input"),
    Case("out inside the release", OPUS + " --out {w}/opus/de-en.tsv", "inside the input"),
    Case("out inside the model", PLAIN + " --out {w}/model/o.tsv", "inside the input"),
    Case("out is the TaPaCo folder", SETS + " --out {w}/sets", "is the TaPaCo folder"),
    Case("out inside the TaPaCo folder", SETS + " --out {w}/sets/machine",
         "is inside the TaPaCo folder"),
    Case("out is a user's file", PLAIN + " --out {w}/notes.txt",
         "exists and was not written by tapaco enrich"),
    Case("stats file is a user's", PLAIN + OUT, "o.tsv.stats.json: exists and was not written",
         _write("o.tsv.stats.json", "{}\n")),
    Case("checkpoint is a user's", PLAIN + OUT, "o.tsv.progress.json: exists and was not",
         _write("o.tsv.progress.json", "my progress\n")),
    Case("out is a folder", PLAIN + " --out {w}/results", "is a folder"),
    Case("out in a missing folder", PLAIN + " --out {w}/missing/o.tsv", "does not exist"),
    Case("sets out is a file", SETS + " --out {w}/notes.txt", "is a file"),
    Case("sets: machine file is a user's", SETS + " --out {w}/m",
         "en-from-fr.machine.txt: exists and was not written",
         _write("m/en-from-fr.machine.txt", "mine\n")),
    # bad input found while reading: nothing left behind
    Case("unequal source and reference lines", PLAIN + OUT, "lines",
         _write("ref.txt", "".join(f"{line}\n" for line in REFERENCES + ["One more ."]))),
    Case("unequal lines found after the first window", PLAIN + OUT + " --window-size 1",
         "line 4: src.txt and ref.txt have different numbers of lines",
         _write("ref.txt", "".join(f"{line}\n" for line in REFERENCES + ["One more ."]))),
    Case("one more source line, no final newline", PLAIN + OUT + " --window-size 1",
         "line 4: src.txt and ref.txt have different numbers of lines",
         _write("src.txt", "".join(f"{line}\n" for line in SOURCES) + "Noch eins .")),
    Case("malformed TaPaCo file", SETS + " --out {w}/m", "fr.txt",
         _write("sets/fr.txt", "3\t30\tJe mange .\t\t\nnot a TaPaCo line\n")),
    Case("malformed TaPaCo file, with variants", SETS + " --out {w}/m --variants 2", "fr.txt",
         _write("sets/fr.txt", "3\t30\tJe mange .\t\t\nnot a TaPaCo line\n")),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_case_is_one_line_and_writes_nothing(case, tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    if case.setup:
        case.setup(workspace)
    before = snapshot(workspace)
    status = _run(workspace, case.argv)
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2, error
    assert len(error) == 1 and error[0].startswith("tapaco"), error
    assert case.message in error[0]
    assert snapshot(workspace) == before


def _run(workspace: Path, argv: str) -> int:
    """The exit status of `tapaco ARGV` (option parse errors exit from inside)."""
    try:
        return main(argv.format(w=workspace).split())
    except SystemExit as stop:
        return stop.code


def test_rerun_with_other_options_needs_overwrite(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    assert _run(workspace, PLAIN + OUT + " --keep-copies") == 0
    before = snapshot(workspace)
    capsys.readouterr()
    assert _run(workspace, PLAIN + OUT + " --keep-copies --beam-size 4") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "written with other options (beam_size 12, now 4)" in error[0]
    assert "--overwrite starts over" in error[0]
    assert snapshot(workspace) == before
    assert _run(workspace, PLAIN + OUT + " --keep-copies --beam-size 4 --overwrite") == 0
    assert '"beam_size": 4' in (workspace / "o.tsv.stats.json").read_text()


def test_finished_rerun_says_nothing_was_translated(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    assert _run(workspace, PLAIN + OUT) == 0
    assert capsys.readouterr().err.strip().endswith("sentences/s")
    before = snapshot(workspace)
    assert _run(workspace, PLAIN + OUT) == 0
    line = capsys.readouterr().err.strip()
    assert line == ("enrich: the output was already complete (3 sentences, 3 outputs, 3 kept); "
                    "nothing was translated")
    assert snapshot(workspace) == before


def test_an_output_changed_since_is_not_resumed(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    assert _run(workspace, PLAIN + OUT) == 0
    with open(workspace / "o.tsv", "a", encoding="utf-8") as handle:
        handle.write("a line the user added\n")
    before = snapshot(workspace)
    capsys.readouterr()
    assert _run(workspace, PLAIN + OUT) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "was changed since tapaco enrich wrote it" in error[0]
    assert snapshot(workspace) == before


def test_overwrite_replaces_a_file_enrich_did_not_write(tmp_path, monkeypatch):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    (workspace / "o.tsv").write_text("old\n")
    assert _run(workspace, PLAIN + OUT + " --overwrite") == 0
    rows = (workspace / "o.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("reference\tparaphrase") and len(rows) == 4


def test_a_failed_restart_keeps_the_earlier_output(tmp_path, monkeypatch, capsys):
    """--overwrite replaces the earlier output only once a window is done: bad input found
    before that leaves every earlier file as it was."""
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    assert _run(workspace, PLAIN + OUT) == 0
    (workspace / "ref.txt").write_text("Only one line .\n", encoding="utf-8")
    before = snapshot(workspace)
    assert _run(workspace, PLAIN + OUT + " --overwrite --beam-size 2") == 2
    assert snapshot(workspace) == before


def test_an_interrupted_first_window_leaves_nothing(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model", UpperCaser(fail_after=0))
    before = snapshot(workspace)
    assert _run(workspace, SETS + " --out {w}/m") == 130
    assert snapshot(workspace) == before


def test_an_interruption_after_a_window_resumes(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model")
    assert _run(workspace, PLAIN + " --out {w}/full.tsv") == 0
    use_fake_model(monkeypatch, workspace / "model", UpperCaser(fail_after=1))
    assert _run(workspace, PLAIN + OUT + " --window-size 1 --max-batch-tokens 100") == 130
    assert (workspace / "o.tsv").read_text().count("\n") == 2  # the header and one row
    use_fake_model(monkeypatch, workspace / "model")
    capsys.readouterr()
    assert _run(workspace, PLAIN + OUT + " --window-size 1") == 0
    assert "2 translated now, resuming an earlier run" in capsys.readouterr().err
    assert (workspace / "o.tsv").read_bytes() == (workspace / "full.tsv").read_bytes()


def test_a_changed_input_is_not_resumed(tmp_path, monkeypatch, capsys):
    workspace = _workspace(tmp_path)
    use_fake_model(monkeypatch, workspace / "model", UpperCaser(fail_after=1))
    assert _run(workspace, PLAIN + OUT + " --window-size 1") == 130
    (workspace / "src.txt").write_text("Anders .\nEr schläft .\nWir .\n", encoding="utf-8")
    use_fake_model(monkeypatch, workspace / "model")
    before = snapshot(workspace)
    capsys.readouterr()
    assert _run(workspace, PLAIN + OUT + " --window-size 1") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "was made from another input" in error[0]
    assert snapshot(workspace) == before
