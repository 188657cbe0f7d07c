"""ParaNMT's paraphrase score beside the ranked pairs: `rank --format parquet --scores FILE ...`
and `export-gem --scores FILE ...` add a `paraphrase_score` column (null where a pair has no
score) from files that `opusparcus score` wrote, and their dataset card names the model.

A scored file is a ranked file (training lines, dev/test candidates, or an annotated 4-field
dev/test file) with `paraphrase_score` appended by `score` (then its fold, with `--folds`),
beside `FILE.stats.json` (command `score`, mode `pairs`, sentences in columns 2 and 3). Its
language and split are its ids' (`en-N<n>` train, `en-D<n>` dev, `en-T<n>` test); one file per
language and split. Rows are matched by id number, in any order; a file may hold fewer rows
than the ranking (`score --min-score` keeps some; an annotated file holds the annotated pairs),
never other ones: each matched row must carry the ranked pair's two sentences, and where the
ranking's size is known no id may lie beyond its last row (a file scored from another ranking).

Memory: a split's file is read once into two arrays indexed by id number (ids are dense from 1):
the score (float64, NaN: none) and a fingerprint of the pair's two sentences (their hash; 0: no
row), 16 bytes an id; the rows themselves are not kept. A mismatch found later, when the ranked
rows are written, is reported with its line, found by reading the file again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from tapaco.core.errors import InputError, OptionError, usage_error
from tapaco.core.json_input import read_json
from tapaco.core.opus.textstream import FileRef, text_chunks
from tapaco.core.score.scoring import SCORE_COLUMN, stats_path

SCORE_FIELD = pa.field(SCORE_COLUMN, pa.float64())
MEANING = ("ParaNMT's paraphrase score (Wieting & Gimpel 2018): the cosine of the two "
           "sentences' embeddings, -1 to 1, higher meaning closer in meaning; null where the "
           "pair has no score")
SPLITS = {"N": "train", "D": "dev", "T": "test"}
LETTERS = {split: letter for letter, split in SPLITS.items()}
# a release file's name, for a scored file without rows: en-train.txt.bz2, en-dev-candidates.txt
_RELEASE_NAME = re.compile(r"(?P<lang>[^/]+)-(?P<split>train|dev|test)(\.|-candidates)")
CITATION = """@inproceedings{wieting-gimpel-2018-paranmt,
  title = "{P}ara{NMT}-50{M}: Pushing the Limits of Paraphrastic Sentence Embeddings with
           Millions of Machine Translations",
  author = "Wieting, John and Gimpel, Kevin",
  booktitle = "Proceedings of the 56th Annual Meeting of the Association for Computational
               Linguistics (Volume 1: Long Papers)",
  year = "2018",
  publisher = "Association for Computational Linguistics",
  url = "https://aclanthology.org/P18-1042"
}"""


@dataclass(frozen=True)
class ScoredFile:
    """A file `score` wrote from ranked pairs: its language and split, and its stats."""

    path: Path
    lang: str
    split: str
    stats: dict

    @property
    def prefix(self) -> str:
        """What its ids start with: `en-N`."""
        return f"{self.lang}-{LETTERS[self.split]}"

    def scorer(self) -> str:
        """The model and backend that scored it, as a card names them."""
        stats = self.stats
        sizes = [f"{stats['dimensions']:,} dimensions"] if "dimensions" in stats else []
        sizes += [f"{stats['words']:,} words"] if "words" in stats else []
        model = Path(str(stats.get("model", "?"))).name
        return (f"model `{model}`, backend `{stats.get('backend', '?')}`"
                + (f" ({', '.join(sizes)})" if sizes else ""))


def _rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Each line's number and fields."""
    for chunk in text_chunks(FileRef(path), b"\n"):
        lines = chunk.text.split("\n")
        if lines[-1] == "":
            lines.pop()
        for line, text in enumerate(lines, chunk.first_line):
            yield line, text.split("\t")


