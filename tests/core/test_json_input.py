"""JSON the tool reads but did not just make (an API answer, manifest.json, stats.json,
FILE.stats.json, checkpoints, timings, a model's vocabulary): nested past any file of ours, not
JSON or not UTF-8, it is one line naming where it came from, or a file that is not ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opusparcus.paraphrase_scores import open_scored
from opusparcus.plot import scheme_name
from tapaco.cli import main as tapaco_main
from tapaco.core.errors import InputError
from tapaco.core.json_input import MAX_DEPTH, json_object, parse_json, read_json
from tapaco.core.outputs import read_manifest
from tapaco.core.progress import timings_file_is_own
from tapaco.core.score.scoring import is_own_output
from tapaco.enrich.backends import _ct2_target_vocabulary
from tapaco.enrich.pipeline import progress_path, read_checkpoint, stats_are_own
from tapaco.explain.build_output import BuildOutput
from tests.core.opus_server import OpusServer, Row

DEEP = b"[" * 100_000 + b"]" * 100_000  # past Python's recursion limit
NESTED = b'{"a": ' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)  # within it: parses


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(("data", "error"), [
    (DEEP, f"JSON nested deeper than {MAX_DEPTH} levels"),
    (NESTED, f"JSON nested deeper than {MAX_DEPTH} levels"),
    (b"{\"a\": ", r"not JSON \(Expecting value: line 1 column 7"),
    (b"\xff{}", "not JSON .*can't decode byte 0xff"),
    (b"\xef\xbb\xbf{}", "not JSON .*BOM"),
])
def test_parse_json_names_the_source_in_one_error(data, error):
    with pytest.raises(InputError, match=f"^http://api/: {error}") as caught:
        parse_json(data, "http://api/", kind="download")
    assert caught.value.kind == "download"


def test_parse_json_reads_what_nests_up_to_the_limit():
    assert parse_json(_nested(MAX_DEPTH), "x") == json.loads(_nested(MAX_DEPTH))
    assert parse_json(b'{"a": [1, {"b": null}]}', "x") == {"a": [1, {"b": None}]}
    assert parse_json(b"[[], [[]], 3]", "x") == [[], [[]], 3]
    assert parse_json(b"7", "x") == 7
    for deeper in (_nested(MAX_DEPTH + 1), b"[1, " + _nested(MAX_DEPTH) + b"]"):
        with pytest.raises(InputError, match="deeper than"):
            parse_json(deeper, "x")


def test_read_json_names_the_file(tmp_path):
    path = tmp_path / "stats.json"
    path.write_bytes(DEEP)
    with pytest.raises(InputError, match=f"^{path}: JSON nested deeper"):
        read_json(path)
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "missing.json")


def _deep_file(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(DEEP)
    return path


def test_files_that_are_not_ours_when_they_do_not_read(tmp_path):
    """Where a file is checked for being the tool's own, a deep one is not (no traceback)."""
    _deep_file(tmp_path / "out/manifest.json")
    assert read_manifest(tmp_path / "out") is None
    assert timings_file_is_own(_deep_file(tmp_path / "timings.json")) is False
    _deep_file(tmp_path / "scored.tsv.stats.json")
    assert is_own_output(tmp_path / "scored.tsv") is False
    _deep_file(progress_path(tmp_path / "enriched.tsv"))
    assert read_checkpoint(tmp_path / "enriched.tsv") is None
    assert stats_are_own(_deep_file(tmp_path / "enrich.stats.json")) is False
    ranked = tmp_path / "rank/en/train/en-train.txt.bz2"
    _deep_file(tmp_path / "rank/stats.json")
    assert scheme_name(ranked) is None


def test_files_that_must_be_read_are_one_error_naming_them(tmp_path):
    scored = tmp_path / "scored.tsv"
    scored.write_text("en-N1\tA .\tB .\t0.5\n", encoding="utf-8")
    stats = _deep_file(tmp_path / "scored.tsv.stats.json")
    with pytest.raises(InputError, match=f"^{stats}: JSON nested deeper"):
        open_scored(scored)
    (tmp_path / "model").mkdir()
    vocabulary = _deep_file(tmp_path / "model/shared_vocabulary.json")
    with pytest.raises(InputError, match=f"^{vocabulary}: JSON nested deeper"):
        _ct2_target_vocabulary(tmp_path / "model")
    out = tmp_path / "built"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"written_by": "tapaco build",
                                                   "files": {"en.txt": "0"}}))
    _deep_file(out / "stats.json")
    with pytest.raises(InputError, match=f"^{out / 'stats.json'}: cannot be read as JSON "
                                         "\\(JSON nested deeper"):
        BuildOutput(out)


def test_a_deep_api_answer_is_one_line_naming_the_url(tmp_path, capsys):
    with OpusServer([Row("moses/en-fr.txt.zip", b"x")], api_body=DEEP) as server:
        code = tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "moses", "--list"])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert error.startswith(f"tapaco: error: {server.api}?corpus=Tatoeba")
    assert error.endswith(f": JSON nested deeper than {MAX_DEPTH} levels\n")


def test_a_deep_manifest_in_the_download_folder_is_one_line(tmp_path, capsys):
    _deep_file(tmp_path / "opus/manifest.json")
    with OpusServer([Row("moses/en-fr.txt.zip", b"x")]) as server:
        code = tapaco_main(["download", "--api", server.api, "--out", str(tmp_path / "opus"),
                            "--form", "moses"])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert "holds a manifest.json that the downloader did not write" in error
    assert (tmp_path / "opus/manifest.json").read_bytes() == DEEP


def test_json_object_is_the_object_a_file_holds_or_nothing(tmp_path):
    """How a command looks at a file it may have written: the JSON object, else {} whatever
    stands in its way (cases made by hand)."""
    files = {"object.json": b'{"written_by": "x", "n": [1]}', "list.json": b"[1, 2]",
             "broken.json": b'{"a": ', "latin1.json": b'{"a": "\xe9"}', "deep.json": DEEP}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.json").mkdir()
    assert json_object(tmp_path / "object.json") == {"written_by": "x", "n": [1]}
    assert [json_object(tmp_path / name) for name in (
        "list.json", "broken.json", "latin1.json", "deep.json", "folder.json", "missing.json")
    ] == [{}] * 6
