"""The annotation workflow through the command line: sample, combine, cutoff."""

from __future__ import annotations

import bz2
import json

import numpy as np
from conftest import ranked_english

from opusparcus.cli import main
from tapaco.core.annotation.pairs import read_annotations, write_annotations


def test_sample_combine_cutoff(tmp_path, capsys):
    ranked = ranked_english(tmp_path)
    total = len(bz2.decompress(ranked.read_bytes()).splitlines())
    sample = tmp_path / "sample.tsv"
    assert main(["sample", "--ranked", str(ranked), "--n", "40", "--seed", "1",
                 "--out", str(sample)]) == 0
    annotations = read_annotations(sample)
    ranks = [a.rank for a in annotations]
    assert len(ranks) == 40 == len(set(ranks)) and ranks == sorted(ranks)
    for a in annotations:  # the top of the ranking is good, the tail bad
        a.labels = [4, 4] if a.rank <= total // 2 else [1, 2]
    annotations[-1].labels = [4, 1]  # dropped: three categories apart
    write_annotations(sample, annotations)
    combined = tmp_path / "combined.tsv"
    capsys.readouterr()
    assert main(["combine", "--annotations", str(sample), "--out", str(combined)]) == 0
    report = capsys.readouterr()
    assert "kept 39 pairs" in report.out and "Cohen's kappa 0." in report.out  # the result
    assert report.err == ""
    assert main(["cutoff", "--ranked", str(ranked), "--annotations", str(combined),
                 "--out", str(tmp_path / "cuts")]) == 0
    result = json.loads((tmp_path / "cuts" / "cutoffs.json").read_text())
    kept = [(a.rank, a.labels == [4, 4]) for a in annotations if a.labels != [4, 1]]
    expected_rows = []
    for level in (0.95, 0.9, 0.75):  # the largest r whose share among annotated <= r is >= level
        rows = 0
        for i in range(len(kept)):
            share = sum(good for _, good in kept[:i + 1]) / (i + 1)
            if share >= level:
                rows = kept[i + 1][0] - 1 if i + 1 < len(kept) else total
        expected_rows.append(rows)
    assert [cut["rows"] for cut in result["cuts"]] == expected_rows
    assert expected_rows[0] > total // 2
    cut95 = bz2.decompress((tmp_path / "cuts" / "en-train-95.txt.bz2").read_bytes())
    top = bz2.decompress(ranked.read_bytes()).splitlines()[:expected_rows[0]]
    assert cut95 == b"\n".join(top) + b"\n"
    assert "Wilson" in result["interval"]
    assert np.all(np.diff([cut["rows"] for cut in result["cuts"]]) >= 0)


