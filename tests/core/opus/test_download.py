"""The OPUS downloader against a local server: layout, resume, checks, manifest, reruns."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from tapaco.cli import main as tapaco_main
from tapaco.core.opus.catalog import OpusApi
from tapaco.core.opus.download import DownloadRequest, download, listing, plan, size_agrees
from tapaco.core.transfer import DownloadError, Transfer
from tests.conftest import SAMPLE
from tests.core.opus_server import OpusServer, Row

SAMPLE_FILES = sorted(path.relative_to(SAMPLE).as_posix() for path in SAMPLE.rglob("*.*")
                      if path.suffix in (".gz", ".zip"))


def sample_rows() -> list[Row]:
    return [Row(path, (SAMPLE / path).read_bytes()) for path in SAMPLE_FILES]


def quick_api(server: OpusServer, attempts: int = 4) -> OpusApi:
    return OpusApi(server.api, Transfer(attempts=attempts, sleep=lambda seconds: None))


def fetch(server: OpusServer, out: Path, attempts: int = 4, **request) -> dict:
    request.setdefault("form", "xml")
    return download(DownloadRequest("Tatoeba", **request), out, quick_api(server, attempts),
                    log=lambda line: None)


def test_sample_release_downloads_into_the_layout_the_build_reads(tmp_path):
    with OpusServer(sample_rows()) as server:
        manifest = fetch(server, tmp_path / "opus")
    for name in SAMPLE_FILES:
        assert (tmp_path / "opus" / name).read_bytes() == (SAMPLE / name).read_bytes()
        entry = manifest["files"][name]
        assert entry["sha256"] == hashlib.sha256((SAMPLE / name).read_bytes()).hexdigest()
        assert entry["bytes"] == (SAMPLE / name).stat().st_size
    assert sorted(manifest["files"]) == SAMPLE_FILES
    assert (manifest["corpus"], manifest["release"], manifest["requested"]) == (
        "Tatoeba", "v2", "latest")
    on_disk = json.loads((tmp_path / "opus" / "manifest.json").read_text())
    assert on_disk == manifest
    assert not list((tmp_path / "opus").rglob("*.part"))
    # the downloaded release builds exactly as the sample it came from
    for source, out in ((SAMPLE, "from-sample"), (tmp_path / "opus", "from-download")):
        assert tapaco_main(["build", "--opus-dir", str(source), "--out", str(tmp_path / out),
                            "--min-sets", "1", "--documents", "xml", "--quiet"]) == 0
    built = sorted(path.name for path in (tmp_path / "from-sample").glob("*.txt"))
    assert built == ["en.txt", "es.txt", "fr.txt"]
    for name in built:
        assert ((tmp_path / "from-download" / name).read_bytes()
                == (tmp_path / "from-sample" / name).read_bytes())


def test_languages_select_their_alignments_and_sentence_files(tmp_path):
    with OpusServer(sample_rows()) as server:
        files = plan(quick_api(server), DownloadRequest("Tatoeba", form="xml",
                                                        languages=("en", "fr", "de")))
    assert [file.path for file in files] == [
        "xml/de-en.xml.gz", "xml/de-fr.xml.gz", "xml/de.zip", "xml/en-fr.xml.gz",
        "xml/en.zip", "xml/fr.zip"]


def test_a_cut_transfer_resumes_from_where_it_stopped(tmp_path):
    data = (SAMPLE / "xml/en.zip").read_bytes()
    with OpusServer(sample_rows(), cut_after={"xml/en.zip": len(data) // 2}) as server:
        fetch(server, tmp_path / "opus")
        asked = [header for path, header in server.file_requests() if path == "xml/en.zip"]
    assert asked == ["", f"bytes={len(data) // 2}-"]
    assert (tmp_path / "opus/xml/en.zip").read_bytes() == data


def test_an_interrupted_run_leaves_a_part_that_the_next_run_resumes(tmp_path):
    data = (SAMPLE / "xml/de-en.xml.gz").read_bytes()
    cut = len(data) // 3
    with OpusServer(sample_rows(), cut_after={"xml/de-en.xml.gz": cut}) as server:
        with pytest.raises(DownloadError, match="gave up after 1 attempt: "):
            fetch(server, tmp_path / "opus", attempts=1)
        part = tmp_path / "opus/xml/de-en.xml.gz.part"
        assert part.read_bytes() == data[:cut]
        assert not (tmp_path / "opus/xml/de-en.xml.gz").exists()
        fetch(server, tmp_path / "opus")
        asked = [header for path, header in server.file_requests() if path == "xml/de-en.xml.gz"]
    assert asked == ["", f"bytes={cut}-"]
    assert (tmp_path / "opus/xml/de-en.xml.gz").read_bytes() == data
    assert not part.exists()


def test_a_server_without_ranges_sends_the_whole_file_again(tmp_path):
    data = (SAMPLE / "xml/en.zip").read_bytes()
    with OpusServer(sample_rows(), ranges=False, cut_after={"xml/en.zip": 1000}) as server:
        fetch(server, tmp_path / "opus")
        asked = [header for path, header in server.file_requests() if path == "xml/en.zip"]
    assert asked == ["", "bytes=1000-"]  # the whole file came back at once, and was taken
    assert (tmp_path / "opus/xml/en.zip").read_bytes() == data


def test_server_errors_are_retried(tmp_path):
    with OpusServer(sample_rows(), failures={"xml/fr.zip": 2}) as server:
        fetch(server, tmp_path / "opus")
        asked = [path for path, _ in server.file_requests() if path == "xml/fr.zip"]
    assert len(asked) == 3
    assert (tmp_path / "opus/xml/fr.zip").read_bytes() == (SAMPLE / "xml/fr.zip").read_bytes()


def test_a_size_other_than_the_api_lists_is_refused(tmp_path):
    rows = sample_rows()
    rows[0].listed_kb = 999
    with OpusServer(rows) as server, pytest.raises(DownloadError, match="OPUS lists 999 KB"):
        fetch(server, tmp_path / "opus")
    assert not (tmp_path / "opus" / rows[0].path).exists()
    assert not list((tmp_path / "opus").rglob("*.part"))


def test_a_missing_file_is_a_clear_error_without_retries(tmp_path):
    with OpusServer(sample_rows(), missing={"xml/de.zip"}) as server:
        with pytest.raises(DownloadError, match="404"):
            fetch(server, tmp_path / "opus")
        asked = [path for path, _ in server.file_requests() if path == "xml/de.zip"]
    assert len(asked) == 1


def test_a_corrupt_gzip_is_caught_before_it_is_put_in_place(tmp_path):
    rows = sample_rows()
    row = next(row for row in rows if row.path == "xml/de-en.xml.gz")
    middle = len(row.data) // 2
    row.data = row.data[:middle] + bytes([row.data[middle] ^ 0xFF]) + row.data[middle + 1:]
    with OpusServer(rows) as server, pytest.raises(DownloadError, match="not a whole, valid"):
        fetch(server, tmp_path / "opus")
    assert not (tmp_path / "opus/xml/de-en.xml.gz").exists()
    assert not (tmp_path / "opus/xml/de-en.xml.gz.part").exists()


def test_a_truncated_zip_with_its_own_length_is_caught(tmp_path):
    rows = sample_rows()
    row = next(row for row in rows if row.path == "xml/en.zip")
    row.data = row.data[: len(row.data) - 40]  # the server believes this is the whole file
    with OpusServer(rows) as server, pytest.raises(DownloadError, match="not a whole, valid"):
        fetch(server, tmp_path / "opus")
    assert not (tmp_path / "opus/xml/en.zip").exists()


def test_a_rerun_fetches_nothing(tmp_path):
    with OpusServer(sample_rows()) as server:
        fetch(server, tmp_path / "opus")
        fetched = len(server.file_requests())
        before = (tmp_path / "opus/manifest.json").read_text()
        fetch(server, tmp_path / "opus")
        assert len(server.file_requests()) == fetched
    assert (tmp_path / "opus/manifest.json").read_text() == before


def test_a_file_removed_after_download_is_fetched_again(tmp_path):
    with OpusServer(sample_rows()) as server:
        fetch(server, tmp_path / "opus")
        (tmp_path / "opus/xml/fr.zip").unlink()
        count = len(server.file_requests())
        fetch(server, tmp_path / "opus")
        assert [path for path, _ in server.file_requests()[count:]] == ["xml/fr.zip"]


def test_a_hand_made_download_is_kept_and_a_foreign_file_is_never_replaced(tmp_path):
    out = tmp_path / "opus"
    (out / "xml").mkdir(parents=True)
    shutil.copy(SAMPLE / "xml/en.zip", out / "xml/en.zip")
    (out / "xml/fr.zip").write_text("my notes")
    with OpusServer(sample_rows()) as server:
        with pytest.raises(Exception, match="was not downloaded here"):
            fetch(server, out)
        assert (out / "xml/fr.zip").read_text() == "my notes"
        (out / "xml/fr.zip").unlink()
        manifest = fetch(server, out)
        assert "xml/en.zip" not in [path for path, _ in server.file_requests()]
    assert manifest["files"]["xml/en.zip"]["sha256"] == hashlib.sha256(
        (SAMPLE / "xml/en.zip").read_bytes()).hexdigest()


def test_a_folder_of_another_release_or_tool_is_refused(tmp_path):
    with OpusServer(sample_rows()) as server:
        (tmp_path / "built").mkdir()
        (tmp_path / "built/manifest.json").write_text('{"written_by": "tapaco build", '
                                                      '"files": {}}')
        with pytest.raises(Exception, match="the downloader did not write"):
            fetch(server, tmp_path / "built")
        assert [path for path, _ in server.requests] == []  # refused before asking the API
        fetch(server, tmp_path / "opus")
    newer = [Row(row.path, row.data, version="v3") for row in sample_rows()]
    with OpusServer(newer) as server, pytest.raises(Exception, match="holds Tatoeba v2"):
        fetch(server, tmp_path / "opus")


def test_list_prints_sizes_and_total_and_fetches_nothing(tmp_path, capsys):
    rows = sample_rows()
    with OpusServer(rows) as server:
        code = tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "xml", "--langs", "de,en", "--list"])
        assert server.file_requests() == []
    printed = capsys.readouterr().out.splitlines()
    assert code == 0 and not (tmp_path / "opus").exists()
    assert [line.split()[-1] for line in printed[:-1]] == [
        "xml/de-en.xml.gz", "xml/de.zip", "xml/en.zip"]
    sizes = {row.path: round(len(row.data) / 1024) * 1024 for row in rows}
    total = sizes["xml/de-en.xml.gz"] + sizes["xml/de.zip"] + sizes["xml/en.zip"]
    assert printed[-1].split()[:3] == [f"{total / 1000:.1f}", "KB", "total,"]


def test_list_prints_large_sizes_in_tb(tmp_path, capsys):
    rows = [Row("moses/en-fr.txt.zip", b"x", listed_kb=3_000_000_000)]  # 3.072e12 bytes
    with OpusServer(rows) as server:
        code = tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "moses", "--list"])
    printed = capsys.readouterr().out.splitlines()
    assert code == 0
    assert printed[0].split() == ["3.1", "TB", "moses/en-fr.txt.zip"]
    assert printed[1].split()[:3] == ["3.1", "TB", "total,"]


def test_an_absurd_size_is_a_one_line_error(tmp_path, capsys):
    rows = [Row("moses/en-fr.txt.zip", b"x", listed_kb=10**30)]
    with OpusServer(rows) as server:
        code = tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "moses", "--list"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "1e+30 KB" in captured.err
    assert "a broken answer" in captured.err


def test_command_line_download_and_errors(tmp_path, capsys):
    with OpusServer(sample_rows()) as server:
        assert tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "xml", "--quiet"]) == 0
        assert sorted(json.loads((tmp_path / "opus/manifest.json").read_text())["files"]) \
            == SAMPLE_FILES
        assert tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "x"),
                            "--form", "xml", "--release", "v9"]) == 2
        assert "OPUS lists no xml files of Tatoeba v9" in capsys.readouterr().err
        assert tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "x"),
                            "--form", "xml", "--langs", "xx,yy"]) == 2
        assert "no xml alignment between xx, yy" in capsys.readouterr().err


def _moses_zip(folder: Path) -> bytes:
    """The bitext as OPUS zips it, with the README and LICENSE newer releases add."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in sorted(folder.iterdir()):
            archive.write(member, member.name)
        archive.writestr("README", "OPUS OpenSubtitles\n")
        archive.writestr("LICENSE", "see opus.nlpl.eu\n")
    return buffer.getvalue()


