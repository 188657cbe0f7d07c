"""End-to-end ranking on real OPUS samples and on test-written releases with years."""

from __future__ import annotations

import bz2
import gzip
import re
from pathlib import Path

import pytest
from conftest import SAMPLE, write_cesalign, write_moses
from rapidfuzz.distance import Levenshtein
from reference import scores as reference_scores

from opusparcus.rank import RankOptions, rank
from tapaco.core.errors import InputError


def read_split(out: Path, lang: str, split: str) -> list[list[str]]:
    if split == "train":
        text = bz2.decompress((out / lang / "train" / f"{lang}-train.txt.bz2").read_bytes())
        text = text.decode("utf-8")
    else:
        text = (out / lang / split / f"{lang}-{split}-candidates.txt").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines()]
    assert all(len(row) == 7 for row in rows)
    return rows


def test_real_moses_sample_reads_and_drops_non_one_to_one(shared_data, tmp_path):
    (tmp_path / "opus").mkdir()
    (tmp_path / "opus" / "moses").symlink_to(shared_data / "opensubtitles-v2018-moses")
    stats = rank(tmp_path / "opus", "en", tmp_path / "out", RankOptions(workers=1))
    ids = (shared_data / "opensubtitles-v2018-moses/en-hi/OpenSubtitles.en-hi.ids").read_text()
    rows = [line.split("\t") for line in ids.splitlines()]
    assert stats["links_read"] == len(rows)
    assert stats["one_to_one_links"] == sum(" " not in a and " " not in b for *_, a, b in rows)
    assert stats["links_without_year"] == 0
    assert stats["pairs_written"] == {"train": 0, "dev": 0, "test": 0}


def test_real_rf_cesalign_drops_one_to_two_links(shared_data, tmp_path):
    stats = rank(shared_data / "opus-rf", "en", tmp_path / "out", RankOptions(workers=2))
    for pivot, counts in stats["bitexts"].items():
        name = "-".join(sorted(("en", pivot)))
        text = gzip.decompress((shared_data / "opus-rf/xml" / f"{name}.xml.gz").read_bytes())
        targets = re.findall(r'xtargets="([^"]*)"', text.decode())
        single = [t for t in targets
                  if all(side.strip() and " " not in side.strip() for side in t.split(";"))]
        assert counts["links"] == len(targets)
        assert counts["one_to_one"] == len(single) < len(targets)


def test_tatoeba_sample_french_pair_shares_the_german_pivot(tmp_path):
    rank(SAMPLE, "fr", tmp_path / "out", RankOptions(workers=1))
    rows = read_split(tmp_path / "out", "fr", "train")
    pairs = {(row[1], row[2]): row for row in rows}
    row = pairs["C' est quoi ?", "Qu' est -ce ?"]
    assert row[5] == "1"  # one pivot language (de) supports it
    assert [r[0] for r in rows] == [f"fr-N{n}" for n in range(1, len(rows) + 1)]
    assert all(r[1] < r[2] for r in rows)


