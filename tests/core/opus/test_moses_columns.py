"""The columnar Moses reader against a plain line-by-line reading of the same files."""

from __future__ import annotations

import random
import shutil
import zipfile
from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.core.opus.moses_columns import LINES_PER_CHUNK, NO_YEAR, one_to_one_link_pieces


def one_to_one_links(source, pair, lines_per_chunk=LINES_PER_CHUNK):
    """The bitext's 1:1 links, read as one piece."""
    return next(one_to_one_link_pieces(source, pair, None, lines_per_chunk))


def _year(document: str) -> int:
    parts = document.split("/")
    candidate = parts[1].split(".")[0] if len(parts) > 1 else ""
    ascii_digits = candidate.isascii() and candidate.isdigit()
    return int(candidate) if len(candidate) == 4 and ascii_digits else NO_YEAR


def _plain_reading(folder: Path, pair: tuple[str, str]) -> dict:
    """Python strings line by line: 1:1 links with a text on both sides, keys by first
    appearance, years of both sides' documents."""
    name = "-".join(pair)
    [first] = folder.glob(f"*.{name}.{pair[0]}")
    [second] = folder.glob(f"*.{name}.{pair[1]}")
    ids = list(folder.glob(f"*.{name}.ids"))

    def lines(path: Path) -> list[str]:
        return path.read_bytes().decode("utf-8").split("\n")[:-1] if path.read_bytes().endswith(
            b"\n") else path.read_bytes().decode("utf-8").split("\n")

    texts = lines(first), lines(second)
    rows = ([line.rstrip("\r").split("\t") for line in lines(ids[0])] if ids
            else [["", "", "1", "1"]] * len(texts[0]))
    keys: tuple[dict, dict] = ({}, {})
    codes: tuple[list, list] = ([], [])
    years: tuple[list, list] = ([], [])
    one_to_one = empty = 0
    for row, a, b in zip(rows, *texts, strict=True):
        if not (row[2] and row[3] and " " not in row[2] and " " not in row[3]):
            continue
        one_to_one += 1
        cleaned = [" ".join(text.split()) if "\t" in text or "  " in text or "\r" in text
                   else text.strip() for text in (a, b)]
        if not all(cleaned):
            empty += 1
            continue
        for side, text in enumerate(cleaned):
            codes[side].append(keys[side].setdefault(text, len(keys[side])))
            years[side].append(_year(row[side]) if ids else NO_YEAR)
    return {"keys": tuple(list(k) for k in keys), "codes": codes, "years": years,
            "links": len(rows), "one_to_one": one_to_one, "empty_text": empty}


def _columnar(folder: Path, pair: tuple[str, str], lines_per_chunk: int) -> dict:
    links = one_to_one_links(folder, pair, lines_per_chunk)
    return {"keys": tuple(keys.to_pylist() for keys in links.keys),
            "codes": tuple(codes.tolist() for codes in links.codes),
            "years": tuple(years.tolist() for years in links.years),
            "links": links.links, "one_to_one": links.one_to_one,
            "empty_text": links.empty_text}


@pytest.mark.parametrize("pair", ["bn-is", "bs-eo", "da-ru", "en-hi", "fr-hy"])
@pytest.mark.parametrize("lines_per_chunk", [1, 2, 1 << 20])
def test_real_opensubtitles_bitexts(shared_data, pair, lines_per_chunk):
    folder = shared_data / "opensubtitles-v2018-moses" / pair
    langs = tuple(pair.split("-"))
    expected = _plain_reading(folder, langs)
    assert _columnar(folder, langs, lines_per_chunk) == expected
    assert expected["one_to_one"] < expected["links"]  # the real files hold 1:2 links


def _random_bitext(folder: Path, seed: int, final_newline: bool) -> None:
    rng = random.Random(seed)
    words = ["Oui", "non", "Ça", "va", "?", "!", "...", "l'eau", "Да", "", " ", "\t", "  "]
    documents = ["fr/1994/1/2.xml.gz", "fr/2005/7/8.xml", "fr/1994x/1.xml.gz", "fr/12/1.xml.gz",
                 "fr.xml.gz", "fr/2015.xml.gz", "fr/１９９４/1.xml.gz"]
    ids, first, second = [], [], []
    for _ in range(300):
        sides = [rng.choice(["1", "2", "1 2", "", "3"]) for _ in range(2)]
        ids.append(f"{rng.choice(documents)}\t{rng.choice(documents).replace('fr', 'de')}\t"
                   f"{sides[0]}\t{sides[1]}" + rng.choice(["", "", "\r"]))
        first.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 4))))
        second.append(rng.choice(words) + rng.choice(["", "\r", " "]))
    folder.mkdir(parents=True)
    end = "\n" if final_newline else ""
    if not final_newline:  # an empty last line without a newline would be no line at all
        first[-1], second[-1] = first[-1] + "x", second[-1] + "x"
    for suffix, lines in (("ids", ids), ("de", first), ("fr", second)):
        (folder / f"Test.de-fr.{suffix}").write_text("\n".join(lines) + end, encoding="utf-8")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lines_per_chunk", [1, 7, 64, 1000])
def test_random_bitexts_with_odd_whitespace_ids_and_years(tmp_path, seed, lines_per_chunk):
    _random_bitext(tmp_path / "b", seed, final_newline=seed % 2 == 0)
    expected = _plain_reading(tmp_path / "b", ("de", "fr"))
    assert expected["empty_text"] and expected["one_to_one"] < expected["links"]
    assert set(expected["years"][0]) >= {1994, 2005, 2015, NO_YEAR}
    assert _columnar(tmp_path / "b", ("de", "fr"), lines_per_chunk) == expected


