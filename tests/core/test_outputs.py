"""Where commands may write: inputs and users' files are never replaced, failures leave nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.core.outputs import MANIFEST, OutputFile, OutputFolder

COMMAND = "test command"


def _fill(files: dict[str, str]):
    def fill(folder):
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
    return fill


def _refused(output, message: str) -> None:
    with pytest.raises(InputError) as raised:
        output.check()
    assert raised.value.kind == "usage" and message in str(raised.value)


def _listing(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize("workers", [1, 3])
def test_new_folder_gets_the_files_and_a_manifest_of_them(tmp_path, workers):
    out = OutputFolder(tmp_path / "a" / "out", COMMAND, workers=workers)
    out.check()
    out.write(_fill({"en.txt": "x\n", "sub/fr.txt": "y\n"}))
    manifest = json.loads((tmp_path / "a" / "out" / MANIFEST).read_text())
    assert manifest["written_by"] == COMMAND
    assert sorted(manifest["files"]) == ["en.txt", "sub/fr.txt"]
    # sha256 of "x\n", computed independently with `printf 'x\n' | sha256sum`
    assert manifest["files"]["en.txt"] == {
        "bytes": 2, "sha256": "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac"}
    assert manifest["files"]["sub/fr.txt"]["sha256"] == (  # printf 'y\n' | sha256sum
        "3bb2abb69ebb27fbfe63c7639624c6ec5e331b841a5bc8c3ebc10b9285e90877")
    assert _listing(tmp_path) == ["a", "a/out", "a/out/en.txt", "a/out/manifest.json",
                                  "a/out/sub", "a/out/sub/fr.txt"]


def test_own_output_is_replaced_and_its_old_files_removed(tmp_path):
    folder = tmp_path / "out"
    OutputFolder(folder, COMMAND).write(_fill({"en.txt": "old", "es.txt": "old"}))
    again = OutputFolder(folder, COMMAND)
    again.check()
    again.write(_fill({"en.txt": "new"}))
    assert _listing(folder) == ["en.txt", MANIFEST]
    assert (folder / "en.txt").read_text() == "new"
    assert _listing(tmp_path) == ["out", "out/en.txt", f"out/{MANIFEST}"]


def test_a_users_file_is_never_deleted_even_with_overwrite(tmp_path):
    folder = tmp_path / "out"
    OutputFolder(folder, COMMAND).write(_fill({"en.txt": "old"}))
    (folder / "notes.txt").write_text("my notes")
    for overwrite in (False, True):
        _refused(OutputFolder(folder, COMMAND, overwrite=overwrite), "notes.txt")
    assert (folder / "notes.txt").read_text() == "my notes"


def test_folder_without_manifest_or_of_another_command_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "corpus.xml").write_text("<x/>")
    _refused(OutputFolder(plain, COMMAND, overwrite=True), "not written by test command")
    other = tmp_path / "other"
    OutputFolder(other, "another command").write(_fill({"a.txt": "a"}))
    _refused(OutputFolder(other, COMMAND), "not written by test command")


def test_an_empty_folder_is_used(tmp_path):
    (tmp_path / "out").mkdir()
    out = OutputFolder(tmp_path / "out", COMMAND)
    out.check()
    out.write(_fill({"en.txt": "x"}))
    assert _listing(tmp_path / "out") == ["en.txt", MANIFEST]


@pytest.mark.parametrize("workers", [1, 3])
def test_a_changed_file_needs_overwrite(tmp_path, workers):
    folder = tmp_path / "out"
    OutputFolder(folder, COMMAND).write(_fill({"de.txt": "old", "en.txt": "old", "fr.txt": "old"}))
    (folder / "en.txt").write_text("hand-corrected")
    _refused(OutputFolder(folder, COMMAND, workers=workers), "en.txt was changed")
    OutputFolder(folder, COMMAND, overwrite=True, workers=workers).check()


@pytest.mark.parametrize("relation", ["equal", "inside", "holds"])
def test_output_related_to_the_input_is_refused(tmp_path, relation):
    corpus = tmp_path / "work" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "en-fr.xml.gz").write_bytes(b"data")
    out = {"equal": corpus, "inside": corpus / "out", "holds": tmp_path / "work"}[relation]
    _refused(OutputFolder(out, COMMAND, (corpus,), overwrite=True), "input")
    _refused(OutputFile(out / "x.tsv" if relation == "inside" else corpus, COMMAND, (corpus,),
                        overwrite=True), "input")


def test_unwritable_places_are_refused_before_work(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    _refused(OutputFolder(a_file, COMMAND), "is an existing file")
    _refused(OutputFolder(a_file / "out", COMMAND), "is a file")
    _refused(OutputFolder(Path("/proc/pivot-test-out"), COMMAND),
             "cannot write /proc")
    _refused(OutputFile(tmp_path / "missing" / "t.json", COMMAND), "does not exist")
    _refused(OutputFile(Path("/dev/null"), COMMAND, overwrite=True),
             "not a regular file")
    assert _listing(tmp_path) == ["file.txt"]


def test_failed_write_leaves_the_previous_output_and_no_new_folder(tmp_path):
    folder = tmp_path / "out"
    OutputFolder(folder, COMMAND).write(_fill({"en.txt": "old"}))

    def failing(new):
        (new / "en.txt").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        OutputFolder(folder, COMMAND).write(failing)
    assert (folder / "en.txt").read_text() == "old"
    deep = tmp_path / "new" / "deeper" / "out"
    with pytest.raises(KeyboardInterrupt):
        OutputFolder(deep, COMMAND).write(failing)
    assert _listing(tmp_path) == ["out", "out/en.txt", f"out/{MANIFEST}"]


def test_existing_file_is_replaced_only_when_own_or_with_overwrite(tmp_path):
    path = tmp_path / "result.tsv"
    path.write_text("precious")
    _refused(OutputFile(path, COMMAND), "--overwrite")
    OutputFile(path, COMMAND, is_own=lambda p: p.read_text() == "precious").check()
    replaced = OutputFile(path, COMMAND, overwrite=True)
    replaced.check()
    replaced.write("new")
    assert path.read_text() == "new"
    assert os.listdir(tmp_path) == ["result.tsv"]


def _dead_pid() -> int:
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_leftovers_of_a_killed_run_are_cleaned_by_the_next_and_live_ones_kept(tmp_path):
    import subprocess
    import sys

    dead, live = _dead_pid(), subprocess.Popen([sys.executable, "-c",
                                                "import time; time.sleep(30)"])
    try:
        out = tmp_path / "out"
        (tmp_path / f".out.tmp-{dead}" / "sub").mkdir(parents=True)  # a killed build's folder
        (tmp_path / f".out.tmp-{dead}" / "sub" / "en.txt").write_text("half")
        (tmp_path / f".out.tmp-{live.pid}").mkdir()  # a build still running
        (tmp_path / f".stats.json.tmp-{dead}").write_text("{")  # a killed file write
        (tmp_path / ".out.tmp-notapid").mkdir()  # not a name this tool makes: kept
        OutputFolder(out, COMMAND).write(_fill({"en.txt": "x\n"}))
        OutputFile(tmp_path / "stats.json", COMMAND).write("{}\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["out", f".out.tmp-{live.pid}", ".out.tmp-notapid", "stats.json"])
    finally:
        live.kill()
        live.wait()


# A writer elsewhere (another machine or container sharing the folder, whose pids this process
# cannot see) holding its temporaries' locks while it writes.
HOLDING = """
import sys, time
from contextlib import ExitStack
from pathlib import Path
from tapaco.core.scratch import holding
with ExitStack() as stack:
    for name in sys.argv[1:]:
        stack.enter_context(holding(Path(name)))
    print("holding", flush=True)
    time.sleep(60)
