import shutil
import zipfile

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.moses import read_moses


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def test_opensubtitles_moses_with_ids(shared_data):
    folder = shared_data / "opensubtitles-v2018-moses/da-ru"
    blocks = list(read_moses(folder, ("da", "ru")))
    ids = [line.split("\t") for line in _lines(folder / "OpenSubtitles.da-ru.ids")]
    assert [(b.from_doc, b.to_doc) for b in blocks] == [(ids[0][0], ids[0][1])]
    block = blocks[0]
    assert block.from_lang == "da" and block.to_lang == "ru"
    assert block.from_sides == [row[2] for row in ids]
    assert block.to_sides == [row[3] for row in ids]
    assert block.from_sides[0] == "1 2"
    assert block.from_texts == _lines(folder / "OpenSubtitles.da-ru.da")
    assert block.to_texts == _lines(folder / "OpenSubtitles.da-ru.ru")


def test_moses_without_ids_numbers_lines(shared_data):
    folder = shared_data / "tatoeba-v2021-moses/en-mr"
    [block] = list(read_moses(folder, ("en", "mr")))
    texts = [line.strip() for line in _lines(folder / "Tatoeba.en-mr.en")]
    assert block.from_texts == texts
    assert block.from_sides == [str(n) for n in range(1, len(texts) + 1)]
    assert block.from_doc != block.to_doc


def test_moses_zip_reads_like_the_folder(shared_data, tmp_path):
    folder = shared_data / "opensubtitles-v2018-moses/en-hi"
    archive = tmp_path / "en-hi.txt.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in folder.iterdir():
            out.write(path, path.name)
    assert list(read_moses(archive, ("en", "hi"))) != []
    from_zip = [(b.from_sides, b.to_sides, b.from_texts) for b in read_moses(archive, ("en", "hi"))]
    from_folder = [(b.from_sides, b.to_sides, b.from_texts)
                   for b in read_moses(folder, ("en", "hi"))]
    assert from_zip == from_folder


def test_line_count_mismatch_is_an_error(shared_data, tmp_path):
    folder = tmp_path / "en-hi"
    shutil.copytree(shared_data / "opensubtitles-v2018-moses/en-hi", folder)
    hindi = folder / "OpenSubtitles.en-hi.hi"
    hindi.write_text("\n".join(_lines(hindi)[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="fewer lines"):
        list(read_moses(folder, ("en", "hi")))


def test_ids_line_with_wrong_field_count(shared_data, tmp_path):
    folder = tmp_path / "en-hi"
    shutil.copytree(shared_data / "opensubtitles-v2018-moses/en-hi", folder)
    ids = folder / "OpenSubtitles.en-hi.ids"
    rows = _lines(ids)
    rows[2] = "only\ttwo"
    ids.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match="line 3: expected 4 tab-separated fields"):
        list(read_moses(folder, ("en", "hi")))


def test_missing_language_file(tmp_path):
    folder = tmp_path / "en-hi"
    folder.mkdir()
    (folder / "X.en-hi.en").write_text("a\n")
    with pytest.raises(InputError, match=r"without its \*\.en-hi\.hi file"):
        list(read_moses(folder, ("en", "hi")))
