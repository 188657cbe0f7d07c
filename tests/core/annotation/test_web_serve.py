"""`opusparcus serve`: what --file holds, the set file it writes once, the command end to end."""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import pytest
from conftest import PROJECT

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the 'web' extra (uvicorn) is not installed")

from opusparcus.cli import main  # noqa: E402
from tapaco.core.annotation.pairs import Annotation, read_annotations, write_annotations  # noqa: E402
from tapaco.core.annotation.sets import read_set_annotations  # noqa: E402
from tapaco.core.annotation.web.addresses import machine_addresses  # noqa: E402
from tapaco.core.annotation.web.serve import (  # noqa: E402
    ServeOptions,
    links,
    listen,
    open_task,
    reachable_host,
)
from tapaco.core.annotation.web.tasks import PairTask, SetTask  # noqa: E402
from tapaco.core.errors import InputError  # noqa: E402

LANGUAGE_FILE = ("1\t10\tIch bin müde.\t\t\n1\t11\tIch bin erschöpft.\t\t\n"
                 "4\t20\tGeh!\t\t\n4\t21\tGehen Sie!\t\t\n4\t22\tGeht!\t\t\n"
                 "9\t30\tEr ist hier.\t\t\n9\t31\tEr ist da.\t\t\n")


@pytest.fixture
def pairs(tmp_path):
    path = tmp_path / "fr.tsv"
    write_annotations(path, [Annotation(n, f"fr-N{n}", f"Phrase {n} .", f"Texte {n} .",
                                        [None, None], 0) for n in (1, 2, 3)])
    return path


def test_an_annotation_file_is_served_as_pairs(pairs):
    task = open_task(ServeOptions(pairs))
    assert isinstance(task, PairTask) and [u.id for u in task.units()] == [
        "fr-N1", "fr-N2", "fr-N3"]


def test_a_language_file_gives_a_set_file_written_once(tmp_path):
    language_file = tmp_path / "de.txt"
    language_file.write_text(LANGUAGE_FILE, encoding="utf-8")
    task = open_task(ServeOptions(language_file, sets=2, seed=0))
    labels = tmp_path / "de-sets.tsv"
    assert isinstance(task, SetTask) and task.path == labels and task.language() == "de"
    members = read_set_annotations(labels)
    assert len({m.set_id for m in members}) == 2
    by_set = {}
    for line in LANGUAGE_FILE.splitlines():
        set_id, sentence_id, text = line.split("\t")[:3]
        by_set.setdefault(int(set_id), []).append((sentence_id, text))
    for set_id in {m.set_id for m in members}:
        assert [(m.sentence_id, m.sentence) for m in members if m.set_id == set_id] == \
            by_set[set_id]
    task.save(task.units()[0], 1, set())  # labels made, then the server restarts
    before = labels.read_bytes()
    again = open_task(ServeOptions(language_file, sets=3, seed=9))
    assert again.path == labels and labels.read_bytes() == before
    assert language_file.read_text(encoding="utf-8") == LANGUAGE_FILE
    assert isinstance(open_task(ServeOptions(labels)), SetTask)


def test_a_foreign_labels_file_is_never_replaced(tmp_path):
    language_file = tmp_path / "de.txt"
    language_file.write_text(LANGUAGE_FILE, encoding="utf-8")
    notes = tmp_path / "notes.tsv"
    notes.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(InputError, match="was not written by opusparcus serve"):
        open_task(ServeOptions(language_file, labels=notes))
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    with pytest.raises(InputError, match="input"):
        open_task(ServeOptions(language_file, labels=language_file))


@pytest.mark.parametrize("text, message", [
    ("", "neither an annotation file"),
    ("hello world\n", "neither an annotation file"),
    ("rank\tid\tsentence1\tsentence2\tannotator1\tannotator2\n", "holds no pair"),
    ("rank\tid\tsentence1\tsentence2\tannotator1\tannotator2\n1\tfr-N1\ta\tb\t9\t\n",
     "unknown label"),
])
def test_files_that_cannot_be_served(tmp_path, text, message):
    path = tmp_path / "input.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        open_task(ServeOptions(path))


