"""Bad input across every command, table-driven: inputs, options, outputs and interrupts.

Each case runs a command line in a fresh workspace holding a small real release (the embedded
Tatoeba sample), a user's notes file and folders. A bad case must end with exactly one stderr
line, exit status 2, and the workspace byte for byte as it was; with `--skip-bad-input` the bad
part is skipped and counted instead. An interrupt exits 130 and leaves the workspace as it was.
"""

from __future__ import annotations

import bz2
import gzip
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLE, without_compile_notice

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
    _annotation_files(root)
    return root


def _annotation_files(root: Path) -> None:
    """A ranked file written by hand and the annotation files of the workflow around it."""
    rows = [(f"fr-N{n}", f"Phrase {n} .", f"Autre {n} .") for n in range(1, 21)]
    ranked = root / "ranked" / "fr" / "train" / "fr-train.txt.bz2"
    ranked.parent.mkdir(parents=True)
    ranked.write_bytes(bz2.compress("".join(f"{i}\t{a}\t{b}\t1.5\t2\t1\t3\n"
                                            for i, a, b in rows).encode()))
    header = "rank\tid\tsentence1\tsentence2\tannotator1\tannotator2\n"
    (root / "labelled.tsv").write_text(header + "".join(
        f"{n}\t{i}\t{a}\t{b}\t4\t3\n" for n, (i, a, b) in enumerate(rows[:10], 1)))
    (root / "half.tsv").write_text(header + "".join(
        f"{n}\t{i}\t{a}\t{b}\t4\t\n" for n, (i, a, b) in enumerate(rows[:10], 1)))
    (root / "combined.tsv").write_text("rank\tid\tsentence1\tsentence2\tscore\n" + "".join(
        f"{n}\t{i}\t{a}\t{b}\t3.5\n" for n, (i, a, b) in enumerate(rows[:10], 1)))
    (root / "dev.txt").write_text("fr-D1\tOui .\tSi .\t3.5\n")
    (root / "test.txt").write_text("fr-T1\tNon .\tJamais .\t4.0\n")
    (root / "notes.png").write_text("a user's picture\n")


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
RANKED = "{w}/ranked/fr/train/fr-train.txt.bz2"
SAMPLE_PAIRS = "opusparcus sample --ranked " + RANKED + " --n 5 --out"
COMBINE = "opusparcus combine --annotations {w}/labelled.tsv --out"
CUTOFF = "opusparcus cutoff --ranked " + RANKED + " --annotations {w}/combined.tsv --out"
PLOT = "opusparcus plot --ranked " + RANKED + " --annotations {w}/combined.tsv --out"
GEM = ("opusparcus export-gem --ranked " + RANKED + " --annotations {w}/combined.tsv "
       "--dev {w}/dev.txt --test {w}/test.txt --out")

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
    Case("--format unknown", BUILD + " {w}/o --format tsv,csv", "--format"),
    Case("--format empty", BUILD + " {w}/o --format ,", "--format"),
    Case("--langs not in the release", BUILD + " {w}/o --langs xx", "not in the release: xx"),
    Case("rank --workers 0", RANK + " {w}/o --workers 0", "--workers"),
    Case("rank --workers -1", RANK + " {w}/o --workers -1", "--workers"),
    Case("rank --workers 100000", RANK + " {w}/o --workers 100000", "--workers"),
    Case("rank --memory-limit 8X", RANK + " {w}/o --memory-limit 8X", "--memory-limit"),
    Case("rank --memory-limit 1M", RANK + " {w}/o --memory-limit 1M", "at least 256M"),
    Case("rank --engine gpu", RANK + " {w}/o --engine gpu", "--engine"),
    Case("rank --spark-master host", RANK + " {w}/o --engine spark --spark-master myhost:7077",
         "--spark-master"),
    Case("rank --temp-dir missing", RANK + " {w}/o --temp-dir {w}/missing", "--temp-dir"),
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
    Case("--out under /proc", BUILD + " /proc/tapaco-out", "cannot write /proc"),
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
    Case("rank --timings over a user's file", RANK + " {w}/o --timings {w}/notes.txt",
         "--overwrite"),
    Case("rank --lang with two languages", RANK.replace("fr", "fr,en") + " {w}/o",
         "--langs takes several"),
    Case("rank --langs: the second output holds a user's file",
         RANK.replace("--lang fr", "--langs fr,en") + " {w}/results", "draft.txt",
         lambda w: shutil.copytree(w / "results", w / "results" / "en")),
    # the annotation workflow
    Case("sample --n -5", SAMPLE_PAIRS.replace("5", "-5", 1) + " {w}/s.tsv", "--n"),
    Case("sample --n 0", SAMPLE_PAIRS.replace("5", "0", 1) + " {w}/s.tsv", "--n"),
    Case("sample more pairs than ranked", SAMPLE_PAIRS.replace("5", "500", 1) + " {w}/s.tsv",
         "cannot sample 500 pairs from 20"),
    Case("sample over labelled annotations", SAMPLE_PAIRS + " {w}/labelled.tsv",
         "holds 10 labelled pairs"),
    Case("sample over labelled annotations, --overwrite",
         SAMPLE_PAIRS + " {w}/labelled.tsv --overwrite", "holds 10 labelled pairs"),
    Case("sample over the ranked file", SAMPLE_PAIRS + " " + RANKED, "is an input"),
    Case("sample over a user's file", SAMPLE_PAIRS + " {w}/notes.txt", "--overwrite"),
    Case("sample from a file that is not ranked",
         "opusparcus sample --ranked {w}/notes.txt --n 1 --out {w}/s.tsv",
         "expected 7 tab-separated fields"),
    Case("combine over its own input", COMBINE + " {w}/labelled.tsv", "is an input"),
    Case("combine over other labelled annotations", COMBINE + " {w}/half.tsv --overwrite",
         "labelled pairs"),
    Case("combine with nothing labelled by both",
         COMBINE.replace("labelled.tsv", "half.tsv") + " {w}/c.tsv",
         "no pair is labelled by both annotators"),
    Case("combine --out is a folder", COMBINE + " {w}/results", "is a folder"),
    Case("cutoff --levels abc", CUTOFF + " {w}/cuts --levels abc", "--levels"),
    Case("cutoff --levels 150,-3", CUTOFF + " {w}/cuts --levels 150,-3", "--levels"),
    Case("cutoff --out holds a user's file", CUTOFF + " {w}/results", "draft.txt"),
    Case("cutoff --out holds the ranked file", CUTOFF + " {w}/ranked", "holds the input"),
    Case("cutoff on uncombined annotations",
         CUTOFF.replace("combined.tsv", "labelled.tsv") + " {w}/cuts", "expected the header"),
    Case("plot with a label too few", PLOT + " {w}/fig --label a b", "one label per"),
    Case("plot: two curves of one name",
         PLOT.replace("--annotations", RANKED + " --annotations") + " {w}/fig",
         "both be named"),
    Case("plot over a user's picture", PLOT + " {w}/notes", "notes.png: exists"),
    Case("export-gem --out holds the ranked file", GEM + " {w}/ranked", "holds the input"),
    Case("export-gem with a malformed dev file",
         GEM.replace("dev.txt", "notes.txt") + " {w}/gem", "expected 4 tab-separated fields"),
    Case("annotate a missing file", "opusparcus annotate --file {w}/none.tsv --annotator 1",
         "cannot read: No such file"),
    Case("annotate as a third annotator",
         "opusparcus annotate --file {w}/labelled.tsv --annotator 3", "--annotator"),
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


