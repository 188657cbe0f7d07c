"""Export one language as the GEM/opusparcus quality-level subsets (JSONL).

Records follow the GEM data card exactly ("Data Fields"): `lang`, `sent1`, `sent2`,
`annot_score`, `gem_id`; "All fields are strings except `annot_score`, which is a float", and
"For the training sets, the value is 0.0". Keys are written in the card's feature order
['lang', 'sent1', 'sent2', 'annot_score', 'gem_id']; `gem_id` is `gem-opusparcus-<split>-<n>`
as in the card's examples ('gem-opusparcus-test-1587'), n being the number of the Opusparcus
pair id (`en-N1001` -> 1001, `en-D12` -> 12), so ids are unique within one language's config.

Layout, one directory per language (the card's configs are `<lang>.<quality>`, e.g. "fr.90"):

    <out_dir>/<lang>/train.<level>.jsonl      training pairs of that quality level
    <out_dir>/<lang>/validation.jsonl         annotated dev pairs scored >= 3.0
    <out_dir>/<lang>/test.jsonl               annotated test pairs scored >= 3.0
    <out_dir>/<lang>/validation.full.jsonl    all annotated dev pairs (1.0 .. 4.0)
    <out_dir>/<lang>/test.full.jsonl          all annotated test pairs (1.0 .. 4.0)

Why: the card's splits are train, validation, test, validation.full and test.full, and only
the train split depends on the quality ("The smaller sets are subsets of the larger sets"), so
the four annotated splits are written once and shared by every level, and each level gets its
own train file: the top `cut_rows_for_level[level]` ranked rows, so a higher level is a prefix
of every lower one. Levels are 60..100 in steps of 5 ("Allowed quality values range between 60
and 100, in increments of 5"). Level 100 "matches no training data at all": train.100.jsonl is
written empty, so that config holds only the manually annotated pairs. Dev/test pairs are told
apart by their id letter (README: "D for Development, T for Test").

With Parquet (`--format jsonl,parquet`), the same records go to `data/<split>.parquet` beside a
dataset card `README.md` whose configs are the card's `<lang>.<level>` (see
:mod:`opusparcus.parquet_release`): by default in the schema `datasets` users load today from
the Hub's GEM/opusparcus (`lang, input, target, annot_score, gem_id`, Moses-detokenised text),
or with `--parquet-schema card` in the card's (the training files also with the ranked fields
and each pair's quality level).

With `--scores` (files `opusparcus score` wrote from the ranked training file and/or the
dev/test files), every record, JSONL and Parquet, has `paraphrase_score` last (null where the
pair has no score; see :mod:`opusparcus.paraphrase_scores`), and the card names the model.

Output is deterministic (ranked order for train, id number for the annotated splits, UTF-8,
no ASCII escaping). `<out_dir>/<lang>/` is written whole under a temporary name and renamed,
with a manifest; an existing one is replaced only when `export-gem` wrote it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from opusparcus.cutoffs import choose_cut, estimate_shares, read_combined
from opusparcus.paraphrase_scores import ScoreTable, read_tables, score_records, scored_files
from opusparcus.parquet_release import write_gem_parquet
from opusparcus.ranked_file import ranked_language, read_ranked
from tapaco.core.annotation.pairs import ACCEPTABLE, read_release_pairs
from tapaco.core.dataset_card import check_formats
from tapaco.core.errors import InputError
from tapaco.core.files import write_file_atomically
from tapaco.core.outputs import OutputFolder

COMMAND = "opusparcus export-gem"
FORMATS = ("jsonl", "parquet")

LEVELS = tuple(range(60, 101, 5))
FIELDS = ("lang", "sent1", "sent2", "annot_score", "gem_id")
ANNOTATED_SPLITS = {"D": "validation", "T": "test"}
_ID = re.compile(r"^(?P<lang>[^-]+)-(?P<letter>[NDT])(?P<number>\d+)$")


def record(lang: str, sent1: str, sent2: str, score: float, split: str, number: int) -> dict:
    """One GEM record, keys in the card's feature order."""
    return {"lang": lang, "sent1": sent1, "sent2": sent2, "annot_score": float(score),
            "gem_id": f"gem-opusparcus-{split}-{number}"}


def parse_id(pair_id: str, lang: str) -> tuple[str, int]:
    """The id's letter (N, D or T) and number; the language must be `lang`."""
    match = _ID.match(pair_id)
    if not match or match["lang"] != lang:
        raise ValueError(f"pair id {pair_id!r} is not <{lang}>-<N|D|T><number>")
    return match["letter"], int(match["number"])


def train_records(lang: str, rows: Iterable[list[str]]) -> list[dict]:
    records = []
    for line, row in enumerate(rows, 1):
        if len(row) not in (7, 8):
            raise ValueError(f"ranked row {line}: expected 7 fields, found {len(row)}")
        letter, number = parse_id(row[0], lang)
        if letter != "N":
            raise ValueError(f"ranked row {line}: {row[0]!r} is not a training id")
        records.append(record(lang, row[1], row[2], 0.0, "train", number))
    return records


