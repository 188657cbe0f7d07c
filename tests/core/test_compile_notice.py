"""The line that says a first run compiles the kernels: written once when a kernel is compiled
(numba's cache is cold), never when the kernels come from the cache, never with --quiet; by the
command line of both programs, so every command that compiles says it."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import PROJECT, SAMPLE

from tapaco.core.compile_notice import NOTICE

CALL_A_KERNEL = """
import numpy as np
from tapaco.core.compile_notice import say_when_kernels_compile
from tapaco.core.hashing import mixed
if {install}:
    say_when_kernels_compile()
mixed(np.uint64(1))
mixed(np.uint64(2))
"""


def _stderr(code: str, cache: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=PROJECT, env={**os.environ, "NUMBA_CACHE_DIR": cache},
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_the_notice_comes_once_on_a_cold_cache_and_not_from_a_warm_one(tmp_path):
    cold = str(tmp_path / "cold")
    assert _stderr(CALL_A_KERNEL.format(install=True), cold) == NOTICE + "\n"
    assert _stderr(CALL_A_KERNEL.format(install=True), cold) == ""
    assert _stderr(CALL_A_KERNEL.format(install=False), str(tmp_path / "other")) == ""


def _build(out: str, *options: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "tapaco", "build", "--opus-dir", str(SAMPLE),
                             "--out", out, "--min-sets", "1", *options], capture_output=True,
                            text=True, cwd=PROJECT, timeout=600)
    assert result.returncode == 0, result.stderr
    return result


def test_the_quick_start_says_it_compiles_only_while_it_does(tmp_path):
    first = _build(str(tmp_path / "first"))  # compiles, unless an earlier run has
    second = _build(str(tmp_path / "second"))
    assert NOTICE not in second.stderr
    assert first.stderr.replace(NOTICE + "\n", "").splitlines()[:-1] == \
        second.stderr.splitlines()[:-1]  # the rest is the summary (its last line: timings)
    assert _build(str(tmp_path / "quiet"), "--quiet").stderr == ""
    for name in ("en.txt", "es.txt", "fr.txt"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()


def _command(program: str, cache: str, *arguments: str) -> str:
    result = subprocess.run([sys.executable, "-m", program, *arguments], capture_output=True,
                            text=True, cwd=PROJECT, env={**os.environ, "NUMBA_CACHE_DIR": cache},
                            timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_every_command_of_both_programs_says_it_compiles(tmp_path):
    """`score` (neither build nor rank) compiles its kernels on a cold cache: the line comes
    from the command line of each program, once; not from a warm cache, not with --quiet; a
    command without kernels (`combine`) never writes it."""
    from tapaco.core.annotation.pairs import Annotation, write_annotations
    from tests.core.score.test_vectors_score import write_vectors

    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("The cat sits on the mat.\tA cat is sitting on a mat!\n", encoding="utf-8")
    score = ["score", "--pairs", str(pairs), "--columns", "1,2", "--model",
             str(write_vectors(tmp_path / "words.vec"))]
    cold = str(tmp_path / "cold")
    assert _command("tapaco", cold, *score, "--out", str(tmp_path / "1.tsv")).count(NOTICE) == 1
    assert NOTICE not in _command("opusparcus", cold, *score, "--out", str(tmp_path / "2.tsv"))
    other = str(tmp_path / "other")
    assert NOTICE in _command("opusparcus", other, *score, "--out", str(tmp_path / "3.tsv"))
    assert _command("tapaco", str(tmp_path / "quiet"), *score, "--quiet",
                    "--out", str(tmp_path / "4.tsv")) == ""
    annotations = tmp_path / "annotations.tsv"
    write_annotations(annotations, [Annotation(1, "fr-1", "Un chat.", "Le chat.", [4, 4], 2)])
    assert _command("opusparcus", str(tmp_path / "none"), "combine", "--annotations",
                    str(annotations), "--out", str(tmp_path / "combined.tsv")) == ""
