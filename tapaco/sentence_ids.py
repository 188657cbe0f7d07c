"""TaPaCo sentence ids of link sides, and numeric keys that order them.

The OPUS id loses its leading `s`; a side `N.0 N.1 ... N.k` (one Tatoeba sentence that OPUS
split) is `N`; other multi-id sides join their ids with `+`; in a language with several
documents the id is prefixed `<document>#` (the document path without language and extension).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

from tapaco.core.opus.sidekeys import NUMBER, STRING, SideColumn
from tapaco.core.text_column import TextColumn

_LEADING_NUMBERS = re.compile(r"\D*(\d{0,18})\d*(?:\.(\d{1,18}))?")
NO_NUMBER = np.iinfo(np.int64).max


def _strip_s(sentence_id: str) -> str:
    return sentence_id[1:] if sentence_id.startswith("s") and len(sentence_id) > 1 else sentence_id


def _split_sentence_base(ids: list[str]) -> str | None:
    bases = {sentence_id.rpartition(".")[0] for sentence_id in ids}
    suffixes = [sentence_id.rpartition(".")[2] for sentence_id in ids]
    if len(bases) == 1 and "" not in bases and suffixes == [str(i) for i in range(len(ids))]:
        return bases.pop()
    return None


def sentence_id(side: str) -> str:
    """The TaPaCo id of a link side (without any document prefix)."""
    ids = [_strip_s(part) for part in side.split()]
    if len(ids) == 1:
        return ids[0]
    return _split_sentence_base(ids) or "+".join(ids)


def sentence_ids(sides: SideColumn, vertices: np.ndarray) -> pa.StringArray:
    """:func:`sentence_id` of the sides of these vertices, an Arrow column: plain ids are their
    keys' numbers written by Arrow (no `str` each), the others read one by one."""
    keys = sides.keys[vertices]
    ids = pa.array((keys & NUMBER).astype(np.int64)).cast(pa.string())
    others = np.flatnonzero(keys & STRING)
    if len(others):
        ids = TextColumn.of_arrow(ids).with_rows(
            others, [sentence_id(sides.table.text(key)) for key in keys[others]]).arrow()
    return ids.cast(pa.string())


def document_label(document: str) -> str:
    """`en/1988.xml.gz` -> `1988`: the prefix used when a language has several documents."""
    name = document.split("/", 1)[1] if "/" in document else document
    for suffix in (".xml.gz", ".xml", ".gz"):
        name = name.removesuffix(suffix)
    return name


def numeric_keys(sides: SideColumn) -> tuple[np.ndarray, np.ndarray]:
    """Two int64 keys per side: the number of its first id and the number after a dot.

    Sides without digits get NO_NUMBER, so they sort after numbered ones. Plain ids (`s123`,
    `123`), nearly all of them, are numbers already in the column's keys; the rest are read
    one by one.
    """
    keys = sides.keys
    first = np.bitwise_and(keys, NUMBER).view(np.int64)  # NUMBER's bits: the same value
    second = np.zeros(len(keys), np.int64)
    for index in np.flatnonzero(keys >= STRING).tolist():
        whole, fraction = _LEADING_NUMBERS.match(sides[index]).groups()
        first[index] = int(whole) if whole else NO_NUMBER
        second[index] = int(fraction) if fraction else 0
    return first, second
