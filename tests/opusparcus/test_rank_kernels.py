"""The kernels `opusparcus rank` compiles ahead (opusparcus.rank.listed_kernels) are the ones
reading the release's forms and ranking, with the very argument types the run gives them (else
the list would compile a second version): the quick start's release (cesAlign over tokenised
documents), and an OpenSubtitles-like release as Moses bitexts and as raw documents (then
Moses-tokenised), each with candidates in every split; and those `opusparcus pairs` makes its
rows with, from the quick start's ranking."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import PROJECT, SAMPLE
from test_rank_forms import _movies, write_moses_form, write_raw_form

RANK = """
import json
from pathlib import Path
from opusparcus.rank import RankOptions, listed_kernels, pivot_sources, rank
from opusparcus.rank_kernels import ranking
opus, lang, options = Path({opus!r}), {lang!r}, RankOptions(workers=1)
rank(opus, lang, Path({out!r}), options)
kernels, _ = listed_kernels(opus, pivot_sources(opus, lang, ()), options, ranking())
print(json.dumps([[kernel.py_func.__qualname__, str(list(types)),
                   [str(list(called)) for called in kernel.signatures]]
                  for kernel, types in kernels]))
"""

# the forms' kernels (all: the marks pass that tells a cold cache; documents: their scan and
# cesAlign's scan, which keys plain ids; Moses columns: their ids, first occurrences;
# tokenised: the tokenizer and its prefix hashes), then nine that merge, score, rank and write
KERNELS = {"quick start": 1 + 2 + 9, "moses": 1 + 2 + 2 + 9, "raw": 1 + 2 + 2 + 9}

PAIRS = """
import json
from opusparcus import rank_kernels
from opusparcus.cli import main
main(["rank", "--opus-dir", {opus!r}, "--lang", "fr", "--out", {ranked!r}, "--workers", "1",
      "--quiet"])
main(["pairs", "--ranked", {ranked!r} + "/fr/train/fr-train.txt.bz2", "--negatives", "1",
      "--out", {out!r}])
print(json.dumps([[kernel.py_func.__qualname__, str(list(types)),
                   [str(list(called)) for called in kernel.signatures]]
                  for kernel, types in rank_kernels.pairing(negatives=True)]))
"""


def _run(code: str) -> list:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=PROJECT, env={**os.environ, "PYTHONPATH": str(PROJECT)},
                            timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def _called(opus: str, lang: str, out: str) -> list:
    return _run(RANK.format(opus=opus, lang=lang, out=out))


@pytest.mark.parametrize("form", list(KERNELS))
def test_rank_calls_each_listed_kernel_with_its_listed_types_only(tmp_path, form):
    if form == "quick start":
        found = _called(str(SAMPLE), "fr", str(tmp_path / "out"))
    else:
        write = write_moses_form if form == "moses" else write_raw_form
        found = _called(str(write(tmp_path / "opus", _movies())), "en", str(tmp_path / "out"))
    assert len(found) == KERNELS[form]
    for name, listed, called in found:
        assert called == [listed], name


def test_pairs_calls_each_listed_kernel_with_its_listed_types_only(tmp_path):
    found = _run(PAIRS.format(opus=str(SAMPLE), ranked=str(tmp_path / "ranked"),
                              out=str(tmp_path / "pairs")))
    assert len(found) == 2 + 6  # merging the vocabularies, then making the rows
    for name, listed, called in found:
        assert called == [listed], name
