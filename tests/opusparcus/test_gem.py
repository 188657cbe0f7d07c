"""GEM/opusparcus export: record fields, layout, level subsets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opusparcus.gem import FIELDS, LEVELS, write_gem_folder

RANKED = [[f"en-N{n}", f"a{n} .", f"b{n} .", "1.5", "2.0", "3", "0.5"] for n in range(1, 11)]
CUTS = {60: 10, 65: 9, 70: 8, 75: 7, 80: 6, 85: 5, 90: 3, 95: 1}
ANNOTATED = [("en-D2", "x ?", "y ?", 3.5), ("en-D1", "é .", "ê .", 2.5),
             ("en-T1", "p .", "q .", 4.0), ("en-T7", "r .", "s .", 1.0)]


def export_gem(lang, rows, cuts, annotated, out_dir: Path) -> list[Path]:
    (out_dir / lang).mkdir(parents=True, exist_ok=True)
    names = write_gem_folder(out_dir / lang, lang, rows, cuts, annotated)
    return [out_dir / lang / name for name in names]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def out(tmp_path) -> Path:
    export_gem("en", RANKED, CUTS, ANNOTATED, tmp_path)
    return tmp_path / "en"


def test_files_and_fields(out):
    names = sorted(path.name for path in out.iterdir())
    expected = [f"train.{level}.jsonl" for level in LEVELS]
    expected += ["test.full.jsonl", "test.jsonl", "validation.full.jsonl", "validation.jsonl"]
    assert names == sorted(expected)
    for path in out.iterdir():
        for item in read(path):
            assert tuple(item) == FIELDS
            assert isinstance(item["annot_score"], float)
            assert all(isinstance(item[key], str) for key in FIELDS if key != "annot_score")
            assert item["lang"] == "en"


def test_train_levels_are_nested_prefixes(out):
    trains = {level: read(out / f"train.{level}.jsonl") for level in LEVELS}
    assert [len(trains[level]) for level in LEVELS] == [10, 9, 8, 7, 6, 5, 3, 1, 0]
    for lower, higher in zip(LEVELS, LEVELS[1:]):
        assert trains[lower][:len(trains[higher])] == trains[higher]
    assert trains[60][0] == {"lang": "en", "sent1": "a1 .", "sent2": "b1 .",
                             "annot_score": 0.0, "gem_id": "gem-opusparcus-train-1"}


def test_level_100_is_only_annotated_pairs(out):
    assert read(out / "train.100.jsonl") == []
    for split in ("validation", "test", "validation.full", "test.full"):
        assert all(1.0 <= item["annot_score"] <= 4.0 for item in read(out / f"{split}.jsonl"))


def test_annotated_splits(out):
    full = read(out / "validation.full.jsonl")
    assert [item["gem_id"] for item in full] == ["gem-opusparcus-validation.full-1",
                                                 "gem-opusparcus-validation.full-2"]
    assert full[0]["sent1"] == "é ." and full[0]["annot_score"] == 2.5
    assert [item["gem_id"] for item in read(out / "validation.jsonl")] == [
        "gem-opusparcus-validation-2"]
    assert [item["annot_score"] for item in read(out / "test.jsonl")] == [4.0]
    assert [item["annot_score"] for item in read(out / "test.full.jsonl")] == [4.0, 1.0]


def test_missing_level_means_no_rows_and_output_is_deterministic(tmp_path):
    first = export_gem("en", RANKED, {60: 4}, ANNOTATED, tmp_path / "a")
    second = export_gem("en", RANKED, {60: 4}, ANNOTATED, tmp_path / "b")
    assert [path.read_bytes() for path in first] == [path.read_bytes() for path in second]
    assert read(tmp_path / "a" / "en" / "train.90.jsonl") == []
    assert not list(tmp_path.rglob("*.tmp"))


def test_inconsistent_inputs_are_rejected(tmp_path):
    with pytest.raises(ValueError):
        export_gem("en", RANKED, {60: 2, 90: 5}, ANNOTATED, tmp_path)
    with pytest.raises(ValueError):
        export_gem("en", RANKED, {60: 11}, ANNOTATED, tmp_path)
    with pytest.raises(ValueError):
        export_gem("en", RANKED, CUTS, [("en-N3", "a", "b", 4.0)], tmp_path)
    with pytest.raises(ValueError):
        export_gem("fi", RANKED, CUTS, [], tmp_path)


RANKED_INT = [row[:6] + [str(n % 4)] for n, row in enumerate(RANKED)]


def test_parquet_holds_the_jsonl_records_with_ranked_fields_and_quality(tmp_path):
    import pyarrow.parquet as pq

    folder = tmp_path / "en"
    folder.mkdir()
    names = write_gem_folder(folder, "en", RANKED_INT, CUTS, ANNOTATED,
                             formats=("jsonl", "parquet"), parquet_schema="card")
    assert "data/train.60.parquet" in names and "train.60.jsonl" in names
    # the highest level whose cut (CUTS, and 0 rows at 100) holds each row, by hand
    quality = [95, 90, 90, 85, 85, 80, 75, 70, 65, 60]
    for level in LEVELS:
        rows = pq.read_table(folder / f"data/train.{level}.parquet").to_pylist()
        jsonl = read(folder / f"train.{level}.jsonl")
        assert [{key: row[key] for key in FIELDS} for row in rows] == jsonl
        assert [row["quality"] for row in rows] == quality[:len(rows)]
        assert all(row["quality"] >= level for row in rows)
        ranked = RANKED_INT[:len(rows)]
        assert [(row["summed_pmi"], row["expected_count"], row["pivots"], row["edit_distance"])
                for row in rows] == [(1.5, 2.0, 3, int(r[6])) for r in ranked]
    for split in ("validation", "test", "validation.full", "test.full"):
        assert pq.read_table(folder / f"data/{split}.parquet").to_pylist() == read(
            folder / f"{split}.jsonl")


@pytest.mark.parametrize("annotated", [ANNOTATED, []])
def test_the_cards_one_default_config_is_the_lowest_level(tmp_path, annotated):
    write_gem_folder(tmp_path, "en", RANKED_INT, CUTS, annotated, formats=("parquet",))
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    configs = card.split("- config_name: ")[1:]
    # without annotated pairs, level 100 (no training rows) holds no split: no config
    assert len(configs) == (len(LEVELS) if annotated else len(LEVELS) - 1)
    assert [config.split("\n")[0] for config in configs if "default: true" in config] == [
        '"en.60"']


def test_parquet_only_and_the_card_loads_with_datasets(tmp_path):
    datasets = pytest.importorskip("datasets", reason="the datasets library (test extra) is "
                                   "not installed")
    folder = tmp_path / "en"
    folder.mkdir()
    write_gem_folder(folder, "en", RANKED_INT, CUTS, ANNOTATED, formats=("parquet",))
    assert not list(folder.glob("*.jsonl"))
    configs = datasets.get_dataset_config_names(str(folder))
    assert configs == [f"en.{level}" for level in LEVELS]
    cache = str(tmp_path / "cache")
    loaded = datasets.load_dataset(str(folder), "en.90", cache_dir=cache)
    assert {split: loaded[split].num_rows for split in loaded} == {
        "train": 3, "validation": 1, "test": 1, "validation.full": 2, "test.full": 2}
    only_annotated = datasets.load_dataset(str(folder), "en.100", cache_dir=cache)
    assert "train" not in only_annotated and only_annotated["test.full"].num_rows == 2


def test_parquet_is_in_the_hubs_schema_by_default_detokenised_as_sacremoses_does(tmp_path):
    import pyarrow.parquet as pq
    from sacremoses import MosesDetokenizer

    folder = tmp_path / "de"
    folder.mkdir()
    annotated = [("de-T1", "Ich sah die Leichen .", "Ich habe die Körper gesehen .", 2.0),
                 ("de-D3", "Was ist das ?", "Was ist denn das ?", 3.5)]
    ranked = [["de-N1", "Wie geht's ?", "Wie geht es dir ?", "1.5", "2.0", "3", "0.5"]]
    write_gem_folder(folder, "de", ranked, {level: 1 for level in LEVELS if level < 100},
                     annotated, formats=("parquet",))
    # as datasets users load GEM/opusparcus from the Hub (its de test split)
    assert pq.read_table(folder / "data/test.full.parquet").to_pylist() == [
        {"lang": "de", "input": "Ich sah die Leichen.", "target": "Ich habe die Körper gesehen.",
         "annot_score": 2.0, "gem_id": "gem-opusparcus-test-1"}]
    detokenize = MosesDetokenizer(lang="de").detokenize
    train = pq.read_table(folder / "data/train.60.parquet")
    assert train.column_names == ["lang", "input", "target", "annot_score", "gem_id"]
    assert train.to_pylist()[0]["target"] == detokenize("Wie geht es dir ?".split())
    assert "`input`" in (folder / "README.md").read_text() or "input, target" in (
        folder / "README.md").read_text()
