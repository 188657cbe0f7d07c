"""Converting release text files to Parquet: every row as the text has it."""

from __future__ import annotations

import bz2
import json

import pyarrow.parquet as pq
import pytest

from opusparcus.parquet_release import ranked_text_to_parquet

TRICKY = ['He said "no" .', '"', "null", "NaN", "N/A", "#", "a,b;c", "  spaced  ", "ünïcødé 日本"]


def _lines(scheme: bool) -> list[str]:
    lines = []
    for n, text in enumerate(TRICKY, 1):
        fields = [f"en-N{n}", text, text + " !", f"{n / 7:.6f}".rstrip("0"), "0.5", str(n), "3"]
        lines.append("\t".join(fields + ([f"-{n}.25"] if scheme else [])))
    return lines


@pytest.mark.parametrize(("suffix", "scheme"), [(".txt.bz2", False), (".txt", True)])
def test_rows_are_the_text_rows(tmp_path, suffix, scheme):
    lines = _lines(scheme)
    data = "".join(line + "\n" for line in lines).encode()
    text = tmp_path / f"en-train{suffix}"
    text.write_bytes(bz2.compress(data) if suffix.endswith("bz2") else data)
    assert ranked_text_to_parquet(text, tmp_path / "train.parquet", scheme) == len(lines)
    rows = pq.read_table(tmp_path / "train.parquet").to_pylist()
    expected = []
    for line in lines:
        f = line.split("\t")
        row = {"id": f[0], "sent1": f[1], "sent2": f[2], "summed_pmi": float(f[3]),
               "expected_count": float(f[4]), "pivots": int(f[5]), "edit_distance": int(f[6])}
        if scheme:
            row["score"] = float(f[7])
        expected.append(row)
    assert rows == expected


def test_an_empty_release_file_gives_an_empty_table_with_the_schema(tmp_path):
    text = tmp_path / "empty.txt.bz2"
    text.write_bytes(bz2.compress(b""))
    assert ranked_text_to_parquet(text, tmp_path / "empty.parquet") == 0
    table = pq.read_table(tmp_path / "empty.parquet")
    assert table.num_rows == 0 and table.schema.names[:3] == ["id", "sent1", "sent2"]


def test_a_language_without_pairs_has_a_card_that_says_so(tmp_path):
    datasets = pytest.importorskip("datasets", reason="the datasets library (test extra) is "
                                   "not installed")
    from conftest import write_moses

    from opusparcus.cli import main

    # en phrases share French pivots (en has pairs); each fr phrase has one en partner only
    rows = [(f"en/2000/1/{n}.xml.gz", f"fr/2000/1/{n}.xml.gz", "1", "1", f"Phrase {n % 40} .",
             f"Phrase {n % 13} .") for n in range(40)]
    root = write_moses(tmp_path / "opus", "en-fr", rows)
    assert main(["rank", "--opus-dir", str(root), "--langs", "all", "--workers", "1",
                 "--format", "tsv,parquet", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    cache = str(tmp_path / "cache")
    english = datasets.load_dataset(str(tmp_path / "out" / "en"), cache_dir=cache)
    assert english["train"].num_rows > 0
    french = tmp_path / "out" / "fr"
    assert json.loads((french / "stats.json").read_text())["pairs_written"] == {
        "train": 0, "dev": 0, "test": 0}
    assert "nothing to load" in (french / "README.md").read_text()
    assert "configs:" not in (french / "README.md").read_text()  # an empty config: TypeError
    with pytest.raises(Exception) as raised:  # noqa: B017 - datasets' own error, not TypeError
        datasets.load_dataset(str(french), cache_dir=cache)
    assert not isinstance(raised.value, TypeError)


def _rank_card(root, tmp_path, lang: str) -> str:
    from opusparcus.cli import main

    assert main(["rank", "--opus-dir", str(root), "--lang", lang, "--workers", "1",
                 "--format", "parquet", "--out", str(tmp_path / "out"), "--quiet"]) == 0
    stats = json.loads((tmp_path / "out" / lang / "stats.json").read_text())
    card = (tmp_path / "out" / lang / "README.md").read_text(encoding="utf-8")
    return card.replace("\n", " ") + f" source={stats['source']}"


def test_the_card_of_a_ranked_tatoeba_release_names_tatoeba_and_its_licence(tmp_path):
    from conftest import SAMPLE

    card = _rank_card(SAMPLE, tmp_path, "fr")
    assert 'license: "cc-by-2.0"' in card and "CC BY 2.0 FR" in card
    assert "pivot translations in an OPUS release of Tatoeba, ranked" in card
    assert "OpenSubtitles" not in card and "cc-by-nc" not in card and "CC BY-NC" not in card
    assert "source={'corpus': 'Tatoeba', 'form': 'OPUS release'}" in card


def test_the_card_of_a_ranked_opensubtitles_release_says_what_opus_asks(tmp_path):
    from conftest import write_moses

    rows = [(f"en/2000/1/{n}.xml.gz", f"fr/2000/1/{n}.xml.gz", "1", "1", f"Phrase {n % 40} .",
             f"Phrase {n % 13} .") for n in range(40)]
    card = _rank_card(write_moses(tmp_path / "opus", "en-fr", rows, "OpenSubtitles",
                                  zipped=True), tmp_path, "en")
    assert 'license: "cc-by-nc-4.0"' in card
    assert "pivot translations in an OPUS release of OpenSubtitles, ranked" in card
    assert "Lison and Tiedemann (2016)" in card and "link to http://www.opensubtitles.org/" in card


def test_the_card_of_a_release_that_names_no_corpus_says_so(tmp_path):
    from conftest import OpusFolder, Sentence

    opus = OpusFolder(tmp_path / "opus")
    for n in range(6):
        opus.sentences("en/1.xml.gz", Sentence(f"s{n}", f"Phrase {n} ."))
        opus.sentences("fr/1.xml.gz", Sentence(f"s{n}", f"Phrase {n % 2} ."))
    opus.links("en-fr", "en/1.xml.gz", "fr/1.xml.gz", [(f"s{n}", f"s{n}") for n in range(6)])
    card = _rank_card(opus.write("xml", zipped=False), tmp_path, "fr")  # no archive names it
    assert 'license: "unknown"' in card and "source={'corpus': None" in card
    assert "an OPUS release whose files do not name its corpus" in card
    assert "this project does not know its licence" in card
