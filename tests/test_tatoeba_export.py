"""Tatoeba's own exports as build input: the same sets as the OPUS form of the same data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tapaco.cli import main
from tapaco.core.errors import InputError
from tapaco.core.progress import Progress
from tapaco.filters import FilterOptions
from tapaco.pipeline import BuildOptions, build
from tapaco.tatoeba_export import read_export
from tests.conftest import OpusFolder, Sentence, without_compile_notice

# (id, lang, text, lists ascending, tags in file order)
SENTENCES = [
    (1, "en", "I ate the cheese.", "7;907", "past tense;food"),
    (2, "en", "I have eaten the cheese.", "", ""),
    (3, "en", "Cheese was eaten by me.", "907", ""),
    (10, "fr", "J'ai mangé le fromage.", "", "food"),
    (11, "fr", "Le fromage, je l'ai mangé.", "", ""),
    (20, "de", "Ich aß den Käse.", "", ""),
    (21, "de", "Ich habe den Käse gegessen.", "12", ""),
    (30, "en", "Stop!", "", ""), (31, "en", "Halt!", "", ""), (32, "fr", "Arrête !", "", ""),
    (40, "en", "Never linked.", "", ""),
]
# translation links, each once; 1-2 is a same-language link (an intra-lingual file in OPUS)
LINKS = [(1, 10), (2, 10), (3, 11), (10, 20), (11, 21), (1, 20), (30, 32), (31, 32), (1, 2),
         (3, 10)]


def write_export(folder: Path, both_directions: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sentences.csv").write_text(
        "".join(f"{i}\t{lang}\t{text}\n" for i, lang, text, _, _ in SENTENCES)
        + "50\t\\N\tUnknown language.\n", encoding="utf-8")
    links = [*LINKS, *((b, a) for a, b in LINKS)] if both_directions else LINKS
    (folder / "links.csv").write_text("".join(f"{a}\t{b}\n" for a, b in links))
    tags = [(i, tag) for i, _, _, _, tagged in SENTENCES for tag in tagged.split(";") if tag]
    (folder / "tags.csv").write_text("".join(f"{i}\t{tag}\n" for i, tag in tags))
    memberships = [(int(list_id), i) for i, _, _, lists, _ in SENTENCES
                   for list_id in lists.split(";") if list_id]
    (folder / "sentences_in_lists.csv").write_text(
        "".join(f"{list_id}\t{i}\n" for list_id, i in reversed(memberships)))
    return folder


def write_opus(root: Path) -> Path:
    opus = OpusFolder(root)
    by_id = {i: (lang, text, lists, tags) for i, lang, text, lists, tags in SENTENCES}
    for lang in ("de", "en", "fr"):
        opus.sentences(f"{lang}/tatoeba.xml.gz", *[
            Sentence(f"s{i}", text, lists, tags) for i, (of, text, lists, tags) in by_id.items()
            if of == lang])
    grouped: dict[str, list[tuple[str, str]]] = {}
    for a, b in LINKS:
        (la, _, _, _), (lb, _, _, _) = by_id[a], by_id[b]
        if (la, a) > (lb, b):
            (la, a), (lb, b) = (lb, b), (la, a)
        grouped.setdefault(f"{la}-{lb}", []).append((f"s{a}", f"s{b}"))
    for name, links in grouped.items():
        first, second = name.split("-")
        opus.links(name, f"{first}/tatoeba.xml.gz", f"{second}/tatoeba.xml.gz", links)
    return opus.write("raw")


def test_the_export_builds_the_same_sets_as_the_opus_form(tmp_path):
    options = BuildOptions(FilterOptions(min_sets=1))
    from_opus = build(write_opus(tmp_path / "opus"), tmp_path / "a", options)
    from_export = build(write_export(tmp_path / "export"), tmp_path / "b", options,
                        tatoeba_export=True)
    outputs = sorted(path.name for path in (tmp_path / "a").glob("*.txt"))
    assert outputs == ["de.txt", "en.txt", "fr.txt"]
    for name in outputs:
        assert (tmp_path / "b" / name).read_text() == (tmp_path / "a" / name).read_text()
    assert from_export["funnel"] == from_opus["funnel"]
    assert from_export["graph"] == from_opus["graph"]
    en = (tmp_path / "b/en.txt").read_text().splitlines()
    assert "0\t1\tI ate the cheese.\t7;907\tpast tense;food" in en


def test_links_are_read_once_whatever_their_direction(tmp_path):
    one = read_export(write_export(tmp_path / "one", both_directions=False), Progress())
    both = read_export(write_export(tmp_path / "both"), Progress())
    assert one.edges.tolist() == both.edges.tolist()
    assert len(both.edges) == len(LINKS) and both.counts.links == 2 * len(LINKS)
    assert [both.sides[v] for v in range(len(both.sides))] == [
        "s20", "s21", "s1", "s2", "s3", "s30", "s31", "s10", "s11", "s32"]
    assert sorted(both.edge_kind.tolist()) == [0] + [1] * (len(LINKS) - 1)


def test_unknown_sentences_and_languages_are_counted_and_left_out(tmp_path):
    folder = write_export(tmp_path / "export")
    with open(folder / "links.csv", "a") as handle:
        handle.write("1\t999\n50\t2\n")
    corpus = read_export(folder, Progress())
    assert corpus.counts.links_to_unknown_sentences == 2
    assert "s50" not in corpus.sides and "s40" not in corpus.sides
    with open(folder / "sentences.csv", "a") as handle:  # unlinked: only this count shows it
        handle.write("51\t\\N\tAlso unknown.\n")
    stats = build(folder, tmp_path / "out", BuildOptions(FilterOptions(min_sets=1)),
                  tatoeba_export=True)
    assert stats["input"]["sentences_of_unknown_language"] == 2  # s50, s51
    assert stats["input"]["links_to_unknown_sentences"] == 2  # 1-999 and 50-2
    markdown = (tmp_path / "out" / "stats.md").read_text(encoding="utf-8")
    assert "| sentences of unknown language | 2 |" in markdown
    assert "sentences_of_unknown_language" not in build(
        write_opus(tmp_path / "opus"), tmp_path / "opus-out",
        BuildOptions(FilterOptions(min_sets=1)))["input"]  # an OPUS release has no such case


def test_bad_exports_are_one_line_errors(tmp_path, capsys):
    folder = tmp_path / "export"
    folder.mkdir()
    with pytest.raises(InputError, match="a Tatoeba export holds sentences.csv"):
        read_export(folder, Progress())
    (folder / "sentences.csv").write_text("1\ten\tHi.\n1\tfr\tSalut.\n")
    (folder / "links.csv").write_text("1\t1\n")
    with pytest.raises(InputError, match="sentence id 1 appears twice"):
        read_export(folder, Progress())
    (folder / "sentences.csv").write_text("1\ten\n")
    assert main(["build", "--tatoeba-export", str(folder), "--out", str(tmp_path / "o")]) == 2
    assert "not a Tatoeba sentences.csv" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_command_line_with_parquet(tmp_path):
    folder = write_export(tmp_path / "export")
    assert main(["build", "--tatoeba-export", str(folder), "--out", str(tmp_path / "o"),
                 "--min-sets", "1", "--format", "tsv,parquet", "--quiet"]) == 0
    card = (tmp_path / "o/README.md").read_text()
    assert "python -m tapaco build --tatoeba-export EXPORT_DIR --out OUT" in card
    assert "--documents" not in card  # it does not apply to exports
    assert "rebuilt from Tatoeba's own exports (https://tatoeba.org/downloads)" in card
    assert "OPUS" not in card and 'license: "cc-by-2.0"' in card and "CC BY 2.0 FR" in card


def test_the_published_tar_bz2_archives_read_as_the_files(tmp_path):
    import tarfile

    plain = write_export(tmp_path / "plain")
    packed = tmp_path / "packed"
    packed.mkdir()
    for path in plain.glob("*.csv"):
        with tarfile.open(packed / path.name.replace(".csv", ".tar.bz2"), "w:bz2") as tar:
            tar.add(path, arcname=path.name)
    one, other = read_export(plain, Progress()), read_export(packed, Progress())
    assert (list(one.sides), one.texts, one.lists, one.tags) == (
        list(other.sides), other.texts, other.lists, other.tags)
    assert one.edges.tolist() == other.edges.tolist()
    (packed / "links.tar.bz2").write_bytes(b"BZh9 not really")
    with pytest.raises(InputError, match="cannot be read"):
        read_export(packed, Progress())


@pytest.mark.parametrize("offset", [0, 10**12])  # a table by id, or a binary search
def test_id_index_finds_each_id_or_minus_one(offset):
    import numpy as np

    from tapaco.tatoeba_export import _IdIndex

    ids = np.array([2, 3, 5, 7, 11], np.int64) + offset
    wanted = np.array([3, 4, 11, -1, 2, 12, 7, 10**6], np.int64) + offset
    where = {int(value): position for position, value in enumerate(ids)}
    index = _IdIndex(ids)
    assert (index.table is None) == bool(offset)
    assert index.find(wanted).tolist() == [where.get(int(value), -1) for value in wanted]


THREE_LETTERS = {"en": "eng", "fr": "fra", "de": "deu"}


def _export_with_codes(folder: Path, codes: dict[str, str]) -> Path:
    write_export(folder)
    path = folder / "sentences.csv"
    lines = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join("\t".join([i, codes.get(lang, lang), text]) + "\n"
                            for i, lang, text in lines), encoding="utf-8")
    return folder


def _texts(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.glob("*.txt"))}


def test_tatoebas_iso_639_3_codes_become_opus_names_unless_kept(tmp_path):
    from tapaco.cli import main
    from tapaco.core.language_codes import opus_code

    # the names TaPaCo v1.0 gives Tatoeba's languages
    assert [opus_code(code) for code in ("eng", "fra", "nob", "heb", "tgl", "ukr", "cmn",
                                         "yue", "pes", "ber", "toki", "tlh")] == [
        "en", "fr", "nb", "he", "tl", "uk", "cmn", "yue", "pes", "ber", "toki", "tlh"]
    two = tmp_path / "two"
    build(write_export(tmp_path / "export-two"), two, BuildOptions(FilterOptions(min_sets=1)),
          tatoeba_export=True)
    export = _export_with_codes(tmp_path / "export-three", THREE_LETTERS)
    arguments = ["build", "--tatoeba-export", str(export), "--min-sets", "1", "--quiet"]
    assert main([*arguments, "--out", str(tmp_path / "opus-names")]) == 0
    assert _texts(tmp_path / "opus-names") == _texts(two)
    assert main([*arguments, "--out", str(tmp_path / "kept"), "--language-codes", "export"]) == 0
    assert _texts(tmp_path / "kept") == {f"{THREE_LETTERS[name[:2]]}.txt": data
                                         for name, data in _texts(two).items()}


def test_two_codes_of_one_name_and_codes_without_an_export_are_refused(tmp_path, capsys):
    from tapaco.cli import main

    export = _export_with_codes(tmp_path / "export", {"fr": "fra", "de": "deu"})  # en stays
    with (export / "sentences.csv").open("a", encoding="utf-8") as sentences:
        sentences.write("60\teng\tAnother English sentence.\n")
    assert main(["build", "--tatoeba-export", str(export), "--out", str(tmp_path / "o"),
                 "--min-sets", "1"]) == 2
    assert "languages en and eng would both be en" in capsys.readouterr().err
    assert main(["build", "--opus-dir", str(export), "--out", str(tmp_path / "o"),
                 "--language-codes", "export"]) == 2
    assert "--language-codes: only applies with --tatoeba-export" in capsys.readouterr().err


@pytest.mark.parametrize("packed", [False, True])
def test_a_bad_byte_in_an_export_names_its_line(tmp_path, packed):
    import io
    import tarfile

    export = write_export(tmp_path / "export")
    sentences = export / "sentences.csv"
    data = sentences.read_bytes().replace("Arrête".encode(), b"Arr\xeate")
    at = data.index(b"\xea")
    line, column = data[:at].count(b"\n") + 1, at - data.rfind(b"\n", 0, at)
    sentences.unlink()
    if packed:
        with tarfile.open(export / "sentences.tar.bz2", "w:bz2") as tar:
            info = tarfile.TarInfo("sentences.csv")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    else:
        sentences.write_bytes(data)
    expected = rf"line {line}, column {column}: invalid UTF-8 byte 0xea in sentences.csv"
    with pytest.raises(InputError, match=expected):
        read_export(export, Progress(enabled=False))


@pytest.mark.parametrize("name, change, line, message", [
    ("sentences.csv", (b"2\ten\t", b"2\ren\t"), 2,
     r"not a Tatoeba sentences\.csv \(3 tab-separated fields: id, lang, text\): this line "
     r"has 2"),
    ("links.csv", (b"3\t11\n", b"3\t11\r1\n"), 3,
     r"not a Tatoeba links\.csv \(2 tab-separated fields: first, second\): its second is not "
     r"a whole number: '11\\r1'"),
])
def test_a_lone_return_that_breaks_a_row_names_its_line(tmp_path, capsys, name, change, line,
                                                         message):
    """A lone carriage return is text, not the end of a row (Arrow's reader would end it
    there and say "Expected 3 columns, got 1" without a line): where it breaks a row, the one
    line names the row's line."""
    export = write_export(tmp_path / "export")
    data = (export / name).read_bytes()
    assert data.count(change[0]) == 1
    (export / name).write_bytes(data.replace(*change))
    assert line == data[:data.index(change[0])].count(b"\n") + 1
    assert main(["build", "--tatoeba-export", str(export), "--out", str(tmp_path / "o")]) == 2
    error = without_compile_notice(capsys.readouterr().err)
    assert error.count("\n") == 1
    assert re.search(rf"{name}: line {line}: {message}", error), error