def test_a_zipped_bitext_reads_like_the_folder(shared_data, tmp_path):
    folder = shared_data / "opensubtitles-v2018-moses" / "da-ru"
    archive = tmp_path / "da-ru.txt.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in folder.iterdir():
            out.write(path, f"OpenSubtitles/{path.name}")
    assert _columnar(archive, ("da", "ru"), 2) == _columnar(folder, ("da", "ru"), 2)


def test_without_ids_every_line_is_a_link_without_a_year(shared_data):
    folder = shared_data / "tatoeba-v2021-moses" / "en-mr"
    links = one_to_one_links(folder, ("en", "mr"))
    lines = (folder / "Tatoeba.en-mr.en").read_text(encoding="utf-8").splitlines()
    assert links.links == links.one_to_one == len(lines)
    assert set(links.years[0].tolist()) == {NO_YEAR}


@pytest.mark.parametrize("member, extra, message, line", [
    ("da", "Ekstra\n", "fewer lines than the other files", 6),
    ("ids", "da/1/2.xml.gz\tru/1/2.xml.gz\t9\t9\n", "fewer lines than the other files", 6),
    ("ru", "Лишняя\n", "fewer lines than the other files", 6),
])
@pytest.mark.parametrize("lines_per_chunk", [2, 5, 100])
def test_unequal_line_counts_are_bad_input(shared_data, tmp_path, member, extra, message, line,
                                           lines_per_chunk):
    folder = tmp_path / "da-ru"
    shutil.copytree(shared_data / "opensubtitles-v2018-moses" / "da-ru", folder)
    path = folder / f"OpenSubtitles.da-ru.{member}"
    separator = "" if path.read_bytes().endswith(b"\n") else "\n"  # the real files end so
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(separator + extra)
    with pytest.raises(InputError) as raised:
        one_to_one_links(folder, ("da", "ru"), lines_per_chunk)
    assert message in raised.value.message and raised.value.position == f"line {line}"
    assert raised.value.kind == "malformed Moses"
    assert not raised.value.path.endswith(f".{member}")  # the shorter files are named


def _bitext(folder: Path, de: bytes, fr: bytes, ids: bytes) -> Path:
    """A Moses de-fr bitext folder with the given member bytes."""
    folder.mkdir(exist_ok=True)
    for suffix, data in (("de", de), ("fr", fr), ("ids", ids)):
        (folder / f"T.de-fr.{suffix}").write_bytes(data)
    return folder


def test_malformed_ids_and_invalid_utf8_name_the_line(tmp_path):
    folder = _bitext(tmp_path / "b", b"a\nb\xff\nc\n", b"x\ny\nz\n",
                     b"d\tf\t1\t1\nd\tf\t1\t1\nd\tf\t1\n")
    with pytest.raises(InputError) as raised:
        one_to_one_links(folder, ("de", "fr"), 2)
    # the 0xff is the second byte of line 2 ("b\xff")
    assert (raised.value.kind, raised.value.position) == ("encoding", "line 2, column 2")
    assert raised.value.message == "invalid UTF-8 byte 0xff"
    (folder / "T.de-fr.de").write_bytes(b"a\nb\nc\n")
    with pytest.raises(InputError) as raised:
        one_to_one_links(folder, ("de", "fr"), 2)
    assert (raised.value.kind, raised.value.position) == ("malformed ids", "line 3")
    assert raised.value.message == "expected 4 tab-separated fields, found 3"


def test_invalid_utf8_in_the_ids_file_names_line_and_column(tmp_path):
    folder = _bitext(tmp_path / "b", b"a\nb\nc\n", b"x\ny\nz\n",
                     b"d\tf\t1\t1\nd\tf\t1\t1\nd\xe9\tf\t1\t1\n")
    with pytest.raises(InputError) as raised:
        one_to_one_links(folder, ("de", "fr"), 2)
    assert raised.value.path.endswith(".ids")
    assert (raised.value.kind, raised.value.position) == ("encoding", "line 3, column 2")
    assert raised.value.message == "invalid UTF-8 byte 0xe9"


def test_a_document_path_ending_right_after_its_year_has_that_year(tmp_path):
    """`en/1994` (nothing after the year: no `/`, no `.`) is of 1994 on either side of an `.ids`
    line, in the kernel and in the documents' reader alike; a digit more or fewer is no year."""
    from opusparcus.bitexts import year_of
    from tapaco.core.opus.moses_columns import parse_ids
    from tapaco.core.opus.textstream import FileRef, LineChunks

    expected = {"en/1994": 1994, "en/2005": 2005, "en/1994/": 1994, "en/199": NO_YEAR,
                "en/19945": NO_YEAR}
    assert {path: year_of(path) or NO_YEAR for path in expected} == expected
    ids = tmp_path / "t.ids"
    ids.write_text("".join(f"{path}\t{path.replace('en', 'fr')}\t1\t1\n" for path in expected),
                   encoding="utf-8")
    columns = parse_ids(LineChunks(FileRef(ids)).take(len(expected)), FileRef(ids))
    assert [years.tolist() for years in columns.years] == [list(expected.values())] * 2
    folder = tmp_path / "bitext"
    folder.mkdir()
    (folder / "Test.en-fr.ids").write_text("en/1994\tfr/2005\t1\t1\n", encoding="utf-8")
    (folder / "Test.en-fr.en").write_text("Hello .\n", encoding="utf-8")
    (folder / "Test.en-fr.fr").write_text("Bonjour .\n", encoding="utf-8")
    links = one_to_one_links(folder, ("en", "fr"))
    assert [years.tolist() for years in links.years] == [[1994], [2005]]
