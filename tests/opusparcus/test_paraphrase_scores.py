"""`rank --format parquet --scores` and `export-gem --scores`: the Parquet (and GEM) rows carry
the `paraphrase_score` that the real `score` command wrote for the same pair, row by row, null
where it wrote none; the card names the model; the text files do not change; a scored file
that is missing, not score's, or of another ranking is a one-line error."""

from __future__ import annotations

import bz2
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import SAMPLE, ranked_english
from test_rank_output import PARQUET_FILES, SPLIT_FILES, WORDS, _release

from opusparcus import export
from opusparcus.cli import main
from opusparcus.paraphrase_scores import ScoreTable, open_scored
from opusparcus.parquet_release import ranked_text_to_parquet

SPLITS = ("train", "dev", "test")


def write_vectors(path: Path, words: list[str], dimensions: int = 4) -> Path:
    """A word-vector file ("COUNT DIM", then "word v1 v2 ..."): exact values k/8."""
    lines = [f"{len(words)} {dimensions}"]
    for n, word in enumerate(words):
        lines.append(word + "".join(f" {((n * 7 + k * 3) % 17 - 8) / 8}"
                                    for k in range(dimensions)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def score(ranked: Path, model: Path, out: Path, *options: str) -> Path:
    assert main(["score", "--pairs", str(ranked), "--model", str(model), "--out", str(out),
                 "--quiet", *options]) == 0
    return out


def scored_column(path: Path, fold: bool = False) -> dict[str, float | None]:
    """id -> the score `score` wrote (None where empty), read from the text."""
    data = path.read_bytes()
    text = (bz2.decompress(data) if path.suffix == ".bz2" else data).decode()
    column = {}
    for line in text.splitlines():
        fields = line.split("\t")
        value = fields[-2 if fold else -1]
        column[fields[0]] = float(value) if value else None
    return column


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    """An en ranking with train, dev and test candidates, each split scored by `score` (the
    model knows only some words, so some pairs have no score)."""
    folder = tmp_path_factory.mktemp("scored")
    release = _release(folder / "opus")
    assert main(["rank", "--opus-dir", str(release), "--lang", "en", "--out",
                 str(folder / "plain"), "--format", "tsv,parquet", "--workers", "1",
                 "--quiet"]) == 0
    model = write_vectors(folder / "words.vec", WORDS[:4])
    plain = folder / "plain" / "en"
    files = {split: score(plain / name, model, folder / f"{split}.scored.txt.bz2")
             for split, name in zip(SPLITS, SPLIT_FILES)}
    return release, plain, model, files


def test_rank_parquet_carries_each_rows_score(ranked, tmp_path, monkeypatch):
    release, plain, model, files = ranked
    monkeypatch.setattr(export, "ROWS_PER_CHUNK", 1000)  # chunks rendered by two workers
    out = tmp_path / "out"
    assert main(["rank", "--opus-dir", str(release), "--lang", "en", "--out", str(out),
                 "--format", "tsv,parquet", "--workers", "2", "--quiet",
                 "--scores", *map(str, files.values())]) == 0
    folder = out / "en"
    for split, text, parquet in zip(SPLITS, SPLIT_FILES, PARQUET_FILES):
        assert (folder / text).read_bytes() == (plain / text).read_bytes()
        table = pq.read_table(folder / parquet)
        assert table.column_names[-1] == "paraphrase_score"
        expected = scored_column(files[split])
        assert list(expected) == table.column("id").to_pylist()
        assert table.column("paraphrase_score").to_pylist() == list(expected.values())
        assert table.drop_columns(["paraphrase_score"]).equals(pq.read_table(plain / parquet))
        # the Spark engine's path: the text file converted, the scores added to each batch
        converted = tmp_path / f"{split}.parquet"
        ranked_text_to_parquet(folder / text, converted, False,
                               ScoreTable(open_scored(files[split])))
        assert converted.read_bytes() == (folder / parquet).read_bytes()
    scores = [v for f in files.values() for v in scored_column(f).values()]
    assert None in scores and len({v for v in scores if v is not None}) > 20
    assert (folder / "stats.json").read_bytes() == (plain / "stats.json").read_bytes()
    card = (folder / "README.md").read_text()
    assert "`paraphrase_score`" in card and "Wieting & Gimpel 2018" in card
    assert "`train`, `dev_candidates`, `test_candidates`: scored by model `words.vec`, " \
           "backend `vectors` (4 dimensions, 4 words)" in card
    assert "--scores train.scored.txt.bz2 dev.scored.txt.bz2 test.scored.txt.bz2" in card


def test_a_partly_scored_split_has_nulls_and_an_unscored_split_a_null_column(ranked,
                                                                              tmp_path):
    release, plain, model, files = ranked
    kept = score(plain / SPLIT_FILES[0], model, tmp_path / "top.txt", "--min-score", "0.5",
                 "--folds", "3")
    out = tmp_path / "out"
    assert main(["rank", "--opus-dir", str(release), "--lang", "en", "--out", str(out),
                 "--format", "parquet", "--workers", "1", "--quiet", "--scores",
                 str(kept)]) == 0
    train = pq.read_table(out / "en" / PARQUET_FILES[0])
    written = scored_column(kept, fold=True)
    assert 0 < len(written) < train.num_rows
    assert train.column("paraphrase_score").to_pylist() == [
        written.get(pair_id) for pair_id in train.column("id").to_pylist()]
    dev = pq.read_table(out / "en" / PARQUET_FILES[1])
    assert dev.num_rows and dev.column("paraphrase_score").null_count == dev.num_rows
    assert "`dev_candidates`, `test_candidates`: not scored (null)" in (
        out / "en" / "README.md").read_text()


def test_the_card_loads_with_datasets_with_the_score(ranked, tmp_path):
    datasets = pytest.importorskip("datasets", reason="the datasets library (test extra) is "
                                   "not installed")
    release, plain, model, files = ranked
    out = tmp_path / "out"
    assert main(["rank", "--opus-dir", str(release), "--lang", "en", "--out", str(out),
                 "--format", "parquet", "--workers", "1", "--quiet", "--scores",
                 str(files["train"])]) == 0
    loaded = datasets.load_dataset(str(out / "en"), cache_dir=str(tmp_path / "cache"))
    expected = scored_column(files["train"])
    assert loaded["train"]["paraphrase_score"] == list(expected.values())
    assert loaded["dev_candidates"]["paraphrase_score"][0] is None


def _sample_run(tmp_path: Path, *scores: Path, formats: str = "parquet") -> list[str]:
    return ["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--out", str(tmp_path / "out"),
            "--format", formats, "--workers", "1", "--quiet", "--scores", *map(str, scores)]


@pytest.fixture(scope="module")
def sample_scored(tmp_path_factory):
    """The sample's fr training file (24 rows) scored."""
    folder = tmp_path_factory.mktemp("sample")
    assert main(["rank", "--opus-dir", str(SAMPLE), "--lang", "fr", "--out",
                 str(folder / "r"), "--workers", "1", "--quiet"]) == 0
    train = folder / "r" / "fr" / "train" / "fr-train.txt.bz2"
    words = sorted({w for line in bz2.decompress(train.read_bytes()).decode().splitlines()
                    for w in " ".join(line.split("\t")[1:3]).lower().split()})
    model = write_vectors(folder / "fr.vec", words)
    return score(train, model, folder / "fr.scored.txt"), train


def _copy(scored: Path, target: Path, text: str | None = None, stats: dict | None = None
          ) -> Path:
    target.write_text(scored.read_text() if text is None else text)
    original = json.loads(Path(f"{scored}.stats.json").read_text())
    Path(f"{target}.stats.json").write_text(json.dumps(original | (stats or {})))
    return target


def _error(capsys) -> str:
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "Traceback" not in error
    return error


def test_bad_scored_files_are_one_line_errors(sample_scored, tmp_path, capsys):
    scored, train = sample_scored
    assert main(_sample_run(tmp_path, tmp_path / "none.txt")) == 2
    assert _error(capsys).endswith("none.txt: not found: --scores takes files written by "
                                   "`opusparcus score`")
    bare = tmp_path / "bare.txt"
    bare.write_text(scored.read_text())
    assert main(_sample_run(tmp_path, bare)) == 2
    assert "has no bare.txt.stats.json beside it" in _error(capsys)
    other = _copy(scored, tmp_path / "other.txt", stats={"command": "enrich"})
    assert main(_sample_run(tmp_path, other)) == 2
    assert "was not written by `opusparcus score`" in _error(capsys)
    assert main(_sample_run(tmp_path, scored, _copy(scored, tmp_path / "twice.txt"))) == 2
    assert "both score the fr train pairs; give one" in _error(capsys)
    english = _copy(scored, tmp_path / "en.txt", scored.read_text().replace("fr-N", "en-N"))
    assert main(_sample_run(tmp_path, english)) == 2
    assert "scores en pairs, but the language here is fr" in _error(capsys)
    assert main(_sample_run(tmp_path, scored, formats="tsv")) == 2
    assert "--scores: adds a column to the Parquet files" in _error(capsys)
    assert not (tmp_path / "out").exists()


def test_a_file_scored_from_another_ranking_is_refused_naming_the_line(sample_scored, tmp_path,
                                                                       capsys):
    scored, train = sample_scored
    lines = scored.read_text().splitlines(keepends=True)
    fields = lines[4].split("\t")
    changed = _copy(scored, tmp_path / "changed.txt",
                    "".join(lines[:4] + ["\t".join([fields[0], fields[1] + " !", *fields[2:]])]
                            + lines[5:]))
    assert main(_sample_run(tmp_path, changed)) == 2
    error = _error(capsys)
    assert "changed.txt: line 5: fr-N5 holds other sentences than the fr-N5 written here" in error
    extra = _copy(scored, tmp_path / "extra.txt",
                  scored.read_text() + "fr-N25\ta .\tb .\t1\t1\t1\t1\t0.5\n")
    assert main(_sample_run(tmp_path, extra)) == 2
    assert ("extra.txt: line 25: fr-N25 is beyond this ranking's last train pair (fr-N24): "
            "scored from another ranking") in _error(capsys)
    mixed = _copy(scored, tmp_path / "mixed.txt", "".join(lines[:3]) + "fr-D1" + lines[3][5:])
    assert main(_sample_run(tmp_path, mixed)) == 2
    assert "mixed.txt: line 4: 'fr-D1': expected a fr train pair id (fr-N<n>)" in _error(capsys)
    assert not (tmp_path / "out").exists()


def test_a_scored_file_inside_the_output_folder_is_refused(sample_scored, tmp_path, capsys):
    scored, train = sample_scored
    out = tmp_path / "out" / "fr"
    out.mkdir(parents=True)
    inside = _copy(scored, out / "scored.txt")
    assert main(_sample_run(tmp_path, inside)) == 2
    assert "holds the input" in _error(capsys)


def _annotated(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A ranked en training file, combined annotations of a sample, and annotated dev/test."""
    from test_annotation_cli import _combined_sample

    ranked_file = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked_file)
    dev, test = tmp_path / "dev.txt", tmp_path / "test.txt"
    dev.write_text("en-D7\tGo away .\tLeave now .\t3.5\nen-D2\tHello .\tGood morning .\t2.0\n")
    test.write_text("en-T4\tHello .\tGood morning .\t4.0\n")
    return ranked_file, combined, dev, test


@pytest.mark.parametrize("schema", ["card", "hub"])
def test_export_gem_records_carry_the_score(tmp_path, schema):
    ranked_file, combined, dev, test = _annotated(tmp_path)
    model = write_vectors(tmp_path / "en.vec", ["phrase", "1", "2", "3", "go", "away", "leave",
                                                "now", "."])
    train_scored = score(ranked_file, model, tmp_path / "train.scored.txt.bz2")
    dev_scored = score(dev, model, tmp_path / "dev.scored.txt")
    out = tmp_path / "gem"
    assert main(["export-gem", "--ranked", str(ranked_file), "--annotations", str(combined),
                 "--dev", str(dev), "--test", str(test), "--out", str(out), "--format",
                 "jsonl,parquet", "--parquet-schema", schema, "--scores", str(dev_scored),
                 str(train_scored)]) == 0
    folder = out / "en"
    by_id = {"train": scored_column(train_scored), "validation": scored_column(dev_scored)}
    letters = {"train": "N", "validation": "D"}
    for path in sorted(folder.glob("*.jsonl")):
        split = path.name.split(".")[0]
        records = [json.loads(line) for line in path.read_text().splitlines()]
        assert all(list(item)[-1] == "paraphrase_score" for item in records)
        expected = [by_id[split].get(f"en-{letters[split]}{item['gem_id'].rsplit('-', 1)[1]}")
                    if split in by_id else None for item in records]
        assert [item["paraphrase_score"] for item in records] == expected
        parquet = pq.read_table(folder / "data" / f"{path.name[:-6]}.parquet")
        assert parquet.column_names[-1] == "paraphrase_score"
        assert parquet.column("paraphrase_score").to_pylist() == expected
    assert [v for v in by_id["validation"].values()] == [
        json.loads(line)["paraphrase_score"]
        for line in (folder / "validation.full.jsonl").read_text().splitlines()][::-1]
    train = [json.loads(line) for line in (folder / "train.60.jsonl").read_text().splitlines()]
    assert train and any(item["paraphrase_score"] is not None for item in train)
    card = (folder / "README.md").read_text()
    assert ("`train`, `validation`: scored by model `en.vec`, backend `vectors`" in card
            and "`test`: not scored (null)" in card)


def test_export_gem_refuses_a_dev_file_with_other_sentences(tmp_path, capsys):
    ranked_file, combined, dev, test = _annotated(tmp_path)
    model = write_vectors(tmp_path / "en.vec", ["go", "away", "hello", "."])
    scored = score(dev, model, tmp_path / "dev.scored.txt")
    dev.write_text(dev.read_text().replace("Leave now", "Leave"))
    capsys.readouterr()
    assert main(["export-gem", "--ranked", str(ranked_file), "--annotations", str(combined),
                 "--dev", str(dev), "--test", str(test), "--out", str(tmp_path / "gem"),
                 "--scores", str(scored)]) == 2
    assert "dev.scored.txt: line 1: en-D7 holds other sentences than the en-D7 written here" in (
        _error(capsys))
    assert not (tmp_path / "gem").exists()



def test_spark_engine_writes_the_same_scored_files(sample_scored, tmp_path):
    pytest.importorskip("pyspark", reason="the Spark engine needs the 'spark' extra (pyspark)")
    if shutil.which("java") is None:
        pytest.skip("the Spark engine needs Java 17 (no java on PATH)")
    scored, train = sample_scored
    runs = {}
    for engine in ("local", "spark"):
        out = tmp_path / engine
        assert main(_sample_run(out, scored) + ["--engine", engine, "--spark-master",
                                                "local[2]"] * (engine == "spark")) == 0
        runs[engine] = out / "out" / "fr"
    for name in (*PARQUET_FILES, "README.md"):
        assert (runs["spark"] / name).read_bytes() == (runs["local"] / name).read_bytes()
    assert pq.read_table(runs["spark"] / PARQUET_FILES[0]).column(
        "paraphrase_score").to_pylist() == list(scored_column(scored).values())
