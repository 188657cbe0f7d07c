"""`tapaco pairs` on the embedded sample (real Tatoeba data): positives are two sentences of one
set of the build, every hard negative lies in another component of the translation graph that
this test builds itself with networkx from the sample's alignment files, shares a word with
its anchor, and the files are the same on a rerun, differ with another seed, and load in
`datasets`."""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from pathlib import Path

import networkx as nx
import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import SAMPLE

from tapaco.cli import main
from tapaco.filters import FilterOptions
from tapaco.pairs import relation_of
from tapaco.pipeline import BuildOptions, build

LINK = re.compile(r'xtargets="([^";]*);([^"]*)"')


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pairs") / "build"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1)))
    return out


def pairs(build_out: Path, out: Path, *options: str) -> Path:
    assert main(["pairs", "--build", str(build_out), "--out", str(out), "--quiet",
                 *options]) == 0
    return out


@pytest.fixture(scope="module")
def sample_pairs(sample_build, tmp_path_factory) -> Path:
    return pairs(sample_build, tmp_path_factory.mktemp("pairs") / "rows", "--negatives", "2",
                 "--format", "parquet,jsonl")


def translation_components() -> dict[tuple[str, str], int]:
    """(language, sentence id) -> component of the sample's alignment links, by networkx."""
    graph = nx.Graph()
    for path in sorted((SAMPLE / "xml").glob("*-*.xml.gz")):
        source, target = path.name.removesuffix(".xml.gz").split("-")
        for left, right in LINK.findall(gzip.decompress(path.read_bytes()).decode()):
            for a in left.split():
                for b in right.split():
                    graph.add_edge((source, a.removeprefix("s")), (target, b.removeprefix("s")))
    return {node: number for number, nodes in enumerate(nx.connected_components(graph))
            for node in nodes}


def language_file(build_out: Path, lang: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Text -> sentence ids and text -> set ids, read from the build's <lang>.txt."""
    ids, sets = defaultdict(set), defaultdict(set)
    for line in (build_out / f"{lang}.txt").read_text(encoding="utf-8").splitlines():
        set_id, sentence, text = line.split("\t")[:3]
        ids[text].add(sentence)
        sets[text].add(set_id)
    return ids, sets


def words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.lower()))


def rows(folder: Path, lang: str) -> list[dict]:
    return pq.read_table(folder / "data" / f"{lang}.parquet").to_pylist()


def test_positives_share_a_set_and_negatives_lie_in_another_component(sample_build,
                                                                      sample_pairs):
    component = translation_components()
    checked = 0
    for lang in ("en", "fr"):
        ids, sets = language_file(sample_build, lang)
        for row in rows(sample_pairs, lang):
            assert sets[row["anchor"]] & sets[row["positive"]]
            for name in ("negative_1", "negative_2"):
                negative = row[name]
                assert words(negative) & words(row["anchor"])
                for a in ids[row["anchor"]]:
                    for n in ids[negative]:
                        assert component[(lang, a)] != component[(lang, n)]
                        checked += 1
    assert checked >= 10


def test_columns_counts_and_overlap(sample_pairs):
    stats = json.loads((sample_pairs / "stats.json").read_text())
    for lang, found in stats["languages"].items():
        table = pq.read_table(sample_pairs / "data" / f"{lang}.parquet")
        assert table.column_names == ["anchor", "positive", "negative_1", "negative_2"]
        assert {str(field.type) for field in table.schema} == {"string"}
        assert table.num_rows == found["rows"]
        lines = (sample_pairs / "data" / f"{lang}.jsonl").read_text().splitlines()
        assert [json.loads(line) for line in lines] == table.to_pylist()
    overlap = stats["overlap"]
    assert overlap["hard_negative"]["mean_jaccard"] > overlap["random_negative"]["mean_jaccard"]
    assert overlap["hard_negative"]["share_with_a_shared_word"] == 1.0
    assert stats["seed"] == 0 and stats["options"]["negatives"] == 2


def test_one_negative_is_a_column_named_negative(sample_build, tmp_path):
    out = pairs(sample_build, tmp_path / "one", "--negatives", "1", "--langs", "en")
    assert pq.read_table(out / "data" / "en.parquet").column_names == [
        "anchor", "positive", "negative"]
    assert sorted(p.name for p in (out / "data").iterdir()) == ["en.parquet"]


def test_rerun_is_identical_and_another_seed_differs(sample_build, sample_pairs, tmp_path):
    again = pairs(sample_build, tmp_path / "again", "--negatives", "2", "--format",
                  "parquet,jsonl")
    names = sorted(p.relative_to(sample_pairs).as_posix() for p in sample_pairs.rglob("*")
                   if p.is_file())
    assert names == sorted(p.relative_to(again).as_posix() for p in again.rglob("*")
                           if p.is_file())
    for name in names:
        assert (sample_pairs / name).read_bytes() == (again / name).read_bytes(), name
    other = pairs(sample_build, tmp_path / "seed", "--negatives", "2", "--seed", "7")
    assert rows(other, "en") != rows(sample_pairs, "en")


