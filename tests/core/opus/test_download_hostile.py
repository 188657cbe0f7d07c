"""The downloader against a server that lies, floods, trickles or lists what it should not: each
is one clear error, bounded in bytes and time, and leaves no trace it was not asked for."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tapaco.cli import main as tapaco_main
from tapaco.core.opus.catalog import OpusApi
from tapaco.core.opus.download import DownloadRequest, download
from tapaco.core.transfer import DownloadError, Transfer
from tests.core.opus.test_download import sample_rows
from tests.core.opus_server import OpusServer, Row


def _download(server: OpusServer, out: Path, **transfer) -> dict:
    transfer = {"attempts": 2, "sleep": lambda seconds: None, **transfer}
    return download(DownloadRequest("Tatoeba", form="xml"), out,
                    OpusApi(server.api, Transfer(**transfer)), log=lambda line: None)


def _only_en(server_rows: list[Row]) -> list[Row]:
    return [row for row in server_rows if row.path in ("xml/en-fr.xml.gz", "xml/en.zip")]


def test_a_body_longer_than_listed_stops_at_the_listed_size(tmp_path):
    rows = _only_en(sample_rows())
    with OpusServer(rows, endless={"xml/en.zip"}) as server:
        with pytest.raises(DownloadError, match="sent over .* bytes, more than expected"):
            _download(server, tmp_path / "opus")
    listed = next(row for row in rows if row.path == "xml/en.zip").data
    assert not (tmp_path / "opus/xml/en.zip.part").exists()
    assert not (tmp_path / "opus/xml/en.zip").exists()
    assert len(listed) < 40_000  # the endless body was cut within a block of its listed size


def test_a_huge_api_answer_is_refused_without_reading_it_whole(tmp_path):
    with OpusServer(sample_rows(), api_padding=1 << 30) as server:
        started = time.monotonic()
        with pytest.raises(DownloadError, match="answer is over 100,000 bytes"):
            _download(server, tmp_path / "opus", answer_limit=100_000)
    assert time.monotonic() - started < 10
    assert not (tmp_path / "opus").exists()


def test_a_trickling_server_meets_the_deadline(tmp_path):
    rows = _only_en(sample_rows())
    with OpusServer(rows, trickle={"xml/en-fr.xml.gz": 0.05}) as server:
        started = time.monotonic()
        with pytest.raises(DownloadError, match=r"not complete after 1 s"):
            _download(server, tmp_path / "opus", timeout=0.5, min_rate=1e12)
    assert time.monotonic() - started < 5
    # what arrived is kept for a rerun to resume, and nothing else
    assert [p.name for p in (tmp_path / "opus").rglob("*")] == ["xml", "en-fr.xml.gz.part"]


def _timed(action: Callable[[], object], limit: float) -> dict:
    """Run `action` in a thread for at most `limit` seconds: its error and how long it took, or
    {} when it is still running (it ends when the test leaves the server's block, which stops
    the server)."""
    outcome: dict = {}

    def run() -> None:
        started = time.monotonic()
        try:
            action()
        except Exception as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    return dict(outcome)


@pytest.mark.parametrize("stalled, error", [
    # a small file's deadline (1 s and its size at 10 KB/s) passes first: not retried
    ("xml/en-fr.xml.gz", r"en-fr.xml.gz: not complete after 1 s \(the deadline for its size\)"),
    # an API answer may be large: its headers' 1 s passes first, in each attempt
    ("api", "gave up after 2 attempts: the server sent no complete headers within 1 s"),
])
def test_a_server_stalling_in_its_headers_meets_the_deadline(tmp_path, stalled, error):
    """A byte of headers every 0.2 s never lets a 1 s socket timeout fire: the deadlines cover
    the headers too."""
    with OpusServer(_only_en(sample_rows()), stall_headers={stalled: 0.2}) as server:
        outcome = _timed(lambda: _download(server, tmp_path / "opus", timeout=1), 20)
        assert outcome, "the download still waits for the headers after 20 s"
    assert isinstance(outcome["error"], DownloadError)
    assert re.search(error, str(outcome["error"]))
    assert outcome["seconds"] < 2 * 1 + 3  # at most two attempts of 1 s, and a margin


def test_only_http_urls_are_fetched(tmp_path):
    secret = tmp_path / "secret.zip"
    secret.write_bytes(b"PK not yours")
    rows = _only_en(sample_rows())
    with OpusServer(rows, urls={"xml/en.zip": f"file://{tmp_path}/v2/xml/en.zip"}) as server:
        with pytest.raises(DownloadError, match="only http and https URLs .* not file:"):
            _download(server, tmp_path / "opus")
    assert not (tmp_path / "opus").exists()


def test_control_characters_from_the_server_print_escaped_on_one_line(tmp_path, capsys):
    rows = _only_en(sample_rows())
    with OpusServer(rows) as server:
        server.urls["xml/en.zip"] = server.url(rows[1]).replace("en.zip", "e\x1b[2J\x07n.zip")
        for listing in ([], ["--list"]):
            assert tapaco_main(["download", "--api", server.api, "--form", "xml",
                                "--out", str(tmp_path / "opus"), *listing]) == 2
            error = capsys.readouterr().err
            assert error.count("\n") == 1 and error.startswith("tapaco: error: ")
            assert "e\\x1b[2J\\x07n.zip: a URL with control characters" in error
            assert "\x1b" not in error and "\x07" not in error
    assert not (tmp_path / "opus").exists()


def test_a_name_too_long_for_a_file_system_is_one_line(tmp_path, capsys):
    rows = _only_en(sample_rows())
    with OpusServer(rows) as server:
        server.urls["xml/en.zip"] = server.url(rows[1]).replace("en.zip", "e" * 300 + ".zip")
        assert tapaco_main(["download", "--api", server.api, "--form", "xml",
                            "--out", str(tmp_path / "opus")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "a file name of 304 bytes, longer than the 250" in error
    assert not (tmp_path / "opus").exists()


def test_a_file_under_one_kilobyte_is_listed_as_such(tmp_path, capsys):
    rows = [Row("xml/en-fr.xml.gz", b"x" * 300, listed_kb=0), Row("xml/en.zip", b"y" * 512,
                                                                  listed_kb=0)]
    with OpusServer(rows) as server:
        assert tapaco_main(["download", "--api", server.api, "--form", "xml", "--list",
                            "--out", str(tmp_path / "opus")]) == 0
    listed = capsys.readouterr().out
    assert "under 1 KB  xml/en-fr.xml.gz" in listed and "0 B" not in listed
    assert "under 1 KB  total, 2 files" in listed
