"""`scripts/spark_cluster.py` run as a script: a bad option is one line (exit 2), and the
cluster's JVMs end with the script even when it is killed by SIGKILL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PROJECT

SCRIPT = PROJECT / "scripts" / "spark_cluster.py"


@pytest.mark.parametrize(("arguments", "message"), [
    (["--memory", "abc"], "argument --memory: expected a size such as 8G"),
    (["--memory", "512m"], "argument --memory: must be at least 1G"),
    (["--workers", "0"], "argument --workers: must be at least 1"),
    (["--cores", "x"], "argument --cores: expected a whole number")])
def test_a_bad_option_is_one_line(arguments, message, tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--folder", str(tmp_path / "cluster"),
                          *arguments], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr.count("\n") == 1 and message in run.stderr, run.stderr
    assert not (tmp_path / "cluster").exists()


def _children(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def _ended(pid: int) -> bool:
    """Gone, or a zombie (its new parent may not reap it at once)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_clusters_jvms_end_with_the_script_killed_by_sigkill(tmp_path):
    pytest.importorskip("pyspark", reason="a Spark cluster needs pyspark")
    if shutil.which("java") is None:
        pytest.skip("a Spark cluster needs Java 17 (no java on PATH)")
    script = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--folder", str(tmp_path / "cluster"), "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        master = script.stdout.readline()
        assert master.startswith("spark://"), script.stderr.read()
        jvms = _children(script.pid)
        assert len(jvms) == 2 and all(
            os.readlink(f"/proc/{pid}/exe").endswith("/java") for pid in jvms), (
            "spark-class execs the master's and the worker's JVM in the processes started")
    finally:
        script.kill()
        script.communicate()
    deadline = time.monotonic() + 15
    while not all(map(_ended, jvms)) and time.monotonic() < deadline:
        time.sleep(0.1)
    outlived = [pid for pid in jvms if not _ended(pid)]
    for pid in outlived:
        os.kill(pid, signal.SIGKILL)
    assert outlived == [], "JVMs outlived the script"
