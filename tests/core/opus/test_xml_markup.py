"""XML markup in sentence documents read as XML defines it, checked against expat: comments
ignored (a `</s>` in one ends nothing), CDATA as text, processing instructions dropped, and a
character XML forbids is a one-line error; also across chunk boundaries."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree

import pytest

import tapaco.core.opus.textstream as textstream
from tapaco.core.errors import InputError
from tapaco.core.opus.documents import read_sentences
from tapaco.core.opus.textstream import FileRef

PIECES = ["word", " ", "&amp;", "<!-- </s> <s id='x'>no</s> -->", "<![CDATA[<b> & ]]]]>",
          "<?note x?>", "\n", "é", "<!--\n-->", "<![CDATA[</s>]]>"]


def _expat_texts(data: bytes) -> list[tuple[str, str]]:
    """Each sentence's id and text as expat reads it: the `<s>`'s own character data,
    whitespace collapsed."""
    root = ElementTree.fromstring(data)
    return [(s.get("id"), " ".join(("".join(s.itertext())).split())) for s in root.iter("s")]


def _document(rng: random.Random, sentences: int) -> bytes:
    body = "".join(f'<s id="{n}">{"".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))}'
                   f'</s>\n{rng.choice(["", "<!-- between -->", "<?pi?>"])}'
                   for n in range(1, sentences + 1))
    return f'<?xml version="1.0"?>\n<document id="t">\n{body}</document>\n'.encode()


@pytest.mark.parametrize("chunk_bytes", [16, 64, 1 << 20])
@pytest.mark.parametrize("seed", range(5))
def test_comments_cdata_and_instructions_read_as_expat_reads_them(tmp_path, monkeypatch,
                                                                  chunk_bytes, seed):
    monkeypatch.setattr(textstream, "CHUNK_BYTES", chunk_bytes)
    data = _document(random.Random(seed), 30)
    path = tmp_path / "d.xml"
    path.write_bytes(data)
    sentences = read_sentences(FileRef(path))
    assert list(zip(sentences.ids, sentences.texts)) == _expat_texts(data)


def test_the_issues_cases(tmp_path):
    path = tmp_path / "d.xml"
    path.write_bytes(b'<document><s id="1">a<![CDATA[<b>]]>c</s><s id="2">d<!-- </s> -->e</s>'
                     b'</document>')
    assert list(read_sentences(FileRef(path)).texts) == ["a<b>c", "de"]


@pytest.mark.parametrize("character", [b"\x00", b"\x01", b"\x0b", b"\x1f"])
def test_a_character_xml_forbids_is_a_one_line_error(tmp_path, character):
    path = tmp_path / "d.xml"
    data = b'<document>\n<s id="1">ok</s>\n<s id="2">a' + character + b"c</s>\n</document>"
    path.write_bytes(data)
    with pytest.raises(ElementTree.ParseError):
        ElementTree.fromstring(data)
    with pytest.raises(InputError, match=rf"line 3, column 12: character 0x{character[0]:02x} "
                                         "is not allowed in XML"):
        read_sentences(FileRef(path))
