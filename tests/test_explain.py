"""`tapaco explain`: the translation paths that put sentences into one set.

Every expected path, set id and count below is worked out by hand from the links the test
writes (or, for the embedded sample, from its alignment files: de s80 is linked to en s42849,
s392210, s464592 and fr s3094, s564436, s1130166; en s1326 to fr s3142, s558534, s558536,
s558538, s1098738, s1098789, es s895222, s895229 and de s128, which is linked to fr s558534).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest
from conftest import SAMPLE, OpusFolder, Sentence, without_compile_notice

from tapaco.core.errors import InputError, exit_status
from tapaco.core.options import Parser, subcommands
from tapaco.explain import (
    DRAW_LIMIT,
    Explainer,
    Hop,
    LanguageSize,
    PivotLanguage,
    add_explain_parser,
    as_dict,
    explain_sentences,
    explain_set,
    node_label,
    run_explain,
    text,
)
from tapaco.explain import Sentence as Kept
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build

EN, FR, DE, ES = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "de/tatoeba.xml.gz", "es/tatoeba.xml.gz"
INTER, INTRA, SURFACE = "inter-lingual", "intra-lingual", "surface"


def built(root: Path, out: Path) -> Path:
    build(root, out, BuildOptions(FilterOptions(min_sets=1, bleu_max=100.0)))
    return out


def hops(path) -> list[tuple[tuple[str, ...], str, str, bool]]:
    """A path as (link kinds from the previous hop, language, id, row of the set?)."""
    return [(hop.kinds, hop.sentence.lang, hop.sentence.id, hop.sentence.in_output)
            for hop in path.hops]


# -- a pivot through another language, and two sentences not connected ------------------------

def _pivot_release(opus: OpusFolder) -> Path:
    """en 1 - de 10 - en 2 (set 0: en 1, 2; de 10 alone is filtered); en 3 - fr 20 (set 1:
    one sentence per language, so no output row)."""
    opus.sentences(EN, Sentence("s1", "I am hungry."), Sentence("s2", "I'm hungry."),
                   Sentence("s3", "Good night."))
    opus.sentences(DE, Sentence("s10", "Ich habe Hunger."))
    opus.sentences(FR, Sentence("s20", "Bonne nuit."))
    opus.links("de-en", DE, EN, [("s10", "s1"), ("s10", "s2")])
    opus.links("en-fr", EN, FR, [("s3", "s20")])
    return opus.write("raw")


def test_pivot_language_between_two_sentences(opus, tmp_path):
    root = _pivot_release(opus)
    out = built(root, tmp_path / "out")
    result = explain_set(root, out, 0)
    assert result.set_id == 0 and result.sentences == 3
    assert result.links == {INTRA: 0, INTER: 2, SURFACE: 0}
    assert result.languages == (LanguageSize("de", 1, None), LanguageSize("en", 2, 2))
    [english] = result.explained
    assert english.lang == "en" and english.pairs == 1
    assert english.sentences == (Kept("en", "1", "I am hungry.", True),
                                 Kept("en", "2", "I'm hungry.", True))
    assert english.pivot_languages == (PivotLanguage("de", 1),)
    [path] = english.paths
    assert hops(path) == [((), "en", "1", True), ((INTER,), "de", "10", False),
                          ((INTER,), "en", "2", True)]
    assert path.length == 2 and path.pivot_languages == ("de",)
    assert path.hops[1].sentence.text == "Ich habe Hunger."


def test_sentences_of_two_components_are_not_connected(opus, tmp_path):
    root = _pivot_release(opus)
    out = built(root, tmp_path / "out")
    result = explain_sentences(root, out, "en", "1", "3")
    assert not result.connected and result.path is None
    assert result.sets == (0, 1)
    assert result.first == Kept("en", "1", "I am hungry.", True)
    assert result.second == Kept("en", "3", "Good night.", False)
    assert text(result) == ("en 1 and en 3 are not connected: 1 is in set 0, 3 in set 1 (set "
                            "ids name components)\n")


def test_two_sentences_joined_through_a_pivot(opus, tmp_path):
    root = _pivot_release(opus)
    out = built(root, tmp_path / "out")
    result = explain_sentences(root, out, "en", "2", "1")
    assert result.connected and result.sets == (0, 0)
    assert hops(result.path) == [((), "en", "2", True), ((INTER,), "de", "10", False),
                                 ((INTER,), "en", "1", True)]
    assert text(result, "OUT") == (
        "en 2 and en 1: set 0, 2 links, through de (both rows of set 0 in OUT/en.txt)\n"
        "  * en 2   I'm hungry.\n"
        "    | inter-lingual\n"
        "    de 10  Ich habe Hunger.\n"
        "    | inter-lingual\n"
        "  * en 1   I am hungry.\n")


# -- surface-similarity and intra-lingual hops --------------------------------------------------

def _surface_release(opus: OpusFolder, intra_too: bool) -> Path:
    """fr 10 - en 1 ~ en 2 - fr 11, en 1 and 2 equal after punctuation normalisation (a surface
    link; with `intra_too` also an en-en link); en 3 = en 4 by an en-en link only."""
    opus.sentences(EN, Sentence("s1", "Don’t stop!"), Sentence("s2", "Don't stop."),
                   Sentence("s3", "Wait a moment."), Sentence("s4", "Hold on a second."))
    opus.sentences(FR, Sentence("s10", "N'arrête pas !"), Sentence("s11", "Ne t'arrête pas !"))
    opus.links("en-fr", EN, FR, [("s1", "s10"), ("s2", "s11")])
    opus.links("en-en", EN, EN, [("s3", "s4"), *([("s1", "s2")] if intra_too else [])])
    return opus.write("raw")


def test_surface_similarity_hop(opus, tmp_path):
    root = _surface_release(opus, intra_too=False)
    out = built(root, tmp_path / "out")
    # set 0: fr 10, 11 (en 1 and 2 are near-identical: en keeps only 1, a set of one, dropped)
    result = explain_set(root, out, 0, lang="fr")
    assert result.links == {INTRA: 0, INTER: 2, SURFACE: 1}
    assert result.languages == (LanguageSize("en", 2, 0), LanguageSize("fr", 2, 2))
    [french] = result.explained
    assert french.pivot_languages == (PivotLanguage("en", 1),)
    assert hops(french.paths[0]) == [((), "fr", "10", True), ((INTER,), "en", "1", False),
                                     ((SURFACE,), "en", "2", False),
                                     ((INTER,), "fr", "11", True)]


def test_a_link_of_several_kinds_keeps_them_all(opus, tmp_path):
    root = _surface_release(opus, intra_too=True)
    out = built(root, tmp_path / "out")
    result = explain_sentences(root, out, "fr", "10", "11")
    assert hops(result.path)[2] == ((INTRA, SURFACE), "en", "2", False)
    assert explain_set(root, out, 0, "fr").links == {INTRA: 1, INTER: 2, SURFACE: 1}


def test_intra_lingual_hop_without_pivot(opus, tmp_path):
    root = _surface_release(opus, intra_too=False)
    out = built(root, tmp_path / "out")
    result = explain_set(root, out, 1)  # en 3 = en 4: the second component by sentence id
    assert result.links == {INTRA: 1, INTER: 0, SURFACE: 0}
    [english] = result.explained
    assert english.pivot_languages == ()
    assert hops(english.paths[0]) == [((), "en", "3", True), ((INTRA,), "en", "4", True)]
    assert english.paths[0].pivot_languages == ()


def test_multi_hop_path_and_shortest_path_is_chosen(opus, tmp_path):
    """fr 10 - en 1 - de 20 - es 30 = es 31 - fr 11 (5 links), and a longer way through an
    en-en chain, fr 10 - en 5 - en 6 - en 7 - en 9 - en 8 - fr 11 (6 links): the shorter is
    taken."""
    opus.sentences(EN, Sentence("s1", "I ate the cheese."), Sentence("s5", "Cheese: eaten."),
                   Sentence("s6", "The cheese, I ate it."), Sentence("s7", "Ate cheese, I did."),
                   Sentence("s8", "Cheese I have eaten."), Sentence("s9", "Cheese, eaten."))
    opus.sentences(FR, Sentence("s10", "J'ai mangé le fromage."),
                   Sentence("s11", "Le fromage, je l'ai mangé."))
    opus.sentences(DE, Sentence("s20", "Ich aß den Käse."))
    opus.sentences(ES, Sentence("s30", "Comí el queso."), Sentence("s31", "Me comí el queso."))
    opus.links("en-fr", EN, FR, [("s1", "s10"), ("s5", "s10"), ("s8", "s11")])
    opus.links("de-en", DE, EN, [("s20", "s1")])
    opus.links("de-es", DE, ES, [("s20", "s30")])
    opus.links("es-es", ES, ES, [("s30", "s31")])
    opus.links("es-fr", ES, FR, [("s31", "s11")])
    opus.links("en-en", EN, EN, [("s5", "s6"), ("s6", "s7"), ("s7", "s9"), ("s9", "s8")])
    root = opus.write("raw")
    out = built(root, tmp_path / "out")
    result = explain_sentences(root, out, "fr", "10", "11")
    assert hops(result.path) == [
        ((), "fr", "10", True), ((INTER,), "en", "1", True), ((INTER,), "de", "20", False),
        ((INTER,), "es", "30", True), ((INTRA,), "es", "31", True),
        ((INTER,), "fr", "11", True)]
    assert result.path.length == 5 and result.path.pivot_languages == ("de", "en", "es")


def test_equal_length_paths_are_chosen_the_same_way_every_time(opus, tmp_path):
    """en 1 and en 2 are joined by de 10 and by fr 20 (two paths of two links): the neighbour
    read first (de: de-en is read before en-fr) is taken, every run."""
    opus.sentences(EN, Sentence("s1", "Come in."), Sentence("s2", "Enter."))
    opus.sentences(DE, Sentence("s10", "Herein."))
    opus.sentences(FR, Sentence("s20", "Entrez."))
    opus.links("de-en", DE, EN, [("s10", "s1"), ("s10", "s2")])
    opus.links("en-fr", EN, FR, [("s1", "s20"), ("s2", "s20")])
    root = opus.write("raw")
    out = built(root, tmp_path / "out")
    texts = set()
    for _ in range(2):
        explainer = Explainer(root, out)
        result = explainer.explain_set(0, "en")
        assert [hop.sentence.lang for hop in result.explained[0].paths[0].hops] == [
            "en", "de", "en"]
        texts.add(text(result))
    assert len(texts) == 1


def test_sentence_ids_of_a_language_with_several_documents(opus, tmp_path):
    opus.sentences("en/a.xml.gz", Sentence("s1", "Hi."))
    opus.sentences("en/b.xml.gz", Sentence("s1", "Hello."))
    opus.sentences(FR, Sentence("s1", "Salut."))
    opus.links("en-fr", "en/a.xml.gz", FR, [("s1", "s1")])
    opus.links("en-fr", "en/b.xml.gz", FR, [("s1", "s1")])
    root = opus.write("raw")
    out = built(root, tmp_path / "out")
    result = explain_sentences(root, out, "en", "a#1", "b#1")
    assert hops(result.path) == [((), "en", "a#1", True), ((INTER,), "fr", "1", False),
                                 ((INTER,), "en", "b#1", True)]
    with pytest.raises(InputError, match="en has no sentence id '1'"):
        explain_sentences(root, out, "en", "1", "b#1")


def test_build_from_tatoeba_exports(tmp_path):
    export = tmp_path / "export"
    export.mkdir()
    (export / "sentences.csv").write_text("1\ten\tStop!\n2\ten\tHalt!\n3\tfr\tArrête !\n",
                                          encoding="utf-8")
    (export / "links.csv").write_text("1\t3\n3\t1\n2\t3\n3\t2\n")
    out = tmp_path / "out"
    build(export, out, BuildOptions(FilterOptions(min_sets=1)), tatoeba_export=True)
    result = explain_set(export, out, 0, tatoeba_export=True)
    assert hops(result.explained[0].paths[0]) == [
        ((), "en", "1", True), ((INTER,), "fr", "3", False), ((INTER,), "en", "2", True)]


# -- the embedded sample (real Tatoeba data) ----------------------------------------------------

@pytest.fixture(scope="module")
def sample_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("explain") / "out"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1)))
    return out


def test_sample_french_paraphrases_are_joined_through_german(sample_out):
    result = explain_sentences(SAMPLE, sample_out, "fr", "564436", "1130166")
    assert result.sets == (1, 1)
    assert result.path.hops == (
        Hop((), Kept("fr", "564436", "C' est quoi ?", True)),
        Hop((INTER,), Kept("de", "80", "Was ist das ?", False)),
        Hop((INTER,), Kept("fr", "1130166", "Qu' est -ce ?", True)))


def test_sample_set_languages_pivots_and_pairs(sample_out):
    result = explain_set(SAMPLE, sample_out, 1)
    assert result.sentences == 7 and result.links == {INTRA: 0, INTER: 6, SURFACE: 0}
    assert result.languages == (LanguageSize("de", 1, None), LanguageSize("en", 3, 3),
                                LanguageSize("fr", 3, 3))
    assert [language.lang for language in result.explained] == ["en", "fr"]
    french = result.explained[1]
    assert [sentence.id for sentence in french.sentences] == ["3094", "564436", "1130166"]
    assert french.pairs == 3 and french.pivot_languages == (PivotLanguage("de", 3),)
    assert [(path.source.id, path.target.id) for path in french.paths] == [
        ("3094", "564436"), ("3094", "1130166"), ("564436", "1130166")]


def test_sample_pairs_are_capped(sample_out):
    # set 27: six fr sentences, all linked to en 1326 (fr 558534 to de 128 as well)
    result = explain_set(SAMPLE, sample_out, 27, "fr", max_pairs=2)
    [french] = result.explained
    assert french.pairs == 15 and len(french.paths) == 2
    assert french.pivot_languages == (PivotLanguage("en", 15),)
    assert result.languages == (LanguageSize("de", 1, None), LanguageSize("en", 1, 0),
                                LanguageSize("es", 2, 2), LanguageSize("fr", 6, 6))
    rendered = text(result)
    assert "[2/15] fr 3142 -> fr 558536: 2 links, through en\n" in rendered
    assert rendered.endswith("  ... 13 more pairs not shown (--max-pairs 0 shows all)\n")
    assert len(explain_set(SAMPLE, sample_out, 27, "fr", max_pairs=0).explained[0].paths) == 15


# -- the command line ---------------------------------------------------------------------------

def cli(*argv: str, capsys) -> tuple[int, str, str]:
    parser = Parser(prog="tapaco")
    add_explain_parser(subcommands(parser))
    arguments = parser.parse_args(["explain", *argv])
    status = exit_status("tapaco", lambda: run_explain(arguments))
    captured = capsys.readouterr()
    return status, captured.out, without_compile_notice(captured.err)


def one_line_error(status: int, out: str, err: str) -> str:
    assert status == 2 and out == ""
    assert err.startswith("tapaco: error: ") and err.count("\n") == 1, err
    return err


def test_cli_text_output_on_the_sample(sample_out, capsys):
    status, out, err = cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                           "--lang", "fr", "--quiet", capsys=capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == ("set 1: a component of 7 sentences in 3 languages, joined by "
                        "0 intra-lingual, 6 inter-lingual, 0 surface links")
    assert lines[1:5] == ["  language  sentences  in set 1", "  de                1  -  "
                          "(no file)", "  en                3  3", "  fr                3  3"]
    assert ("fr: 3 sentences in set 1, 3 pairs; pivot languages (paths through them): de (3 of "
            "3)") in lines
    assert lines[-6:] == ["  [3/3] fr 564436 -> fr 1130166: 2 links, through de",
                          "    * fr 564436   C' est quoi ?", "      | inter-lingual",
                          "      de 80       Was ist das ?", "      | inter-lingual",
                          "    * fr 1130166  Qu' est -ce ?"]


def test_cli_json_output(sample_out, capsys):
    status, out, _ = cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--sentence",
                         "564436", "--sentence", "1130166", "--lang", "fr", "--json", "--quiet",
                         capsys=capsys)
    assert status == 0
    data = json.loads(out)
    assert data["explains"] == "sentences" and data["connected"] is True
    assert data["sets"] == [1, 1] and data["path"]["length"] == 2
    assert data["path"]["pivot_languages"] == ["de"]
    assert data["path"]["hops"][1] == {"kinds": ["inter-lingual"], "sentence": {
        "lang": "de", "id": "80", "text": "Was ist das ?", "in_output": False}}


def test_json_of_a_set(sample_out):
    data = as_dict(explain_set(SAMPLE, sample_out, 1, "en"))
    assert data["explains"] == "set" and data["set_id"] == 1
    assert data["languages"][0] == {"lang": "de", "sentences": 1, "in_output": None}
    assert data["explained"][0]["pivot_languages"] == [{"lang": "de", "paths": 3}]


def test_cli_unknown_set(sample_out, capsys):
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "2",
                              capsys=capsys))
    assert "has a row of set 2; the nearest set ids in it are 1 and 4" in err


def test_cli_set_without_the_language(sample_out, capsys):
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                              "--lang", "es", capsys=capsys))
    assert "set 1 has no es sentence" in err and "(it has en, fr)" in err
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                              "--lang", "de", capsys=capsys))
    assert "has no de.txt (its languages: en, es, fr)" in err


def test_cli_set_filtered_away_is_unknown(opus, tmp_path, capsys):
    root = _pivot_release(opus)
    out = built(root, tmp_path / "out")
    err = one_line_error(*cli("--opus-dir", str(root), "--out", str(out), "--set", "1",
                              capsys=capsys))
    assert "no " in err and "row of set 1; the nearest set ids in it are 0 " in err


def test_cli_bad_sentence_id(sample_out, capsys):
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--sentence",
                              "564436", "--sentence", "99", "--lang", "fr", capsys=capsys))
    assert "--sentence: fr has no sentence id '99'" in err
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--sentence",
                              "1", "--sentence", "2", "--lang", "xx", capsys=capsys))
    assert "xx is not a language of" in err


def test_cli_sentence_needs_two_ids_and_a_language(sample_out, capsys):
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--sentence",
                              "564436", "--lang", "fr", capsys=capsys))
    assert "give exactly two sentence ids, got 1" in err
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--sentence",
                              "564436", "--sentence", "1130166", capsys=capsys))
    assert "--sentence needs the language" in err


def test_cli_out_without_stats(sample_out, tmp_path, capsys):
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("manifest.json", "fr.txt"):
        (copy / name).write_bytes((sample_out / name).read_bytes())
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(copy), "--set", "1",
                              capsys=capsys))
    assert "stats.json: is missing" in err


def test_cli_out_that_is_not_a_build_output(tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "stats.json").write_text("{}")
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(tmp_path / "notes"),
                              "--set", "1", capsys=capsys))
    assert "is not a 'tapaco build' output folder" in err
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(tmp_path / "none"),
                              "--set", "1", capsys=capsys))
    assert "does not exist" in err


def test_cli_release_other_than_the_built_one(opus, tmp_path, capsys):
    root = _pivot_release(opus)
    out = built(root, tmp_path / "out")
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(out), "--set", "0",
                              capsys=capsys))
    assert f"is not the release {out} was built from" in err


def test_cli_picture_suffix_is_checked_by_argparse(sample_out, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1", "--draw",
            "set.pdf", capsys=capsys)
    assert stopped.value.code == 2
    assert "expected a .png or .svg file name" in capsys.readouterr().err


def test_cli_every_option_has_help():
    commands = subcommands(Parser(prog="tapaco"))
    command = add_explain_parser(commands)
    assert all(action.help for action in command._actions
               if not isinstance(action, argparse._HelpAction))
    assert "(default: 20)" in " ".join(command.format_help().split())


# -- drawing ------------------------------------------------------------------------------------

@pytest.fixture
def matplotlib_installed() -> None:
    pytest.importorskip("matplotlib", reason="--draw needs matplotlib (the 'plot' extra)")


@pytest.mark.parametrize("suffix", [".svg", ".png"])
def test_draw_the_sample_set(sample_out, tmp_path, capsys, matplotlib_installed, suffix):
    picture = tmp_path / f"set1{suffix}"
    status, out, err = cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                           "--draw", str(picture), "--quiet", capsys=capsys)
    assert status == 0, err
    assert out.startswith("set 1: a component of 7 sentences")
    data = picture.read_bytes()
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    else:
        svg = data.decode("utf-8")
        assert svg.startswith("<?xml") and "<svg" in svg and svg.rstrip().endswith("</svg>")
        for legend in ("de (1)", "en (3)", "fr (3)", "inter-lingual alignment",
                       "row of set 1 in OUT"):
            assert f">{legend}</text>" in svg, legend
        # every sentence labelled with its text above language and id
        for text, label in (("C' est quoi ?", "fr 564436"), ("Was ist das ?", "de 80"),
                            ("What is this ?", "en 392210")):
            assert f">{text}</text>" in svg and f">{label}</text>" in svg
    # a rerun replaces its own picture, with the same bytes
    assert cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1", "--draw",
               str(picture), "--quiet", capsys=capsys)[0] == 0
    assert picture.read_bytes() == data


def test_draw_a_path_between_two_sentences(opus, tmp_path, matplotlib_installed):
    root = _surface_release(opus, intra_too=False)
    out = built(root, tmp_path / "out")
    explainer = Explainer(root, out)
    result = explainer.explain_sentences("fr", "10", "11")
    picture = explainer.draw(0, tmp_path / "path.svg", result.path)
    svg = picture.read_text(encoding="utf-8")
    for legend in ("en (2)", "fr (2)", "inter-lingual alignment", "surface similarity",
                   "shortest path"):
        assert f">{legend}</text>" in svg, legend
    assert ">intra-lingual alignment</text>" not in svg  # only kinds the component has


def test_node_labels_are_the_sentence_text_shortened_then_language_and_id():
    assert node_label(Kept("fr", "564436", "C' est quoi ?", True)) == "C' est quoi ?\nfr 564436"
    long = "This  sentence\nis much longer than thirty-two characters."
    assert node_label(Kept("en", "7", long, False)) == (
        "This sentence is much longer th…\nen 7")
    assert node_label(Kept("en", "8", "It costs $5, not $6.", False)) == (
        "It costs \\$5, not \\$6.\nen 8")  # matplotlib reads $...$ as mathematics


def test_each_link_kind_is_drawn_in_its_own_colour(opus, tmp_path, matplotlib_installed):
    """en 1 - en 2 are joined by an intra-lingual and a surface link, fr 10 - en 1 and
    en 2 - fr 11 by inter-lingual ones: all three kinds, each its own stroke colour."""
    root = _surface_release(opus, intra_too=True)
    out = built(root, tmp_path / "out")
    svg = Explainer(root, out).draw(0, tmp_path / "kinds.svg").read_text(encoding="utf-8")
    colours = {"inter-lingual alignment": "#9a9a9a", "intra-lingual alignment": "#1f4e9c",
               "surface similarity": "#c0392b"}
    assert len(set(colours.values())) == 3
    strokes = Counter(re.findall(r"stroke: (#[0-9a-f]{6})", svg))
    for legend, colour in colours.items():
        assert f">{legend}</text>" in svg, legend
        assert strokes[colour] >= 2, (legend, strokes)  # the links and the legend's line
    assert ">Don’t stop!</text>" in svg and ">Ne t'arrête pas !</text>" in svg


def test_draw_refuses_a_file_it_did_not_write_and_paths_inside_inputs(
        sample_out, tmp_path, capsys, matplotlib_installed):
    picture = tmp_path / "mine.png"
    picture.write_bytes(b"a user's picture")
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                              "--draw", str(picture), capsys=capsys))
    assert "exists and was not written by tapaco explain" in err
    assert picture.read_bytes() == b"a user's picture"
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                              "--draw", str(sample_out / "set.svg"), capsys=capsys))
    assert "is inside the input" in err


def test_draw_of_a_large_component_shows_the_set_paths_only(opus, tmp_path,
                                                            matplotlib_installed):
    """en 1 and en 2 share de 10, which is linked to 450 fr sentences: the fr set is too large
    (filter b) and the component too large to draw; the set's paths are en 1 - de 10 - en 2."""
    count = 450
    assert count + 3 > DRAW_LIMIT
    opus.sentences(EN, Sentence("s1", "Yes."), Sentence("s2", "Yeah."))
    opus.sentences(DE, Sentence("s10", "Ja."))
    opus.sentences(FR, *[Sentence(f"s{n}", f"Oui {n}.") for n in range(100, 100 + count)])
    opus.links("de-en", DE, EN, [("s10", "s1"), ("s10", "s2")])
    opus.links("de-fr", DE, FR, [("s10", f"s{n}") for n in range(100, 100 + count)])
    root = opus.write("raw")
    out = built(root, tmp_path / "out")
    picture = Explainer(root, out).draw(0, tmp_path / "large.svg")
    svg = picture.read_text(encoding="utf-8")
    assert "component of 453 sentences in 3 languages" in svg
    assert "(drawn: the 3 on paths between the set sentences)" in svg
    assert ">en (2)</text>" in svg and ">de (1)</text>" in svg and ">fr (" not in svg


def test_draw_without_matplotlib_says_how_to_install_it(sample_out, tmp_path, capsys,
                                                        monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    err = one_line_error(*cli("--opus-dir", str(SAMPLE), "--out", str(sample_out), "--set", "1",
                              "--draw", str(tmp_path / "set.svg"), capsys=capsys))
    assert "pip install 'pivot-paraphrase-miner[plot]'" in err
    assert not (tmp_path / "set.svg").exists()


def test_labels_in_a_script_the_font_lacks_draw_without_warnings(opus, tmp_path,
                                                                 matplotlib_installed):
    opus.sentences(EN, Sentence("s1", "I see."), Sentence("s2", "I understand."))
    opus.sentences("ja/tatoeba.xml.gz", Sentence("s30", "分かりました。"))
    opus.links("en-ja", EN, "ja/tatoeba.xml.gz", [("s1", "s30"), ("s2", "s30")])
    root = opus.write("raw")
    out = built(root, tmp_path / "out")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picture = Explainer(root, out).draw(0, tmp_path / "ja.png")
    assert picture.read_bytes().startswith(b"\x89PNG")
