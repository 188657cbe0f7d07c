import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def _etree_links(path: Path) -> list[tuple[str, str, str, str]]:
    """A second reading of a cesAlign file, by the standard library's XML parser."""
    import xml.etree.ElementTree as ElementTree

    opened = gzip.open(path) if path.suffix == ".gz" else open(path, "rb")
    with opened as stream:
        root = ElementTree.parse(stream).getroot()
    links = []
    for group in root.iter("linkGrp"):
        for link in group.iter("link"):
            source, target = link.get("xtargets").split(";", 1)
            links.append((group.get("fromDoc"), group.get("toDoc"), source, target))
    return links


def test_every_real_alignment_reads_as_an_xml_parser_reads_it(shared_data):
    paths = sorted(path for path in (shared_data / "opus-rf/xml").rglob("*.xml*")
                   if path.parent.name == "xml" or "-" in path.parent.name)
    paths += sorted((shared_data / "tatoeba-v2-sample/xml").glob("*.xml.gz"))
    assert len(paths) > 20
    for path in paths:
        assert _links(path) == _etree_links(path), path


_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<cesAlign version="1.0">\n'


@pytest.mark.parametrize("links", [
    # attributes before xtargets, odd spacing, several groups, ids of every form
    '<linkGrp targType="s" fromDoc="de/a.xml.gz" toDoc="en/a.xml.gz">\n'
    '<link id="x1" certainty="0.5" xtargets="s1;s2" />\n'
    '<link\txtargets="s10 s11;s007"/>\n<link xtargets=";s3"/>\n<link xtargets="4;5"/>\n'
    '</linkGrp>\n<linkGrp fromDoc="de/b.xml.gz" toDoc="en/b.xml.gz" >\n'
    '<link xtargets="s1.0 s1.1;abc" certainty="1"/>\n<link xtargets="s123456789012345678;s0"/>'
    '\n</linkGrp>\n',
    # a second semicolon belongs to the target side; a `>` inside an attribute value
    '<linkGrp fromDoc="de/a.xml.gz" toDoc="en/a.xml.gz">\n'
    '<link xtargets="s1;s2;s3"/>\n<link note="a&gt;b" xtargets="s4;s5"/>\n</linkGrp>\n',
    # single quotes (valid XML), and spaces around "="
    "<linkGrp targType='s' fromDoc='de/a.xml.gz' toDoc='en/a.xml.gz'>\n"
    "<link id='x1' xtargets='s1;s2' />\n<link xtargets='s3 s4;s5' note='a\"b'/>\n"
    '<link xtargets = "s6;s7"/>\n<link xtargets=\'s8;\' certainty="1"/>\n</linkGrp>\n',
    # many links: the numpy reading of a whole chunk
    '<linkGrp fromDoc="de/a.xml.gz" toDoc="en/a.xml.gz">\n'
    + "".join(f'<link xtargets="s{n};s{n * 7}"/>\n' for n in range(1, 3000)) + "</linkGrp>\n",
])
def test_unusual_but_valid_links_read_as_an_xml_parser_reads_them(tmp_path, links):
    path = tmp_path / "de-en.xml"
    path.write_text(_HEADER + links + "</cesAlign>\n", encoding="utf-8")
    assert _links(path) == _etree_links(path)


def test_link_without_xtargets_among_many_is_an_error(tmp_path):
    body = "".join(f'<link xtargets="s{n};s{n}"/>\n' for n in range(1, 500))
    path = tmp_path / "de-en.xml"
    path.write_text(_HEADER + '<linkGrp fromDoc="de/a" toDoc="en/a">\n' + body
                    + '<link id="7"/>\n</linkGrp>\n</cesAlign>\n', encoding="utf-8")
    with pytest.raises(InputError, match="expected <link xtargets"):
        _links(path)


_SIDES = ["s1", "s2 s3", "", "4", "s0", "s007", "a-b", "s1.1 s1.2", "s123456789012345678", "é"]
_LINK_FORMS = ['<link xtargets="{}"/>', '<link id="l1" xtargets="{}" certainty="0.5"/>',
               '<link\txtargets="{}" />', '<link note="a&gt;b" xtargets="{}"></link>',
               '<link xtargets="{}" note="x>y"/>', "<link xtargets='{}' note='\"'/>"]
_ODD_LINKS = ['<link id="7"/>', '<link xtargets="s1"/>', '<linkX xtargets="s1;s2"/>',
              '<link a="1"xtargets="s1;s2"/>', '<link xtargets="s1;s2" xtargets="s3;s4"/>',
              '<link foo-xtargets="s1;s2"/>', '<link xtargets = "s1;s2"/>']


@st.composite
def _alignments(draw) -> str:
    parts = [_HEADER]
    for group in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 9)):
            quote = draw(st.sampled_from(["'", '"']))
            parts.append(f'<linkGrp targType="s" fromDoc={quote}de/{group}.xml.gz{quote} '
                         f'toDoc="en/{group}.xml.gz">\n')
        else:
            parts.append(draw(st.sampled_from(['<linkGrp fromDoc="de/x">\n', "<linkGrp>\n"])))
        for _ in range(draw(st.integers(0, 8))):
            if draw(st.integers(0, 29)) == 0:
                parts.append(draw(st.sampled_from(_ODD_LINKS)) + "\n")
                continue
            value = ";".join(draw(st.lists(st.sampled_from(_SIDES), min_size=2, max_size=3)))
            parts.append(draw(st.sampled_from(_LINK_FORMS)).format(value) + "\n")
        parts.append("</linkGrp>\n")
    parts.append("</cesAlign>\n")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(_alignments())
def test_the_scanner_reads_any_alignment_as_the_regular_expressions(document):
    import tempfile

    from tapaco.core.opus import cesalign

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "de-en.xml"
        path.write_text(document, encoding="utf-8")
        results = []
        for fast in (cesalign._fast_blocks, lambda chunk, state: None):
            original, cesalign._fast_blocks = cesalign._fast_blocks, fast
            try:
                results.append(_links(path))
            except InputError as error:
                results.append(str(error))
            finally:
                cesalign._fast_blocks = original
    assert results[0] == results[1]


def test_real_alignments_are_read_by_the_scanner(shared_data):
    from tapaco.core.opus.cesalign_kernels import scan_links

    paths = sorted((shared_data / "opus-rf/xml").glob("??-??.xml.gz"))
    paths += sorted((shared_data / "tatoeba-v2-sample/xml").glob("*.xml.gz"))
    assert len(paths) > 10
    for path in paths:
        scanned = scan_links(gzip.decompress(path.read_bytes()))
        assert scanned is not None and len(scanned.from_keys) > 0, path


def test_the_densest_alignment_fits_the_scanners_room():
    from tapaco.core.opus.cesalign_kernels import scan_links

    scanned = scan_links(b'<link xtargets=";">' * 1000 + b"<linkGrp>" * 1000)
    assert len(scanned.from_keys) == 1000 and len(scanned.group_first_link) == 1000
    assert len(scanned.other_sides) == 2000  # every side empty
