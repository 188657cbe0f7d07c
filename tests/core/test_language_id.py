"""`--language-id`: code mapping, the missing extra's error, and on real Tatoeba text (with the
langid extra): planted sentences of another language dropped, correctly labelled ones kept,
the counts in stats.json, and a build without the flag unchanged."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

from opusparcus.cli import main as opusparcus_main
from tapaco.cli import main
from tapaco.core import language_id
from tapaco.core.language_codes import iso639_3
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SAMPLE = DATA / "tatoeba-v2-sample" / "xml"

try:
    import heliport  # noqa: F401
    HAS_EXTRA = True
except ImportError:
    HAS_EXTRA = False
needs_extra = pytest.mark.skipif(not HAS_EXTRA, reason="needs the langid extra (heliport)")
needs_data = pytest.mark.skipif(not SAMPLE.is_dir(), reason="needs ../shared/data")


@pytest.mark.parametrize(("code", "three"), [
    ("fr", "fra"), ("fra", "fra"), ("en", "eng"), ("zh", "zho"), ("cmn", "cmn"), ("nb", "nob"),
    ("toki", "tok"), ("zh_CN", "cmn"), ("pt_br", "por"), ("sh", "hbs"), ("ber", "ber"),
    ("EN", "eng")])
def test_iso639_3(code, three):
    assert iso639_3(code) == three


@pytest.mark.parametrize(("code", "label"), [
    ("zh", "cmn"), ("cmn", "cmn"), ("yue", "cmn"), ("sr", "hbs"), ("hr", "hbs"), ("bs", "hbs"),
    ("id", "msa"), ("ms", "msa"), ("fa", "pes"), ("pes", "pes"), ("no", "nob"), ("fr", "fra"),
    ("de", "deu"), ("tok", "tok")])
def test_identifier_label(code, label):
    assert language_id.identifier_label(code) == label


@pytest.mark.parametrize(("label", "code", "same"), [
    ("fra", "fr", True), ("wln", "fr", True), ("cmn", "zh", True), ("cmn", "yue", True),
    ("hbs", "sr", True), ("msa", "id", True), ("nno", "nb", True), ("slk", "cs", True),
    ("deu", "fr", False), ("eng", "de", False), ("spa", "pt", False), ("jpn", "zh", False),
    ("rus", "uk", False)])
def test_same_language(label, code, same):
    assert language_id.same_language(label, code) is same


@pytest.mark.parametrize("program", ["tapaco", "opusparcus"])
def test_missing_extra_is_a_one_line_error(program, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "heliport", None)  # `import heliport` raises ImportError
    language_id._identifier_module.cache_clear()
    sample = Path(__file__).resolve().parents[2] / "tapaco" / "sample" / "tatoeba-v2"
    try:
        if program == "tapaco":
            code = main(["build", "--opus-dir", str(sample), "--out", str(tmp_path / "out"),
                         "--language-id", "--quiet"])
        else:
            code = opusparcus_main(["rank", "--opus-dir", str(sample), "--lang", "fr", "--out",
                                    str(tmp_path / "out"), "--language-id", "--quiet"])
    finally:
        language_id._identifier_module.cache_clear()
    error = capsys.readouterr().err.strip()
    assert code == 2
    assert len(error.splitlines()) == 1 and "langid extra" in error, error
    assert not (tmp_path / "out").exists()


def tatoeba_v2_sample() -> list[tuple[str, str]]:
    """(language, tokenised text) of every sentence of the sample, as Tatoeba labels it."""
    rows = []
    for archive in sorted(SAMPLE.glob("*.zip")):
        with zipfile.ZipFile(archive) as opened:
            text = opened.read(f"Tatoeba/xml/{archive.stem}/tatoeba.xml").decode()
        for sentence in re.findall(r"<s [^>]*>(.*?)</s>", text, re.S):
            words = re.findall(r"<w [^>]*>(.*?)</w>", sentence, re.S)
            rows.append((archive.stem, " ".join(words).replace("&apos;", "'")
                         .replace("&quot;", '"').replace("&amp;", "&")))
    return rows


def tapaco_head() -> list[tuple[str, str]]:
    return [(path.stem, line.split("\t")[2])
            for path in sorted((DATA / "tapaco-v1.0-head").glob("*.txt"))
            for line in path.read_text(encoding="utf-8").splitlines() if line]


def moses_2021() -> list[tuple[str, str]]:
    return [(path.suffix[1:], line) for path in sorted((DATA / "tatoeba-v2021-moses").glob("*/*"))
            if path.suffix != ".xml"
            for line in path.read_text(encoding="utf-8").splitlines() if line]


def dropped_share(rows: list[tuple[str, str]]) -> float:
    dropped = sum(bool(language_id.foreign([text], lang)[0]) for lang, text in rows)
    return dropped / len(rows)


@needs_extra
@needs_data
def test_real_labelled_text_is_kept():
    """Tatoeba's own labels, the three samples: at most 1 % dropped (3 of tapaco-v1.0-head's
    sl sentences are Slovak, rightly dropped)."""
    rows = tatoeba_v2_sample() + tapaco_head() + moses_2021()
    assert len(rows) > 600
    assert dropped_share(rows) <= 0.01


@needs_extra
@needs_data
def test_planted_sentences_are_dropped():
    """Every sentence of the sample put into each other language's document: 90 % dropped."""
    sample = tatoeba_v2_sample()
    langs = sorted({lang for lang, _ in sample})
    planted = [(other, text) for lang, text in sample for other in langs if other != lang]
    assert dropped_share(planted) >= 0.9


