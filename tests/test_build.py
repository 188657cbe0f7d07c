"""End-to-end builds compared with the simple implementation in tests/independent.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import (
    SAMPLE,
    OpusFolder,
    Sentence,
    subtitle_xml,
    write_cesalign,
    write_document_zip,
    write_moses,
)
from independent import expected_sets

from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build


def read_output(out: Path) -> dict[str, list[list[str]]]:
    files = {}
    for path in sorted(out.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n")
        files[path.stem] = [line.split("\t") for line in text.splitlines()]
        assert all(len(row) == 5 for row in files[path.stem])
    return files


def display_id(side: tuple, several_documents: bool) -> str:
    lang, document, ids = side
    parts = [i.removeprefix("s") for i in ids.split()]
    bases = {part.split(".")[0] for part in parts}
    if len(parts) > 1 and len(bases) == 1 and [p.split(".")[1] for p in parts] == [
            str(n) for n in range(len(parts))]:
        parts = list(bases)
    label = "+".join(parts)
    if several_documents:
        name = document.split("/", 1)[1].removesuffix(".xml.gz")
        label = f"{name}#{label}"
    return label


def assert_matches_independent(opus_dir: Path, out: Path, **options):
    build(opus_dir, out, BuildOptions(FilterOptions(**options)))
    files = read_output(out)
    expected, info = expected_sets(opus_dir, **options)
    assert sorted(files) == sorted(expected)
    documents = {}
    for lang, document, _ in info:
        documents.setdefault(lang, set()).add(document)
    set_ids_of_component = {}
    for lang, sets in expected.items():
        several_documents = len(documents[lang]) > 1
        rows = files[lang]
        got = {}
        for set_id, sentence_id, text, lists, tags in rows:
            got.setdefault(set_id, []).append((sentence_id, text, lists, tags))
        want = [[(display_id(side, several_documents), *info[side]) for side in members]
                for _, members in sets]
        assert sorted(got.values()) == sorted(want)
        assert [r[0] for r in rows] == sorted((r[0] for r in rows), key=int)
        set_id_of = {row[1]: row[0] for row in rows}
        for number, members in sets:
            set_ids_of_component.setdefault(number, set()).update(
                set_id_of[display_id(side, several_documents)] for side in members)
    # one set id per component, the same in every language, and a different one per component
    assert all(len(ids) == 1 for ids in set_ids_of_component.values())
    assert len({min(ids) for ids in set_ids_of_component.values()}) == len(set_ids_of_component)
    return files


def test_embedded_sample_matches_independent_build(tmp_path):
    files = assert_matches_independent(SAMPLE, tmp_path / "out", min_sets=1)
    french = {(row[1], row[2]): row[0] for row in files["fr"]}
    assert french[("564436", "C' est quoi ?")] == french[("1130166", "Qu' est -ce ?")]


def test_real_rf_release_with_documents_and_multi_id_sides(shared_data, tmp_path):
    files = assert_matches_independent(shared_data / "opus-rf", tmp_path / "out", min_sets=1)
    assert all("#" in row[1] for row in files["en"])
    assert not any("#" in row[1] for row in files["es"])


def _meaning_folder(opus):
    en, fr, de, es = ("en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "de/tatoeba.xml.gz",
                      "es/tatoeba.xml.gz")
    opus.sentences(en, Sentence("s1", "I ate the cheese.", "907;4000", "past tense"),
                   Sentence("s2", "I have eaten cheese."),
                   Sentence("s3", "Cheese was eaten by me."),
                   Sentence("s4", "Don’t stop!"), Sentence("s5", "Don't stop."),
                   Sentence("s6.0", "Stop."), Sentence("s6.1", "Now."),
                   Sentence("s7", "Halt right now."), Sentence("s8", "Hello there."))
    opus.sentences(fr, Sentence("s10", "J'ai mangé le fromage."),
                   Sentence("s11", "Le fromage, je l'ai mangé.", "", "topicalisation"),
                   Sentence("s12", "N'arrête pas !"), Sentence("s13", "Ne t'arrête pas !"),
                   Sentence("s14", "Arrête-toi maintenant."),
                   Sentence("s15", "Stoppe tout de suite."))
    opus.sentences(de, Sentence("s20", "Ich aß den Käse."), Sentence("s21", "Hallo."))
    opus.sentences(es, Sentence("s30", "Comí el queso."), Sentence("s31", "Me comí el queso."))
    # multi-hop: fr s11 reaches en s1 only through es s31 - es s30 (intra) - de s20
    opus.links("en-fr", en, fr, [("s1", "s10"), ("s4", "s12"), ("s5", "s13"),
                                 ("s6.0 s6.1", "s14"), ("s7", "s15")])
    opus.links("de-en", de, en, [("s20", "s2"), ("s20", "s1")])
    opus.links("de-es", de, es, [("s20", "s30")])
    opus.links("es-fr", es, fr, [("s31", "s11")])
    opus.links("es-es", es, es, [("s30", "s31")])
    opus.links("en-en", en, en, [("s1", "s3"), ("s6.0 s6.1", "s7")])
    return opus.write("raw")


def test_written_release_needs_multi_hop_surface_and_intra_links(opus, tmp_path):
    root = _meaning_folder(opus)
    files = assert_matches_independent(root, tmp_path / "out", min_sets=1, bleu_max=100.0)
    english = {row[1]: row for row in files["en"]}
    french = {row[1]: row for row in files["fr"]}
    # one set across languages: en s1, s2, s3 (intra-lingual) and fr s10, s11 (multi-hop)
    assert english["1"][0] == english["2"][0] == english["3"][0] == french["10"][0]
    assert french["11"][0] == french["10"][0]
    # fr s12 and s13 are linked to en s4 and s5, joined only by surface similarity
    assert french["12"][0] == french["13"][0]
    # the split Tatoeba sentence s6.0 s6.1 has id 6 and the joined text
    assert english["6"][2] == "Stop. Now."
    assert english["1"][3:] == ["907;4000", "past tense"]
    assert french["11"][3:] == ["", "topicalisation"]
    assert "8" not in english


def test_filters_on_written_release(opus, tmp_path):
    root = _meaning_folder(opus)
    files = assert_matches_independent(root, tmp_path / "out", min_sets=1)
    english_ids = {row[1] for row in files["en"]}
    assert "5" not in english_ids  # near-identical to s4, which has the lower id


def test_min_sets_drops_languages(opus, tmp_path):
    root = _meaning_folder(opus)
    build(root, tmp_path / "out", BuildOptions(FilterOptions(min_sets=2, bleu_max=100.0)))
    assert sorted(read_output(tmp_path / "out")) == ["en", "fr"]


def test_output_is_byte_identical_across_runs_and_worker_counts(shared_data, tmp_path,
                                                                monkeypatch):
    """Two runs, one worker (one process, one thread) and three (threads over small chunks)."""
    import tapaco.bleu
    import tapaco.filters

    for name, workers in (("a", 0), ("b", 0), ("one", 1), ("three", 3)):
        if workers == 3:
            monkeypatch.setattr(tapaco.filters, "_CHUNK_ROWS", 7)
            monkeypatch.setattr(tapaco.bleu, "_CHUNK_ROWS", 7)
        build(shared_data / "opus-rf", tmp_path / name,
              BuildOptions(FilterOptions(min_sets=1), workers=workers))
    for path in sorted((tmp_path / "a").iterdir()):
        for name in ("b", "one", "three"):
            assert path.read_bytes() == (tmp_path / name / path.name).read_bytes(), path.name


def test_langs_restricts_output_but_all_languages_pivot(opus, tmp_path):
    root = _meaning_folder(opus)
    build(root, tmp_path / "out", BuildOptions(FilterOptions(min_sets=1, bleu_max=100.0),
                                               languages=("fr",)))
    files = read_output(tmp_path / "out")
    assert list(files) == ["fr"]
    french = {row[1]: row[0] for row in files["fr"]}
    assert french["11"] == french["10"]


def test_unknown_output_language_is_an_error(tmp_path):
    from tapaco.core.errors import InputError

    with pytest.raises(InputError, match="not in the release: xx"):
        build(SAMPLE, tmp_path / "out", BuildOptions(languages=("xx",)))
    assert not (tmp_path / "out").exists()


def test_moses_release_builds_from_line_texts(shared_data, tmp_path):
    (tmp_path / "opus").mkdir()
    (tmp_path / "opus" / "moses").symlink_to(shared_data / "tatoeba-v2021-moses")
    stats = build(tmp_path / "opus", tmp_path / "out", BuildOptions(FilterOptions(min_sets=1)))
    lines = sum(len((path).read_text(encoding="utf-8").splitlines())
                for path in (shared_data / "tatoeba-v2021-moses").glob("*/Tatoeba.*-*.*")
                if path.suffix[1:] == path.name.split(".")[1].split("-")[0])
    assert stats["input"]["links"] == lines
    assert stats["input"]["alignment_sources"] == 5
    # en-mr lines 4 and 5 are both "I will be back soon.": a surface link joins their mr sides
    marathi = (tmp_path / "out" / "mr.txt").read_text(encoding="utf-8").splitlines()
    assert [row.split("\t")[2] for row in marathi] == ["मी लवकरच परत येईन.", "मी लवकरच परतेन."]


def _mixed_forms_release(root: Path) -> Path:
    """cesAlign en-fr over raw documents, and a Moses de-fr zip whose .ids name the same fr
    document (plus a de document no file holds and an fr id the document lacks)."""
    en, fr, de = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "de/tatoeba.xml.gz"
    opus = OpusFolder(root)
    opus.sentences(en, Sentence("s1", "What is it?"), Sentence("s2", "What's that?"))
    opus.sentences(fr, Sentence("s1", "C'est quoi ?", "7", "question"),
                   Sentence("s2", "Qu'est-ce que c'est ?", "7;9"),
                   Sentence("s4", "C'est quoi, ça ?"))
    opus.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s2"), ("s1", "s4")])
    opus.write("raw")
    # the Moses lines of fr s1 and s2 differ from the documents: the documents win
    return write_moses(root, "de-fr", [
        (de, fr, "s5", "s1", "Was ist das?", "C' est quoi ?"),
        (de, fr, "s6", "s2", "Was ist das?", "Qu' est-ce que c' est ?"),
        (de, fr, "s7", "s3", "Was ist das?", "Quoi ?"),
    ], zipped=True)


def test_mixed_alignment_forms_take_texts_from_documents_where_they_exist(tmp_path):
    root = _mixed_forms_release(tmp_path / "opus")
    stats = build(root, tmp_path / "out", BuildOptions(FilterOptions(min_sets=1)))
    files = {path.stem: path.read_text(encoding="utf-8")
             for path in sorted((tmp_path / "out").glob("*.txt"))}
    # one component (en-fr links, de-fr Moses links, de s5 ~ s6 ~ s7 by surface); de keeps
    # only s5 (near-identical sentences), too few; fr s3 is in no document: its Moses line
    assert files == {
        "en": "0\t1\tWhat is it?\t\t\n0\t2\tWhat's that?\t\t\n",
        "fr": "0\t1\tC'est quoi ?\t7\tquestion\n0\t2\tQu'est-ce que c'est ?\t7;9\t\n"
              "0\t3\tQuoi ?\t\t\n0\t4\tC'est quoi, ça ?\t\t\n",
    }
    assert stats["input"]["documents"] == 2 and stats["input"]["links"] == 6


def test_raw_subtitle_documents_with_time_elements(tmp_path):
    root = tmp_path / "opus"
    en, fr = "en/2001/1/1.xml.gz", "fr/2001/1/1.xml.gz"
    write_document_zip(root, "raw", "en", {en: subtitle_xml(
        [("1", "Hello."), ("2", ""), ("3", ""), ("4", "- Hi, Sam!"), ("5", "Hi there."),
         ("6", "Hey, Sam.")])})
    write_document_zip(root, "raw", "fr", {fr: subtitle_xml([("1", "Bonjour."),
                                                              ("2", "Salut.")])})
    write_cesalign(root / "xml" / "en-fr.xml.gz", [(en, fr, [
        ("1", "1"), ("2", "1"), ("3", "2"), ("4", "2"), ("5", "1"), ("6", "2")])])
    files = assert_matches_independent(root, tmp_path / "out", min_sets=1)
    english = {row[1]: row for row in files["en"]}
    assert english["1"][2] == "Hello." and english["4"][2] == "- Hi, Sam!"
    # an <s> holding only its two times is no sentence: in no set
    assert sorted(english) == ["1", "4", "5", "6"]
    assert english["1"][0] == english["5"][0] != english["4"][0] == english["6"][0]


def test_workers_are_capped_at_the_cores_this_process_may_use():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert BuildOptions(workers=cores + 3).worker_count == cores
    assert BuildOptions(workers=1).worker_count == 1
    assert BuildOptions(workers=0).worker_count == cores  # 0: every usable core
