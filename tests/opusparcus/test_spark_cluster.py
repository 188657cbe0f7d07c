"""`rank --engine spark` on a real Spark standalone cluster: a master and two workers (one core
each) on 127.0.0.1, started here from the pyspark package's own `spark-class`. The workers'
Python cannot import this package (an import hook hides every installed copy), so the run
also shows the driver ships its code; and no file of the input is opened by the driver (this
process): every bitext is read by the executors. The release is byte-identical to the local
engine's, on the real OPUS sample and on a release with heavy pivots (wide pivots, the
fan-out cap)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from conftest import PROJECT
from test_rank_languages import _files, _release
from test_spark_engine import CAPPED_TARGETS, _frequent_pivots

from opusparcus.cli import main
from opusparcus.rank import RankOptions, rank

sys.path.insert(0, str(PROJECT / "scripts"))
from spark_cluster import standalone_cluster  # noqa: E402

pyspark = pytest.importorskip("pyspark", reason="the Spark engine needs the 'spark' extra")
if shutil.which("java") is None:
    pytest.skip("a Spark cluster needs Java 17 (no java on PATH)", allow_module_level=True)

# Spark starts a JVM and ranks whole releases: these tests get more time than the suite's
# per-test limit (pyproject.toml).
pytestmark = pytest.mark.timeout(900)
HIDDEN = ("opusparcus", "tapaco")
# The workers' Python: this interpreter, with a finder ahead of all others that finds this
# package's modules only in a zip added to the path (what the driver ships), never installed.
WORKER_PYTHON = f'''
import importlib.machinery, runpy, sys

class ShippedOnly:
    def find_spec(self, name, path=None, target=None):
        if name not in {HIDDEN!r}:
            return None
        zips = [entry for entry in sys.path if entry.endswith(".zip")]
        spec = importlib.machinery.PathFinder.find_spec(name, zips)
        if spec is None:
            raise ModuleNotFoundError(f"no module named {{name!r}} (not installed here)")
        return spec

sys.meta_path.insert(0, ShippedOnly())
if sys.argv[1] == "-c":
    code = sys.argv[2]
    sys.argv = ["-c", *sys.argv[3:]]
    exec(code)
elif sys.argv[1] == "-m":
    module = sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
'''


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """`spark://127.0.0.1:PORT` with two workers of one core and 2 GiB each, whose Python
    cannot import this package; stopped after."""
    folder = tmp_path_factory.mktemp("cluster")
    python = folder / "worker-python"
    (folder / "worker_python.py").write_text(WORKER_PYTHON)
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {folder / 'worker_python.py'} \"$@\"\n")
    python.chmod(0o755)
    with standalone_cluster(folder, workers=2, cores=1, memory="2g") as running:
        _stop_active_session()
        previous = os.environ.get("PYSPARK_PYTHON")
        os.environ["PYSPARK_PYTHON"] = str(python)
        try:
            yield running.master
        finally:
            _stop_active_session()
            os.environ.pop("PYSPARK_PYTHON")
            if previous is not None:
                os.environ["PYSPARK_PYTHON"] = previous


def _stop_active_session() -> None:
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


class OpenedFiles:
    """Paths under `root` this process opens while watched (an audit hook sees every open,
    of Python's files, zip members and os.open alike)."""

    watching: list[tuple[Path, list[str]]] = []

    @classmethod
    def hook(cls, event: str, arguments: tuple) -> None:
        if event == "open" and cls.watching and isinstance(arguments[0], str | bytes | Path):
            path = os.path.realpath(os.fsdecode(arguments[0]))
            for root, opened in cls.watching:
                if path.startswith(f"{root}{os.sep}"):
                    opened.append(path)


sys.addaudithook(OpenedFiles.hook)


def _same_on_the_cluster(master: str, release: Path, lang: str, tmp_path: Path,
                         **options) -> dict:
    local = rank(release, lang, tmp_path / "local", RankOptions(workers=1, **options))
    opened: list[str] = []
    OpenedFiles.watching.append((release.resolve(), opened))
    try:
        spark = rank(release, lang, tmp_path / "cluster",
                     RankOptions(workers=1, engine="spark", spark_master=master,
                                 temp_dir=tmp_path, quiet=True, **options))
    finally:
        OpenedFiles.watching.clear()
    assert opened == [], "the driver opened input files"
    assert spark == local
    assert _files(tmp_path / "cluster" / lang) == _files(tmp_path / "local" / lang)
    return local


def test_the_real_sample_ranks_the_same_on_a_cluster_whose_executors_read_it(
        cluster, shared_data, tmp_path):
    stats = _same_on_the_cluster(cluster, shared_data / "opus-rf", "en", tmp_path,
                                 formats=("tsv", "parquet"))
    assert stats["pairs_written"]["train"] > 0


def test_heavy_pivots_rank_the_same_on_a_cluster(cluster, tmp_path):
    release = _frequent_pivots(tmp_path / "opus")
    stats = _same_on_the_cluster(cluster, release, "en", tmp_path, score="joint-pmi",
                                 max_pivot_fanout=CAPPED_TARGETS - 10)
    assert stats["splits"]["train"]["fanout_skips"]["pivots"] == 2


def test_relative_folders_rank_on_a_cluster(cluster, tmp_path, monkeypatch):
    """`--opus-dir` and `--temp-dir` relative to the driver's working folder, which is not the
    executors': paths reach them absolute."""
    _release(tmp_path / "opus")
    (tmp_path / "temp").mkdir()
    monkeypatch.chdir(tmp_path)
    rank(Path("opus"), "en", Path("local"), RankOptions(workers=1))
    assert main(["rank", "--opus-dir", "opus", "--lang", "en", "--out", "cluster", "--engine",
                 "spark", "--spark-master", cluster, "--temp-dir", "temp", "--workers", "1",
                 "--quiet"]) == 0
    assert _files(tmp_path / "cluster" / "en") == _files(tmp_path / "local" / "en")
    assert list((tmp_path / "temp").iterdir()) == []


def test_the_watch_sees_what_the_local_engine_opens(shared_data, tmp_path):
    """The audit hook does see a reading of the input: the test above could fail."""
    release = shared_data / "opus-rf"
    opened: list[str] = []
    OpenedFiles.watching.append((release.resolve(), opened))
    try:
        rank(release, "en", tmp_path / "local", RankOptions(workers=1))
    finally:
        OpenedFiles.watching.clear()
    assert any(path.endswith(".zip") or ".xml" in path for path in opened)