def test_windows_line_ends_read_as_newlines(tmp_path):
    plain = write_export(tmp_path / "plain")
    windows = write_export(tmp_path / "windows")
    for path in windows.iterdir():
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    progress = Progress(enabled=False)
    assert _corpus_rows(read_export(windows, progress)) == _corpus_rows(read_export(plain,
                                                                                   progress))


def _corpus_rows(corpus) -> list:  # noqa: ANN001 - a Corpus
    import numpy as np

    rows = np.arange(len(corpus.texts))
    return sorted(zip(corpus.sides, corpus.texts, corpus.lists.take(rows),
                      corpus.tags.take(rows)))


@pytest.mark.parametrize("seed", range(5))
def test_lone_returns_read_as_spaces_whatever_the_reads(seed):
    """Each return not followed by a newline is a space, also where a read ends between the
    two bytes of a Windows line end."""
    import io
    import random

    from tapaco.tatoeba_export import _LoneReturnsAsSpaces

    rng = random.Random(seed)
    data = bytes(rng.choice(b"ab\r\n\t") for _ in range(rng.randint(0, 300)))
    expected = bytes(b" "[0] if byte == 13 and data[at + 1:at + 2] != b"\n" else byte
                     for at, byte in enumerate(data))
    stream = _LoneReturnsAsSpaces(io.BytesIO(data))
    read = b""
    while block := stream.read(rng.randint(1, 9)):
        read += block
    assert read == expected
    assert _LoneReturnsAsSpaces(io.BytesIO(data)).read() == expected