def test_a_busy_port_is_a_clear_error():
    taken = listen("127.0.0.1", 0)
    try:
        with pytest.raises(InputError, match="cannot listen there"):
            listen("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_links_name_the_host_and_each_token():
    assert links("127.0.0.1", 8000, {1: "abc", 2: "def"}) == {
        1: "http://127.0.0.1:8000/a/abc/", 2: "http://127.0.0.1:8000/a/def/"}
    assert links("::1", 9, {1: "t"}) == {1: "http://[::1]:9/a/t/"}


def test_a_server_on_every_address_links_to_an_address_of_the_machine():
    addresses = ["192.0.2.7", "198.51.100.1", "fd00::7"]
    said = io.StringIO()
    assert reachable_host("0.0.0.0", addresses, said) == "192.0.2.7"
    assert "the links use 192.0.2.7 (or 198.51.100.1);" in said.getvalue()
    said = io.StringIO()
    assert reachable_host("::", addresses, said) == "fd00::7"
    assert "the links use fd00::7 (or 192.0.2.7, 198.51.100.1);" in said.getvalue()
    said = io.StringIO()
    assert reachable_host("0.0.0.0", ["fd00::7"], said) == socket.gethostname()
    assert "none but loopback" in said.getvalue()
    assert reachable_host("192.0.2.9", addresses, said) == "192.0.2.9"
    assert reachable_host("localhost", addresses, said) == "localhost"


def _global_addresses() -> set[str]:
    """The machine's global addresses as `ip -o addr` lists them."""
    if not shutil.which("ip"):
        pytest.skip("needs the ip command to list the machine's addresses")
    listed = subprocess.run(["ip", "-o", "addr", "show"], capture_output=True, text=True,
                            check=True).stdout
    found = set()
    for fields in (line.split() for line in listed.splitlines()):
        family = next((f for f in ("inet", "inet6") if f in fields), None)
        if family and fields[fields.index("scope") + 1] == "global":
            found.add(fields[fields.index(family) + 1].split("/")[0])
    return found


def test_the_machine_addresses_are_its_global_ones():
    assert set(machine_addresses()) == _global_addresses()


def test_command_errors_are_one_line(tmp_path, capsys, monkeypatch):
    assert main(["serve", "--file", str(tmp_path / "missing.tsv"), "--port", "0"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "missing.tsv" in error
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve", "--file", str(tmp_path / "missing.tsv")]) == 2
    error = capsys.readouterr().err
    assert "pip install 'pivot-paraphrase-miner[web]'" in error and error.count("\n") == 1


# in a mount namespace of its own (and a user namespace: no root needed), a 1 MiB file system
# at $1 holding a copy of $2, made read-only or full by the setup, for the command after them
_OWN_FILE_SYSTEM = """set -e
mount -t tmpfs -o size=1m tmpfs "$1"
cp "$2" "$1/"
{setup}
shift 2
exec "$@"
"""
READ_ONLY = 'mount -o remount,ro "$1"'
FULL = 'head -c 2000000 /dev/zero > "$1/filler" 2>/dev/null || true'


def _on_own_file_system(tmp_path, setup, copied, arguments):
    """(exit code, stderr) of `opusparcus serve` run with ARGUMENTS (MNT: the file system's
    folder) on a file system of its own, ended after 30 s."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    probe = subprocess.run(["unshare", "-rm", "mount", "-t", "tmpfs", "tmpfs", str(mount)],
                           capture_output=True) if shutil.which("unshare") else None
    if probe is None or probe.returncode != 0:
        pytest.skip("needs unshare and user namespaces to mount a file system of its own")
    command = [sys.executable, "-m", "opusparcus", "serve", "--port", "0",
               *(argument.replace("MNT", str(mount)) for argument in arguments)]
    process = subprocess.Popen(["unshare", "-rm", "sh", "-c", _OWN_FILE_SYSTEM.format(
        setup=setup), "sh", str(mount), str(copied), *command], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        _, error = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, error = process.communicate()
    return process.returncode, error


@pytest.mark.parametrize(("setup", "error"), [
    (READ_ONLY, "cannot write {}: read-only file system; choose another folder"),
    (FULL, "no space left on {}; free some space there or choose another folder"),
])
def test_a_file_whose_answers_cannot_be_saved_is_refused_before_serving(tmp_path, pairs, setup,
                                                                          error):
    code, printed = _on_own_file_system(tmp_path, setup, pairs, ["--file", "MNT/fr.tsv"])
    assert code == 2, f"serve started on a file it cannot save answers in: {printed}"
    assert printed == f"opusparcus: error: {error.format(tmp_path / 'mnt')}\n"


def test_set_labels_that_cannot_be_written_are_refused_in_one_line(tmp_path):
    language_file = tmp_path / "de.txt"
    language_file.write_text(LANGUAGE_FILE, encoding="utf-8")
    code, printed = _on_own_file_system(tmp_path, FULL, language_file, [
        "--file", str(language_file), "--labels", "MNT/de-sets.tsv"])
    assert (code, printed) == (2, f"opusparcus: error: no space left on {tmp_path / 'mnt'}; "
                                  "free some space there or choose another folder\n")


def _start(arguments, cwd, program="opusparcus"):
    process = subprocess.Popen([sys.executable, "-m", program, "serve", *arguments],
                               cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(PROJECT)})
    return process, [process.stdout.readline().strip() for _ in range(2)]


def _post(link, path, body, origin):
    request = urllib.request.Request(link + path, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Origin": origin})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_command_serves_until_interrupted(pairs):
    process, lines = _start(["--file", str(pairs), "--port", "0"], pairs.parent)
    try:
        assert [line.split(": ")[0] for line in lines] == ["annotator 1", "annotator 2"]
        first, second = (line.split(": ", 1)[1] for line in lines)
        assert first.startswith("http://127.0.0.1:") and first != second
        origin = first.split("/a/")[0]
        with urllib.request.urlopen(first + "api/info", timeout=10) as response:
            assert json.loads(response.read())["progress"]["total"] == 3
        _post(first, "api/answer", {"unit": "fr-N2", "answer": "3"}, origin)
        _post(second, "api/answer", {"unit": "fr-N2", "answer": "trash"}, origin)
        with pytest.raises(urllib.error.HTTPError) as refused:
            _post(first, "api/answer", {"unit": "fr-N1", "answer": "3"}, "http://evil.example")
        assert refused.value.code == 403
        assert [a.labels for a in read_annotations(pairs)] == [
            [None, None], [3, 0], [None, None]]
    finally:
        process.terminate()
        _, error = process.communicate(timeout=20)
    assert "serving pairs of" in error and "warning" not in error


def test_another_host_than_loopback_warns_and_links_to_an_address_others_can_open(pairs):
    process, lines = _start(["--file", str(pairs), "--port", "0", "--host", "0.0.0.0"],
                            pairs.parent)
    process.terminate()
    _, error = process.communicate(timeout=20)
    assert "warning: serving on 0.0.0.0" in error
    ipv4 = {address for address in _global_addresses() if ":" not in address}
    hosts = {urllib.parse.urlsplit(line.split(": ", 1)[1]).hostname for line in lines}
    assert len(hosts) == 1 and "localhost" not in hosts
    assert hosts <= ipv4 if ipv4 else hosts == {socket.gethostname()}


def test_set_labels_of_a_build_go_beside_its_folder_so_the_next_build_accepts_it(tmp_path):
    from conftest import SAMPLE

    from tapaco.cli import main as tapaco_main

    out = tmp_path / "out"
    build = ["build", "--opus-dir", str(SAMPLE), "--out", str(out), "--min-sets", "1",
             "--quiet"]
    assert tapaco_main(build) == 0
    task = open_task(ServeOptions(out / "fr.txt", sets=2))
    assert task.path == tmp_path / "out-fr-sets.tsv" and task.path.is_file()
    assert tapaco_main(build) == 0  # OUT still holds only the build's own files


def test_tapaco_serves_its_own_sets_on_the_same_page(tmp_path, capsys):
    from conftest import SAMPLE

    from tapaco.cli import main as tapaco_main

    out = tmp_path / "out"
    assert tapaco_main(["build", "--opus-dir", str(SAMPLE), "--out", str(out), "--min-sets", "1",
                        "--quiet"]) == 0
    notes = tmp_path / "notes.tsv"
    notes.write_text("my notes\n", encoding="utf-8")
    assert tapaco_main(["serve", "--file", str(out / "fr.txt"), "--labels", str(notes)]) == 2
    assert "was not written by tapaco serve" in capsys.readouterr().err
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    process, lines = _start(["--file", str(out / "fr.txt"), "--sets", "2", "--port", "0"],
                            tmp_path, program="tapaco")
    try:
        link = lines[0].split(": ", 1)[1]
        with urllib.request.urlopen(link + "api/info", timeout=10) as response:
            assert json.loads(response.read())["progress"]["total"] == 2
    finally:
        process.terminate()
        _, error = process.communicate(timeout=20)
    assert f"serving sets of {tmp_path / 'out-fr-sets.tsv'}" in error