"""


def test_temporaries_of_a_live_writer_whose_pid_is_not_seen_here_are_kept(tmp_path):
    import subprocess
    import sys

    dead = _dead_pid()
    kept = [tmp_path / f".out.tmp-{dead}", tmp_path / f".stats.json.tmp-{dead}",
            tmp_path / f".out.old-{dead}"]
    kept[0].mkdir()
    kept[1].write_text("{")
    OutputFolder(tmp_path / "earlier", COMMAND).write(_fill({"en.txt": "being replaced\n"}))
    (tmp_path / "earlier").rename(kept[2])
    writer = subprocess.Popen([sys.executable, "-c", HOLDING, *map(str, kept)],
                              stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert writer.stdout.readline() == "holding\n"
        OutputFolder(tmp_path / "out", COMMAND).write(_fill({"en.txt": "x\n"}))
        OutputFile(tmp_path / "stats.json", COMMAND).write("{}\n")
        assert all(path.exists() for path in kept)
        assert (kept[2] / "en.txt").read_text() == "being replaced\n"
    finally:
        writer.kill()
        writer.communicate()
    OutputFolder(tmp_path / "out", COMMAND).write(_fill({"en.txt": "y\n"}))
    OutputFile(tmp_path / "stats.json", COMMAND).write("{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "stats.json"]


def test_writers_hold_their_temporaries_locks(tmp_path, monkeypatch):
    """...which is what keeps them from another writer's clean-up (the test above)."""
    import tapaco.core.files as files
    import tapaco.core.outputs as outputs
    from tapaco.core.scratch import held

    seen = []
    remove_listed, fsync = outputs._remove_listed, os.fsync

    def fill(folder: Path) -> None:
        seen.append((folder.name, held(folder)))
        (folder / "en.txt").write_text("x\n")

    def removing(folder: Path, listed: dict) -> None:
        seen.append((folder.name, held(folder)))
        remove_listed(folder, listed)

    def syncing(descriptor: int) -> None:
        seen.append(("file", held(Path(f"/proc/self/fd/{descriptor}").resolve())))
        fsync(descriptor)

    monkeypatch.setattr(outputs, "_remove_listed", removing)
    monkeypatch.setattr(files.os, "fsync", syncing)
    for _ in range(2):
        OutputFolder(tmp_path / "out", COMMAND).write(fill)
    files.write_file_atomically(tmp_path / "stats.json", "{}\n")
    pid = os.getpid()
    assert seen == [(f".out.tmp-{pid}", True), (f".out.tmp-{pid}", True),
                    (f".out.old-{pid}", True), ("file", True)]


def _killed_while_replacing(tmp_path: Path) -> tuple[Path, Path]:
    """An earlier output moved aside (`.out.old-PID`) by a run killed before the new one
    took its place."""
    out = tmp_path / "out"
    OutputFolder(out, COMMAND).write(_fill({"en.txt": "earlier\n"}))
    previous = tmp_path / f".out.old-{_dead_pid()}"
    out.rename(previous)
    return out, previous


def test_an_earlier_output_moved_aside_by_a_killed_run_is_put_back(tmp_path):
    out, previous = _killed_while_replacing(tmp_path)
    OutputFolder(out, COMMAND).write(_fill({"en.txt": "new\n"}))
    assert (out / "en.txt").read_text() == "new\n" and not previous.exists()
    out, previous = _killed_while_replacing(tmp_path / "b")
    (previous / "notes.txt").write_text("mine")  # a user's file in it: kept, with the folder
    (tmp_path / "b" / "out").mkdir()
    OutputFolder(out, COMMAND).write(_fill({"en.txt": "new\n"}))
    assert _listing(previous) == ["notes.txt"]


def test_an_output_folder_given_as_a_symbolic_link_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    _refused(OutputFolder(tmp_path / "link", COMMAND), "is a symbolic link")
