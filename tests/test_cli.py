"""The command line: summary, exit status 2 with a one-line error, skip-and-count, options that
only apply with another."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import pytest
from conftest import PROJECT, SAMPLE, Sentence

from tapaco.build_command import summary
from tapaco.cli import main, parser


def run(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tapaco", *arguments], capture_output=True,
                          text=True, cwd=PROJECT, timeout=120)


def test_build_on_the_embedded_sample(tmp_path):
    out = tmp_path / "out"
    result = run("build", "--opus-dir", str(SAMPLE), "--out", str(out), "--min-sets", "1",
                 "--timings", str(tmp_path / "timings.json"))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["en.txt", "es.txt", "fr.txt",
                                                     "manifest.json", "stats.json", "stats.md"]
    assert "wrote 3 languages" in result.stderr
    timings = json.loads((tmp_path / "timings.json").read_text())
    assert [stage["name"] for stage in timings["stages"]] == [
        "read alignments", "read documents", "graph and components", "sets by language",
        "filters", "output rows", "write output"]
    stats = json.loads((out / "stats.json").read_text())
    sacrebleu_version = importlib.metadata.version("sacrebleu")
    assert stats["versions"]["sacrebleu"] == sacrebleu_version
    assert stats["signature"].startswith("tapaco-build|pivot-paraphrase-miner:")
    assert f"|sacrebleu:{sacrebleu_version}|" in stats["signature"]
    assert "|bleu_max:50.0|" in stats["signature"] and "|min_sets:1|" in stats["signature"]
    assert stats["input"]["links"] == 154
    assert [step["sentences"] for step in stats["funnel"]][0] == stats["graph"]["vertices"]


def test_default_thresholds_drop_every_sample_language(tmp_path):
    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(tmp_path / "o"),
                 "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["manifest.json", "stats.json",
                                                                  "stats.md"]


def _broken_release(opus):
    en, fr = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz"
    opus.sentences(en, Sentence("s1", "Hello."), Sentence("s2", "Hi."))
    opus.sentences(fr, Sentence("s3", "Salut."), Sentence("s4", "Bonjour."))
    opus.links("en-fr", en, fr, [("s1", "s3"), ("s2", "s3"), ("s2", "s99")])
    opus.links("en-es", en, "es/tatoeba.xml.gz", [("s1", "s5")])
    return opus.write("raw")


def test_bad_input_is_one_line_exit_2_and_no_output(opus, tmp_path):
    root = _broken_release(opus)
    result = run("build", "--opus-dir", str(root), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tapaco: error: ")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_skip_bad_input_counts_what_it_skipped(opus, tmp_path):
    root = _broken_release(opus)
    result = run("build", "--opus-dir", str(root), "--out", str(tmp_path / "out"),
                 "--skip-bad-input", "--min-sets", "1", "--bleu-max", "100")
    assert result.returncode == 0, result.stderr
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert stats["bad_input"]["skipped"] == {"missing document": 1, "unknown sentence id": 1}
    assert stats["input"]["links_to_unknown_sentences"] == 2
    assert (tmp_path / "out" / "en.txt").read_text() == "0\t1\tHello.\t\t\n0\t2\tHi.\t\t\n"


def test_existing_output_is_replaced_only_when_complete(opus, tmp_path):
    out = tmp_path / "out"
    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(out), "--quiet"]) == 0
    previous = {p.name: p.read_bytes() for p in out.iterdir()}
    root = _broken_release(opus)
    assert main(["build", "--opus-dir", str(root), "--out", str(out), "--quiet"]) == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == previous
    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(out), "--quiet",
                 "--min-sets", "1"]) == 0
    assert (out / "en.txt").exists()


def test_a_folder_holding_a_users_file_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("my notes")
    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(out), "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "keep.txt" in error
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("arguments", [["build"], ["build", "--opus-dir", "x"],
                                       ["build", "--opus-dir", "x", "--out", "y",
                                        "--max-set-size", "0"]])
def test_usage_errors_exit_2_with_one_line(arguments, capsys):
    try:
        status = main(arguments)
    except SystemExit as caught:
        status = caught.code
    assert status == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_skip_bad_input_skips_a_whole_corrupt_alignment_file(opus, tmp_path):
    en, fr, de = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz", "de/tatoeba.xml.gz"
    opus.sentences(en, Sentence("s1", "Hello."), Sentence("s2", "Hi."))
    opus.sentences(fr, Sentence("s3", "Salut."), Sentence("s4", "Bonjour."))
    opus.sentences(de, Sentence("s5", "Hallo."))
    opus.links("en-fr", en, fr, [("s1", "s3"), ("s2", "s3"), ("s2", "s4")])
    opus.links("de-en", de, en, [("s5", "s1")])
    root = opus.write("raw")
    broken = root / "xml" / "de-en.xml.gz"
    broken.write_bytes(broken.read_bytes()[:-12])
    assert main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "a"), "--quiet"]) == 2
    assert main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "b"), "--quiet",
                 "--skip-bad-input", "--min-sets", "1", "--bleu-max", "100"]) == 0
    stats = json.loads((tmp_path / "b" / "stats.json").read_text())
    assert stats["bad_input"]["skipped"] == {"corrupt file": 1}
    assert stats["input"]["links"] == 3 and stats["input"]["alignment_sources"] == 1
    assert "de-en.xml.gz" in stats["bad_input"]["examples"][0]


def test_documents_option_chooses_raw_or_tokenised_documents(tmp_path, capsys):
    from conftest import OpusFolder

    en, fr = "en/tatoeba.xml.gz", "fr/tatoeba.xml.gz"
    root = tmp_path / "opus"
    for kind, english in (("raw", ("What's this?", "What is this?")),
                          ("xml", ("What 's this ?", "What is this ?"))):
        opus = OpusFolder(root)
        opus.sentences(en, Sentence("s1", english[0]), Sentence("s2", english[1]))
        opus.sentences(fr, Sentence("s1", "C'est quoi ?"))
        opus.links("en-fr", en, fr, [("s1", "s1"), ("s2", "s1")])
        opus.write(kind)
    for choice, expected in ((None, "0\t1\tWhat's this?\t\t\n0\t2\tWhat is this?\t\t\n"),
                             ("xml", "0\t1\tWhat 's this ?\t\t\n0\t2\tWhat is this ?\t\t\n"),
                             ("raw", "0\t1\tWhat's this?\t\t\n0\t2\tWhat is this?\t\t\n")):
        out = tmp_path / f"out-{choice}"
        chosen = ["--documents", choice] if choice else []
        assert main(["build", "--opus-dir", str(root), "--out", str(out), "--min-sets", "1",
                     "--quiet", *chosen]) == 0
        assert (out / "en.txt").read_text(encoding="utf-8") == expected
        stats = json.loads((out / "stats.json").read_text())
        assert stats["options"]["documents"] == (choice or "raw")
        assert stats["signature"].endswith(f"|documents:{choice or 'raw'}")
    with pytest.raises(SystemExit):
        main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "o"), "--documents",
              "moses"])
    assert "--documents" in capsys.readouterr().err


def test_build_options_refuse_an_unknown_document_folder():
    from tapaco.core.errors import OptionError
    from tapaco.pipeline import BuildOptions

    with pytest.raises(OptionError, match="--documents"):
        BuildOptions(documents="moses")


def _usage_error(arguments: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1, error
    return error[0]


@pytest.mark.parametrize("option", [["--leiden-objective", "cpm"], ["--leiden-resolution", "2"],
                                    ["--seed", "3"]])
def test_leiden_options_need_oversized_split(option, tmp_path, capsys):
    build = ["build", "--opus-dir", str(SAMPLE), "--out", str(tmp_path / "o")]
    error = _usage_error([*build, *option], capsys)
    assert f"argument {option[0]}: only applies with --oversized split" in error
    error = _usage_error([*build, *option, "--oversized", "drop"], capsys)
    assert "only applies with --oversized split" in error
    arguments = parser().parse_args([*build, *option, "--oversized", "split"])
    assert arguments.oversized == "split"
    assert not (tmp_path / "o").exists()


def _step(step: str, sets: int, sentences: int, removed: int = 0, dissolved: int = 0) -> dict:
    return {"step": step, "sets": sets, "sentences": sentences, "sentences_removed": removed,
            "sets_dissolved": dissolved}


def test_summary_says_what_each_filter_removed_in_natural_words():
    stats = {
        "input": {"links": 1, "alignment_sources": 1, "languages": 1},
        "graph": {"vertices": 5, "inter_lingual_links": 1, "intra_lingual_links": 0,
                  "surface_similarity_links": 0, "components": 1},
        "funnel": [_step("components split by language", 2, 5),
                   {**_step("(b) sets over 2 split into Leiden communities", 3, 5),
                    "components_split": 1, "communities": 2},
                   _step("(a) single-sentence sets", 2, 4, 1, 1),
                   _step("(c) near-identical sentences", 1, 2, 2, 1),
                   _step("(d) sentence BLEU over 50", 1, 2),
                   _step("(e) languages with fewer than 1 set", 1, 2)],
        "languages": {"fr": {"sets": 1, "sentences": 2}},
        "bad_input": {"skipped": {"unknown sentence id": 2, "missing document": 1}}}
    lines = summary(stats, {"total_seconds": 1.0, "peak_rss_mib": 10}).splitlines()
    assert lines[2:8] == [
        "  components split by language: 2 sets, 5 sentences",
        "  (b) sets over 2 split into Leiden communities: split 1 component into 2 communities;"
        " now 3 sets, 5 sentences",
        "  (a) single-sentence sets: removed 1 sentence and 1 set; left 2 sets, 4 sentences",
        "  (c) near-identical sentences: removed 2 sentences and 1 set; left 1 set, 2 sentences",
        "  (d) sentence BLEU over 50: removed nothing; left 1 set, 2 sentences",
        "  (e) languages with fewer than 1 set: removed nothing; left 1 set, 2 sentences"]
    assert lines[-2] == "skipped bad input: unknown sentence id (2), missing document (1)"


def test_the_funnel_of_a_real_build_reads_as_what_each_step_removed(tmp_path, capsys):
    assert main(["build", "--opus-dir", str(SAMPLE), "--out", str(tmp_path / "o"),
                 "--min-sets", "1"]) == 0
    printed = capsys.readouterr().err
    steps = json.loads((tmp_path / "o" / "stats.json").read_text())["funnel"]
    assert steps[-1]["step"] == "(e) languages with fewer than 1 set"
    for before, step in zip(steps, steps[1:]):
        gone = before["sentences"] - step["sentences"]
        removed = (f"removed {gone} sentence{'s' if gone > 1 else ''}" if gone
                   else "removed nothing")
        assert f"  {step['step']}: {removed}" in printed, step["step"]


OPTION_ERRORS = [  # argparse's own checks, and those made once the options are parsed
    "tapaco build --max-set-size 0", "tapaco build --bleu-max nan", "tapaco build --seed 3",
    "tapaco build --bogus", "tapaco build --documents moses", "tapaco --bogus build",
    "opusparcus rank --lang fr --workers 100000", "opusparcus rank --lang fr --memory-limit 1M",
    "opusparcus rank --lang fr --temp-dir {w}/missing", "opusparcus rank --lang fr --engine gpu",
    "opusparcus rank --lang fr,en", "opusparcus rank --lang fr --fast",
]


@pytest.mark.parametrize("command", OPTION_ERRORS)
def test_every_option_error_reads_the_same(command, tmp_path, capsys):
    import opusparcus.cli

    program, *argv = command.format(w=tmp_path).split()
    name = next(word for word in argv if not word.startswith("-"))
    argv += ["--opus-dir", str(SAMPLE), "--out", str(tmp_path / "o")]
    try:
        status = {"tapaco": main, "opusparcus": opusparcus.cli.main}[program](argv)
    except SystemExit as stopped:
        status = stopped.code
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(error) == 1, error
    usage = f"{program} {name}"
    assert re.fullmatch(rf"{usage}: error: (argument --[a-z-]+|unrecognized arguments): .+; "
                        rf"see {usage} --help", error[0]), error[0]
    assert not (tmp_path / "o").exists()