def test_a_sentence_without_text_is_no_sentence(tmp_path):
    """As in the OPUS form: its links are left out and counted."""
    export = write_export(tmp_path / "export")
    sentences = export / "sentences.csv"
    sentences.write_bytes(sentences.read_bytes().replace(b"I have eaten the cheese.", b" \r "))
    corpus = read_export(export, Progress(enabled=False))
    assert "s2" not in corpus.sides and " " not in corpus.texts
    links_of_2 = sum(2 in link for link in LINKS)
    assert corpus.counts.links_with_empty_text == 2 * links_of_2  # each in both directions
    assert corpus.counts.links_to_unknown_sentences == 0


def test_ids_that_are_no_plain_numbers_keep_their_form(tmp_path):
    """Ids below 0 or of 19 digits are sides `s<id>` too, and sort by their number as the OPUS
    form's ids do (the sign is no digit)."""
    export = tmp_path / "export"
    export.mkdir()
    ids = [-5, 0, 7, 10**18 + 1, 9 * 10**18]
    (export / "sentences.csv").write_text("".join(f"{i}\ten\tHello number {n}.\n"
                                                  for n, i in enumerate(ids)), encoding="utf-8")
    (export / "links.csv").write_text("".join(f"{a}\t{b}\n" for a, b in zip(ids, ids[1:])))
    corpus = read_export(export, Progress(enabled=False))
    assert list(corpus.sides) == ["s-5", "s0", "s7", "s1000000000000000001", "s9000000000000000000"]
    assert corpus.texts == [f"Hello number {n}." for n in range(5)]
    assert main(["build", "--tatoeba-export", str(export), "--out", str(tmp_path / "o"),
                 "--min-sets", "1", "--quiet"]) == 0
    written = (tmp_path / "o/en.txt").read_text(encoding="utf-8").splitlines()
    # by number: 0, then 5 (of -5), 7, then the 19-digit ids by their first 18 digits
    assert [line.split("\t")[1] for line in written] == [
        "0", "-5", "7", "1000000000000000001", "9000000000000000000"]


