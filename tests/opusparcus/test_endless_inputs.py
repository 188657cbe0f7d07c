"""A device or a pipe named where a file is read (`/dev/zero` has no line end and no end):
one line, exit code 2, and memory that stays small, never a read that grows without bound."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import PROJECT, without_compile_notice

from tapaco.core.annotation.pairs import Annotation, write_annotations
from tests.peak_memory import wait_with_small_peak

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                                reason="reads /dev/zero and /proc (Linux)")


@pytest.fixture
def files(tmp_path):
    pairs = tmp_path / "en.tsv"
    write_annotations(pairs, [Annotation(1, "en-N1", "Yes .", "Yeah .", [None, None], 0)])
    language = tmp_path / "en.txt"
    language.write_text("1\t2\tHello .\t\t\n1\t3\tHi .\t\t\n", encoding="utf-8")
    return {"pairs": str(pairs), "language": str(language), "out": str(tmp_path / "gem")}


@pytest.mark.parametrize(("arguments", "error"), [
    ("annotate --file /dev/zero --annotator 1", "/dev/zero: is not a regular file"),
    ("serve --file /dev/zero --port 0", "/dev/zero: is not a regular file"),
    ("serve --file {language} --labels /dev/zero --port 0", "/dev/zero: is not a regular file"),
    ("export-gem --ranked /dev/zero --annotations {pairs} --dev {pairs} --test {pairs} "
     "--out {out}", "/dev/zero: line 1: the first row has no id"),
])
def test_dev_zero_as_a_file_is_one_line_with_bounded_memory(files, arguments, error):
    command = [sys.executable, "-m", "opusparcus", *arguments.format(**files).split()]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, cwd=PROJECT)
    wait_with_small_peak(process)
    printed = without_compile_notice(process.stderr.read().decode())
    assert process.returncode == 2, printed
    assert printed.count("\n") == 1 and printed.startswith(f"opusparcus: error: {error}")
    assert not os.path.exists(files["out"])


def test_a_first_line_is_read_up_to_its_bound_and_cut_between_characters(tmp_path,
                                                                          monkeypatch):
    from tapaco.core import files

    monkeypatch.setattr(files, "FIRST_LINE_BYTES", 6)
    path = tmp_path / "long.txt"
    path.write_text("ab\tc€d\tef\n", encoding="utf-8")  # € is 3 bytes: the bound cuts it
    assert files.read_plain_text(path, "text", first_line_only=True) == "ab\tc"
    path.write_text("ab\tc\n", encoding="utf-8")
    assert files.read_plain_text(path, "text", first_line_only=True) == "ab\tc\n"
    path.write_bytes(b"ab\t\xe2\x82\n")  # a short line ending inside a character is bad input
    with pytest.raises(files.InputError, match="not UTF-8 text"):
        files.read_plain_text(path, "text", first_line_only=True)
