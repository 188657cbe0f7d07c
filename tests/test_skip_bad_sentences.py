"""With --skip-bad-input, a byte that is not UTF-8 inside one sentence of a document costs that
sentence only (reported with file, line and column), not the whole language."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

from conftest import SAMPLE

from opusparcus.cli import main as opusparcus_main
from tapaco.cli import main as tapaco_main

MEMBER = "Tatoeba/xml/fr/tatoeba.xml"
SENTENCE = "s711240"  # fr: "Grouille !", in a set of the output


def _release(root: Path, change) -> Path:  # noqa: ANN001 - bytes -> bytes
    shutil.copytree(SAMPLE, root)
    document = root / "xml" / "fr.zip"
    with zipfile.ZipFile(document) as archive:
        data = archive.read(MEMBER)
    with zipfile.ZipFile(document, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MEMBER, change(data))
    return root


def _corrupted(data: bytes) -> bytes:
    return data.replace(b">Grouille<", b">Grou\xeaille<", 1)


def _without_the_sentence(data: bytes) -> bytes:
    """The document without the sentence at all (its links then go to an unknown sentence)."""
    return re.sub(rb'<s id="' + SENTENCE.encode() + rb'">.*?</s>', b"", data, count=1,
                  flags=re.S)


def _build(root: Path, out: Path) -> dict:
    assert tapaco_main(["build", "--opus-dir", str(root), "--out", str(out), "--min-sets", "1",
                        "--documents", "xml", "--skip-bad-input", "--quiet"]) == 0
    return json.loads((out / "stats.json").read_text())


def _outputs(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.txt"))}


def test_a_bad_byte_in_a_sentence_costs_that_sentence_only(tmp_path):
    stats = _build(_release(tmp_path / "bad", _corrupted), tmp_path / "out-bad")
    without = _build(_release(tmp_path / "empty", _without_the_sentence), tmp_path / "out-empty")
    _build(_release(tmp_path / "good", lambda data: data), tmp_path / "out-good")
    bad, empty, good = (_outputs(tmp_path / name) for name in ("out-bad", "out-empty",
                                                               "out-good"))
    assert bad == empty and "fr.txt" in bad
    assert bad["fr.txt"] != good["fr.txt"] and "Grouille" in good["fr.txt"].decode()
    assert bad["en.txt"] == good["en.txt"]
    assert "\t711240\t" not in bad["fr.txt"].decode()  # left out, not an empty row
    skipped = stats["bad_input"]
    assert skipped["skipped"] == {**without["bad_input"]["skipped"], "encoding": 1}
    assert re.search(r"fr\.zip\[Tatoeba/xml/fr/tatoeba\.xml\]: line \d+, column \d+: invalid "
                     r"UTF-8 byte 0xea in a sentence", skipped["examples"][0])


def test_rank_skips_the_sentence_not_the_document(tmp_path, capsys):
    root = _release(tmp_path / "bad", _corrupted)
    arguments = ["rank", "--opus-dir", str(root), "--lang", "fr", "--workers", "1"]
    assert opusparcus_main([*arguments, "--out", str(tmp_path / "a")]) == 2
    assert "invalid UTF-8 byte 0xea" in capsys.readouterr().err
    assert opusparcus_main([*arguments, "--out", str(tmp_path / "b"), "--skip-bad-input"]) == 0
    stats = json.loads((tmp_path / "b" / "fr" / "stats.json").read_text())
    # reported by each bitext that reads the document (de-fr and en-fr)
    assert stats["bad_input"]["skipped"]["encoding"] == 2
    assert stats["pairs_written"]["train"] > 0


def test_a_language_left_empty_is_said(tmp_path, capsys):
    root = _release(tmp_path / "opus", lambda data: data)
    document = root / "xml" / "es.zip"
    with zipfile.ZipFile(document) as archive:
        data = archive.read("Tatoeba/xml/es/tatoeba.xml")
    with zipfile.ZipFile(document, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("Tatoeba/xml/es/tatoeba.xml", data.replace(b"</w>", b"\x00</w>"))
    assert tapaco_main(["build", "--opus-dir", str(root), "--min-sets", "1", "--out",
                        str(tmp_path / "o"), "--documents", "xml", "--skip-bad-input"]) == 0
    stats = json.loads((tmp_path / "o" / "stats.json").read_text())
    assert stats["bad_input"]["languages_left_empty"] == ["es"]
    assert "no sentence of es was read: all skipped as bad input" in capsys.readouterr().err
    good = _build(_release(tmp_path / "good", lambda data: data), tmp_path / "good-out")
    assert "languages_left_empty" not in good["bad_input"]


def test_a_bad_byte_between_sentences_costs_no_sentence(tmp_path):
    """A byte that is not UTF-8 between a `</s>` and the next `<s>` touches no sentence: the
    outputs are those of the intact release, and the byte is counted."""
    def between(data: bytes) -> bytes:
        at = data.index(b"</s>", data.index(SENTENCE.encode())) + len(b"</s>")
        return data[:at] + b"\xff" + data[at:]

    stats = _build(_release(tmp_path / "bad", between), tmp_path / "out-bad")
    good = _build(_release(tmp_path / "good", lambda data: data), tmp_path / "out-good")
    assert _outputs(tmp_path / "out-bad") == _outputs(tmp_path / "out-good")
    assert "fr.txt" in _outputs(tmp_path / "out-bad")
    assert stats["languages"] == good["languages"]
    skipped = stats["bad_input"]
    assert skipped["skipped"] == {**good["bad_input"]["skipped"], "encoding": 1}
    assert "languages_left_empty" not in skipped
    assert re.search(r"fr\.zip\[Tatoeba/xml/fr/tatoeba\.xml\]: line \d+, column 5: invalid UTF-8 "
                     r"byte 0xff outside any sentence; dropped, no sentence lost",
                     skipped["examples"][0])


def test_a_forbidden_character_costs_its_sentence_only(tmp_path):
    """As a byte that is not UTF-8: a control character, or a reference to one, in a sentence
    costs that sentence (the same outputs as without it)."""
    without = _outputs_of(tmp_path / "empty", _without_the_sentence)
    for number, bad in enumerate([b"\x01", b"&#0;", b"&#xFFFE;"]):
        def change(data: bytes, bad: bytes = bad) -> bytes:
            return data.replace(b">Grouille<", b">Grou" + bad + b"ille<", 1)

        out = tmp_path / f"out-{number}"
        stats = _build(_release(tmp_path / f"bad-{number}", change), out)
        assert _outputs(out) == without
        assert stats["bad_input"]["skipped"]["malformed XML"] == 1
        assert "in a sentence; the sentence is left out" in stats["bad_input"]["examples"][0]


def _outputs_of(root: Path, change) -> dict[str, bytes]:  # noqa: ANN001 - bytes -> bytes
    _build(_release(root, change), root.parent / f"{root.name}-out")
    return _outputs(root.parent / f"{root.name}-out")
