"""`rank --engine spark` on Spark `local[2]` writes the same bytes as the local engine: on the
real OPUS sample, on a release with frequent pivots (wide pivots, the fan-out cap), for
every scoring scheme and for several languages in one run."""

from __future__ import annotations

import builtins
import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PROJECT, write_moses
from test_rank_languages import _files, _release

from opusparcus import spark_session
from opusparcus.rank import RankOptions, rank, rank_languages
from tapaco.core.errors import OptionError

pytest.importorskip("pyspark", reason="the Spark engine needs the 'spark' extra (pyspark)")
if shutil.which("java") is None:
    pytest.skip("the Spark engine needs Java 17 (no java on PATH)", allow_module_level=True)

# Spark starts a JVM and ranks whole releases: these tests get more time than the suite's
# per-test limit (pyproject.toml).
pytestmark = pytest.mark.timeout(900)
SPARK = {"engine": "spark", "spark_master": "local[2]"}
HUB_TARGETS = 192  # a pivot with hundreds of targets, paired in one task
CAPPED_TARGETS = 256


def _frequent_pivots(root: Path, seed: int = 5) -> Path:
    """en-fr and en-de where "Oui ." / "Ja ." are the translation of many English sentences
    (a pivot with hundreds of targets, another over the fan-out cap), over years of every split."""
    rng = random.Random(seed)
    answers = [f"Yes {n} ." for n in range(HUB_TARGETS)]
    crowd = [f"Sure thing number {n} ." for n in range(CAPPED_TARGETS)]
    small = [(f"Thanks {n} .", f"Merci {n % 7} .", f"Danke {n % 5} .") for n in range(40)]
    rows: dict[str, list] = {"de-en": [], "en-fr": []}
    for movie in range(1, 61):
        year = 1990 + movie % 20
        lines = ([(rng.choice(answers), "Oui .", "Ja .") for _ in range(30)]
                 + [(rng.choice(crowd), "Bien sûr .", "Klar .") for _ in range(30)]
                 + [rng.choice(small) for _ in range(30)])
        for number, (en, fr, de) in enumerate(lines, 1):
            doc = f"{year}/{movie}/1.xml.gz"
            rows["en-fr"].append((f"en/{doc}", f"fr/{doc}", str(number), str(number), en, fr))
            rows["de-en"].append((f"de/{doc}", f"en/{doc}", str(number), str(number), de, en))
    for pair, pair_rows in rows.items():
        write_moses(root, pair, pair_rows, "OpenSubtitles", zipped=True)
    return root


def _same_output(root: Path, tmp_path: Path, lang: str, **options) -> dict:
    local = rank(root, lang, tmp_path / "local", RankOptions(workers=1, **options))
    spark = rank(root, lang, tmp_path / "spark", RankOptions(workers=1, **options, **SPARK))
    assert spark == local
    assert _files(tmp_path / "spark" / lang) == _files(tmp_path / "local" / lang)
    return local


def test_real_release_ranks_the_same_on_spark(shared_data, tmp_path):
    """...with the same Parquet copies and dataset card too."""
    stats = _same_output(shared_data / "opus-rf", tmp_path, "en", formats=("tsv", "parquet"))
    assert stats["pairs_written"]["train"] > 0
    assert (tmp_path / "spark/en/data/train.parquet").is_file()


@pytest.mark.parametrize("scheme", ["summed-pmi", "joint-pmi", "conditional"])
def test_frequent_pivots_rank_the_same_on_spark(scheme, tmp_path):
    root = _frequent_pivots(tmp_path / "opus")
    stats = _same_output(root, tmp_path, "en", score=scheme,
                         max_pivot_fanout=CAPPED_TARGETS - 10)
    train = stats["splits"]["train"]
    assert train["fanout_skips"]["pivots"] == 2, "Bien sûr / Klar are over the cap"
    assert stats["pairs_written"]["train"] > HUB_TARGETS * (HUB_TARGETS - 1) // 2 // 2