def open_scored(path: Path) -> ScoredFile:
    """A scored file, checked: it exists, `score --pairs` wrote it (its stats say so) from
    Opusparcus pairs; the language and split of its first id (or, without rows, its input's
    release name)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "not found: --scores takes files written by `opusparcus score`",
                         kind="missing file")
    stats_file = stats_path(path)
    try:
        stats = read_json(stats_file)
    except OSError:
        raise usage_error(path, f"has no {stats_file.name} beside it: not a file written by "
                          "`opusparcus score` (which writes both)") from None
    if not isinstance(stats, dict) or stats.get("command") != "score":
        raise usage_error(path, f"{stats_file.name} beside it was not written by "
                          "`opusparcus score`")
    if stats.get("mode") != "pairs" or stats.get("columns") != [2, 3]:
        raise usage_error(path, "was not scored from ranked pairs (`score --pairs` on a ranked "
                          "file, sentences in columns 2 and 3)")
    first = next(_rows(path), None)
    if first is not None:
        match = re.fullmatch(r"(?P<lang>.+)-(?P<letter>[NDT])[1-9][0-9]*", first[1][0])
        if not match:
            raise InputError(path, f"{first[1][0][:40]!r} is not an Opusparcus pair id "
                             "(<lang>-N<n>, -D<n> or -T<n>)", "line 1", kind="usage")
        return ScoredFile(path, match["lang"], SPLITS[match["letter"]], stats)
    named = _RELEASE_NAME.match(Path(str(stats.get("input", ""))).name)
    if not named:
        raise usage_error(path, "holds no rows, and the name of the file it scored does not tell "
                          "the language and split (<lang>-train..., -dev..., -test...)")
    return ScoredFile(path, named["lang"], named["split"], stats)


def scored_files(paths: Sequence[Path], langs: Sequence[str] | None = None
                 ) -> dict[str, dict[str, ScoredFile]]:
    """The scored files of each language by split (`train`, `dev`, `test`); one a split, and
    only of `langs` when given."""
    found: dict[str, dict[str, ScoredFile]] = {lang: {} for lang in langs or ()}
    for path in paths:
        scored = open_scored(path)
        if langs is not None and scored.lang not in langs:
            raise usage_error(path, f"scores {scored.lang} pairs, but the language here is "
                              f"{', '.join(langs)}")
        earlier = found.setdefault(scored.lang, {}).get(scored.split)
        if earlier is not None:
            raise OptionError("--scores", f"{earlier.path} and {path} both score the "
                              f"{scored.lang} {scored.split} pairs; give one")
        found[scored.lang][scored.split] = scored
    return found


def _fingerprint(first: str, second: str) -> int:
    return hash((first, second)) or 1


class ScoreTable:
    """A scored file's scores and sentence fingerprints, indexed by id number (no file: no
    scores)."""

    def __init__(self, scored: ScoredFile | None, rows: int | None = None) -> None:
        """Read `scored`; `rows`: the ranked split's number of rows when known (an id beyond
        it is an error)."""
        self.scored = scored
        size = 1 if scored is None else max(int(scored.stats.get("rows") or 0), 16) + 1
        self.scores = np.full(size, np.nan)
        self.prints = np.zeros(size, np.int64)
        if scored is None:
            return
        at = -2 if scored.stats.get("fold_column") else -1
        for line, fields in _rows(scored.path):
            number = self._number(fields, line, at)
            if rows is not None and number > rows:
                raise self._error(f"{fields[0]} is beyond this ranking's last {scored.split} "
                                  f"pair ({scored.prefix}{rows}): scored from another ranking",
                                  line)
            if number >= len(self.prints):
                self._grow(number)
            if self.prints[number]:
                raise self._error(f"{fields[0]} is there twice", line)
            self.prints[number] = _fingerprint(fields[1], fields[2])
            if fields[at]:
                self.scores[number] = self._score(fields[at], line)

    def _number(self, fields: list[str], line: int, at: int) -> int:
        prefix = self.scored.prefix
        digits = fields[0][len(prefix):]
        if not (fields[0].startswith(prefix) and digits.isascii() and digits.isdigit()
                and digits[0] != "0"):
            raise self._error(f"{fields[0][:40]!r}: expected a {self.scored.lang} "
                              f"{self.scored.split} pair id ({prefix}<n>) like the first row's",
                              line)
        if len(fields) < 3 - at:
            raise self._error(f"{len(fields)} fields: expected the id, the two sentences, ... "
                              f"and {SCORE_COLUMN}", line)
        return int(digits)

    def _score(self, text: str, line: int) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not -1.0 <= value <= 1.0:
            raise self._error(f"{SCORE_COLUMN} {text[:40]!r} is not a number from -1 to 1",
                              line)
        return value

    def _grow(self, number: int) -> None:
        more = max(number + 1, 2 * len(self.prints)) - len(self.prints)
        self.scores = np.concatenate([self.scores, np.full(more, np.nan)])
        self.prints = np.concatenate([self.prints, np.zeros(more, np.int64)])

    def _error(self, message: str, line: int | None) -> InputError:
        return InputError(self.scored.path, message, f"line {line}" if line else "",
                          kind="malformed scored file")

    def values(self, numbers: Sequence[int], first: Sequence[str],
               second: Sequence[str]) -> np.ndarray:
        """The scores of the ranked pairs with these id numbers and sentences (NaN: none);
        a scored row with other sentences is an error."""
        numbers = np.asarray(numbers, np.int64)
        inside = numbers < len(self.prints)
        found = np.zeros(len(numbers), np.int64)
        found[inside] = self.prints[numbers[inside]]
        values = np.full(len(numbers), np.nan)
        values[inside] = self.scores[numbers[inside]]
        for index in np.flatnonzero(found).tolist():
            if _fingerprint(first[index], second[index]) != found[index]:
                raise self._mismatch(int(numbers[index]), first[index], second[index])
        return values

    def _mismatch(self, number: int, first: str, second: str) -> InputError:
        pair_id = f"{self.scored.prefix}{number}"
        line = next((line for line, fields in _rows(self.scored.path) if fields[0] == pair_id),
                    None)
        return self._error(f"{pair_id} holds other sentences than the {pair_id} written here "
                           f"({first[:40]!r}, {second[:40]!r}): scored from another ranking",
                           line)

    def column(self, ids: pa.Array, first: pa.Array, second: pa.Array) -> pa.Array:
        """The `paraphrase_score` column of ranked rows (ids like `en-N12`), null where none."""
        if self.scored is None:
            values = np.full(len(ids), np.nan)
        else:
            skip = len(self.scored.prefix)
            numbers = [int(pair_id[skip:]) for pair_id in ids.to_pylist()]
            values = self.values(numbers, first.to_pylist(), second.to_pylist())
        return pa.array(values, pa.float64(), mask=np.isnan(values))

    def add_to(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        """Ranked rows (`id`, `sent1`, `sent2`, ...) with their `paraphrase_score` last."""
        column = self.column(batch.column("id"), batch.column("sent1"), batch.column("sent2"))
        return pa.RecordBatch.from_arrays([*batch.columns, column],
                                          schema=batch.schema.append(SCORE_FIELD))


def read_tables(files: Mapping[str, ScoredFile], rows: Mapping[str, int | None],
                splits: Iterable[str]) -> dict[str, ScoreTable]:
    """The score table of each split (`train`, `dev`, `test`), empty where no file scored it;
    `rows`: each split's ranked rows, where known."""
    return {split: ScoreTable(files.get(split), rows.get(split)) for split in splits}


def score_records(records: list[dict], table: ScoreTable) -> None:
    """Add `paraphrase_score` (None where none) to GEM records (`gem_id` ends in the pair's
    number), in place."""
    numbers = [int(item["gem_id"].rsplit("-", 1)[1]) for item in records]
    found = table.values(numbers, [item["sent1"] for item in records],
                         [item["sent2"] for item in records]).tolist()
    for item, value in zip(records, found):
        item[SCORE_COLUMN] = None if value != value else value


def card_note(files: Mapping[str, ScoredFile | None]) -> str:
    """What the card says of the scores: what scored each split (the labels of `files`;
    None: not scored), the meaning being in the card's fields."""
    by_scorer: dict[str, list[str]] = {}
    for label, scored in files.items():
        by_scorer.setdefault("not scored (null)" if scored is None else
                             f"scored by {scored.scorer()}", []).append(label)
    parts = [f"{', '.join(f'`{label}`' for label in labels)}: {scorer}"
             for scorer, labels in by_scorer.items()]
    return (f"`{SCORE_COLUMN}`, ParaNMT's paraphrase score (Wieting & Gimpel 2018), as "
            f"`opusparcus score` wrote it: {'; '.join(parts) or 'no split has rows'}.")