def annotated_records(lang: str,
                      annotated: list[tuple[str, str, str, float]]) -> dict[str, list[dict]]:
    """validation, test, validation.full and test.full records, ordered by id number."""
    full: dict[str, list[tuple[int, str, str, float]]] = {"validation": [], "test": []}
    for pair_id, sent1, sent2, score in annotated:
        letter, number = parse_id(pair_id, lang)
        if letter not in ANNOTATED_SPLITS:
            raise ValueError(f"annotated pair {pair_id!r} is neither dev (D) nor test (T)")
        if not 1.0 <= score <= 4.0:
            raise ValueError(f"annotated pair {pair_id!r}: score {score} is not in 1.0..4.0")
        full[ANNOTATED_SPLITS[letter]].append((number, sent1, sent2, float(score)))
    splits = {}
    for split, items in full.items():
        items.sort(key=lambda item: item[0])
        splits[f"{split}.full"] = [record(lang, s1, s2, sc, f"{split}.full", n)
                                   for n, s1, s2, sc in items]
        splits[split] = [record(lang, s1, s2, sc, split, n)
                         for n, s1, s2, sc in items if sc >= ACCEPTABLE]
    return splits


def level_cuts(cut_rows_for_level: dict[int, int], total_rows: int) -> dict[int, int]:
    """Rows per level of LEVELS (missing -> 0, level 100 -> 0); must not grow with the level."""
    cuts = {level: 0 if level == 100 else cut_rows_for_level.get(level, 0) for level in LEVELS}
    for level, cut in cuts.items():
        if not 0 <= cut <= total_rows:
            raise ValueError(f"level {level}: {cut} rows, but there are {total_rows}")
    ordered = list(cuts.values())
    if any(higher > lower for lower, higher in zip(ordered, ordered[1:])):
        raise ValueError(f"rows per level must not grow with the level: {cuts}")
    return cuts


def write_jsonl(path: Path, records: Iterable[dict]) -> Path:
    write_file_atomically(path, "".join(json.dumps(item, ensure_ascii=False) + "\n"
                                        for item in records))
    return path


def write_gem_folder(folder: Path, lang: str, ranked_rows: list[list[str]],
                     cut_rows_for_level: dict[int, int],
                     annotated: list[tuple[str, str, str, float]],
                     formats: tuple[str, ...] = ("jsonl",),
                     parquet_schema: str = "hub",
                     scores: dict[str, ScoreTable] | None = None) -> list[str]:
    """Write the GEM subsets of one language into `folder` as JSONL and/or Parquet (with its
    dataset card, in `parquet_schema`: see :func:`write_gem_parquet`); the names written,
    train first. `scores` (`--scores`): the score table of each split, train, dev and test,
    whose `paraphrase_score` every record gets."""
    cuts = level_cuts(cut_rows_for_level, len(ranked_rows))
    kept = ranked_rows[:max(cuts.values(), default=0)]
    train = train_records(lang, kept)
    splits = annotated_records(lang, annotated)
    splits = {split: splits[split] for split in ("validation", "test", "validation.full",
                                                 "test.full")}
    if scores is not None:
        none = ScoreTable(None)
        score_records(train, scores.get("train", none))
        for split, records in splits.items():
            score_records(records, scores.get("dev" if split.startswith("validation") else
                                              "test", none))
    names = []
    if "jsonl" in formats:
        for level, cut in cuts.items():
            names.append(write_jsonl(folder / f"train.{level}.jsonl", train[:cut]).name)
        for split, records in splits.items():
            names.append(write_jsonl(folder / f"{split}.jsonl", records).name)
    if "parquet" in formats:
        scored = None if scores is None else {split: table.scored for split, table
                                              in scores.items() if table.scored is not None}
        names += write_gem_parquet(folder, lang, cuts, train, kept, splits, parquet_schema,
                                   scored)
    return names


def export_gem(ranked: Path, annotations: Path, dev: Path, test: Path, out_dir: Path,
               overwrite: bool = False, formats: tuple[str, ...] = ("jsonl",),
               parquet_schema: str = "hub", scores: tuple[Path, ...] = ()) -> list[Path]:
    """`out_dir/<lang>/`: the quality levels cut from the ranked training file by its combined
    annotations, and the annotated dev and test files, as JSONL and/or Parquet; returns the
    paths written. `scores`: files `opusparcus score` wrote from the ranked training file and/or
    the dev and test files (candidates or annotated), whose `paraphrase_score` every record
    gets."""
    check_formats(formats, FORMATS)
    lang = ranked_language(ranked)
    output = OutputFolder(out_dir / lang, COMMAND, (ranked, annotations, dev, test, *scores),
                          overwrite)
    output.check()
    scored = scored_files(scores, (lang,))[lang] if scores else None
    rows = read_ranked(ranked)
    tables = None if scored is None else read_tables(scored, {}, ("train", "dev", "test"))
    ranks, combined = read_combined(annotations, rows)
    estimate = estimate_shares(ranks, combined)
    cuts = {level: choose_cut(estimate, len(rows), level / 100, False).rows
            for level in LEVELS if level < 100}
    annotated = read_release_pairs(dev) + read_release_pairs(test)
    names: list[str] = []

    def fill(folder: Path) -> None:
        try:
            names.extend(write_gem_folder(folder, lang, rows, cuts, annotated, formats=formats,
                                          parquet_schema=parquet_schema, scores=tables))
        except ValueError as error:
            raise InputError(ranked, str(error), kind="malformed ranked file") from error

    output.write(fill)
    return [out_dir / lang / name for name in names]