def test_there_are_at_least_thirty_cases_across_all_commands():
    assert len(CASES) >= 30
    commands = {" ".join(case.argv.split()[:2]) for case in CASES}
    assert commands == {"tapaco build", "opusparcus rank", "opusparcus sample",
                        "opusparcus combine", "opusparcus cutoff", "opusparcus plot",
                        "opusparcus export-gem", "opusparcus annotate"}


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
    assert len(without_compile_notice(capsys.readouterr().err).strip().splitlines()) == 1
    assert _snapshot(workspace) == before


# A full disk and a read-only folder (tests/mounts.py): every folder a command writes, its
# output's, a temporary or a cache folder, is refused in one line before any work; a disk that
# fills up during the work ends in one line too. Nothing partial stays.
SCORE = "tapaco score --pairs {w}/pairs.tsv --columns 1,2 --model {w}/vectors.txt --quiet --out"
DISK_CASES = [
    Case("build --out", BUILD + " {d}/o", ""),
    Case("build --format parquet", BUILD + " {d}/o --format parquet", ""),
    Case("build --timings", BUILD + " {w}/o --timings {d}/t.json", ""),
    Case("rank --out", RANK + " {d}/o --format tsv,parquet", ""),
    Case("rank --temp-dir", RANK + " {w}/o --temp-dir {d}", ""),
    Case("score --out", SCORE + " {d}/o.tsv", ""),
    Case("score --vectors-cache", SCORE + " {w}/o.tsv --vectors-cache {d}/cache", ""),
    Case("download --out", "tapaco download --api {api} --quiet --out {d}/opus", ""),
    Case("enrich --out", "tapaco enrich --opus-dir {w}/opus --pair de-en --target en --model "
         "{w}/model --out {d}/o.tsv", ""),
    Case("explain --draw", "tapaco explain --opus-dir {w}/opus --out {build} --set 1 --quiet "
         "--draw {d}/set.svg", ""),
    Case("annotate --file", "opusparcus annotate --file {d}/half.tsv --annotator 2", "",
         lambda w: shutil.copy(w / "half.tsv", w / "d")),
    Case("sample --out", SAMPLE_PAIRS + " {d}/s.tsv", ""),
    Case("combine --out", COMBINE + " {d}/c.tsv", ""),
    Case("cutoff --out", CUTOFF + " {d}/cuts", ""),
    Case("plot --out", PLOT + " {d}/fig", ""),
    Case("export-gem --out", GEM + " {d}/gem", ""),
]
FILLED_DURING_THE_WORK = ["build --out", "build --format parquet", "rank --out"]


