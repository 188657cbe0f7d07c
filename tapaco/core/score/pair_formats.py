"""The files `score --pairs` reads without `--columns`: every TSV of sentence pairs the project
writes, recognised by its first line; its other files are named in the error, with what to
give instead. Pairs (the sentences' columns):

- enrich's TSV (`tapaco enrich`), header `reference paraphrase ...`: columns 1 and 2;
- an annotation file (`opusparcus sample`, labelled by `annotate` or `serve`), header
  `rank id sentence1 sentence2 annotator1 annotator2`, and combined training annotations
  (`opusparcus combine`), header `rank id sentence1 sentence2 score`: columns 3 and 4;
- a ranked file (`opusparcus rank`: training lines, dev/test candidates; `cutoff`'s cuts) and
  combined dev/test annotations (`combine`), a pair id `<lang>-N<n>`, `-D<n>` or `-T<n>`
  first: columns 2 and 3.

Each of them scored by `score` (a column more) is recognised as the file it was scored from.
Not pairs: a TaPaCo language file (`tapaco build`; its sets are scored with `--sets`), a set
annotation file (`serve`), a build's marks (sentence ids), enrich's set candidates
(`*.machine.txt`: a translation beside its source, in two languages), JSON lines (`export-gem`)
and Parquet files.
"""

from __future__ import annotations

import re
from pathlib import Path

from tapaco.core.annotation import pairs, sets
from tapaco.core.errors import InputError
from tapaco.core.score.inputs import PairColumns, first_row

# a header's first fields -> the columns (0-based) of the two sentences
_PAIR_HEADERS = {("reference", "paraphrase"): (0, 1), tuple(pairs.HEADER[:4]): (2, 3)}
_PAIR_ID = re.compile(r"[A-Za-z]{2,3}([_-][A-Za-z0-9]+)*-[NDT][0-9]+")
_SETS = "score a build's sets with --sets DIR --lang xx"
_OTHER_HEADERS = {
    tuple(sets.HEADER[:3]): f"a set annotation file (serve): sets to check, not pairs; {_SETS}",
    ("set_id", "sentence_id_1", "sentence_id_2", "mark"):
        f"the marks of a TaPaCo build: sentence ids, not sentences; {_SETS}",
}


def recognise_columns(path: Path, columns: tuple[int, int] | None,
                      header: bool = False) -> PairColumns:
    """The pair columns of `path`: as given, or as its first line shows a known format."""
    fields = first_row(path).split("\t")
    known = _header_columns(fields)
    if columns is not None:
        return PairColumns(*columns, header or known is not None)
    if known is not None:
        return PairColumns(*known, True)
    if len(fields) >= 3 and _PAIR_ID.fullmatch(fields[0]) and not header:
        return PairColumns(1, 2, False)
    raise InputError(path, _not_pairs(path, fields), "line 1", kind="usage")


def _header_columns(fields: list[str]) -> tuple[int, int] | None:
    for names, columns in _PAIR_HEADERS.items():
        if tuple(fields[:len(names)]) == names:
            return columns
    return None


def _not_pairs(path: Path, fields: list[str]) -> str:
    """What the file is, when it is a file of the project that holds no pairs."""
    for names, what in _OTHER_HEADERS.items():
        if tuple(fields[:len(names)]) == names:
            return what
    numbered = [field.isascii() and field.isdigit() for field in fields]
    if len(fields) == 5 and numbered[:2] == [True, True]:
        return f"a TaPaCo language file (tapaco build): sets, not pairs; {_SETS}"
    if path.name.endswith(".machine.txt") and len(fields) == 4 and numbered[0]:
        return ("enrich's set candidates: a translation beside its source in another language, "
                "not a pair to score; score enrich's TSV (.enrich.tsv)")
    if fields[0].startswith("{"):
        return ("JSON lines (export-gem writes them), not a TSV: score the ranked or combined "
                "file they were exported from, and give it to export-gem --scores")
    return ("is not a known pair format (an enrich TSV, Opusparcus pairs or annotations): give "
            "the two sentence columns with --columns A,B")
