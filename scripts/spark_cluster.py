#!/usr/bin/env python3
"""A Spark standalone cluster on 127.0.0.1 for tests and benchmarks: a master and N workers,
started from the pyspark package's own `spark-class` (Java 17 on PATH), REST server off.

    with standalone_cluster(folder, workers=2, cores=1, memory="2g") as cluster:
        ... --engine spark --spark-master {cluster.master} ...

`cluster.pids()` lists the processes of the workers (their executors and Python workers
included), for measuring their memory. Run as a script, it starts one and waits: `python
scripts/spark_cluster.py --workers 2` prints the master URL and stops the cluster on Ctrl-C or
`kill`.

The master and worker JVMs end with the process that started them, even one killed by SIGKILL
(Linux: the kernel sends them SIGTERM when the thread that started them ends, so start the
cluster from a thread that lives as long as it): `spark-class` execs the JVM in the process
started here, which keeps that request.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tapaco.core.memory import format_size, parse_size
from tapaco.core.options import Parser, integer

START_SECONDS = 120
# A worker smaller than an executor (Spark's default, 1G) would never run one: every job waits.
MIN_MEMORY = 1 << 30
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@dataclass
class Cluster:
    master: str
    ui_port: int
    processes: list[subprocess.Popen]

    def alive_workers(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/",
                                        timeout=2) as page:
                state = json.load(page)
        except (OSError, ValueError):  # not listening yet, or a page not yet whole
            return 0
        return sum(worker["state"] == "ALIVE" for worker in state.get("workers", []))

    def pids(self) -> list[int]:
        """The cluster's processes and all their descendants."""
        found = [process.pid for process in self.processes]
        children = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        for pid in found:
            found.extend(child for child in children.get(pid, []) if child not in found)
        return found


def spark_home() -> Path:
    try:
        import pyspark
    except ImportError:
        raise RuntimeError("a Spark cluster needs pyspark: pip install "
                           "'pivot-paraphrase-miner[spark]' (and Java 17)") from None

    return Path(pyspark.__file__).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _end_with_parent(parent: int) -> Callable[[], None]:
    """What a child runs before exec to be sent SIGTERM (a JVM's orderly exit: a worker stops
    its executors) when `parent` dies; it ends at once if `parent` already has."""

    def request() -> None:
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:
            os._exit(1)

    return request


def memory(value: str) -> str:
    """`--memory`: a size of at least :data:`MIN_MEMORY`, in Spark's form (megabytes)."""
    try:
        size = parse_size(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if size < MIN_MEMORY:
        raise argparse.ArgumentTypeError(
            f"must be at least {format_size(MIN_MEMORY)} (an executor takes 1G), got {value!r}")
    return f"{size >> 20}m"


@contextmanager
def standalone_cluster(folder: Path, workers: int = 2, cores: int = 1,
                       memory: str = "2g") -> Iterator[Cluster]:
    """A running cluster whose logs and work folders are in `folder`; stopped on leaving."""
    folder.mkdir(parents=True, exist_ok=True)
    home = spark_home()
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_HOME": str(home),
                   "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
                   "SPARK_LOG_DIR": str(folder), "SPARK_WORKER_DIR": str(folder / "work")}
    port, ui_port = free_port(), free_port()
    spark_class = str(home / "bin" / "spark-class")
    master = f"spark://127.0.0.1:{port}"
    commands = [[spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                 "--port", str(port), "--webui-port", str(ui_port)]]
    commands += [[spark_class, "org.apache.spark.deploy.worker.Worker", master, "--host",
                  "127.0.0.1", "--cores", str(cores), "--memory", memory, "--webui-port", "0",
                  "--work-dir", str(folder / "work")]] * workers
    with open(folder / "cluster.log", "wb") as log:
        cluster = Cluster(master, ui_port, [])
        try:
            for command in commands:
                cluster.processes.append(subprocess.Popen(
                    command, env=environment, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=_end_with_parent(os.getpid())))
            deadline = time.monotonic() + START_SECONDS
            while cluster.alive_workers() < workers:
                if time.monotonic() > deadline or any(
                        process.poll() is not None for process in cluster.processes):
                    raise RuntimeError(f"the cluster did not start; see {folder}/cluster.log\n"
                                       + (folder / "cluster.log").read_text()[-2000:])
                time.sleep(1)
            yield cluster
        finally:
            for process in cluster.processes:
                process.terminate()
            for process in cluster.processes:
                process.wait(timeout=60)


def main() -> None:
    parser = Parser(prog="spark_cluster.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=Path("spark-cluster"))
    parser.add_argument("--workers", type=integer(1), default=2)
    parser.add_argument("--cores", type=integer(1), default=1)
    parser.add_argument("--memory", type=memory, default="2g", help="per worker, such as 2g")
    args = parser.parse_args()
    # stop the cluster on Ctrl-C or `kill`, also when started in the background (where the
    # shell left SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with standalone_cluster(args.folder, args.workers, args.cores, args.memory) as cluster:
            print(cluster.master, flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    except (RuntimeError, OSError) as error:
        sys.exit(f"spark_cluster.py: {str(error).splitlines()[0]}")


if __name__ == "__main__":
    main()
