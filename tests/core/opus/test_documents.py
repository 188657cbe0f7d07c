import gzip
import html
import zipfile

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tapaco.core.errors import InputError
from tapaco.core.opus.documents import read_sentences, sentence_text
from tapaco.core.opus.textstream import FileRef


def test_tokenised_real_document(shared_data):
    path = shared_data / "opus-rf/xml/en/1988.xml.gz"
    sentences = read_sentences(FileRef(path))
    raw = gzip.decompress(path.read_bytes()).decode()
    assert len(sentences) == raw.count("<s id=")
    assert sentences.ids[0] == "s1.1"
    assert sentences.texts[0].startswith(
        "Statement of Government Policy by the Prime Minister , Mr Ingvar Carlsson ,")
    assert sentences.lists == [""] * len(sentences)


def test_tatoeba_sample_zip_member(shared_data):
    ref = FileRef(shared_data / "tatoeba-v2-sample/xml/fr.zip", "Tatoeba/xml/fr/tatoeba.xml")
    sentences = read_sentences(ref)
    text = dict(zip(sentences.ids, sentences.texts))
    assert text["s564436"] == "C' est quoi ?"
    assert text["s1130166"] == "Qu' est -ce ?"


def test_raw_sentences_with_lists_tags_and_entities(tmp_path):
    path = tmp_path / "d.xml"
    path.write_text('<?xml version="1.0"?>\n<document>\n'
                    '<s id="s1" lists="907;4000" tags="4 syllables;List 907">Let&apos;s '
                    '  go &amp; see.</s>\n<s tags="x" id="2">Two</s>\n<s id="3"/>\n</document>\n')
    sentences = read_sentences(FileRef(path))
    assert sentences.ids == ["s1", "2", "3"]
    assert sentences.texts == ["Let's go & see.", "Two", ""]
    assert sentences.lists == ["907;4000", "", ""]
    assert sentences.tags == ["4 syllables;List 907", "x", ""]


def test_sentence_text_joins_tokens_across_chunks():
    assert sentence_text('\n <chunk><w id="1">a</w>\n <w id="2">b&lt;</w></chunk>\n') == "a b<"


def test_unterminated_sentence_is_malformed(tmp_path):
    path = tmp_path / "d.xml"
    path.write_text('<document>\n<s id="1">one</s>\n<s id="2">two\n</document>\n')
    with pytest.raises(InputError, match="unterminated <s>") as caught:
        read_sentences(FileRef(path))
    assert "line" in str(caught.value) and str(path) in str(caught.value)


def test_zip_without_the_member(tmp_path):
    path = tmp_path / "de.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("Tatoeba/raw/de/other.xml", "<document/>")
    with pytest.raises(InputError, match="zip member not found") as caught:
        read_sentences(FileRef(path, "Tatoeba/raw/de/tatoeba.xml"))
    assert "de.zip[Tatoeba/raw/de/tatoeba.xml]" in str(caught.value)


def test_non_utf8_document(tmp_path):
    path = tmp_path / "d.xml.gz"
    path.write_bytes(gzip.compress(b'<document>\n<s id="1">caf\xe9</s>\n</document>\n'))
    with pytest.raises(InputError, match=r"line 2, column 14: invalid UTF-8 byte 0xe9"):
        read_sentences(FileRef(path))


OPENSUBTITLES_RAW = """<?xml version="1.0" encoding="utf-8"?>
<document id="456">
  <s id="1">
    <time id="T1S" value="00:00:51,819" />
- How are you?
    <time id="T1E" value="00:00:53,700" />
  </s>
  <s id="2">
    <time id="T2S" value="00:00:54,000" />
Tom &amp; Jerry
are here.
    <time id="T2E" value="00:00:56,100" />
  </s>
  <s id="3">
    <time id="T3S" value="00:00:57,000" />
    <time id="T3E" value="00:00:58,000" />
  </s>
  <s id="4"><time id="T4S"
    value="00:01:00,000" />Split <i>italic</i> time.</s>
</document>
"""


