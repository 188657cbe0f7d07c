"""Release layouts: OpusTools' opus_get names read as OPUS's folders, with the same outputs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.layout import release_layout
from tapaco.core.opus.sources import find_alignment_sources
from tapaco.core.opus.store import DocumentStore

# What opus_get (OpusTools, opus_get.py, make_file_name) names each file: the URL
# https://object.pouta.csc.fi/OPUS-<Corpus>/<version>/<folder>/<name> with "/" as "_", the
# "https:__object.pouta.csc.fi_OPUS-" prefix removed, and the version replaced by "latest"
# when the latest release was asked for.


def opus_get_name(corpus: str, version: str, path: str) -> str:
    url = f"https://object.pouta.csc.fi/OPUS-{corpus}/{version}/{path}"
    return url.replace("/", "_").replace("https:__object.pouta.csc.fi_OPUS-", "")


def _touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"")


def test_opus_get_names_are_the_release_paths(tmp_path):
    paths = ["xml/en-fr.xml.gz", "xml/en.zip", "raw/fr.zip", "moses/de-en.txt.zip",
             "moses/en-fr.txt.zip", "tmx/en-fr.tmx.gz", "mono/en.txt.gz"]
    names = [opus_get_name("Tatoeba", "v2023-04-12", path) for path in paths]
    assert names[:2] == ["Tatoeba_v2023-04-12_xml_en-fr.xml.gz", "Tatoeba_v2023-04-12_xml_en.zip"]
    _touch(tmp_path, *names)
    layout = release_layout(tmp_path)
    assert (layout.prefix, layout.corpus) == ("Tatoeba_v2023-04-12", "Tatoeba")
    assert layout.file("raw", "fr.zip") == tmp_path / names[2]
    found = {source.langs: (source.path.name, source.form)
             for source in find_alignment_sources(tmp_path)}
    assert found == {("de", "en"): (names[3], "Moses zip"), ("en", "fr"): (names[0], "cesAlign")}
    moses_first = {source.langs: source.form
                   for source in find_alignment_sources(tmp_path, prefer_moses=True)}
    assert moses_first == {("de", "en"): "Moses zip", ("en", "fr"): "Moses zip"}


def test_latest_and_language_codes_with_underscores(tmp_path):
    name = opus_get_name("OpenSubtitles", "latest", "xml/pt_br-ze_en.xml.gz")
    assert name == "OpenSubtitles_latest_xml_pt_br-ze_en.xml.gz"
    _touch(tmp_path, name, opus_get_name("OpenSubtitles", "latest", "xml/pt_br.zip"))
    [source] = find_alignment_sources(tmp_path)
    assert (source.langs, source.path.name) == (("pt_br", "ze_en"), name)
    assert release_layout(tmp_path).corpus == "OpenSubtitles"


def test_a_folder_of_two_layouts_or_releases_is_refused(tmp_path):
    _touch(tmp_path / "mixed" / "xml", "en-fr.xml.gz")
    _touch(tmp_path / "mixed", "Tatoeba_v2_xml_de-en.xml.gz")
    with pytest.raises(InputError, match=r"both release folders \(xml\) and files opus_get"):
        find_alignment_sources(tmp_path / "mixed")
    _touch(tmp_path / "two", "Tatoeba_v2_xml_de-en.xml.gz", "Tatoeba_v3_xml_de-en.xml.gz")
    with pytest.raises(InputError, match="opus_get files of several releases "
                                         r"\(Tatoeba_v2, Tatoeba_v3\)"):
        find_alignment_sources(tmp_path / "two")


def test_a_folder_of_neither_layout_says_which_layouts_are_read(tmp_path):
    _touch(tmp_path, "Tatoeba_v2_tmx_en-fr.tmx.gz", "en-fr.xml.gz")
    with pytest.raises(InputError) as caught:
        find_alignment_sources(tmp_path)
    message = str(caught.value)
    assert "not an OPUS release: it has neither xml/ nor moses/" in message
    assert "<Corpus>_<version>_xml_<a>-<b>.xml.gz" in message and "\n" not in message


def _opus_get_copy(release: Path, out: Path, corpus: str, version: str) -> Path:
    """The files of a release in the folders layout, linked under their opus_get names."""
    out.mkdir(parents=True)
    for path in sorted(release.glob("*/*")):
        if path.is_file():
            relative = path.relative_to(release).as_posix()
            (out / opus_get_name(corpus, version, relative)).symlink_to(path)
    return out


def _moses_release(data: Path, root: Path) -> Path:
    """tatoeba-v2021-moses zipped per pair as OPUS ships them: `moses/<pair>.txt.zip`."""
    (root / "moses").mkdir(parents=True)
    for folder in sorted(data.iterdir()):
        with zipfile.ZipFile(root / "moses" / f"{folder.name}.txt.zip", "w") as archive:
            for path in sorted(folder.iterdir()):
                archive.write(path, path.name)
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_tapaco_build_and_explain_read_opus_gets_files_as_the_release(shared_data, tmp_path,
                                                                      capsys):
    from tapaco.cli import main

    release = shared_data / "tatoeba-v2-sample"
    flat = _opus_get_copy(release, tmp_path / "flat", "Tatoeba", "v2")
    outputs = {}
    for name, source in (("folders", release), ("opus_get", flat)):
        assert main(["build", "--opus-dir", str(source), "--out", str(tmp_path / name),
                     "--min-sets", "1", "--documents", "xml", "--format", "tsv,parquet",
                     "--quiet"]) == 0
        outputs[name] = _files(tmp_path / name)
        # explain checks that the release is the one the build read (the same graph)
        assert main(["explain", "--opus-dir", str(source), "--out", str(tmp_path / "folders"),
                     "--set", "0", "--lang", "fr", "--quiet"]) == 0
        outputs[name]["explained"] = capsys.readouterr().out.encode()
    assert outputs["opus_get"] == outputs["folders"]
    assert {"fr.txt", "data/fr.parquet", "README.md", "explained"} <= set(outputs["folders"])
    assert b"C' est quoi ?" in outputs["folders"]["fr.txt"]


@pytest.mark.parametrize("form", ["xml", "moses"])
def test_a_ranking_reads_opus_gets_files_as_the_release(shared_data, tmp_path, form):
    from opusparcus.cli import main

    if form == "xml":
        release, corpus, version, lang = shared_data / "tatoeba-v2-sample", "Tatoeba", "v2", "fr"
    else:
        release = _moses_release(shared_data / "tatoeba-v2021-moses", tmp_path / "release")
        corpus, version, lang = "Tatoeba", "v2021-07-22", "es"
    flat = _opus_get_copy(release, tmp_path / "flat", corpus, version)
    outputs = {}
    for name, source in (("folders", release), ("opus_get", flat)):
        assert main(["rank", "--opus-dir", str(source), "--lang", lang, "--out",
                     str(tmp_path / name), "--format", "tsv,parquet", "--quiet"]) == 0
        outputs[name] = _files(tmp_path / name / lang)
        stats = json.loads(outputs[name].pop("stats.json"))
        outputs[name].pop("manifest.json")  # it holds stats.json's digest
        sources = [bitext.pop("source") for bitext in stats["bitexts"].values()]
        assert {Path(path).parent for path in sources} == {
            source / form if name == "folders" else source}
        outputs[name]["stats.json"] = stats
    assert outputs["opus_get"] == outputs["folders"]
    assert outputs["folders"]["stats.json"]["source"] == {"corpus": "Tatoeba",
                                                          "form": "OPUS release"}
    assert "data/train.parquet" in outputs["folders"]


def test_documents_are_found_in_opus_gets_zips(shared_data, tmp_path):
    flat = _opus_get_copy(shared_data / "tatoeba-v2-sample", tmp_path / "flat", "Tatoeba",
                          "latest")
    with DocumentStore(flat, ("xml",)) as store:
        assert store.document("fr/tatoeba.xml.gz").side_text("s564436") == "C' est quoi ?"
        message = str(store.missing("it/tatoeba.xml.gz"))
    assert "looked in Tatoeba_latest_xml_it.zip" in message