def _yearly_release(root: Path) -> Path:
    """en-fr and en-de Moses bitexts over movies from 2001 (train), 1995 (dev), 1994 (test)."""
    def movie(year, pivot, pairs):
        return [(f"en/{year}/1/{n}.xml.gz", f"{pivot}/{year}/1/{n}.xml.gz", "1", "1", e, p)
                for n, (e, p) in enumerate(pairs)]

    french = (movie(2001, "fr", [("Have a seat.", "Asseyez-vous."), ("Sit down.", "Asseyez-vous."),
                                 ("Yes.", "Oui."), ("Yeah.", "Oui."), ("Yes.", "Oui.")])
              + movie(1995, "fr", [("Sit down.", "Assieds-toi."), ("Have a seat.", "Assieds-toi."),
                                   ("I am your friend.", "Je suis ton ami."),
                                   ("I'm your friend.", "Je suis ton ami."),
                                   ("Hello there.", "Salut."), ("Good morning.", "Salut.")])
              + movie(1994, "fr", [("Good morning.", "Bonjour."), ("Hello there.", "Bonjour."),
                                   ("Go away.", "Va-t'en."), ("Leave now.", "Va-t'en."),
                                   ("What?", "Quoi ?"), ("What...", "Quoi ?")])
              + [("en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "7", "7", "Thanks!", "Merci !")])
    german = movie(2002, "de", [("Have a seat.", "Setz dich."), ("Sit down.", "Setz dich.")])
    write_moses(root, "en-fr", french)
    return write_moses(root, "de-en", [(d2, d1, i2, i1, t2, t1)
                                      for d1, d2, i1, i2, t1, t2 in german])


def test_splits_by_year_held_out_pairs_and_prefilter(tmp_path):
    root = _yearly_release(tmp_path / "opus")
    stats = rank(root, "en", tmp_path / "out", RankOptions(workers=1))
    train = {(r[1], r[2]) for r in read_split(tmp_path / "out", "en", "train")}
    dev = {(r[1], r[2]) for r in read_split(tmp_path / "out", "en", "dev")}
    test = {(r[1], r[2]) for r in read_split(tmp_path / "out", "en", "test")}
    assert train == {("Have a seat .", "Sit down ."), ("Yeah .", "Yes .")}
    # dev: the seat pair is in train; "I 'm your friend ." differs too little from "I am ..."
    assert dev == {("Good morning .", "Hello there .")}
    # test: "Good morning ." / "Hello there ." is a dev pair; "What ?" / "What ." differ by 1
    assert test == {("Go away .", "Leave now .")}
    assert stats["links_without_year"] == 1
    assert stats["splits"]["train"]["links_per_pivot"] == {"de": 2, "fr": 6}
    assert [r[0] for r in read_split(tmp_path / "out", "en", "dev")] == ["en-D1"]
    assert [r[0] for r in read_split(tmp_path / "out", "en", "test")] == ["en-T1"]


def test_summed_pmi_fields_and_order_match_dictionary_counting(tmp_path):
    import random

    rng = random.Random(3)
    words = ["yes", "yeah", "sure", "okay", "fine", "right", "good", "great"]
    targets = [f"{a} {b} ." for a in words for b in words[:3]]
    root = tmp_path / "opus"
    bitexts = {}
    for pivot in ("de", "fr", "sv"):
        pivots = [f"{pivot}{n} ." for n in range(30)]
        links = [(rng.choice(targets), rng.choice(pivots)) for _ in range(300)]
        bitexts[pivot] = links
        rows = [(f"en/2000/1/{n}.xml.gz", f"{pivot}/2000/1/{n}.xml.gz", "1", "1", t, f)
                for n, (t, f) in enumerate(links)]
        write_moses(root, f"en-{pivot}", rows)
    rank(root, "en", tmp_path / "out", RankOptions(workers=2))
    rows = read_split(tmp_path / "out", "en", "train")
    expected = reference_scores(bitexts)
    assert len(rows) == len(expected) > 100
    for row in rows:
        want = expected[row[1], row[2]]
        assert float(row[3]) == pytest.approx(want["summed-pmi"], abs=1e-6)
        assert float(row[4]) == pytest.approx(want["expected"], abs=1e-6)
        assert int(row[5]) == want["pivots"]
    ranking = sorted(expected, key=lambda pair: (-round(expected[pair]["summed-pmi"], 9), pair))
    assert [(r[1], r[2]) for r in rows] == ranking


def test_xml_and_moses_forms_give_the_same_ranking(tmp_path):
    rows = [(f"en/2003/1/{n}.xml.gz", f"fr/2003/1/{n}.xml.gz", "s1", "s1", e, f)
            for n, (e, f) in enumerate([("Yes .", "Oui ."), ("Yeah .", "Oui ."),
                                        ("Sure .", "Oui ."), ("No .", "Non .")])]
    moses = write_moses(tmp_path / "moses-form", "en-fr", rows)
    xml = tmp_path / "xml-form"
    write_cesalign(xml / "xml" / "en-fr.xml.gz",
                   [(d1, d2, [(i1, i2)]) for d1, d2, i1, i2, _, _ in rows])
    from conftest import OpusFolder, Sentence

    folder = OpusFolder(xml)
    for d1, d2, i1, i2, e, f in rows:
        folder.sentences(d1, Sentence(i1, e))
        folder.sentences(d2, Sentence(i2, f))
    folder.write("xml")
    rank(moses, "en", tmp_path / "a", RankOptions(workers=1))
    rank(xml, "en", tmp_path / "b", RankOptions(workers=1))
    assert read_split(tmp_path / "a", "en", "train") == read_split(tmp_path / "b", "en", "train")
    assert len(read_split(tmp_path / "a", "en", "train")) == 3


def test_unknown_pivot_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no fr-xx bitext"):
        rank(SAMPLE, "fr", tmp_path / "out", RankOptions(pivots=("xx",)))
    assert not (tmp_path / "out").exists()


def _mixed_forms_release(root: Path) -> Path:
    """fr target: cesAlign en-fr over tokenised documents, and a Moses de-fr zip whose .ids
    name the same fr document but whose raw fr lines tokenise differently ("Qu' est-ce ?")."""
    from conftest import OpusFolder, Sentence

    en, fr, de = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "de/tatoeba.xml.gz"
    folder = OpusFolder(root)
    folder.sentences(en, Sentence("s1", "What is it ?"), Sentence("s2", "What is it ?"))
    folder.sentences(fr, Sentence("s1", "C' est quoi ?"), Sentence("s2", "Qu' est -ce ?"))
    folder.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s2")])
    folder.write("xml")
    return write_moses(root, "de-fr", [(de, fr, "s1", "s1", "Was ist das?", "C'est quoi ?"),
                                       (de, fr, "s2", "s2", "Was ist das?", "Qu'est-ce ?")],
                       zipped=True)


def test_a_sentence_has_one_identity_whichever_form_linked_it(tmp_path):
    root = _mixed_forms_release(tmp_path / "opus")
    stats = rank(root, "fr", tmp_path / "out", RankOptions(workers=1))
    rows = read_split(tmp_path / "out", "fr", "train")
    # both bitexts support the one pair of the documents' sentences
    assert [(row[1], row[2], row[5]) for row in rows] == [("C' est quoi ?", "Qu' est -ce ?",
                                                           "2")]
    assert stats["bitexts"]["de"]["one_to_one"] == stats["bitexts"]["en"]["one_to_one"] == 2


def test_raw_subtitles_read_around_time_elements_and_empty_texts_pair_nothing(tmp_path):
    from conftest import subtitle_xml, write_document_zip

    root = tmp_path / "opus"
    en, fr = "en/2001/1/1.xml.gz", "fr/2001/1/1.xml.gz"
    write_document_zip(root, "raw", "en", {en: subtitle_xml(
        [("1", "Yes."), ("2", ""), ("3", ""), ("4", "Yeah.")])})
    write_document_zip(root, "raw", "fr", {fr: subtitle_xml([(str(n), "Oui.")
                                                              for n in range(1, 5)])})
    write_cesalign(root / "xml" / "en-fr.xml.gz", [(en, fr, [(str(n), str(n))
                                                             for n in range(1, 5)])])
    stats = rank(root, "en", tmp_path / "out", RankOptions(workers=1))
    assert [(row[1], row[2]) for row in read_split(tmp_path / "out", "en", "train")] == [
        ("Yeah .", "Yes .")]
    counts = stats["bitexts"]["fr"]
    assert counts["one_to_one"] == 4 and counts["links_with_empty_text"] == 2
    assert stats["splits"]["train"]["links_per_pivot"] == {"fr": 2}


def test_documents_option_chooses_the_folder_searched_first(tmp_path):
    from conftest import OpusFolder, Sentence

    en, fr = "en/2001/1/1.xml.gz", "fr/2001/1/1.xml.gz"
    root = tmp_path / "opus"
    for kind, english in (("raw", ("Don't!", "Do not!")), ("xml", ("Do n't !", "No !"))):
        folder = OpusFolder(root)
        folder.sentences(en, Sentence("s1", english[0]), Sentence("s2", english[1]))
        folder.sentences(fr, Sentence("s1", "Non !"), Sentence("s2", "Non !"))
        folder.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s2")])
        folder.write(kind)
    rank(root, "en", tmp_path / "xml", RankOptions(workers=1))
    rank(root, "en", tmp_path / "raw", RankOptions(workers=1, documents="raw"))
    # xml: the tokens as they are; raw: Moses-tokenised ("Don't!" -> "Don 't !")
    assert [row[1:3] for row in read_split(tmp_path / "xml", "en", "train")] == [
        ["Do n't .", "No ."]]
    assert [row[1:3] for row in read_split(tmp_path / "raw", "en", "train")] == [
        ["Do not .", "Don 't ."]]
    with pytest.raises(InputError, match="--documents"):
        RankOptions(documents="moses")


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_pairs_of_short_sentences_take_the_short_edit_ratio(tmp_path, engine):
    # every sentence of the release is shorter than 24 characters: only the short ratio counts
    if engine == "spark":
        pytest.importorskip("pyspark", reason="the Spark engine needs the 'spark' extra")
        import shutil
        if not shutil.which("java"):
            pytest.skip("the Spark engine needs Java")
    root = _yearly_release(tmp_path / "opus")
    held_out = {}
    for name, ratio, short_ratio in (("lenient", 0.99, 0.0), ("strict", 0.0, 0.99)):
        out = tmp_path / name
        rank(root, "en", out, RankOptions(min_edit_ratio=ratio, min_edit_ratio_short=short_ratio,
                                          workers=1, engine=engine))
        held_out[name] = {split: {(r[1], r[2]) for r in read_split(out, "en", split)}
                          for split in ("dev", "test")}
    assert held_out["lenient"] == {
        "dev": {("Good morning .", "Hello there ."), ("I 'm your friend .", "I am your friend .")},
        "test": {("Go away .", "Leave now ."), ("What .", "What ?")}}
    # the short ratio 0.99 keeps only pairs that differ in (nearly) every character
    assert held_out["strict"] == {split: {(a, b) for a, b in pairs if Levenshtein.distance(a, b)
                                          >= 0.99 * min(len(a), len(b))}
                                  for split, pairs in held_out["lenient"].items()}
    assert held_out["strict"] == {"dev": set(), "test": {("Go away .", "Leave now .")}}


def test_a_year_is_four_ascii_digits_in_both_readers(tmp_path):
    """Document paths whose second part is not exactly four ASCII digits have no year (their
    links count as train): the documents' reader (year_of) and the Moses columns agree."""
    from opusparcus.bitexts import year_of
    from tapaco.core.opus.moses_columns import NO_YEAR, parse_ids
    from tapaco.core.opus.textstream import FileRef, LineChunks

    expected = {"en/1994/1/2.xml.gz": 1994, "en/1988.xml.gz": 1988, "en/4/1/2.xml.gz": None,
                "en/204/1/2.xml.gz": None, "en/02004/1/2.xml.gz": None,
                "en/20045/1/2.xml.gz": None, "en/2004a/1.xml.gz": None,
                "en/١٩٩٤/1/2.xml.gz": None, "en.xml.gz": None}
    assert {path: year_of(path) for path in expected} == expected
    ids = tmp_path / "t.ids"
    ids.write_text("".join(f"{path}\t{path}\t1\t1\n" for path in expected), encoding="utf-8")
    columns = parse_ids(LineChunks(FileRef(ids)).take(len(expected)), FileRef(ids))
    assert [None if year == NO_YEAR else year for year in columns.years[0].tolist()] == list(
        expected.values())


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("workers", [1, 2])
def test_bitexts_read_in_pieces_rank_as_read_whole(tmp_path, monkeypatch, workers):
    """Pieces of 5 links: each side's vocabulary merged from its pieces', codes and splits
    joined in order; a pivot of one bitext keeps only its codes; a bad line after some pieces
    leaves its bitext empty (all or nothing)."""
    import random

    from opusparcus import rank as rank_module
    from opusparcus.rank import rank_languages

    rng = random.Random(5)
    words = {lang: [f"{lang}{n} ." for n in range(12)] for lang in ("en", "de", "fr", "sv")}
    root = tmp_path / "opus"
    for pair in ("de-en", "en-fr", "de-fr", "en-sv"):
        first, second = pair.split("-")
        rows = [(f"{first}/{rng.choice((2001, 2004, 2005))}/1/{n}.xml.gz",
                 f"{second}/2001/1/{n}.xml.gz", "1", "1", rng.choice(words[first]),
                 rng.choice(words[second])) for n in range(60)]
        if pair == "en-sv":
            rows[33] = rows[33][:2] + ("1\t2", "1") + rows[33][4:]  # five fields: a bad line
        write_moses(root, pair, rows)
    options = RankOptions(workers=workers, skip_bad_input=True, max_pivot_fanout=None)
    rank_languages(root, ("en", "fr"), tmp_path / "whole", options)
    monkeypatch.setattr(rank_module, "LINKS_PER_PIECE", 5)
    stats = rank_languages(root, ("en", "fr"), tmp_path / "pieces", options)
    assert stats["en"]["bitexts"]["sv"]["links"] == 0
    assert stats["en"]["pairs_written"]["train"] > 20
    assert _files(tmp_path / "pieces") == _files(tmp_path / "whole")