def test_raw_opensubtitles_sentences_keep_their_text_around_time_elements(tmp_path):
    path = tmp_path / "en.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("OpenSubtitles/raw/en/1994/123/456.xml", OPENSUBTITLES_RAW)
    sentences = read_sentences(FileRef(path, "OpenSubtitles/raw/en/1994/123/456.xml"))
    assert sentences.ids == ["1", "2", "3", "4"]
    # the <s>'s own character data (OpusTools: a child element's content is not collected)
    assert sentences.texts == ["- How are you?", "Tom & Jerry are here.", "", "Split time."]
    assert not sentences.tokenised


def test_tokens_win_over_time_elements_in_a_tokenised_sentence(tmp_path):
    path = tmp_path / "d.xml"
    path.write_text('<document>\n<s id="1">\n  <time id="T1S" value="00:00:51,819" />\n'
                    '  <w id="1.1">-</w>\n  <w id="1.2">How</w>\n  <w id="1.3">are</w>\n'
                    '  <w id="1.4">you</w>\n  <w id="1.5">?</w>\n'
                    '  <time id="T1E" value="00:00:53,700" />\n</s>\n</document>\n')
    sentences = read_sentences(FileRef(path))
    assert sentences.texts == ["- How are you ?"]
    assert sentences.tokenised


def test_raw_text_with_child_elements():
    assert sentence_text("\n<time id='a' value='1' />\nGo &lt;now&gt;!\n<time id='b' />\n") == \
        "Go <now>!"
    assert sentence_text("Hello <b>bold</b> world<br/>.") == "Hello world."


@pytest.mark.parametrize("content, message", [
    (b"", "empty document: no XML content"),
    (b"  \n", "empty document: no XML content"),
    (b"UEsDBBQAAAAIAGxhbmd1YWdl\n", "not an XML document: no element in it (it starts "
                                    "'UEsDBBQAAAAIAGxhbmd1')")])
def test_a_document_without_elements_says_what_it_holds(tmp_path, content, message):
    path = tmp_path / "d.xml"
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_sentences(FileRef(path))
    assert str(raised.value) == f"{path}: line 1: {message}"


def _etree_sentences(path) -> list[tuple[str, str, str, str]]:
    """A second reading of a raw document, by the standard library's XML parser: each `<s>`'s
    id, own text (child elements left out; whitespace collapsed where it has a newline, tab or
    double space, else stripped, as the module documents), lists and tags."""
    import xml.etree.ElementTree as ElementTree

    rows = []
    for element in ElementTree.parse(path).getroot().iter("s"):
        text = (element.text or "") + "".join(child.tail or "" for child in element)
        if "\n" in text or "\t" in text or "\r" in text or "  " in text:
            text = " ".join(text.split())
        rows.append((element.get("id"), text.strip(), element.get("lists", ""),
                     element.get("tags", "")))
    return rows


def _rows(sentences) -> list[tuple[str, str, str, str]]:
    return list(zip(sentences.ids, sentences.texts, sentences.lists, sentences.tags))


_TRICKY_TEXTS = ["Plain.", "", " lead", "trail ", "two  spaces", "tab\there", "AT&amp;T",
                 "&lt;tag&gt; &#233;t&#xE9;", "\u3000ideographic\u3000", "\xa0nbsp\xa0",
                 "東京へ行きます。", "Он устал.", "¿Qué?", "a\u2028b", "end\u2029",
                 "\u1680x", "x\u205f", "mid\u3000dle", "emoji 😀 ok", "a&#10;b", "x&#160;",
                 "&apos;q&apos;", "&amp;lt;", "a&#13;b", "&#x80;", "\rlead", "a\rb"]
_TRICKY_IDS = ["s1", "2", "s03", "s4.1", "x-9", "s123456789012345678", "s0"]


