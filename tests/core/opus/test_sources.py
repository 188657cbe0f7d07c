import gzip

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.sources import find_alignment_sources


def test_one_source_per_pair_in_the_rf_release(shared_data):
    sources = find_alignment_sources(shared_data / "opus-rf")
    names = [source.path.name for source in sources]
    assert names == ["de-en.xml.gz", "de-es.xml.gz", "de-fr.xml.gz", "de-sv.xml.gz",
                     "en-es.xml.gz", "en-fr.xml.gz", "en-sv.xml.gz", "es-fr.xml.gz",
                     "es-sv.xml.gz", "fr-sv.xml.gz"]
    total = sum(len(block) for source in sources for block in source.link_blocks())
    expected = sum(gzip.decompress(path.read_bytes()).decode().count("<link ")
                   for path in (shared_data / "opus-rf/xml").glob("*-*.xml.gz"))
    assert total == expected


def test_forms_are_chosen_in_order(tmp_path):
    xml = tmp_path / "xml"
    (xml / "de-en").mkdir(parents=True)
    (xml / "de-en.xml").write_text("<cesAlign/>")
    (xml / "en-fr").mkdir()
    (xml / "fr-en.xml").write_text("<cesAlign/>")
    (xml / "sv-de-en.xml").write_text("<cesAlign/>")
    (tmp_path / "moses" / "fr-it").mkdir(parents=True)
    found = {source.langs: (source.path.name, source.form)
             for source in find_alignment_sources(tmp_path)}
    assert found == {("de", "en"): ("de-en.xml", "cesAlign"),
                     ("fr", "en"): ("fr-en.xml", "cesAlign"),
                     ("fr", "it"): ("fr-it", "Moses folder")}


def test_not_an_opus_folder(tmp_path):
    with pytest.raises(InputError, match="neither xml/ nor moses/"):
        find_alignment_sources(tmp_path)
    with pytest.raises(InputError, match="not found"):
        find_alignment_sources(tmp_path / "absent")


def test_moses_forms_first_on_request(tmp_path):
    (tmp_path / "xml").mkdir()
    (tmp_path / "xml" / "en-fr.xml.gz").write_bytes(b"")
    (tmp_path / "moses" / "en-fr").mkdir(parents=True)
    (tmp_path / "moses" / "de-en.txt.zip").write_bytes(b"")
    (tmp_path / "xml" / "de-en.xml").write_text("<cesAlign/>")
    default = {s.langs: s.form for s in find_alignment_sources(tmp_path)}
    moses = {s.langs: s.form for s in find_alignment_sources(tmp_path, prefer_moses=True)}
    assert default == {("de", "en"): "cesAlign", ("en", "fr"): "cesAlign"}
    assert moses == {("de", "en"): "Moses zip", ("en", "fr"): "Moses folder"}
