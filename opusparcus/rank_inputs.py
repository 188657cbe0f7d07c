"""What both ranking engines take (:mod:`opusparcus.rank`, :mod:`opusparcus.spark_engine`): the
options of a ranking, checked on creation, and the links of each bitext as sentence codes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import regex

from opusparcus.scores import SCHEMES
from tapaco.core.dataset_card import check_formats
from tapaco.core.disk import check_folder
from tapaco.core.errors import DiskError, OptionError
from tapaco.core.memory import default_memory_limit, format_size
from tapaco.core.options import check_range, in_range
from tapaco.core.opus import FOLDERS, AlignmentSource

MAX_WORKERS = 64
MIN_MEMORY_LIMIT = 256 << 20
# How the ranking runs, not what it gives: left out of stats.json so the outputs do not depend
# on them.
RUN_SETTINGS = ("workers", "memory_limit", "temp_dir", "engine", "spark_master", "formats",
                "quiet", "scores")
ENGINES = ("local", "spark")
SPARK_MASTER = regex.compile(r"local(\[[^\]]+\])?|local-cluster\[[^\]]+\]|yarn|"
                             r"(spark|k8s|mesos)://\S+")


@dataclass(frozen=True)
class RankOptions:
    """What decides the ranking; checked on creation, the same for the CLI and the library.

    `max_pivot_fanout` None or 0: no cap. `max_sentence_length` (code points; None or 0: no
    limit): a link with a longer sentence on either side is not used (as one with an empty
    side), which bounds the edit distances' work on a pair. `short_length`: dev/test sentences
    shorter than this many characters need `min_edit_ratio_short` instead of `min_edit_ratio`.
    `documents`: the folder of sentence documents searched first where a release has both,
    `xml` (tokenised, as the Opusparcus release) or `raw` (Moses-tokenised here).
    `memory_limit` (bytes; None: a share of the machine's memory): when a split's candidate
    pairs would not fit beside what the process already holds, they are summed in partitions on
    disk under `temp_dir` (None: the system's), with the same output. `quiet`: Spark's JVM
    prints nothing (its warnings).
    `scores`: files `opusparcus score` wrote from this ranking's files, whose `paraphrase_score`
    the Parquet files carry (:mod:`opusparcus.paraphrase_scores`).
    """

    pivots: tuple[str, ...] = ()
    score: str = "summed-pmi"
    max_pivot_fanout: int | None = 1000
    min_edit_ratio: float = 0.4
    min_edit_ratio_short: float = 0.5
    short_length: int = 24
    workers: int = 2
    skip_bad_input: bool = False
    documents: str = "xml"
    memory_limit: int | None = None
    temp_dir: Path | None = None
    engine: str = "local"
    spark_master: str = "local[*]"
    formats: tuple[str, ...] = ("tsv",)
    quiet: bool = False
    scores: tuple[Path, ...] = ()
    max_sentence_length: int | None = 10_000
    language_id: bool = False

    def __post_init__(self) -> None:
        if self.score not in SCHEMES:
            raise OptionError("--score", f"unknown scheme {self.score!r}; choose from "
                              f"{', '.join(SCHEMES)}")
        if self.max_pivot_fanout:
            problem = in_range(self.max_pivot_fanout, 2, None)
            if problem or not isinstance(self.max_pivot_fanout, int):
                raise OptionError("--max-pivot-fanout", f"{problem or 'expected a whole number'}"
                                  " (0 or none: no cap)")
        if self.max_sentence_length:
            check_range("--max-sentence-length", self.max_sentence_length, 1, whole=True)
        check_range("--min-edit-ratio", self.min_edit_ratio, 0, 1)
        check_range("--min-edit-ratio-short", self.min_edit_ratio_short, 0, 1)
        check_range("--short-length", self.short_length, 1, whole=True)
        check_range("--workers", self.workers, 1, MAX_WORKERS, whole=True)
        if isinstance(self.pivots, str) or not all(
                isinstance(lang, str) and lang.strip() for lang in self.pivots):
            raise OptionError("--pivots", f"expected language codes, got {self.pivots!r}")
        if self.memory_limit is not None and not (
                isinstance(self.memory_limit, int) and self.memory_limit >= MIN_MEMORY_LIMIT):
            raise OptionError("--memory-limit", f"must be at least "
                              f"{format_size(MIN_MEMORY_LIMIT)}, got {self.memory_limit!r}")
        if self.temp_dir is not None:
            self._check_temp_dir()
        if self.engine not in ENGINES:
            raise OptionError("--engine", f"expected one of {', '.join(ENGINES)}, got "
                              f"{self.engine!r}")
        if not isinstance(self.spark_master, str) or not SPARK_MASTER.fullmatch(
                self.spark_master):
            raise OptionError("--spark-master", f"expected a Spark master URL such as local[*] "
                              f"or spark://host:7077, got {self.spark_master!r}")
        if self.documents not in FOLDERS:
            raise OptionError("--documents", f"expected one of {', '.join(FOLDERS)}, got "
                              f"{self.documents!r}")
        check_formats(self.formats)
        if isinstance(self.scores, str | Path) or not all(
                isinstance(path, str | Path) for path in self.scores):
            raise OptionError("--scores", f"expected file paths, got {self.scores!r}")
        if self.language_id and self.engine == "spark":
            raise OptionError("--language-id", "runs with --engine local only")
        if self.scores and "parquet" not in self.formats:
            raise OptionError("--scores", "adds a column to the Parquet files: give --format "
                              "parquet or tsv,parquet (the text files stay the release's)")

    def _check_temp_dir(self) -> None:
        """An existing folder where a file can be written (spilled pairs go there)."""
        if not Path(self.temp_dir).is_dir():
            raise OptionError("--temp-dir", f"not a folder: {self.temp_dir}")
        try:
            check_folder(Path(self.temp_dir))
        except DiskError as error:
            raise OptionError("--temp-dir", str(error)) from None

    def decisive(self) -> dict:
        """The options that decide the output (everything but :data:`RUN_SETTINGS`;
        `language_id` only when on, so that the release-exact statistics stay as they were)."""
        return {key: value for key, value in asdict(self).items() if key not in RUN_SETTINGS
                and (key != "language_id" or value)}

    def memory_budget(self) -> int:
        """`memory_limit` in bytes, by default a share of the machine's memory."""
        return self.memory_limit or default_memory_limit()


def pivot_of(source: AlignmentSource, lang: str) -> str:
    """The other language of the bitext `source` of target `lang`."""
    return source.langs[1] if source.langs[0] == lang else source.langs[0]


@dataclass
class PivotLinks:
    """The links of one T-L bitext for target T: sentence codes in T's and L's vocabularies."""

    pivot: str
    path: Path
    target: np.ndarray
    pivot_codes: np.ndarray
    split: np.ndarray
    without_year: int

    def release(self) -> None:
        """Let the per-link arrays go (once the pairs are counted); the rest stays."""
        self.target = self.pivot_codes = np.zeros(0, np.int32)
        self.split = np.zeros(0, np.int8)