def test_cutoff_rejects_pairs_not_in_the_ranked_file(tmp_path, capsys):
    ranked = ranked_english(tmp_path)
    combined = tmp_path / "combined.tsv"
    combined.write_text("rank\tid\tsentence1\tsentence2\tscore\n1\ten-N1\tnot\tthere\t4.0\n")
    assert main(["cutoff", "--ranked", str(ranked), "--annotations", str(combined),
                 "--out", str(tmp_path / "cuts")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith("combined.tsv: line 2: pair en-N1 is not at rank 1 of the ranked file")
    assert not (tmp_path / "cuts").exists()


def test_dev_candidates_become_the_release_four_field_file(tmp_path):
    candidates = tmp_path / "en-dev-candidates.txt"
    candidates.write_text("en-D1\tGo away .\tLeave now .\t1\t1\t1\t5\n"
                          "en-D2\tHello .\tGood morning .\t1\t1\t1\t9\n")
    sample = tmp_path / "dev.tsv"
    assert main(["sample", "--ranked", str(candidates), "--all", "--out", str(sample)]) == 0
    annotations = read_annotations(sample)
    annotations[0].labels, annotations[1].labels = [4, 3], [2, 4]
    write_annotations(sample, annotations)
    assert main(["combine", "--annotations", str(sample), "--out", str(tmp_path / "dev")]) == 0
    assert (tmp_path / "dev").read_text() == "en-D1\tGo away .\tLeave now .\t3.5\n"


def _combined_sample(tmp_path, ranked):
    sample = tmp_path / "sample.tsv"
    assert main(["sample", "--ranked", str(ranked), "--n", "30", "--out", str(sample)]) == 0
    annotations = read_annotations(sample)
    for a in annotations:
        a.labels = [4, 3] if a.rank % 3 else [2, 1]
    write_annotations(sample, annotations)
    combined = tmp_path / "combined.tsv"
    assert main(["combine", "--annotations", str(sample), "--out", str(combined)]) == 0
    return combined


def test_plot_one_scheme_and_a_comparison(tmp_path, capsys):
    import pytest

    pytest.importorskip("matplotlib")
    ranked = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked)
    assert main(["rank", "--opus-dir", str(tmp_path / "opus"), "--lang", "en", "--out",
                 str(tmp_path / "joint"), "--score", "joint", "--workers", "1", "--quiet"]) == 0
    joint = tmp_path / "joint" / "en" / "train" / "en-train.txt.bz2"
    figure = ["plot", "--ranked", str(ranked), "--annotations", str(combined),
              "--out", str(tmp_path / "figure")]
    assert main(figure) == 0
    assert (tmp_path / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(b"opusparcus plot" in (tmp_path / f"figure.{kind}").read_bytes()
               for kind in ("png", "svg"))
    assert main(figure) == 0  # its own pictures are replaced on a rerun
    capsys.readouterr()
    assert main(["plot", "--ranked", str(ranked), str(joint), "--annotations", str(combined),
                 "--out", str(tmp_path / "compare")]) == 0
    report = capsys.readouterr().err
    assert "summed-pmi: acceptable-share AUC" in report and "joint: acceptable-share" in report


def test_plot_names_curves_and_refuses_two_of_one_name(tmp_path, capsys):
    import pytest

    pytest.importorskip("matplotlib")
    ranked = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked)
    again = tmp_path / "again"
    assert main(["rank", "--opus-dir", str(tmp_path / "opus"), "--lang", "en", "--out",
                 str(again), "--workers", "1", "--quiet"]) == 0
    both = ["plot", "--ranked", str(ranked), str(again / "en/train/en-train.txt.bz2"),
            "--annotations", str(combined), "--out", str(tmp_path / "c")]
    capsys.readouterr()
    assert main(both) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "both be named 'summed-pmi'" in error[0]
    assert main([*both, "--label", "first"]) == 2
    assert "one label per --ranked file (2), got 1" in capsys.readouterr().err
    assert main([*both, "--label", "first", "second"]) == 0
    report = capsys.readouterr().err
    assert "first: acceptable-share AUC" in report and "second: acceptable-share" in report
    (tmp_path / "mine.png").write_bytes(b"a user's picture")
    assert main([*both[:-1], str(tmp_path / "mine"), "--label", "a", "b"]) == 2
    assert "exists and was not written by opusparcus plot" in capsys.readouterr().err
    assert (tmp_path / "mine.png").read_bytes() == b"a user's picture"


def test_export_gem_from_the_command_line(tmp_path):
    ranked = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked)
    (tmp_path / "dev.txt").write_text("en-D1\tGo away .\tLeave now .\t3.5\n")
    (tmp_path / "test.txt").write_text("en-T4\tHello .\tGood morning .\t4.0\n")
    assert main(["export-gem", "--ranked", str(ranked), "--annotations", str(combined),
                 "--dev", str(tmp_path / "dev.txt"), "--test", str(tmp_path / "test.txt"),
                 "--out", str(tmp_path / "gem")]) == 0
    test_records = [json.loads(line) for line in
                    (tmp_path / "gem" / "en" / "test.jsonl").read_text().splitlines()]
    assert test_records == [{"lang": "en", "sent1": "Hello .", "sent2": "Good morning .",
                             "annot_score": 4.0, "gem_id": "gem-opusparcus-test-4"}]
    assert (tmp_path / "gem" / "en" / "train.100.jsonl").read_text() == ""


def test_combine_reports_what_is_left_out(tmp_path, capsys):
    ranked = ranked_english(tmp_path)
    sample = tmp_path / "sample.tsv"
    assert main(["sample", "--ranked", str(ranked), "--n", "6", "--out", str(sample)]) == 0
    annotations = read_annotations(sample)
    for n, a in enumerate(annotations):
        a.labels = [4, 4] if n < 3 else ([4, None] if n < 5 else [None, None])
    write_annotations(sample, annotations)
    capsys.readouterr()
    assert main(["combine", "--annotations", str(sample), "--out", str(tmp_path / "c")]) == 0
    report = capsys.readouterr().out
    assert "kept 3 pairs" in report
    assert "left out 3 pairs not labelled by both annotators (annotator 1 has 1 to do, " \
           "annotator 2 3)" in report
    assert len((tmp_path / "c").read_text().splitlines()) == 1 + 3


def test_cutoffs_json_is_strict_json_when_a_level_is_not_reached(tmp_path, capsys):
    ranked = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked)
    assert main(["cutoff", "--ranked", str(ranked), "--annotations", str(combined),
                 "--levels", "100,50", "--out", str(tmp_path / "cuts")]) == 0

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    text = (tmp_path / "cuts" / "cutoffs.json").read_text()
    result = json.loads(text, parse_constant=refuse)
    unreached = result["cuts"][0]
    assert unreached["reached"] is False and unreached["rows"] == 0
    assert unreached["share"] is None and unreached["low"] is None
    assert result["cuts"][1]["reached"] is True and result["cuts"][1]["share"] >= 0.5
    assert "not reached" in capsys.readouterr().err


def test_plot_without_matplotlib_is_one_line(tmp_path, capsys, monkeypatch):
    import sys

    ranked = ranked_english(tmp_path)
    combined = _combined_sample(tmp_path, ranked)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    capsys.readouterr()
    assert main(["plot", "--ranked", str(ranked), "--annotations", str(combined),
                 "--out", str(tmp_path / "fig")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "pip install 'pivot-paraphrase-miner[plot]'" in error[0]
    assert not list(tmp_path.glob("fig*"))
