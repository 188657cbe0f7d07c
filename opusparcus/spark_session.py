"""`rank --engine spark`: the Spark session a ranking runs on, how many partitions its shuffles
get, and the shipping of this package to a cluster's workers.

- On a local master, the driver gets `--memory-limit` and the Python workers run this
  interpreter (unless `PYSPARK_PYTHON` says otherwise).
- On a cluster master, the modules a ranking runs are zipped and added to the session
  (`addPyFile`), so workers that do not have it installed (or have another version) run the
  driver's code; its dependencies must be installed where the workers' Python
  (`PYSPARK_PYTHON`, `spark.pyspark.python`) runs.
- Shuffles get a few partitions per core of the session, more for a large input
  (:func:`shuffle_partitions`), and adaptive query execution coalesces small ones: a small
  run on a cluster is not dominated by thousands of near-empty tasks.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import math
import os
import shutil
import sys
import warnings
import zipfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import regex

import opusparcus
import tapaco.core
from tapaco.core.errors import OptionError
from tapaco.core.scratch import scratch_folder

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Shuffle partitions per core: Spark's default, 200 whatever the size, makes each of the
# dozens of stages of a small ranking cost seconds.
SHUFFLES_PER_CORE = 4
INPUT_BYTES_PER_SHUFFLE = 32 << 20
CODE_ARCHIVE = "pivot-paraphrase-miner-code"
DONE = pa.schema([("done", pa.int64())])
NO_PYSPARK = "spark needs pyspark: pip install 'pivot-paraphrase-miner[spark]' (and Java 17)"


def check_available() -> None:
    """Refuse `--engine spark` before any work when pyspark or Java is missing."""
    if importlib.util.find_spec("pyspark") is None:
        raise OptionError("--engine", NO_PYSPARK)
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise OptionError("--engine", "spark needs Java 17 (no java on PATH, no JAVA_HOME)")


def spark_session(master: str, memory_limit: int, quiet: bool = False) -> SparkSession:
    """The Spark session to rank on (an active one is reused). On a local master, the driver
    gets `memory_limit` and Python workers run this interpreter. `quiet`: the JVM prints
    nothing."""
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                            FutureWarning)
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise OptionError("--engine", NO_PYSPARK) from None
    builder = (SparkSession.builder.master(master).appName("opusparcus rank")
               .config("spark.ui.showConsoleProgress", "false"))
    threads = local_threads(master)
    if threads:
        builder = (builder.config("spark.driver.memory", f"{max(memory_limit >> 20, 1024)}m")
                   .config("spark.pyspark.python", sys.executable)
                   .config("spark.pyspark.driver.python", sys.executable)
                   .config("spark.ui.enabled", "false"))
    builder = (builder.config("spark.sql.adaptive.enabled", "true")
               .config("spark.sql.adaptive.coalescePartitions.enabled", "true"))
    try:
        with (workers_run_this_python() if threads else nullcontext(),
              output_of_children_discarded() if quiet else nullcontext()):
            session = builder.config("spark.sql.execution.arrow.pyspark.enabled",
                                     "true").getOrCreate()
    except Exception as error:  # pyspark raises plain exceptions when Java or the master fails
        hint = "" if threads else " (is the master running and reachable from here?)"
        raise OptionError("--spark-master", f"cannot start Spark on {master}: "
                          f"{start_failure(error)}{hint}") from None
    session.sparkContext.setLogLevel("ERROR")
    return session


def start_failure(error: Exception) -> str:
    """What went wrong, in one line: a Java exception's own message where py4j only says
    which call failed."""
    java = getattr(error, "java_exception", None)
    text = str(java) if java is not None else str(error)
    return (text.strip().splitlines() or [type(error).__name__])[0]


@contextmanager
def workers_run_this_python() -> Iterator[None]:
    """While a session starts: PYSPARK_PYTHON and PYSPARK_DRIVER_PYTHON name this interpreter,
    unless the user set them. PySpark starts its Python workers with PYSPARK_PYTHON (default:
    `python3` on PATH), not with the `spark.pyspark.python` setting, so a run through a virtual
    environment's python by its path, the environment not activated, would start workers
    without this package."""
    added = [name for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
             if name not in os.environ]
    for name in added:
        os.environ[name] = sys.executable
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@contextmanager
def output_of_children_discarded() -> Iterator[None]:
    """Processes started inside (the JVM, through spark-submit) write their stdout and stderr
    to the null device for as long as they live: the JVM warns there before any log level can
    be set, and some of its lines (incubator modules) are no log messages."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in saved:
            os.dup2(null, fd)
        yield
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def local_threads(master: str) -> int:
    """The threads of a local master (`local`, `local[4]`, `local[*]`, `local[4,2]`); 0 for a
    cluster."""
    match = regex.fullmatch(r"local(?:\[(\*|\d+)(?:,\d+)?\])?", master.strip())
    if not match:
        return 0
    return os.cpu_count() or 1 if match[1] == "*" else int(match[1] or 1)


def shuffle_partitions(session: SparkSession, input_bytes: int) -> int:
    """Set and return the shuffle partitions of a ranking: `SHUFFLES_PER_CORE` per core of the
    session, or one per `INPUT_BYTES_PER_SHUFFLE` of input when that is more."""
    cores = max(session.sparkContext.defaultParallelism, 1)
    partitions = max(SHUFFLES_PER_CORE * cores, math.ceil(input_bytes / INPUT_BYTES_PER_SHUFFLE))
    session.conf.set("spark.sql.shuffle.partitions", str(partitions))
    return partitions


def run_tasks(session: SparkSession, count: int, task: Callable[[int], dict],
              schema: pa.Schema = DONE) -> list:
    """`task(place)` for each place below `count` in a Spark task of its own; their rows."""
    from pyspark.sql.pandas.types import from_arrow_schema

    if not count:
        return []

    def tasks(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for place in batch.column(0).to_pylist():
                yield pa.RecordBatch.from_pylist([task(place) or {"done": place}], schema)

    return session.range(0, count, 1, count).mapInArrow(tasks, from_arrow_schema(schema)
                                                        ).collect()


def ship_code(session: SparkSession) -> str | None:
    """On a cluster master: zip the modules a ranking runs (opusparcus and tapaco.core) and add
    them to the session once, so every task imports the driver's code; the archive's name
    holds its digest. A local master runs this interpreter's installation: nothing to ship
    (None)."""
    context = session.sparkContext
    if local_threads(context.master):
        return None
    opusparcus_folder = Path(opusparcus.__file__).parent
    core_folder = Path(tapaco.core.__file__).parent
    modules = {module.relative_to(opusparcus_folder.parent).as_posix(): module.read_bytes()
               for module in sorted([*opusparcus_folder.rglob("*.py"),
                                     core_folder.parent / "__init__.py",
                                     *core_folder.rglob("*.py")])}
    digest = hashlib.sha256()
    for module, source in modules.items():
        digest.update(module.encode())
        digest.update(source)
    name = f"{CODE_ARCHIVE}-{digest.hexdigest()[:16]}.zip"
    if (context.applicationId, name) in _shipped:
        return name
    archive = _code_folder() / name
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as packed:
        for module, source in modules.items():
            packed.writestr(module, source)
    context.addPyFile(str(archive))
    _shipped.add((context.applicationId, name))
    return name


_shipped: set[tuple[str, str]] = set()


@cache
def _code_folder() -> Path:
    """A folder for the shipped archives that lives as long as this process (the driver serves
    the files from it to executors that start later)."""
    lifetime = ExitStack()
    atexit.register(lifetime.close)
    return lifetime.enter_context(scratch_folder("opusparcus-code-"))
