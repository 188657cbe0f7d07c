import gzip
from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.cesalign import read_cesalign
from tapaco.core.opus.textstream import FileRef


def _links(path: Path, pair=("de", "en")) -> list[tuple[str, str, str, str]]:
    return [(block.from_doc, block.to_doc, a, b)
            for block in read_cesalign(FileRef(path), pair)
            for a, b in zip(block.from_sides, block.to_sides)]


def test_real_rf_alignment_with_one_to_two_links(shared_data):
    path = shared_data / "opus-rf/xml/de-en.xml.gz"
    links = _links(path)
    assert len(links) == gzip.decompress(path.read_bytes()).decode().count("<link ")
    assert ("de/1988.xml.gz", "en/1988.xml.gz", "s4.1", "s4.1 s4.2") in links
    assert {(a, b) for a, b, _, _ in links} == {("de/1988.xml.gz", "en/1988.xml.gz"),
                                                 ("de/1996.xml.gz", "en/1996.xml.gz")}


def test_per_document_folder_holds_the_same_links(shared_data):
    folder = sorted((shared_data / "opus-rf/xml/de-en").glob("*.xml.gz"))
    from_folder = [link for path in folder for link in _links(path)]
    assert from_folder == _links(shared_data / "opus-rf/xml/de-en.xml.gz")


def test_empty_cesalign_file_has_no_links(shared_data):
    assert _links(shared_data / "opus-rf/xml/de-en.xml") == []


def test_three_language_file_languages_come_from_paths(shared_data):
    blocks = list(read_cesalign(FileRef(shared_data / "opus-rf/xml/sv-de-en.xml"), ("x", "y")))
    assert [(b.from_lang, b.to_lang, len(b)) for b in blocks] == [("sv", "de", 9), ("sv", "en", 9)]


def test_empty_link_side_is_kept_as_empty_string(tmp_path):
    path = tmp_path / "a-b.xml"
    path.write_text('<cesAlign><linkGrp fromDoc="a/d.xml.gz" toDoc="b/d.xml.gz">'
                    '<link xtargets=";s2"/><link xtargets="s1 s3;s4"/></linkGrp></cesAlign>')
    assert _links(path) == [("a/d.xml.gz", "b/d.xml.gz", "", "s2"),
                            ("a/d.xml.gz", "b/d.xml.gz", "s1 s3", "s4")]


@pytest.mark.parametrize("body, line, words", [
    ('<linkGrp fromDoc="a/d" toDoc="b/d">\n<link xtargets="s1;s2"/>\n<link id="x"/>\n'
     '</linkGrp></cesAlign>', 5, "xtargets"),
    ('<linkGrp fromDoc="a/d" toDoc="b/d">\n<link xtargets="s1;s2"/>\n', 5, "end of file"),
    ('<linkGrp toDoc="b/d">\n<link xtargets="s1;s2"/></linkGrp></cesAlign>', 3, "fromDoc"),
    ('\n<link xtargets="s1;s2"/>\n</cesAlign>', 4, "outside"),
])
def test_malformed_alignment_names_file_and_line(tmp_path, body, line, words):
    path = tmp_path / "a-b.xml"
    path.write_text('<?xml version="1.0"?>\n<cesAlign version="1.0">\n' + body)
    with pytest.raises(InputError) as caught:
        _links(path)
    message = str(caught.value)
    assert str(path) in message and words in message
    assert f"line {line}" in message


def test_truncated_gzip_is_reported(shared_data, tmp_path):
    data = (shared_data / "opus-rf/xml/de-en.xml.gz").read_bytes()
    path = tmp_path / "de-en.xml.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="truncated") as caught:
        _links(path)
    assert str(path) in str(caught.value)


def test_non_utf8_byte_is_reported_with_line(tmp_path):
    path = tmp_path / "a-b.xml"
    path.write_bytes(b'<cesAlign>\n<linkGrp fromDoc="a/d" toDoc="b/d">\n'
                     b'<link xtargets="s1;s2" note="\xff"/>\n</linkGrp></cesAlign>\n')
    with pytest.raises(InputError, match=r"line 3, column \d+: invalid UTF-8 byte 0xff"):
        _links(path)