def test_opusparcus_download_fetches_the_bitexts_of_a_language_and_its_pivots(
        tmp_path, shared_data, capsys):
    from opusparcus.cli import main as opusparcus_main

    folders = sorted((shared_data / "opensubtitles-v2018-moses").iterdir())
    rows = [Row(f"moses/{folder.name}.txt.zip", _moses_zip(folder), corpus="OpenSubtitles",
                version="v2018") for folder in folders]
    with OpusServer(rows) as server:
        out = tmp_path / "os"
        assert opusparcus_main(["download", "--api", server.api, "--release", "v2018",
                                "--lang", "en", "--pivots", "hi", "--out", str(out),
                                "--quiet"]) == 0
        assert opusparcus_main(["download", "--api", server.api, "--release", "v2018",
                                "--lang", "en", "--out", str(tmp_path / "none")]) == 2
        assert "no moses alignment en-de, en-fi" in capsys.readouterr().err
    assert sorted(path.name for path in out.rglob("*") if path.is_file()) == [
        "en-hi.txt.zip", "manifest.json"]
    with zipfile.ZipFile(out / "moses/en-hi.txt.zip") as archive:
        for path in (shared_data / "opensubtitles-v2018-moses/en-hi").iterdir():
            assert archive.read(path.name) == path.read_bytes()
    assert opusparcus_main(["rank", "--opus-dir", str(out), "--lang", "en", "--out",
                            str(tmp_path / "ranked"), "--quiet"]) == 0
    stats = json.loads((tmp_path / "ranked/en/stats.json").read_text())
    expected_links = len((shared_data / "opensubtitles-v2018-moses/en-hi/OpenSubtitles.en-hi.ids")
                         .read_text().splitlines())
    assert stats["links_read"] == expected_links