@needs_extra
def test_unknown_languages_are_never_judged():
    assert not language_id.judged("tlh") and not language_id.judged("jbo")
    assert not language_id.foreign(["This is plainly an English sentence, not Klingon."],
                                    "tlh").any()


# a Tatoeba export: English sets holding a planted French and a planted German sentence
SENTENCES = [
    (1, "eng", "I ate all the cheese yesterday."), (2, "eng", "Yesterday I ate all of the cheese."),
    (3, "eng", "Hier, j'ai mangé tout le fromage."),
    (4, "eng", "My brother is reading a very long book."),
    (5, "eng", "My brother reads a very long book."),
    (6, "eng", "Mein Bruder liest ein sehr langes Buch."),
    (10, "fra", "J'ai mangé tout le fromage hier."),
    (11, "fra", "Mon frère lit un très long livre."),
]
LINKS = [(1, 10), (2, 10), (3, 10), (4, 11), (5, 11), (6, 11)]


def write_export(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "sentences.csv").write_text("".join(f"{i}\t{lang}\t{text}\n"
                                                  for i, lang, text in SENTENCES))
    (folder / "links.csv").write_text("".join(f"{a}\t{b}\n{b}\t{a}\n" for a, b in LINKS))
    return folder


def _build(tmp_path: Path, name: str, language_id_on: bool) -> dict:
    options = BuildOptions(FilterOptions(min_sets=1), workers=1, language_id=language_id_on)
    return build(write_export(tmp_path / f"export-{name}"), tmp_path / name, options,
                 formats=("tsv", "parquet"), tatoeba_export=True)


@needs_extra
def test_build_drops_and_counts(tmp_path):
    stats = _build(tmp_path, "on", True)
    english = (tmp_path / "on" / "en.txt").read_text(encoding="utf-8")
    assert "fromage" not in english and "Bruder" not in english
    assert "I ate all the cheese yesterday." in english
    identified = json.loads((tmp_path / "on" / "stats.json").read_text())["language_id"]
    assert identified == stats["language_id"]
    assert identified["per_language"]["en"] == {"judged": 6, "dropped": 2}
    assert "fr" not in identified["per_language"]  # sets of one sentence: (a) drops them first
    step = next(s for s in stats["funnel"] if s.get("dropped_by") == "language_id")
    assert step["sentences_removed"] == 2
    assert stats["options"]["language_id"] is True
    assert "heliport" in (tmp_path / "on" / "README.md").read_text(encoding="utf-8")


def test_off_by_default_changes_nothing(tmp_path):
    """Without the flag: no step, no section, no option recorded; the planted sentences stay."""
    stats = _build(tmp_path, "off", False)
    assert "language_id" not in stats and "language_id" not in stats["options"]
    assert all("dropped_by" not in step for step in stats["funnel"])
    assert "language_id" not in stats["signature"]
    english = (tmp_path / "off" / "en.txt").read_text(encoding="utf-8")
    assert "fromage" in english and "Bruder" in english
