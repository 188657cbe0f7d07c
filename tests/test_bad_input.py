"""Bad input across every command, table-driven: inputs, options, outputs and interrupts.

Each case runs a command line in a fresh workspace holding a small real release (the embedded
Tatoeba sample), a user's notes file and folders. A bad case must end with exactly one stderr
line, exit status 2, and the workspace byte for byte as it was; with `--skip-bad-input` the bad
part is skipped and counted instead. An interrupt exits 130 and leaves the workspace as it was.
"""

from __future__ import annotations

import gzip
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLE

import opusparcus.cli
import tapaco.cli

PROGRAMS = {"tapaco": tapaco.cli.main, "opusparcus": opusparcus.cli.main}


@dataclass
class Case:
    name: str
    argv: str  # `{w}` is the workspace; split on spaces
    message: str  # a part of the one error line
    setup: Callable[[Path], None] | None = None


def _workspace(root: Path) -> Path:
    shutil.copytree(SAMPLE, root / "opus")
    (root / "notes.txt").write_text("a user's notes\n")
    (root / "results").mkdir()
    (root / "results" / "draft.txt").write_text("a user's draft\n")
    return root


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}


def _truncate(path: Path, keep: int) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def _replace_in_gzip(path: Path, old: bytes, new: bytes) -> None:
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()).replace(old, new, 1)))


def _remove(path: Path) -> None:
    path.unlink()


BUILD = "tapaco build --opus-dir {w}/opus --min-sets 1 --out"
RANK = "opusparcus rank --opus-dir {w}/opus --lang fr --workers 1 --out"

CASES = [
    # inputs
    Case("missing release", "tapaco build --opus-dir {w}/nothing --out {w}/o",
         "OPUS folder not found"),
    Case("folder that is no release", "tapaco build --opus-dir {w}/results --out {w}/o",
         "not an OPUS release"),
    Case("truncated alignment gzip", BUILD + " {w}/o", "de-en.xml.gz",
         lambda w: _truncate(w / "opus/xml/de-en.xml.gz", 200)),
    Case("malformed alignment XML", BUILD + " {w}/o", "de-en.xml.gz",
         lambda w: _replace_in_gzip(w / "opus/xml/de-en.xml.gz", b'xtargets="', b"xtargets=")),
    Case("missing document archive", BUILD + " {w}/o", "sentence document es/",
         lambda w: _remove(w / "opus/xml/es.zip")),
    Case("link to an unknown sentence", BUILD + " {w}/o", "is not in this document",
         lambda w: _replace_in_gzip(w / "opus/xml/en-es.xml.gz", b'xtargets="', b'xtargets="s0 ')),
    Case("invalid UTF-8 in an alignment", BUILD + " {w}/o", "invalid UTF-8 byte 0xff",
         lambda w: _replace_in_gzip(w / "opus/xml/de-fr.xml.gz", b"<link", b"\xff<link")),
    Case("rank: no bitext for the language", RANK.replace("fr", "xx") + " {w}/o",
         "no bitext with target language xx"),
    Case("rank: pivot without a bitext", RANK + " {w}/o --pivots es",
         "no fr-es bitext for pivot es"),
    Case("rank: truncated alignment gzip", RANK + " {w}/o", "de-fr.xml.gz",
         lambda w: _truncate(w / "opus/xml/de-fr.xml.gz", 200)),
    # options
    Case("--bleu-max nan", BUILD + " {w}/o --bleu-max nan", "--bleu-max"),
    Case("--bleu-max -5", BUILD + " {w}/o --bleu-max -5", "--bleu-max"),
    Case("--max-set-size 0", BUILD + " {w}/o --max-set-size 0", "--max-set-size"),
    Case("--min-sets -1", BUILD + " {w}/o --min-sets -1", "--min-sets"),
    Case("--langs empty", BUILD + " {w}/o --langs ,", "--langs"),
    Case("--langs not in the release", BUILD + " {w}/o --langs xx", "not in the release: xx"),
    Case("rank --workers 0", RANK + " {w}/o --workers 0", "--workers"),
    Case("rank --workers -1", RANK + " {w}/o --workers -1", "--workers"),
    Case("rank --workers 100000", RANK + " {w}/o --workers 100000", "--workers"),
    Case("rank --min-edit-ratio 1e300", RANK + " {w}/o --min-edit-ratio 1e300",
         "--min-edit-ratio"),
    Case("rank --min-edit-ratio-short nan", RANK + " {w}/o --min-edit-ratio-short nan",
         "--min-edit-ratio-short"),
    Case("rank --max-pivot-fanout 1", RANK + " {w}/o --max-pivot-fanout 1",
         "--max-pivot-fanout"),
    Case("rank --score unknown", RANK + " {w}/o --score best", "--score"),
    # outputs
    Case("--out is the release", BUILD + " {w}/opus", "is an input"),
    Case("--out holds the release", BUILD + " {w}", "holds the input"),
    Case("--out inside the release", BUILD + " {w}/opus/out", "inside the input"),
    Case("--out is a file", BUILD + " {w}/notes.txt", "is an existing file"),
    Case("--out under a file", BUILD + " {w}/notes.txt/o", "is a file"),
    Case("--out under /proc", BUILD + " /proc/tapaco-out", "cannot be written"),
    Case("--out holds a user's file", BUILD + " {w}/results", "draft.txt"),
    Case("--timings in a missing folder", BUILD + " {w}/o --timings {w}/missing/t.json",
         "does not exist"),
    Case("--timings over a user's file", BUILD + " {w}/o --timings {w}/notes.txt",
         "--overwrite"),
    Case("rank --out holds a user's file in <lang>", RANK + " {w}/results", "draft.txt",
         lambda w: shutil.copytree(w / "results", w / "results" / "fr")),
    Case("rank --out is the release", RANK + " {w}/opus", "inside the input"),
    Case("rank --timings in a missing folder", RANK + " {w}/o --timings {w}/missing/t.json",
         "does not exist"),
]