def _tricky_document(count: int, seed: int) -> str:
    import random

    rng = random.Random(seed)
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<document>"]
    for number in range(count):
        sentence_id = rng.choice(_TRICKY_IDS) if rng.random() < 0.2 else f"s{number + 10}"
        attributes = rng.choice(["", ' lists="1;2"', ' tags="a &amp; b"',
                                 ' lists="7" tags="x;y"'])
        text = rng.choice(_TRICKY_TEXTS) + rng.choice(["", " more", "!"])
        lines.append(f'<s id="{sentence_id}"{attributes}>{text}</s>')
    return "\n".join(lines + ["</document>", ""])


@pytest.mark.parametrize("count", [1, 50, 5000])
def test_raw_documents_read_as_an_xml_parser_reads_them(tmp_path, count):
    path = tmp_path / "d.xml"
    path.write_text(_tricky_document(count, count), encoding="utf-8")
    assert _rows(read_sentences(FileRef(path))) == _etree_sentences(path)


@pytest.mark.parametrize("odd_entity", ["", "&#233;", "&nbsp;", "AT&T", "&amp", "&#10;"])
def test_texts_with_xml_entities_read_as_an_xml_parser_reads_them(tmp_path, odd_entity):
    """Texts whose every "&" opens an XML entity are decoded together; one other entity (or a
    bare "&", invalid XML that html.unescape keeps) among them sends them one by one."""
    import random

    rng = random.Random(len(odd_entity))
    pieces = ["I&apos;m", "&quot;Go&quot;", "a &lt; b &gt; c", "&amp;lt;", "R&amp;D", "plain",
              "&apos;", "x&amp;amp;y"]
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<document>"]
    texts = [" ".join(rng.choices(pieces, k=rng.randint(1, 4))) for _ in range(400)]
    texts[200] += odd_entity
    lines += [f'<s id="s{n}">{text}</s>' for n, text in enumerate(texts)]
    path = tmp_path / "d.xml"
    path.write_text("\n".join(lines + ["</document>", ""]), encoding="utf-8")
    found = _rows(read_sentences(FileRef(path)))
    if odd_entity in ("", "&#233;", "&#10;"):  # well-formed XML
        assert found == _etree_sentences(path)
    expected = [html.unescape(text) for text in texts]
    expected[200] = " ".join(expected[200].split())
    assert [text for _, text, _, _ in found] == expected


def _scanned_and_general(path, monkeypatch):
    """The document read with the compiled scanner and by the general path alone."""
    from tapaco.core.opus import documents

    scanned = read_sentences(FileRef(path))
    with monkeypatch.context() as patched:
        patched.setattr(documents, "_add_scanned_chunk", lambda builder, chunk: False)
        general = read_sentences(FileRef(path))
    return scanned, general


def _assert_same_reading(scanned, general):
    assert _rows(scanned) == _rows(general)
    assert scanned.keys.tolist() == general.keys.tolist()
    assert scanned.other_ids == general.other_ids
    assert scanned.tokenised == general.tokenised


def test_the_scanner_reads_as_the_general_path(tmp_path, monkeypatch):
    from tapaco.core.opus.document_kernels import scan_sentences

    path = tmp_path / "d.xml"
    path.write_text(_tricky_document(3000, 1), encoding="utf-8")
    assert scan_sentences(path.read_bytes()) is not None  # the scanner read it
    _assert_same_reading(*_scanned_and_general(path, monkeypatch))


@pytest.mark.parametrize("odd", ['<s id="9" lists="a>b">x</s>', '<s lists="1" id="9">x</s>',
                                 '<s id="9">x<b/>y</s>', '<s id="9"/>', '<s id="9" >x</s >',
                                 '<s id="9" tags="b" lists="a">x</s>',
                                 '<s id="9" lists="a" tags="b" >x</s>',
                                 '<s id="9" lists="a&amp;b" tags="&lt;">x</s>'])
def test_unusual_sentences_among_plain_ones_are_still_read(tmp_path, odd, monkeypatch):
    path = tmp_path / "d.xml"
    body = "\n".join(f'<s id="s{n}">Text {n}.</s>' for n in range(1, 400))
    path.write_text(f"<document>\n{body}\n{odd}\n</document>\n", encoding="utf-8")
    scanned, general = _scanned_and_general(path, monkeypatch)
    assert _rows(scanned) == _rows(general) == _etree_sentences(path)


