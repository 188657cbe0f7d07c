"""`opusparcus rank --language-id`: pairs holding a planted sentence of another language go,
counted in stats.json; without the flag the ranking is unchanged (needs the langid extra)."""

from __future__ import annotations

import bz2
import json
from pathlib import Path

import pytest
from conftest import write_moses

from opusparcus.rank import RankOptions, rank

pytest.importorskip("heliport", reason="needs the langid extra (heliport)")

PIVOT = "Ich habe gestern den ganzen Käse gegessen ."
FRENCH = ["J' ai mangé tout le fromage hier .", "Hier , j' ai mangé tout le fromage ."]
PLANTED = "Yesterday I ate all of the cheese on the table ."


def _release(root: Path) -> Path:
    rows = [(f"de/2000/1/{n}.xml.gz", f"fr/2000/1/{n}.xml.gz", "1", "1", PIVOT, text)
            for n, text in enumerate([*FRENCH, PLANTED])]
    write_moses(root, "de-fr", rows)
    return root


def _train(out: Path) -> list[tuple[str, str]]:
    text = bz2.decompress((out / "fr" / "train" / "fr-train.txt.bz2").read_bytes()).decode()
    return [tuple(line.split("\t")[1:3]) for line in text.splitlines()]


def test_planted_sentence_pairs_dropped_and_counted(tmp_path):
    root = _release(tmp_path / "opus")
    off = rank(root, "fr", tmp_path / "off", RankOptions(workers=1))
    on = rank(root, "fr", tmp_path / "on", RankOptions(workers=1, language_id=True,
                                                       formats=("tsv", "parquet")))
    assert len(_train(tmp_path / "off")) == 3 and "language_id" not in off
    assert "language_id" not in off["options"] and "dropped_by" not in off["splits"]["train"]
    kept = _train(tmp_path / "on")
    assert len(kept) == 1 and "fromage" in kept[0][0] and "fromage" in kept[0][1]
    assert on["splits"]["train"]["dropped_by"] == {"language_id": 2}
    assert on["language_id"]["per_language"] == {"fr": {"judged": 3, "dropped": 1}}
    written = json.loads((tmp_path / "on" / "fr" / "stats.json").read_text())
    assert written["language_id"] == on["language_id"] and written["options"]["language_id"]
    assert "heliport" in (tmp_path / "on" / "fr" / "README.md").read_text(encoding="utf-8")


def test_spark_engine_refuses_it():
    from tapaco.core.errors import OptionError

    with pytest.raises(OptionError, match="--language-id"):
        RankOptions(language_id=True, engine="spark")