@pytest.fixture(scope="module")
def can_mount() -> None:
    from mounts import mount_problem

    problem = mount_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope="module")
def disk_workspace(tmp_path_factory) -> dict[str, str]:
    """What the disk cases' command lines name besides the workspace: an OPUS API serving the
    sample release, and a build of it for explain."""
    from tests.core.opus_server import OpusServer, Row

    build = tmp_path_factory.mktemp("disk") / "build"
    assert _run(["tapaco", "build", "--opus-dir", str(SAMPLE), "--min-sets", "1", "--out",
                 str(build), "--quiet"]) == 0
    rows = [Row(path.relative_to(SAMPLE).as_posix(), path.read_bytes())
            for path in sorted(SAMPLE.rglob("*.*")) if path.suffix in (".gz", ".zip")]
    with OpusServer(rows) as server:
        yield {"api": server.api, "build": str(build)}


def _disk_case(case: Case, state: str, root: Path, names: dict[str, str]):
    from mounts import contents, run_with

    workspace = _workspace(root)
    (workspace / "d").mkdir()
    (workspace / "model").mkdir()
    (workspace / "vectors.txt").write_text("3 2\nthe 1 0\ncat 0.5 0.5\nsits 0 1\n")
    (workspace / "pairs.tsv").write_text("The cat sits.\tThe cat.\n")
    if case.setup:
        case.setup(workspace)
    before, folder_before = _snapshot(workspace), contents(workspace / "d")
    argv = case.argv.format(w=workspace, d=workspace / "d", **names).split()
    status, error, folder_after = run_with(workspace / "d", state, lambda: _run(argv))
    folder_after.pop(".filler", None)
    assert _snapshot(workspace) == before
    assert folder_after == folder_before
    return status, error.strip().splitlines(), workspace / "d"


@pytest.mark.parametrize("state", ["full", "read-only"])
@pytest.mark.parametrize("case", DISK_CASES, ids=[case.name for case in DISK_CASES])
def test_a_full_or_read_only_folder_is_refused_before_any_work(case, state, tmp_path,
                                                               can_mount, disk_workspace):
    status, error, folder = _disk_case(case, state, tmp_path / "w", disk_workspace)
    expected = f"no space left on {folder}" if state == "full" else (
        f"cannot write {folder}: read-only file system")
    assert status == 2 and len(error) == 1 and expected in error[0], error


@pytest.mark.parametrize("name", FILLED_DURING_THE_WORK)
def test_a_disk_filled_during_the_work_is_one_line(name, tmp_path, can_mount, disk_workspace):
    case = next(case for case in DISK_CASES if case.name == name)
    status, error, folder = _disk_case(case, "nearly full", tmp_path / "w", disk_workspace)
    assert status == 2 and len(error) == 1 and f"no space left on {folder}" in error[0], error