# Pieces of sentence documents: the common ones the scanner reads, and rarer ones it must leave
# to the general path (or read as it does).
_IDS = ["s1", "7", "s0", "s1234567890123456789", "s4.1", "x-9", ""]
_ODD_IDS = ["s07", "a&amp;b", "1\n2", "a>b"]
_ATTRIBUTES = ["", ' lists="1;2"', ' tags="a &amp; b"', ' lists="7" tags="x;y"', ' lists="a>b"',
               ' lists=""']
_ODD_ATTRIBUTES = [' tags="x" lists="y"', " ", ' lists="a\nb"', ' lists="&#233;"', " x=\"1\"",
                   " lists='1'", ' tags="a&#9;b"', ' lists="a\tb\rc"', ' tags="&#0;"']
_TEXT_PIECES = ["Plain.", " ", "  ", "\t", "\n", "\r", "&amp;", "&lt;b&gt;", "&quot;", "&apos;",
                "東京", "é", "😀", '<time id="T1S" value="00:00:01,000" />', "<time/>", ">", '"',
                "'", "<w>tok</w>", '<w id="1.1">&amp;</w>', "<w> sp  </w>", "<w></w>",
                '<chunk type="NP">', "</chunk>", "<br/>", '<time id="T1E"\n value="x"/>']
_ODD_TEXT_PIECES = ["\xa0", "\u3000", "\u2028", "\x85", "&#233;", "&#10;", "&nbsp;", "&",
                    "&amp", "<timeline/>", "<i>x</i>", "<w/>", '<w id="a"><b/></w>', "</w >",
                    "<?pi x?>", "</w>", '<w a="x>y">t</w>', "</s >", "&#x80;", "&#13;", "&#9;",
                    "&#0;", "&#xD800;", "<?pi </s> ?>", "<w>a&#13;b</w>", "\x1c", "\ufffe"]
_OUTSIDE = ["\n", "<p>", "</p>", '<time id="T0" value="x"/>', "<!-- </s> -->", "text outside",
            "</span>"]
_ODD_OUTSIDE = ["<![CDATA[<s>]]>", "<w>t</w>", "</s>", "<!DOCTYPE x>", "<?pi </s> <s>?>", "\x01",
                "&#0;"]


def _mostly(common: list[str], odd: list[str]) -> st.SearchStrategy[str]:
    """One of `common`, or one in 25 times one of `odd`."""
    return st.integers(0, 24).flatmap(
        lambda die: st.sampled_from(odd if die == 0 else common))


@st.composite
def _documents(draw) -> str:
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<document>\n']
    plain_text = st.text(max_size=4).filter(lambda text: "<" not in text and "&" not in text)
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 4)) == 0:
            parts.append(draw(_mostly(_OUTSIDE, _ODD_OUTSIDE)))
        sentence_id = draw(_mostly(_IDS, _ODD_IDS) | st.integers(1, 10**6).map("s{}".format))
        quote = draw(_mostly(['"'], ["'"]))
        attributes = draw(_mostly(_ATTRIBUTES, _ODD_ATTRIBUTES))
        pieces = st.lists(_mostly(_TEXT_PIECES, _ODD_TEXT_PIECES) | plain_text, max_size=6)
        parts.append(f'<s id={quote}{sentence_id}{quote}{attributes}>{"".join(draw(pieces))}'
                     "</s>\n")
    parts.append("</document>\n")
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(_documents())
@example(document='<?xml version="1.0" encoding="utf-8"?>\n<document>\n<s id="s1"></s>\n'
                  '<s id="s07"></s ><w>a&#13;b</w></s>\n</document>\n')  # an end tag `</s >`
