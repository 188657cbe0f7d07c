"""Reading the OPUS API's answers, and the release paths files get."""

from __future__ import annotations

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.catalog import OpusApi, OpusFile, release_path, select, select_pivots
from tapaco.core.transfer import Transfer
from tests.core.opus_server import OpusServer, Row

BASE = "https://object.pouta.csc.fi/OPUS-Tatoeba/v2023-04-12"


@pytest.mark.parametrize(("url", "form", "path"), [
    (f"{BASE}/xml/en-fr.xml.gz", "xml", "xml/en-fr.xml.gz"),
    (f"{BASE}/xml/en.zip", "xml", "xml/en.zip"),
    (f"{BASE}/raw/en.zip", "raw", "raw/en.zip"),
    (f"{BASE}/xml/en-fr.xml.gz", "raw", "xml/en-fr.xml.gz"),
    (f"{BASE}/moses/en-fr.txt.zip", "moses", "moses/en-fr.txt.zip"),
])
def test_release_paths_follow_the_url_after_the_version(url, form, path):
    assert release_path(url, "v2023-04-12", form) == path


@pytest.mark.parametrize("url", [
    f"{BASE}/xml/../../etc/passwd.zip", f"{BASE}/mono/en.txt.gz", f"{BASE}/xml/sub/en.zip",
    f"{BASE}/moses/en-fr.tmx.gz", "https://elsewhere/v1/xml/en.zip", f"{BASE}/xml/.hidden.zip",
])
def test_urls_outside_the_release_layout_are_refused(url):
    with pytest.raises(InputError, match="not a"):
        release_path(url, "v2023-04-12", "xml")


def _file(source: str, target: str = "") -> OpusFile:
    name = f"xml/{source}-{target}.xml.gz" if target else f"xml/{source}.zip"
    return OpusFile(f"{BASE}/{name}", name, 1, "v2023-04-12", source, target)


def test_selection_by_languages_and_by_pivots():
    files = [_file("de", "en"), _file("en", "fr"), _file("en", "es"), _file("de", "fr"),
             _file("de"), _file("en"), _file("es"), _file("fr")]
    assert [f.path for f in select(files, ("en", "fr"))] == [
        "xml/en-fr.xml.gz", "xml/en.zip", "xml/fr.zip"]
    assert select(files, ()) == files
    assert [f.path for f in select_pivots(files, "en", ("de", "fr"))] == [
        "xml/de-en.xml.gz", "xml/en-fr.xml.gz", "xml/de.zip", "xml/en.zip", "xml/fr.zip"]


def test_latest_resolves_to_the_newest_release_and_a_bad_answer_is_an_error():
    rows = [Row("moses/en-fr.txt.zip", b"x" * 3000, version="v1", latest=False),
            Row("moses/en-fr.txt.zip", b"y" * 5000, version="v2", latest=True)]
    with OpusServer(rows) as server:
        api = OpusApi(server.api, Transfer(attempts=1))
        [latest] = api.files("Tatoeba", "latest", "moses")
        [older] = api.files("Tatoeba", "v1", "moses")
        assert (latest.version, latest.size_kb, older.version) == ("v2", 5, "v1")
        with pytest.raises(InputError, match="not JSON|did not answer JSON"):
            OpusApi(server.base + "/OPUS-Tatoeba/v1/moses/en-fr.txt.zip?",
                    Transfer(attempts=1)).query(corpus="Tatoeba")


@pytest.mark.parametrize(("size", "error"), [
    (True, r"gives no size in KB \(True\)"),  # a bool is not a number of KB
    (1.5, r"gives no size in KB \(1.5\)"),
    (-1, r"gives no size in KB \(-1\)"),
    (10**30, r"gives a size of 1e\+30 KB, over the 4,294,967,296 KB \(4 TiB\) any OPUS file "
             "has: a broken answer"),
])
def test_a_size_that_is_no_file_size_is_a_bad_answer(size, error):
    with OpusServer([Row("moses/en-fr.txt.zip", b"x" * 3000, listed_kb=size)]) as server:
        with pytest.raises(InputError, match=error):
            OpusApi(server.api, Transfer(attempts=1)).files("Tatoeba", "latest", "moses")