def test_texts_come_out_in_the_corpus_order(tmp_path):
    """The texts taken from the export's column are those of the corpus's sides, in its order,
    whatever the order of the rows in sentences.csv."""
    texts = ["Stop!", "“Stop”!", "Ça va ?", "e\u0301…", "a\x01b", "tab\\t", "日本語。", "x\ry",
             "'quoted'", "Stop."]
    export = tmp_path / "export"
    export.mkdir()
    lines = [f"{100 - n}\t{'en' if n % 3 else 'fr'}\t{text}\n" for n, text in enumerate(texts)]
    (export / "sentences.csv").write_text("".join(lines), encoding="utf-8", newline="")
    (export / "links.csv").write_text("".join(f"{100 - n}\t{99 - n}\n" for n in range(9)))
    corpus = read_export(export, Progress(enabled=False))
    text_of = {f"s{100 - n}": text.replace("\r", " ") for n, text in enumerate(texts)}
    assert list(corpus.texts) == [text_of[side] for side in corpus.sides]


def test_a_sentences_tags_join_once_each_in_file_order(tmp_path):
    """A tag is left out when empty or when it is already one of the `;`-separated parts
    joined so far; lists join once each in ascending list id."""
    export = write_export(tmp_path / "export")
    (export / "tags.csv").write_text("2\ta;b\n3\tx\n2\t\n2\ta\n2\tc\n2\tb;c\n2\tc\n")
    (export / "sentences_in_lists.csv").write_text("9\t2\n-1\t2\n9\t2\n0\t3\n")
    corpus = read_export(export, Progress(enabled=False))
    attributes = {side: (lists, tags) for side, lists, tags in zip(
        corpus.sides, corpus.lists, corpus.tags) if lists or tags}
    assert attributes == {"s2": ("-1;9", "a;b;c;b;c"), "s3": ("0", "x")}
