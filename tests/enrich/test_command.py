"""The enrich command with a stand-in translator (the real backends have their own tests)."""

from __future__ import annotations

import json
from pathlib import Path

from fake_translator import UpperCaser

from tapaco.cli import parser
from tapaco.enrich.command import run

SAMPLE = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"


def _arguments(*extra: str):
    return parser().parse_args(["enrich", "--target", "en", "--model", "unused", *extra])


def test_bitext_mode_writes_every_kept_output(tmp_path):
    out = tmp_path / "de-en.tsv"
    stats = run(_arguments("--opus-dir", str(SAMPLE), "--pair", "de-en", "--out", str(out),
                           "--keep-copies"), UpperCaser())
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("reference\tparaphrase\tsource")
    assert stats["sentences"] == 44 and len(rows) - 1 == stats["kept"] > 0
    first = rows[1].split("\t")
    assert first[1] == first[2].upper()
    assert json.loads((tmp_path / "de-en.tsv.stats.json").read_text())["sentences"] == 44


def test_tapaco_mode_writes_machine_candidates_beside_the_sets(tmp_path):
    sets = tmp_path / "sets"
    sets.mkdir()
    (sets / "fr.txt").write_text(
        "3\t30\tJe mange .\t\t\n3\t31\tJe bouffe .\t\t\n7\t70\tNon .\t\t\n")
    (sets / "en.txt").write_text("3\t5\tI eat .\t\t\n")
    before = {p.name: p.read_bytes() for p in sets.iterdir()}
    out = tmp_path / "machine"
    run(_arguments("--sets", str(sets), "--from-lang", "fr", "--out", str(out)), UpperCaser())
    machine = (out / "en-from-fr.machine.txt").read_text().splitlines()
    assert machine == ["3\tJE MANGE .\tJe mange .\t0", "3\tJE BOUFFE .\tJe bouffe .\t0",
                       "7\tNON .\tNon .\t0"]
    assert sorted(p.name for p in out.iterdir()) == [
        "en-from-fr.enrich.tsv", "en-from-fr.enrich.tsv.progress.json",
        "en-from-fr.enrich.tsv.stats.json", "en-from-fr.machine.txt"]
    assert {p.name: p.read_bytes() for p in sets.iterdir()} == before


def test_a_folder_that_is_no_model_is_a_one_line_error(tmp_path, capsys):
    from tapaco.cli import main

    (tmp_path / "model").mkdir()
    status = main(["enrich", "--opus-dir", str(SAMPLE), "--pair", "de-en", "--target", "en",
                   "--model", str(tmp_path / "model"), "--out", str(tmp_path / "o.tsv")])
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(error) == 1 and error[0].startswith("tapaco: error: ")
    assert str(tmp_path / "model") in error[0]
    assert not (tmp_path / "o.tsv").exists()
