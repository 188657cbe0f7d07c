"""Enrichment inputs: OPUS bitexts (both directions), plain Moses files, TaPaCo sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.enrich.inputs import (
    bitext_pairs,
    check_line_counts,
    moses_pairs,
    tapaco_set_pairs,
)

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


@pytest.mark.parametrize("source, reference, line", [
    ("a\nb\nc\n", "A\nB\n", 3),        # the source one line longer: zip() used to drop it
    ("a\nb\nc", "A\nB\n", 3),
    ("a\nb\n", "A\nB\nC", 3),
    ("a\n", "A\nB\nC\n", 2),
])
def test_unequal_line_counts_are_malformed(tmp_path, source, reference, line):
    (tmp_path / "s.es").write_text(source)
    (tmp_path / "r.pt").write_text(reference)
    message = rf"line {line}: s.es and r.pt have different numbers of lines"
    with pytest.raises(InputError, match=message) as caught:
        list(moses_pairs(tmp_path / "s.es", tmp_path / "r.pt"))
    assert caught.value.kind == "malformed Moses"
    with pytest.raises(InputError, match=message):
        check_line_counts(tmp_path / "s.es", tmp_path / "r.pt")


def test_a_final_newline_on_one_side_only_is_no_mismatch(tmp_path):
    (tmp_path / "s.es").write_text("a\nb")
    (tmp_path / "r.pt").write_text("A\nB\n")
    check_line_counts(tmp_path / "s.es", tmp_path / "r.pt")
    assert list(moses_pairs(tmp_path / "s.es", tmp_path / "r.pt")) == [("a", "A"), ("b", "B")]


def test_real_moses_files_with_one_more_line(shared_data, tmp_path):
    folder = shared_data / "opensubtitles-v2018-moses/da-ru"
    source, reference = tmp_path / "OpenSubtitles.da-ru.da", tmp_path / "OpenSubtitles.da-ru.ru"
    source.write_bytes((folder / source.name).read_bytes() + b"\nEn linje mere.")
    reference.write_bytes((folder / reference.name).read_bytes())
    with pytest.raises(InputError, match="line 6: "):
        check_line_counts(source, reference)
    with pytest.raises(InputError, match="line 6: "):
        list(moses_pairs(source, reference))


def test_bitext_pairs_from_raw_subtitles_and_a_mixed_release(tmp_path):
    from conftest import subtitle_xml, write_cesalign, write_document_zip, write_moses

    root = tmp_path / "opus"
    en, fr, de = "en/2001/1/1.xml.gz", "fr/2001/1/1.xml.gz", "de/2001/1/1.xml.gz"
    write_document_zip(root, "raw", "en", {en: subtitle_xml([("1", "Hello."), ("2", ""),
                                                             ("3", "Go.")])})
    write_document_zip(root, "raw", "fr", {fr: subtitle_xml([("1", "Bonjour."),
                                                             ("2", "Oui.")])})
    write_cesalign(root / "xml" / "en-fr.xml.gz", [(en, fr, [("1", "1"), ("2", "2")])])
    # Moses de-en: en sentences come from the en document where it has them
    write_moses(root, "de-en", [(de, en, "1", "1", "Hallo.", "hello"),
                                (de, en, "2", "3", "Geh.", "go"),
                                (de, en, "3", "9", "Mehr.", "More.")], zipped=True)
    assert list(bitext_pairs(root, "en-fr", "en")) == [("Bonjour.", "Hello.")]
    assert list(bitext_pairs(root, "de-en", "en")) == [("Hallo.", "Hello."), ("Geh.", "Go."),
                                                       ("Mehr.", "More.")]