def _run(argv: list[str]) -> int:
    try:
        return PROGRAMS[argv[0]](argv[1:])
    except SystemExit as stopped:
        return int(stopped.code)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_is_one_line_exit_2_and_nothing_written(case, tmp_path, capsys):
    workspace = _workspace(tmp_path / "w")
    if case.setup:
        case.setup(workspace)
    before = _snapshot(workspace)
    status = _run(case.argv.format(w=workspace).split())
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2, error
    assert len(error) == 1 and case.message in error[0], error
    assert _snapshot(workspace) == before


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


SKIPPED = [
    Case("missing document archive, skipped", BUILD + " {w}/o --skip-bad-input",
         "missing document", lambda w: _remove(w / "opus/xml/es.zip")),
    Case("unknown sentence, skipped", BUILD + " {w}/o --skip-bad-input", "unknown sentence id",
         lambda w: _replace_in_gzip(w / "opus/xml/en-es.xml.gz", b'xtargets="', b'xtargets="s0 ')),
    Case("rank: truncated bitext, skipped", RANK + " {w}/o --skip-bad-input", "corrupt file",
         lambda w: _truncate(w / "opus/xml/de-fr.xml.gz", 200)),
]


@pytest.mark.parametrize("case", SKIPPED, ids=[case.name for case in SKIPPED])
def test_skip_bad_input_counts_the_skip(case, tmp_path):
    import json

    workspace = _workspace(tmp_path / "w")
    case.setup(workspace)
    assert _run(case.argv.format(w=workspace).split() + ["--quiet"]) == 0
    stats_file = next((workspace / "o").rglob("stats.json"))
    skipped = json.loads(stats_file.read_text())["bad_input"]["skipped"]
    assert skipped.get(case.message, 0) >= 1, skipped


INTERRUPTED = [
    ("build while building the graph", BUILD + " {w}/o", "tapaco.pipeline.build_graph"),
    ("build while writing", BUILD + " {w}/o", "tapaco.pipeline.stats_markdown"),
    ("rank while scoring", RANK + " {w}/o", "opusparcus.rank.score_split"),
    ("rank while writing", RANK + " {w}/o", "opusparcus.rank.write_ranked"),
]


@pytest.mark.parametrize("name, argv, target", INTERRUPTED, ids=[c[0] for c in INTERRUPTED])
@pytest.mark.parametrize("earlier_output", [False, True])
def test_an_interrupt_leaves_the_previous_state(name, argv, target, earlier_output, tmp_path,
                                                monkeypatch, capsys):
    workspace = _workspace(tmp_path / "w")
    arguments = argv.format(w=workspace).split() + ["--quiet"]
    if earlier_output:
        assert _run(arguments) == 0
    before = _snapshot(workspace)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(target, interrupted)
    assert _run(arguments) == 130
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert _snapshot(workspace) == before
