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


@pytest.mark.parametrize("lines_per_block", [2, 200_000])
def test_invalid_utf8_names_line_and_column(tmp_path, monkeypatch, lines_per_block):
    import tapaco.core.opus.moses as moses

    monkeypatch.setattr(moses, "LINES_PER_BLOCK", lines_per_block)
    folder = tmp_path / "de-fr"
    folder.mkdir()
    (folder / "T.de-fr.de").write_bytes(b"a\nb\nc\n")
    (folder / "T.de-fr.fr").write_bytes(b"x\ny\nzz\xff\n")
    with pytest.raises(InputError, match=r"\.fr: line 3, column 3: invalid UTF-8 byte 0xff"):
        list(read_moses(folder, ("de", "fr")))


def test_missing_language_file(tmp_path):
    folder = tmp_path / "en-hi"
    folder.mkdir()
    (folder / "X.en-hi.en").write_text("a\n")
    with pytest.raises(InputError, match=r"without its \*\.en-hi\.hi file"):
        list(read_moses(folder, ("en", "hi")))


def _append(path, text: str) -> None:
    path.write_bytes(path.read_bytes() + text.encode())


@pytest.mark.parametrize("name, extra", [
    ("OpenSubtitles.da-ru.da", "\nEn linje mere."),         # the first side, no final newline
    ("OpenSubtitles.da-ru.da", "\nEn linje mere.\n"),       # ... with a final newline
    ("OpenSubtitles.da-ru.ru", "\nЕщё строка."),            # the second side
    ("OpenSubtitles.da-ru.ids", "\nda/1927/17136/61728.xml.gz\tru/1927/17136/42690.xml.gz\t7\t6"),
    ("OpenSubtitles.da-ru.da", "\n\n"),                     # an extra empty line
])
@pytest.mark.parametrize("lines_per_block", [2, 5, 200_000])
def test_one_extra_line_in_any_real_file_is_malformed(shared_data, tmp_path, monkeypatch, name,
                                                      extra, lines_per_block):
    """The real files hold 5 lines without a final newline; a sixth line in any one of them
    is an error wherever the batches end (5 lines: a batch ends exactly at the last line)."""
    import tapaco.core.opus.moses as moses

    monkeypatch.setattr(moses, "LINES_PER_BLOCK", lines_per_block)
    folder = tmp_path / "moses" / "da-ru"
    shutil.copytree(shared_data / "opensubtitles-v2018-moses/da-ru", folder)
    _append(folder / name, extra)
    with pytest.raises(InputError, match=r": line 6: fewer lines than the other files") as caught:
        list(read_moses(folder, ("da", "ru")))
    assert caught.value.kind == "malformed Moses"
    assert str(caught.value).count("\n") == 0


@pytest.mark.parametrize("lines_per_block", [2, 5])
def test_a_final_newline_on_one_side_only_is_not_a_mismatch(shared_data, tmp_path, monkeypatch,
                                                             lines_per_block):
    import tapaco.core.opus.moses as moses

    monkeypatch.setattr(moses, "LINES_PER_BLOCK", lines_per_block)
    folder = tmp_path / "da-ru"
    shutil.copytree(shared_data / "opensubtitles-v2018-moses/da-ru", folder)
    _append(folder / "OpenSubtitles.da-ru.da", "\n")
    blocks = list(read_moses(folder, ("da", "ru")))
    assert sum(len(block) for block in blocks) == 5
