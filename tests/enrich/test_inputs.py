"""Enrichment inputs: OPUS bitexts (both directions), plain Moses files, TaPaCo sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.enrich.inputs import bitext_pairs, moses_pairs, tapaco_set_pairs

SAMPLE = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"


def test_bitext_pairs_from_cesalign_in_both_directions():
    to_english = list(bitext_pairs(SAMPLE, "de-en", "en"))
    to_german = list(bitext_pairs(SAMPLE, "de-en", "de"))
    assert len(to_english) == 44 and to_german == [(r, s) for s, r in to_english]
    assert ("Was ist das ?", "What is this ?") in to_english


def test_bitext_pairs_from_real_moses(shared_data, tmp_path):
    (tmp_path / "opus").mkdir()
    (tmp_path / "opus" / "moses").symlink_to(shared_data / "opensubtitles-v2018-moses")
    pairs = list(bitext_pairs(tmp_path / "opus", "en-hi", "en"))
    hindi = (shared_data / "opensubtitles-v2018-moses/en-hi/OpenSubtitles.en-hi.hi")
    assert [source for source, _ in pairs] == hindi.read_text().splitlines()


def test_bad_pair_and_missing_bitext():
    with pytest.raises(InputError, match="not a language pair"):
        list(bitext_pairs(SAMPLE, "de-en", "fr"))
    with pytest.raises(InputError, match="no de-es bitext"):
        list(bitext_pairs(SAMPLE, "de-es", "es"))


def test_moses_pairs_and_length_mismatch(tmp_path):
    (tmp_path / "a.cs").write_text("Ahoj.\n\nNazdar.\n")
    (tmp_path / "a.en").write_text("Hello.\nHi.\nHey.\n")
    assert list(moses_pairs(tmp_path / "a.cs", tmp_path / "a.en")) == [("Ahoj.", "Hello."),
                                                                         ("Nazdar.", "Hey.")]
    (tmp_path / "a.en").write_text("Hello.\nHi.\nHey.\nMore.\n")
    with pytest.raises(InputError, match="line 4: a.cs and a.en have different numbers"):
        list(moses_pairs(tmp_path / "a.cs", tmp_path / "a.en"))


def test_tapaco_set_pairs(tmp_path):
    (tmp_path / "fr.txt").write_text(
        "1\t10\tJe mange.\t\t\n1\t11\tJe bouffe.\t\t\n2\t12\tNon.\t\t\n")
    (tmp_path / "en.txt").write_text("1\t5\tI eat.\t\t\n1\t6\tI am eating.\t\t\n")
    assert list(tapaco_set_pairs(tmp_path, "fr", "en")) == [
        ("1", "Je mange.", "I eat."), ("1", "Je bouffe.", "I eat."), ("2", "Non.", "")]