def test_max_pairs_per_set_caps_each_set(sample_build, tmp_path):
    # fr set 27 has six sentences (15 pairs)
    _, sets = language_file(sample_build, "fr")
    capped = rows(pairs(sample_build, tmp_path / "capped", "--max-pairs-per-set", "2"), "fr")
    every = rows(pairs(sample_build, tmp_path / "all", "--max-pairs-per-set", "0"), "fr")
    per_set = defaultdict(int)
    for row in every:
        per_set[min(sets[row["anchor"]])] += 1
    assert per_set["27"] == 15
    assert len(capped) == sum(min(count, 2) for count in per_set.values())
    assert {frozenset((r["anchor"], r["positive"])) for r in capped} <= {
        frozenset((r["anchor"], r["positive"])) for r in every}


def test_the_card_loads_in_datasets(sample_pairs, tmp_path):
    datasets = pytest.importorskip("datasets", reason="the 'test' extra's datasets is absent")
    card = (sample_pairs / "README.md").read_text()
    assert "seed 0" in card.lower() and "another connected component" in card
    for lang in ("en", "fr"):
        loaded = datasets.load_dataset(str(sample_pairs), lang, cache_dir=str(tmp_path))
        assert loaded["train"].column_names == ["anchor", "positive", "negative_1",
                                                "negative_2"]
        assert loaded["train"].to_list() == rows(sample_pairs, lang)


def test_refuses_an_out_it_did_not_write(sample_build, tmp_path, capsys):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert main(["pairs", "--build", str(sample_build), "--out", str(foreign)]) == 2
    assert (foreign / "notes.txt").read_text() == "mine"
    assert main(["pairs", "--build", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert main(["pairs", "--build", str(sample_build), "--out", str(tmp_path / "y"),
                 "--langs", "xx"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 3
    assert all(line.startswith("tapaco") and "error" in line for line in errors)


def test_a_score_model_drops_negatives_it_scores_as_paraphrases(sample_build, tmp_path):
    # every word of the English sample has one vector: every pair scores 1, above 0.8
    texts = "\n".join(language_file(sample_build, "en")[0])
    vocabulary = sorted(set(texts.lower().split()) | set(texts.split()))
    vectors = tmp_path / "same.vec"
    vectors.write_text(f"{len(vocabulary)} 2\n" + "".join(f"{word} 1 0\n" for word in vocabulary),
                       encoding="utf-8")
    out = pairs(sample_build, tmp_path / "scored", "--negatives", "1", "--langs", "en",
                "--score-model", str(vectors))
    found = json.loads((out / "stats.json").read_text())["languages"]["en"]
    assert found["rows"] == 0 and found["negatives_dropped_by_score"] > 0
    assert found["pairs_without_negatives"] == found["pairs"]
    kept = pairs(sample_build, tmp_path / "kept", "--negatives", "1", "--langs", "en",
                 "--score-model", str(vectors), "--score-max", "1")
    assert json.loads((kept / "stats.json").read_text())["languages"]["en"]["rows"] > 0


def test_split_communities_have_unknown_components_and_negatives_stay_apart(tmp_path):
    # sets over 2 sentences are split into Leiden communities, numbered from the component
    # count (68 here): their component is unknown
    from tapaco.communities import SplitOptions

    assert relation_of(np.array([0, 5, 67, 68, 70]), 68).component.tolist() == [
        0, 5, 67, -1, -1]
    out = tmp_path / "split"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1, max_set_size=2),
                                    split=SplitOptions("split")))
    components = json.loads((out / "stats.json").read_text())["graph"]["components"]
    _, sets = language_file(out, "fr")
    assert any(int(s) >= components for ids in sets.values() for s in ids)
    rows_out = pairs(out, tmp_path / "rows", "--negatives", "1", "--langs", "fr")
    component = translation_components()
    ids, _ = language_file(out, "fr")
    for row in rows(rows_out, "fr"):
        for a in ids[row["anchor"]]:
            for n in ids[row["negative"]]:
                assert component[("fr", a)] != component[("fr", n)]


def test_a_parquet_only_build_gives_the_same_rows(sample_pairs, tmp_path):
    out = tmp_path / "parquet-build"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1)), formats=("parquet",))
    again = pairs(out, tmp_path / "rows", "--negatives", "2", "--format", "parquet,jsonl")
    for lang in ("en", "es", "fr"):
        assert (again / "data" / f"{lang}.parquet").read_bytes() == (
            sample_pairs / "data" / f"{lang}.parquet").read_bytes()


def test_the_cards_command_lines_quote_a_model_name_as_a_shell_reads_it():
    from pathlib import Path

    from opusparcus.pairs import command_line as opusparcus_command_line
    from tapaco.core.pairs.rows import PairsOptions
    from tapaco.pairs import command_line

    options = PairsOptions(negatives=2, max_pairs_per_group=5, seed=7,
                           formats=("parquet", "jsonl"), score_model=Path("/m/my model.vec"),
                           score_max=0.7)
    assert command_line(options, ["fr", "de"]) == (
        "python -m tapaco pairs --build OUT --out DIR --langs fr,de --negatives 2 "
        "--max-pairs-per-set 5 --seed 7 --format parquet,jsonl "
        "--score-model 'my model.vec' --score-max 0.7")
    assert opusparcus_command_line(PairsOptions(negatives=1)) == (
        "python -m opusparcus pairs --ranked FILE --out DIR --negatives 1 --seed 0 "
        "--format parquet")
    assert opusparcus_command_line(options).endswith(
        "--negatives 2 --seed 7 --format parquet,jsonl --score-model 'my model.vec' "
        "--score-max 0.7")
