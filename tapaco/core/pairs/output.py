"""The folder `pairs` writes: `data/<lang>.parquet` (and `.jsonl`) with the columns `anchor`,
`positive` and `negative` (one negative) or `negative_1` ... `negative_K`, strings only and in
that order (sentence-transformers takes columns by position); `stats.json`; and a dataset card
(`README.md`) with one `datasets` configuration per language.

Parquet is written as :mod:`tapaco.core.dataset_card` writes it (same rows, same bytes); JSONL
as one JSON object per line, UTF-8, keys in column order.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tapaco.core.dataset_card import Card, Config, write_parquet
from tapaco.core.files import write_json
from tapaco.core.text_column import TextColumn

FORMATS = ("parquet", "jsonl")


def column_names(negatives: int) -> list[str]:
    """`anchor`, `positive` and the negatives' columns."""
    if negatives == 1:
        return ["anchor", "positive", "negative"]
    return ["anchor", "positive", *(f"negative_{k}" for k in range(1, negatives + 1))]


def rows_table(texts: TextColumn, anchors: np.ndarray, positives: np.ndarray,
               negatives: np.ndarray) -> pa.Table:
    """The rows as a table of strings (`negatives`: one column of sentence indices per
    negative)."""
    columns = [anchors, positives, *negatives.T]
    arrays = [pc.cast(texts.take(rows).arrow(), pa.string()) for rows in columns]
    return pa.table(arrays, names=column_names(negatives.shape[1]))


def data_path(lang: str, suffix: str = "parquet") -> str:
    return f"data/{lang}.{suffix}"


def write_rows(folder: Path, lang: str, table: pa.Table, formats: Sequence[str]) -> None:
    """A language's rows in each of `formats`."""
    if "parquet" in formats:
        write_parquet(folder / data_path(lang), table)
    if "jsonl" in formats:
        path = folder / data_path(lang, "jsonl")
        path.parent.mkdir(parents=True, exist_ok=True)
        frame = table.to_pandas()
        text = frame.to_json(orient="records", lines=True, force_ascii=False) if len(frame) \
            else ""
        path.write_text(text, encoding="utf-8")


def pairs_card(title: str, licence: tuple[str, str], summary: str, rows: dict[str, int],
               negatives: int, rule: str, command: str, versions: dict[str, str]) -> Card:
    """The dataset card: one configuration per language with rows (`datasets` loads no empty
    split), the columns, the counts, the negative rule and the seed (in `command`)."""
    languages = [lang for lang, count in rows.items() if count]
    configs = [Config(lang, {"train": data_path(lang)}, default=index == 0)
               for index, lang in enumerate(languages)]
    fields = {"anchor": "a sentence", "positive": "a paraphrase of the anchor"}
    for name in column_names(negatives)[2:]:
        fields[name] = "a sentence of the same language sharing words with the anchor but " \
                       "not a paraphrase of it (hard negative, best first)"
    counts = ", ".join(f"{lang} {count:,}" for lang, count in rows.items())
    notes = (f"Rows per language: {counts}.\n\n**Negatives.** {rule}" if negatives else
             f"Rows per language: {counts}.")
    return Card(title, licence[0], summary, configs, languages, command, versions, fields,
                notes=notes, licence_note=licence[1])


def write_card_and_stats(folder: Path, card: Card, stats: dict) -> None:
    (folder / "README.md").write_text(card.text(), encoding="utf-8")
    write_json(folder / "stats.json", stats)
