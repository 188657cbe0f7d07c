"""The document store: where documents are found, open zips kept, parsed documents cached."""

from __future__ import annotations

import zipfile

import pytest
from conftest import Sentence

import tapaco.core.opus.store as store_module
from tapaco.core.errors import InputError
from tapaco.core.opus.store import RAW, TOKENISED, DocumentStore, preference


def test_preference_and_matching_zip_members_by_suffix(opus):
    opus.sentences("de/tatoeba.xml.gz", Sentence("s1", "Hallo, Welt!"))
    opus.write("raw")
    opus.write("xml")
    with DocumentStore(opus.root, preference("raw")) as store:
        raw = store.document("de/tatoeba.xml.gz")
    with DocumentStore(opus.root, preference("xml")) as store:
        tokenised = store.document("de/tatoeba.xml.gz")
    assert raw.ref.member == "Test/raw/de/tatoeba.xml" and raw.kind == RAW
    assert raw.sentences.texts == ["Hallo, Welt!"]
    assert tokenised.ref.member == "Test/xml/de/tatoeba.xml" and tokenised.kind == TOKENISED
    assert tokenised.sentences.texts == ["Hallo, Welt!"]  # conftest splits tokens on spaces


def test_extracted_documents_and_a_missing_one(shared_data):
    with DocumentStore(shared_data / "opus-rf") as store:
        document = store.document("sv/1994.xml.gz")
        assert document.ref.path == shared_data / "opus-rf/xml/sv/1994.xml.gz"
        assert store.find("sv/2000.xml.gz") is None
        with pytest.raises(InputError, match="sentence document sv/2000.xml.gz not found") as e:
            store.document("sv/2000.xml.gz")
    assert e.value.kind == "missing document"


def test_side_texts_join_ids_and_unknown_ids_give_none(opus):
    opus.sentences("en/a.xml.gz", Sentence("s1", "One."), Sentence("s2", "Two."))
    opus.write("raw")
    with DocumentStore(opus.root) as store:
        document = store.document("en/a.xml.gz")
    assert document.side_text("s2") == "Two."
    assert document.side_text("s1 s2") == "One. Two."
    assert document.side_text("s1 s9") is None and document.side_text("") is None


def _many_documents(opus, count: int) -> list[str]:
    names = [f"en/2001/{n}/{n}.xml.gz" for n in range(count)]
    for n, name in enumerate(names):
        opus.sentences(name, Sentence("1", f"Line {n}."))
    opus.write("raw")
    return names


def test_each_zip_is_opened_once(opus, monkeypatch):
    names = _many_documents(opus, 30)
    opened = []
    real = zipfile.ZipFile

    def counting(path, *args, **kwargs):
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(zipfile, "ZipFile", counting)
    with DocumentStore(opus.root, cache_size=2) as store:
        texts = [store.document(name).sentences.texts for name in names + names]
    assert texts == [[f"Line {n}."] for n in range(30)] * 2
    assert opened == [str(opus.root / "raw" / "en.zip")]


def test_parsed_documents_are_cached_up_to_cache_size(opus, monkeypatch):
    names = _many_documents(opus, 4)
    parsed = []
    real = store_module.read_sentences

    def counting(ref, *args):
        parsed.append(ref.member)
        return real(ref, *args)

    monkeypatch.setattr(store_module, "read_sentences", counting)
    with DocumentStore(opus.root, cache_size=2) as store:
        for name in (names[0], names[1], names[0], names[2], names[0], names[1]):
            store.document(name)
    members = [f"Test/raw/{name.removesuffix('.gz')}" for name in names]
    # names[1] was dropped (least recently used) when names[2] came in
    assert parsed == [members[0], members[1], members[2], members[1]]


@pytest.mark.parametrize("arguments", [{"prefer": ()}, {"prefer": ("raw", "raw")},
                                       {"prefer": ("tokenised",)}, {"cache_size": 0}])
def test_bad_store_arguments(tmp_path, arguments):
    with pytest.raises(ValueError):
        DocumentStore(tmp_path, **arguments)
    with pytest.raises(ValueError):
        preference("moses")