def test_the_scanner_reads_any_document_as_the_general_path(document):
    import tempfile
    from pathlib import Path

    from tapaco.core.opus import documents

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.xml"
        path.write_bytes(document.encode("utf-8", "surrogatepass"))
        results = []
        for scanner in (documents._add_scanned_chunk, lambda builder, chunk: False):
            original, documents._add_scanned_chunk = documents._add_scanned_chunk, scanner
            try:
                results.append(read_sentences(FileRef(path)))
            except InputError as error:
                results.append(str(error))
            finally:
                documents._add_scanned_chunk = original
    scanned, general = results
    if isinstance(general, str) or isinstance(scanned, str):
        assert scanned == general
    else:
        _assert_same_reading(scanned, general)


def test_opensubtitles_raw_documents_are_read_by_the_scanner(monkeypatch, tmp_path):
    """The common raw forms (times inside sentences, entities, runs of whitespace) are the
    scanner's: it does not decline them, and reads them as the general path."""
    from tapaco.core.opus.document_kernels import scan_sentences

    body = "".join(f'<s id="{n}">\n<time id="T{n}S" value="00:00:{n % 60:02},000" />\n'
                   f"- Line &amp; {n}  here.\n<time id=\"T{n}E\" value=\"x\" />\n</s>\n"
                   for n in range(1, 300))
    document = f'<?xml version="1.0" encoding="utf-8"?>\n<document id="1">\n{body}</document>\n'
    scanned = scan_sentences(document.encode())
    assert scanned is not None and not scanned.alone.any()
    path = tmp_path / "d.xml"
    path.write_text(document, encoding="utf-8")
    found, general = _scanned_and_general(path, monkeypatch)
    _assert_same_reading(found, general)
    assert found.texts[0] == "- Line & 1 here." and found.ids[:2] == ["1", "2"]


@pytest.mark.parametrize("member", ["opus-rf", "tatoeba"])
def test_real_tokenised_documents_are_read_by_the_scanner(shared_data, monkeypatch, tmp_path,
                                                         member):
    """OPUS's tokenised documents (tokens inside <chunk> elements, attributes on every token,
    tokens outside sentences) are the scanner's, and it reads them as the general path."""
    from tapaco.core.opus.document_kernels import scan_sentences

    if member == "opus-rf":
        sources = sorted((shared_data / "opus-rf/xml").glob("??/*.xml.gz"))  # not alignments
        documents = [(f"{path.parent.name}-{path.name[:-3]}", gzip.decompress(path.read_bytes()))
                     for path in sources]
    else:
        documents = []
        for path in sorted((shared_data / "tatoeba-v2-sample/xml").glob("*.zip")):
            with zipfile.ZipFile(path) as archive:
                documents += [(f"{path.stem}.xml", archive.read(name))
                              for name in archive.namelist()]
    assert len(documents) >= 4
    for name, content in documents:
        scanned = scan_sentences(content)
        assert scanned is not None and scanned.tokenised and not scanned.alone.any(), name
        path = tmp_path / name
        path.write_bytes(content)
        found, general = _scanned_and_general(path, monkeypatch)
        _assert_same_reading(found, general)


@pytest.mark.parametrize("text, expected", [
    ("\rText.", "Text."), ("Text.\r", "Text."), ("\r\rA\r", "A"), ("a\rb", "a b"),
    ("a \r b", "a b"), ("\r", ""), ("\r\n\t x", "x")])
def test_the_scanner_takes_a_return_for_whitespace(text, expected):
    """Pinned, not left to a property test's luck: the scanner itself (it does not leave these
    texts to the reference) strips a return at either end and collapses one inside."""
    from tapaco.core.opus.document_kernels import scan_sentences

    scanned = scan_sentences(f'<s id="1">{text}</s><s id="2"><w>{text}</w><w>x</w></s>'.encode())
    assert scanned is not None and not scanned.alone.any()
    assert scanned.texts == [expected, f"{expected} x".strip()]


def test_the_densest_document_fits_the_scanners_room():
    from tapaco.core.opus.document_kernels import scan_sentences

    scanned = scan_sentences(b'<s id=""></s>' * 1000)
    assert len(scanned.keys) == 1000 and scanned.texts == [""] * 1000