def test_several_languages_on_spark_equal_separate_local_runs(tmp_path):
    """...and the Parquet intermediates under --temp-dir are gone afterwards."""
    root = _release(tmp_path / "opus")
    temp = tmp_path / "temp"
    temp.mkdir()
    together = rank_languages(root, ("de", "en", "fr"), tmp_path / "spark",
                              RankOptions(workers=2, temp_dir=temp, **SPARK))
    assert list(temp.iterdir()) == []
    for lang in ("de", "en", "fr"):
        assert together[lang] == rank(root, lang, tmp_path / f"local-{lang}",
                                      RankOptions(workers=1))
        assert _files(tmp_path / "spark" / lang) == _files(tmp_path / f"local-{lang}" / lang)


def _descendants(pid: int) -> list[int]:
    found = [pid]
    for parent in found:
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError):
                found += [int(child) for child in (task / "children").read_text().split()]
    return found[1:]


def _ended(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_killed_spark_runs_folder_is_removed_by_the_next_run(tmp_path):
    """SIGKILL while the executors write the bitexts: the folder stays, the JVM ends with its
    driver, and the next run removes the folder."""
    root = _release(tmp_path / "opus")
    temp = tmp_path / "temp"
    temp.mkdir()
    killed = subprocess.Popen(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(root), "--lang", "en",
         "--out", str(tmp_path / "killed"), "--engine", "spark", "--spark-master", "local[1]",
         "--temp-dir", str(temp), "--workers", "1", "--quiet"],
        cwd=PROJECT, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    deadline = time.monotonic() + 300
    while not list(temp.glob("opusparcus-spark-*/input/pairs")):
        assert killed.poll() is None and time.monotonic() < deadline, "no bitexts read"
        time.sleep(0.01)
    children = _descendants(killed.pid)
    killed.kill()
    killed.wait()
    [leftover] = temp.iterdir()
    assert leftover.name.startswith("opusparcus-spark-")
    deadline = time.monotonic() + 30
    while not all(map(_ended, children)):
        assert time.monotonic() < deadline, "the JVM outlived its driver"
        time.sleep(0.1)
    rank(root, "en", tmp_path / "spark", RankOptions(workers=1, temp_dir=temp, **SPARK))
    assert list(temp.iterdir()) == []
    rank(root, "en", tmp_path / "local", RankOptions(workers=1))
    assert _files(tmp_path / "spark" / "en") == _files(tmp_path / "local" / "en")


@pytest.mark.parametrize(("master", "threads"), [
    ("local", 1), ("local[3]", 3), ("local[2,4]", 2), ("spark://host:7077", 0),
    ("yarn", 0)])
def test_local_threads(master, threads):
    assert spark_session.local_threads(master) == threads


def test_without_pyspark_the_error_says_what_to_install(monkeypatch):
    real_import = builtins.__import__

    def no_pyspark(name, *args, **kwargs):
        if name.startswith("pyspark"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyspark)
    with pytest.raises(OptionError, match=r"spark\]"):
        spark_session.spark_session("local[2]", 1 << 30)


def _python_without_numpy() -> Path:
    """An interpreter that cannot run this package (no numpy): the venv's base interpreter or
    the system's; skip when every candidate has it."""
    for candidate in (Path(sys.base_prefix) / "bin" / "python3", Path("/usr/bin/python3")):
        if candidate.is_file() and subprocess.run(
                [str(candidate), "-I", "-c", "import numpy"], capture_output=True).returncode:
            return candidate
    pytest.skip("no python3 without numpy to stand for the one on PATH outside the venv")


def test_a_venvs_python_run_by_its_path_ranks_on_spark_quietly(shared_data, tmp_path):
    """`/venv/bin/python -m opusparcus rank --engine spark`, the venv not activated: `python3`
    on PATH lacks this package, yet the Spark workers run this interpreter and write the local
    engine's bytes; `--quiet` prints nothing, the JVM's warnings included."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(_python_without_numpy())
    unset = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV")
    environment = {name: value for name, value in os.environ.items() if name not in unset}
    environment["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    release = shared_data / "opus-rf"
    result = subprocess.run(
        [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(release), "--lang", "en",
         "--out", str(tmp_path / "spark"), "--engine", "spark", "--spark-master", "local[1]",
         "--workers", "1", "--quiet"],
        capture_output=True, text=True, cwd=PROJECT, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr == "" and result.stdout == ""
    rank(release, "en", tmp_path / "local", RankOptions(workers=1))
    assert _files(tmp_path / "spark" / "en") == _files(tmp_path / "local" / "en")


def test_workers_python_is_this_one_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv("PYSPARK_DRIVER_PYTHON", raising=False)
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/users/python")
    with spark_session.workers_run_this_python():
        assert os.environ["PYSPARK_PYTHON"] == "/opt/users/python"
        assert os.environ["PYSPARK_DRIVER_PYTHON"] == sys.executable
    assert "PYSPARK_DRIVER_PYTHON" not in os.environ


def test_bad_input_read_by_a_task_stops_with_the_local_engines_line_or_is_skipped(
        tmp_path, monkeypatch):
    """A line of en that is not UTF-8: without --skip-bad-input the run stops with the local
    engine's one-line error (not a Spark stack trace) and writes nothing; with it, the link is
    skipped and logged as the local engine does. The release is given relative to the working
    folder: tasks open it by its absolute path but name its files as given."""
    from test_rank_bad_lines import LONG_LINE, _bitext, _english, _rows

    from tapaco.core.errors import InputError

    english = _english()
    english[LONG_LINE - 1] = b"caf\xe9 ."
    monkeypatch.chdir(tmp_path)
    root = _bitext(Path("opus"), _rows(english))
    errors = []
    for name, engine in (("local", {}), ("spark", SPARK)):
        with pytest.raises(InputError) as error:
            rank(root, "en", tmp_path / name, RankOptions(workers=1, **engine))
        errors.append(str(error.value))
        assert not (tmp_path / name / "en").exists()
    assert errors[0] == errors[1] and "\n" not in errors[1] and "UTF-8" in errors[1]
    assert errors[1].startswith("opus/")
    stats = _same_output(root, tmp_path / "skipped", "en", skip_bad_input=True)
    assert sum(stats["bad_input"]["skipped"].values()) == 1


class _FakeContext:
    def __init__(self, master: str, cores: int = 2) -> None:
        self.master, self.defaultParallelism, self.applicationId = master, cores, "app-1"
        self.added: list[str] = []

    def addPyFile(self, path: str) -> None:  # noqa: N802 (pyspark's name)
        self.added.append(path)


class _FakeSession:
    def __init__(self, master: str, cores: int = 2) -> None:
        self.sparkContext = _FakeContext(master, cores)
        self.settings: dict[str, str] = {}
        self.conf = self

    def set(self, key: str, value: str) -> None:
        self.settings[key] = value


@pytest.mark.parametrize(("cores", "input_bytes", "partitions"), [
    (2, 0, 8), (2, 100 << 20, 8), (2, 1 << 30, 32), (16, 1 << 30, 64), (2, (1 << 30) + 1, 33)])
def test_shuffle_partitions_follow_the_cores_and_the_input(cores, input_bytes, partitions):
    session = _FakeSession("spark://host:7077", cores)
    assert spark_session.shuffle_partitions(session, input_bytes) == partitions
    assert session.settings["spark.sql.shuffle.partitions"] == str(partitions)


def test_the_code_shipped_to_a_cluster_is_the_ranking_modules_once_a_session():
    import zipfile

    assert spark_session.ship_code(_FakeSession("local[2]")) is None
    session = _FakeSession("spark://host:7077")
    name = spark_session.ship_code(session)
    assert spark_session.ship_code(session) == name
    assert len(session.sparkContext.added) == 1
    with zipfile.ZipFile(session.sparkContext.added[0]) as shipped:
        names = set(shipped.namelist())
    assert {"opusparcus/spark_input.py", "opusparcus/rank.py", "tapaco/__init__.py",
            "tapaco/core/opus/moses_columns.py"} <= names
    assert not any(name.startswith(("tapaco/graph", "tapaco/sample")) for name in names)
    assert all(name.endswith(".py") for name in names)


def test_a_failed_start_says_the_java_reason_in_one_line():
    class Py4JError(Exception):
        java_exception = "java.lang.IllegalStateException: Cannot call methods on a stopped " \
                         "SparkContext.\n\tat org.apache.spark..."

    failure = Py4JError("An error occurred while calling None.org.apache.spark.SparkContext.")
    assert spark_session.start_failure(failure) == (
        "java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.")
    assert spark_session.start_failure(RuntimeError("Java gateway process exited\nmore")) == (
        "Java gateway process exited")
