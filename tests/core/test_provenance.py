"""The corpus a release is of, read from its files, and the licence a card gives it."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from tapaco.core.provenance import TATOEBA_EXPORT, Provenance, release_provenance


def test_real_releases_name_their_corpus_or_none(shared_data, tmp_path):
    assert release_provenance(shared_data / "tatoeba-v2-sample") == Provenance("Tatoeba")
    # documents extracted, no archive: nothing names the corpus
    assert release_provenance(shared_data / "opus-rf") == Provenance(None)
    shutil.copytree(shared_data / "opensubtitles-v2018-moses/da-ru", tmp_path / "moses/da-ru")
    assert release_provenance(tmp_path) == Provenance("OpenSubtitles")


def test_the_corpus_comes_from_opus_get_names_the_manifest_or_archive_names(tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    with zipfile.ZipFile(flat / "Tatoeba_v2_xml_en.zip", "w") as archive:
        archive.writestr("Other/xml/en/tatoeba.xml", "<document/>")
    (flat / "Tatoeba_v2_xml_en-fr.xml.gz").write_bytes(b"")
    assert release_provenance(flat) == Provenance("Tatoeba")  # the names opus_get gave

    downloaded = tmp_path / "downloaded"
    (downloaded / "xml").mkdir(parents=True)
    (downloaded / "manifest.json").write_text(json.dumps(
        {"written_by": "download", "corpus": "OpenSubtitles", "release": "v2018", "files": {}}))
    assert release_provenance(downloaded) == Provenance("OpenSubtitles")

    zipped = tmp_path / "zipped"
    (zipped / "moses").mkdir(parents=True)
    with zipfile.ZipFile(zipped / "moses" / "en-fr.txt.zip", "w") as archive:
        for name in ("README", "LICENSE", "MultiUN.en-fr.en", "MultiUN.en-fr.fr"):
            archive.writestr(name, "")
    assert release_provenance(zipped) == Provenance("MultiUN")

    documents = tmp_path / "documents"
    (documents / "xml").mkdir(parents=True)
    (documents / "xml" / "en-fr.xml.gz").write_bytes(b"")
    (documents / "raw").mkdir()
    with zipfile.ZipFile(documents / "raw" / "en.zip", "w") as archive:
        archive.writestr("EUbookshop/raw/en/1.xml", "<document/>")
    assert release_provenance(documents) == Provenance("EUbookshop")
    (documents / "raw" / "en.zip").write_bytes(b"not a zip")
    assert release_provenance(documents) == Provenance(None)


@pytest.mark.parametrize(("source", "licence", "said"), [
    (Provenance("Tatoeba"), "cc-by-2.0", "CC BY 2.0 FR"),
    (Provenance("Tatoeba", TATOEBA_EXPORT), "cc-by-2.0", "CC BY 2.0 FR"),
    (Provenance("OpenSubtitles"), "cc-by-nc-4.0", "link to http://www.opensubtitles.org/"),
    (Provenance("RF"), "unknown", "come from RF; this project does not know its licence"),
    (Provenance(None), "unknown", "come from a corpus its files do not name"),
])
def test_the_licence_is_the_sources_or_unknown(source, licence, said):
    assert source.licence()[0] == licence and said in source.licence()[1]
    assert Provenance.recorded({"source": source.as_dict()}) == source