@pytest.mark.parametrize(("size", "kb", "agrees"), [
    (0, 0, True), (1023, 0, True), (2048, 1, True), (100_000, 98, True), (100_000, 97, True),
    (100_000, 100, True), (100_000, 101, False), (100_000, 95, False), (3_000, 1, False)])
def test_size_agrees_with_kilobytes_rounded_either_way(size, kb, agrees):
    assert size_agrees(size, kb) == agrees


def test_gzip_of_several_members_is_valid(tmp_path):
    from tapaco.core.opus.download import archive_sha256

    path = tmp_path / "two.xml.gz"
    data = gzip.compress(b"<a/>") + gzip.compress(b"<b/>")
    path.write_bytes(data)
    assert archive_sha256(path) == hashlib.sha256(data).hexdigest()


def test_listing_marks_what_is_already_there(tmp_path):
    with OpusServer(sample_rows()) as server:
        fetch(server, tmp_path / "opus", languages=("de", "en"))
        files = plan(quick_api(server), DownloadRequest("Tatoeba", form="xml"))
        text = listing(files, tmp_path / "opus")
    marked = sorted(line.split()[2] for line in text.splitlines() if "already" in line)
    assert marked == ["xml/de-en.xml.gz", "xml/de.zip", "xml/en.zip"]


def test_a_part_longer_than_the_file_is_started_again(tmp_path):
    data = (SAMPLE / "xml/fr.zip").read_bytes()
    (tmp_path / "opus/xml").mkdir(parents=True)
    (tmp_path / "opus/xml/fr.zip.part").write_bytes(data + b"stale bytes of another file")
    with OpusServer(sample_rows()) as server:
        fetch(server, tmp_path / "opus")
        asked = [header for path, header in server.file_requests() if path == "xml/fr.zip"]
    assert asked == [f"bytes={len(data) + 27}-", ""]  # 416, then the whole file
    assert (tmp_path / "opus/xml/fr.zip").read_bytes() == data
