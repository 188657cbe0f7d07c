"""No output row carries a tab, newline or carriage return inside a field, whichever way one
came in (a character reference, a literal return, a tab in an attribute, a return in a Tatoeba
export's sentence): each is a space, in every format the build and `rank` write, and the
build's files read back with `serve`'s reader."""

from __future__ import annotations

import bz2
import shutil
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
from conftest import SAMPLE, write_cesalign, write_document_zip

from opusparcus.cli import main as opusparcus_main
from tapaco.cli import main as tapaco_main
from tapaco.core.annotation.sets import read_language_file

# (raw XML of a sentence's body, its text as the output must hold it)
BODIES = [("est&#13;bien", "est bien"), ("tab&#9;here", "tab here"), ("new&#10;line", "new line"),
          ("cr\rhere", "cr here"), ("<w>tok&#13;en</w> <w>x</w>", "tok en x"),
          ("a&#xD;&#xA;b", "a b")]


def _release(root: Path) -> Path:
    english = "".join(f'<s id="s{n}" lists="1&#9;2" tags="a&#10;b">{body}</s>\n'
                      for n, (body, _) in enumerate(BODIES, 1))
    french = "".join(f'<s id="s{n}">Phrase {n}</s>\n' for n in range(1, 3))
    for lang, body in (("en", english), ("fr", french)):
        write_document_zip(root, "raw", lang, {f"{lang}/t.xml.gz": f"<document>\n{body}"
                                                                     "</document>\n"},
                           corpus="Test")
    write_cesalign(root / "xml" / "en-fr.xml.gz", [
        ("en/t.xml.gz", "fr/t.xml.gz", [(f"s{n}", f"s{1 + n % 2}")
                                        for n in range(1, len(BODIES) + 1)])])
    return root


def _assert_no_breaks_in_fields(lines: list[str], fields: int) -> None:
    for line in lines:
        assert "\r" not in line and len(line.split("\t")) == fields, repr(line)


def test_the_build_writes_no_break_inside_a_field_in_any_format(tmp_path):
    out = tmp_path / "out"
    assert tapaco_main(["build", "--opus-dir", str(_release(tmp_path / "opus")), "--out",
                        str(out), "--min-sets", "1", "--bleu-max", "100", "--format",
                        "tsv,parquet", "--quiet"]) == 0
    data = (out / "en.txt").read_bytes().decode()
    _assert_no_breaks_in_fields(data.split("\n")[:-1], 5)
    members = read_language_file(out / "en.txt")
    assert sorted(member.sentence for member in members) == sorted(text for _, text in BODIES)
    assert {tuple(line.split("\t")[3:]) for line in data.split("\n")[:-1]} == {("1 2", "a b")}
    table = pq.read_table(out / "data" / "en.parquet").to_pydict()
    assert sorted(table["paraphrase"]) == sorted(text for _, text in BODIES)
    assert {value for column in ("lists", "tags") for values in table[column]
            for value in values} == {"1 2", "a b"}


def test_rank_writes_no_break_inside_a_field(tmp_path):
    root = tmp_path / "opus"
    shutil.copytree(SAMPLE, root)
    member = "Tatoeba/xml/fr/tatoeba.xml"
    with zipfile.ZipFile(root / "xml" / "fr.zip") as archive:
        data = archive.read(member)
    for word, changed in ((b">Grouille<", b">Grou&#13;ille<"), (b">Pressez<", b">Pres\rsez<"),
                          (b">Et<", b">E&#9;t<")):
        assert word in data
        data = data.replace(word, changed)
    with zipfile.ZipFile(root / "xml" / "fr.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    out = tmp_path / "out"
    assert opusparcus_main(["rank", "--opus-dir", str(root), "--lang", "fr", "--workers", "1",
                            "--out", str(out)]) == 0
    train = bz2.decompress((out / "fr/train/fr-train.txt.bz2").read_bytes()).decode()
    lines = train.split("\n")[:-1]
    _assert_no_breaks_in_fields(lines, 7)
    sentences = {field for line in lines for field in line.split("\t")[1:3]}
    assert {"Grou ille .", "Pres sez -vous .", "E t alors ?"} <= sentences
    for path in out.rglob("*.txt"):  # the dev and test candidates
        assert "\r" not in path.read_text()


def test_a_return_inside_an_exports_sentence_is_a_space(tmp_path):
    from test_tatoeba_export import write_export

    export = write_export(tmp_path / "export")
    sentences = export / "sentences.csv"
    data = sentences.read_bytes()
    for text, changed in ((b"I ate the cheese.", b"I ate\rthe cheese."),
                          (b"Halt!", b"Ha\rlt!")):
        assert text in data
        data = data.replace(text, changed)
    sentences.write_bytes(data)
    out = tmp_path / "out"
    assert tapaco_main(["build", "--tatoeba-export", str(export), "--out", str(out),
                        "--min-sets", "1", "--format", "tsv,parquet", "--quiet"]) == 0
    lines = (out / "en.txt").read_bytes().decode().split("\n")[:-1]
    _assert_no_breaks_in_fields(lines, 5)
    texts = {member.sentence for member in read_language_file(out / "en.txt")}
    assert {"I ate the cheese.", "Ha lt!"} <= texts
    assert {"I ate the cheese.", "Ha lt!"} <= set(pq.read_table(out / "data/en.parquet")
                                                  .column("paraphrase").to_pylist())
