"""Documents read as XML 1.0 reads them: character references (`&#x80;` is U+0080; one to a
character XML forbids is bad input), processing instructions (no text, wherever they are),
single-quoted attributes, and no tab, newline or return left in a text or attribute value (they
would end an output field or row). Expected values come from expat where the XML is
well-formed, and are written out where it is not."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.opus.documents import read_sentences
from tapaco.core.opus.textstream import FileRef


def _expat_rows(data: bytes) -> list[tuple[str, str, str]]:
    """Each sentence's id, text (its own character data, or its <w> tokens joined by spaces;
    whitespace collapsed as str.split does) and lists (tabs, newlines and returns, which only
    references leave there, as spaces), as expat reads them."""
    rows = []
    for sentence in ElementTree.fromstring(data).iter("s"):
        tokens = [token.text or "" for token in sentence.iter("w")]
        text = " ".join(tokens) if tokens else "".join(
            [sentence.text or ""] + [child.tail or "" for child in sentence])
        rows.append((sentence.get("id"), " ".join(text.split()),
                     sentence.get("lists", "").translate({9: " ", 10: " ", 13: " "})))
    return rows


def _read(tmp_path, data: bytes, log: BadInputLog | None = None):
    path = tmp_path / "d.xml"
    path.write_bytes(data)
    sentences = read_sentences(FileRef(path), bad_sentence=log.report if log else None)
    return [(i, text, lists) for i, text, lists in zip(sentences.ids, sentences.texts,
                                                       sentences.lists)]


def _document(*sentences: str) -> bytes:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<document>\n' + "\n".join(sentences)
            + "\n</document>\n").encode()


# well-formed XML that was read otherwise than expat reads it
WELL_FORMED = {
    "a C1 control by reference": '<s id="1">a&#x80;b &#128;c</s>',
    "a carriage return by reference": '<s id="1">est&#13;bien</s>',
    "one in a token": '<s id="1"><w>est&#13;bien</w> <w>ok</w></s>',
    "a tab and a newline by reference": '<s id="1">a&#9;b&#10;c&#xD;&#xa;d</s>',
    "a literal return": '<s id="1">a\rb</s>',
    "a return at the start": '<s id="1">\rText.\r</s>',
    "a processing instruction holding </s>": '<s id="1">a<?pi </s> ?>b</s>',
    "one holding <s>": '<s id="1">a<?pi <s id="2">x</s> ?>b</s>',
    "single-quoted attributes": "<s id='s1' lists='7;8'>Text.</s>",
    "mixed quotes": """<s id="s1" lists='a"b'>Text.</s><s id='s2'>Two.</s>""",
    "references in attributes": '<s id="s&#49;" lists="a&#9;b&#10;c&#13;d">x</s>',
    "a literal tab in an attribute": '<s id="s1" lists="a\tb">x</s>',
    "a referenced character above the BMP": '<s id="1">&#x1F600; &#128512;</s>',
    "leading zeros": '<s id="1">&#x0041;&#0066;</s>',
}


@pytest.mark.parametrize("body", WELL_FORMED.values(), ids=WELL_FORMED.keys())
def test_well_formed_documents_read_as_expat_reads_them(tmp_path, body):
    data = _document(body, '<s id="z">Last.</s>')
    assert _read(tmp_path, data) == _expat_rows(data)


def test_the_issues_examples(tmp_path):
    data = _document('<s id="1"><w>est&#13;bien</w></s>', '<s id="2">&#x80;</s>',
                     '<s id="3">a<?pi </s> ?>b</s>', "<s id='s4'>Four.</s>")
    assert _read(tmp_path, data) == [("1", "est bien", ""), ("2", "\x80", ""), ("3", "ab", ""),
                                     ("s4", "Four.", "")]


# references to characters XML 1.0 does not allow (its Char production)
FORBIDDEN = ["&#0;", "&#1;", "&#x1F;", "&#xD800;", "&#xDFFF;", "&#xFFFE;", "&#65535;",
             "&#x110000;", "&#99999999999999999999999;", "&#x0000000000000000000001;"]


@pytest.mark.parametrize("reference", FORBIDDEN)
def test_a_reference_to_a_forbidden_character_is_a_one_line_error(tmp_path, reference):
    data = _document('<s id="1">ok</s>', f'<s id="2">ab{reference}c</s>')
    with pytest.raises(ElementTree.ParseError):
        ElementTree.fromstring(data)
    with pytest.raises(InputError, match=rf"line 4, column 13: character reference "
                                         rf"{reference} is not allowed in XML"):
        _read(tmp_path, data)


@pytest.mark.parametrize("bad", ["&#0;", "&#xFFFF;", "\x00", "\x1f", "\ufffe", "\uffff"])
@pytest.mark.parametrize("where", ["text", "token", "attribute"])
def test_with_skip_a_forbidden_character_costs_its_sentence_only(tmp_path, bad, where):
    sentence = {"text": f'<s id="2">a{bad}b</s>', "token": f'<s id="2"><w>a{bad}b</w></s>',
                "attribute": f'<s id="2" tags="{bad}">ab</s>'}[where]
    log = BadInputLog(skip=True)
    rows = _read(tmp_path, _document('<s id="1">One.</s>', sentence, '<s id="3">Three.</s>'),
                 log)
    assert rows == [("1", "One.", ""), ("3", "Three.", "")]
    assert log.counts == {"malformed XML": 1}
    assert "line 4, column " in log.examples[0]
    assert "in a sentence; the sentence is left out" in log.examples[0]


def test_a_forbidden_reference_outside_sentences_costs_none(tmp_path):
    log = BadInputLog(skip=True)
    data = _document('<s id="1">One.</s>', '<p title="&#0;">\x01</p>', '<s id="2">Two.</s>')
    assert _read(tmp_path, data, log) == [("1", "One.", ""), ("2", "Two.", "")]
    assert log.counts == {"malformed XML": 2}
    assert all("outside any sentence; dropped, no sentence lost" in example
               for example in log.examples)


def test_an_ampersand_that_starts_no_reference_stays_as_written(tmp_path):
    """Not XML, but OPUS documents hold such; an HTML entity keeps HTML's meaning."""
    data = _document('<s id="1">AT&T &#12 &#X41; &# &nbsp;x</s>')
    assert _read(tmp_path, data) == [("1", "AT&T &#12 &#X41; &# \xa0x", "")]
