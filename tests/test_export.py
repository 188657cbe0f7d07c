"""The released layout, byte for byte, and the statistics tables."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tapaco.export import language_file_bytes, language_rows_table, stats_markdown


def test_layout_reproduces_the_released_tapaco_heads(shared_data):
    heads = sorted((shared_data / "tapaco-v1.0-head").glob("*.txt"))
    assert len(heads) == 73
    for path in heads:
        text = path.read_text(encoding="utf-8")
        complete = text.split("\n")[:-1]  # the last line was cut from the file
        rows = [line.split("\t") for line in complete]
        assert all(len(row) == 5 and row[0].isdigit() and row[1].isdigit() for row in rows)
        columns = list(zip(*rows)) or [()] * 5
        table = language_rows_table(pa.array([int(s) for s in columns[0]], pa.int64()),
                                    pa.array(list(columns[1]), pa.string()),
                                    pa.array(columns[2], pa.large_string()),
                                    list(columns[3]), list(columns[4]))
        rebuilt = language_file_bytes(table).decode("utf-8")
        assert rebuilt == "".join(line + "\n" for line in complete), path.name


def test_stats_markdown_has_the_three_tables():
    stats = {"source": {"corpus": "Tatoeba", "form": "OPUS release"},
             "graph": {"vertices": 3}, "input": {"links": 2},
             "funnel": [{"step": "(a) x", "sentences_removed": 1, "sets_dissolved": 0,
                         "sets": 1, "sentences": 2}],
             "languages": {"en": {"sets": 1, "sentences": 2}}}
    text = stats_markdown(stats)
    for heading in ("Graph (Table 1)", "Filter funnel (Table 2)", "Languages (Table 3)"):
        assert f"## {heading}" in text
    assert "| en | 1 | 2 |" in text and "| (a) x | 1 | 0 | 1 | 2 |" in text
    assert "Built from an OPUS release of Tatoeba." in text


def _tsv_rows(path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def _built_with_parquet(tmp_path, formats=("tsv", "parquet"), name="out"):
    from tapaco.filters import FilterOptions
    from tapaco.pipeline import BuildOptions, build
    from tests.test_build import _mixed_forms_release

    root = tmp_path / "opus"
    if not root.exists():
        _mixed_forms_release(root)
    build(root, tmp_path / name, BuildOptions(FilterOptions(min_sets=1)), formats=formats)
    return tmp_path / name


def test_parquet_files_hold_the_tsv_rows_in_the_hugging_face_columns(tmp_path):
    import pyarrow.parquet as pq

    from tapaco.export import SCHEMA

    out = _built_with_parquet(tmp_path)
    languages = sorted(path.stem for path in out.glob("*.txt"))
    assert languages == ["en", "fr"]
    assert sorted(path.name for path in (out / "data").iterdir()) == ["en.parquet", "fr.parquet"]
    for lang in languages:
        table = pq.read_table(out / "data" / f"{lang}.parquet")
        assert table.schema.equals(SCHEMA, check_metadata=False)
        expected = [{"paraphrase_set_id": s, "sentence_id": i, "paraphrase": text,
                     "lists": lists.split(";"), "tags": tags.split(";"), "language": lang}
                    for s, i, text, lists, tags in _tsv_rows(out / f"{lang}.txt")]
        assert table.to_pylist() == expected
    fr = pq.read_table(out / "data/fr.parquet").to_pylist()
    assert fr[1]["lists"] == ["7", "9"] and fr[0]["tags"] == ["question"] and fr[2]["lists"] == [""]


def test_parquet_only_output_and_the_same_bytes_twice(tmp_path):
    first = _built_with_parquet(tmp_path, ("parquet",), "one")
    second = _built_with_parquet(tmp_path, ("parquet",), "two")
    assert not list(first.glob("*.txt"))
    for name in ("data/en.parquet", "data/fr.parquet", "README.md"):
        assert (first / name).read_bytes() == (second / name).read_bytes()


def test_the_dataset_card_loads_with_datasets_offline(tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets", reason="the datasets library (test extra) is "
                                   "not installed")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = _built_with_parquet(tmp_path)
    cache = str(tmp_path / "cache")
    assert datasets.get_dataset_config_names(str(out)) == ["all_languages", "en", "fr"]
    counts = {lang: len(_tsv_rows(out / f"{lang}.txt")) for lang in ("en", "fr")}
    for lang, count in counts.items():
        loaded = datasets.load_dataset(str(out), lang, cache_dir=cache)
        assert list(loaded) == ["train"] and loaded["train"].num_rows == count
        assert loaded["train"][0]["language"] == lang
    everything = datasets.load_dataset(str(out), cache_dir=cache)["train"]
    assert everything.num_rows == sum(counts.values())
    assert list(everything.features) == ["paraphrase_set_id", "sentence_id", "paraphrase",
                                         "lists", "tags", "language"]
    card = (out / "README.md").read_text(encoding="utf-8")
    # the test release's archives name the corpus "Test", whose licence is not known here
    assert "license: \"unknown\"" in card and "The sentences come from Test;" in card
    assert "--format tsv,parquet --" not in card
    assert "python -m tapaco build --opus-dir OPUS_DIR --documents raw --out OUT" in card
    assert "--min-sets 1" in card and "sacrebleu" in card and "scherrer-2020-tapaco" in card


def test_every_library_entry_refuses_an_unknown_format(tmp_path):
    from opusparcus.gem import export_gem
    from opusparcus.rank import RankOptions
    from tapaco.core.errors import OptionError
    from tapaco.pipeline import build
    from tests.conftest import SAMPLE

    with pytest.raises(OptionError, match="--format"):
        build(SAMPLE, tmp_path / "out", formats=("csv",))
    with pytest.raises(OptionError, match="--format"):
        RankOptions(formats=("tsv", "jsonl"))
    with pytest.raises(OptionError, match="--format"):
        export_gem(tmp_path / "r", tmp_path / "a", tmp_path / "d", tmp_path / "t", tmp_path,
                   formats="parquet")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("formats", ["parquet", "tsv,parquet"])
def test_the_card_of_a_tatoeba_build_says_what_it_holds_and_its_licence(tmp_path, formats):
    from tapaco.cli import main
    from tests.conftest import SAMPLE

    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(tmp_path / "out"),
                 "--min-sets", "1", "--format", formats, "--quiet"]) == 0
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    written = sorted(path.name for path in (tmp_path / "out").glob("*.txt"))
    assert (written == []) == (formats == "parquet")
    assert ("`<lang>.txt`" in card) == (formats != "parquet")  # only files that were written
    assert "rebuilt from an OPUS release of Tatoeba the way TaPaCo" in card
    assert 'license: "cc-by-2.0"' in card and "CC BY 2.0 FR" in card
