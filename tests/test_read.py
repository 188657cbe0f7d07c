import gzip
import json
import re
import threading
import zipfile

import numpy as np
import pytest
from conftest import without_compile_notice
from independent import read_links

from tapaco.core.errors import BadInputLog, InputError
from tapaco.core.forked import usable_cores
from tapaco.core.progress import Progress
from tapaco.read import INTER, read_corpus
from tapaco.read import links as link_reading
from tapaco.read import texts as text_reading


def test_rf_release_counts_match_a_plain_scan(shared_data):
    corpus = read_corpus(shared_data / "opus-rf", BadInputLog(), Progress(enabled=False))
    targets = [t for path in sorted((shared_data / "opus-rf/xml").glob("*-*.xml.gz"))
               for t in re.findall(r'xtargets="([^"]*)"', gzip.decompress(path.read_bytes())
                                   .decode())]
    sides = [t.split(";") for t in targets]
    empty = sum(1 for a, b in sides if not a.strip() or not b.strip())
    assert corpus.counts.links == len(targets)
    assert corpus.counts.links_with_empty_side == empty
    assert len(corpus.edges) == len(targets) - empty
    assert (corpus.edge_kind == INTER).all()
    links = read_links(shared_data / "opus-rf")
    assert corpus.counts.multi_id_sides == len({s for link in links for s in link if " " in s[2]})
    multi = [i for i, side in enumerate(corpus.sides) if " " in side]
    assert multi and all(" " in corpus.texts[i] for i in multi)
    assert sorted(corpus.languages) == ["de", "en", "es", "fr", "sv"]
    assert np.array_equal(corpus.vertex_lang, corpus.document_lang[corpus.vertex_doc])


def _same_corpus(first, second) -> None:
    for name in ("languages", "documents", "texts", "lists", "tags"):
        assert getattr(first, name) == getattr(second, name), name
    assert list(first.sides) == list(second.sides)
    for name in ("document_lang", "vertex_lang", "vertex_doc", "edges", "edge_kind"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    assert first.counts == second.counts


def test_reading_on_two_threads_gives_the_same_corpus(shared_data):
    from conftest import SAMPLE

    for release in (shared_data / "opus-rf", SAMPLE):
        apart, alone = (read_corpus(release, BadInputLog(), Progress(enabled=False),
                                    workers=workers)
                        for workers in (2, 1))
        _same_corpus(apart, alone)


def _chain_release(root, langs: list[str], sentences: int, extra_links=lambda number: []):
    """A release of `langs`, each one document of `sentences` sentences, aligned in a chain
    (each language to the next) sentence by sentence, plus `extra_links(pair number)`."""
    from conftest import OpusFolder, Sentence

    release = OpusFolder(root)
    for lang in langs:
        release.sentences(f"{lang}/t.xml",
                          *(Sentence(f"s{n}", f"{lang} {n}") for n in range(sentences)))
    for number, (first, second) in enumerate(zip(langs, langs[1:])):
        release.links(f"{first}-{second}", f"{first}/t.xml", f"{second}/t.xml",
                      [(f"s{n}", f"s{n}") for n in range(sentences)] + extra_links(number))
    return release.write()


_TWELVE = [f"l{chr(97 + n)}" for n in range(12)]


def test_bad_input_in_the_second_half_is_reported_in_order(tmp_path):
    """Bad files among the alignments and documents the second process reads: skipped and
    counted as reading alone counts them, or the first one raised."""
    root = _chain_release(tmp_path / "opus", ["aa", "bb", "cc", "dd", "ee", "ff"], 9)
    (root / "xml" / "dd-ee.xml.gz").write_bytes(b"not gzip")
    with zipfile.ZipFile(root / "raw" / "ff.zip", "w") as archive:
        archive.writestr("Tatoeba/raw/ff/t.xml", "<document><s id='s1'>unclosed</document>")
    logs = [BadInputLog(skip=True), BadInputLog(skip=True)]
    corpora = [read_corpus(root, log, Progress(enabled=False), workers=workers)
               for log, workers in zip(logs, (2, 1))]
    _same_corpus(*corpora)
    assert logs[0].as_dict() == logs[1].as_dict()
    assert logs[0].counts == {"corrupt file": 1, "malformed XML": 1}
    errors = []
    for workers in (2, 1):
        with pytest.raises(InputError) as raised:
            read_corpus(root, BadInputLog(), Progress(enabled=False), workers=workers)
        errors.append(str(raised.value))
    assert errors[0] == errors[1] and "dd-ee.xml.gz" in errors[0]


def test_reading_strictly_raises_the_first_bad_document_in_document_order(tmp_path):
    """Documents are read biggest first (by sides), in either process: the error raised is
    still that of the first bad document in document order, as reading in order finds it."""
    from conftest import OpusFolder, Sentence

    release = OpusFolder(tmp_path / "opus")
    for lang, count in (("aa", 3), ("bb", 30), ("cc", 30)):
        release.sentences(f"{lang}/t.xml", *(Sentence(f"s{n}", f"{lang} {n}")
                                             for n in range(count)))
    release.links("aa-cc", "aa/t.xml", "cc/t.xml", [(f"s{n}", f"s{n}") for n in range(3)])
    release.links("bb-cc", "bb/t.xml", "cc/t.xml", [(f"s{n}", f"s{n}") for n in range(30)])
    root = release.write()
    for lang in ("aa", "bb"):  # aa first in document order, bb read before it
        with zipfile.ZipFile(root / "raw" / f"{lang}.zip", "w") as archive:
            archive.writestr(f"Tatoeba/raw/{lang}/t.xml", "<document><s id='s1'>x</document>")
    for workers in (1, 2):
        with pytest.raises(InputError, match="aa.zip"):
            read_corpus(root, BadInputLog(), Progress(enabled=False), workers=workers)


def _release_with_bad_sentences(root):
    """Twelve languages in a chain of alignments; every third document holds a sentence that
    is not UTF-8 (skipped, with --skip-bad-input, one log entry each)."""
    root = _chain_release(root, _TWELVE, 30)
    for lang in _TWELVE[::3]:
        body = "".join(f'<s id="s{n}">{lang} {n}</s>\n' for n in range(30)).encode()
        body = body.replace(f">{lang} 7<".encode(), b">\xff bad<")
        with zipfile.ZipFile(root / "raw" / f"{lang}.zip", "w") as archive:
            archive.writestr(f"Tatoeba/raw/{lang}/t.xml", b"<document>\n" + body + b"</document>")
    return root


def _read_with_one_reader_slowed(root, monkeypatch, read_module, function: str, slow: str):
    """The corpus and log of reading `root` with two reading threads, `function` (a reading
    step of one item: an alignment source, a document) slowed in one: the thread that read
    first ("front") or the other; checked against reading alone, and the faster reader must
    have read more items."""
    import time

    expected_log = BadInputLog(skip=True)
    expected = read_corpus(root, expected_log, Progress(enabled=False), workers=1)
    real, read_by = getattr(read_module, function), root.parent / "readers.txt"
    threads: list[int] = []  # reading threads, in the order they first read

    def timed(item, *args):
        if threading.get_ident() not in threads:
            threads.append(threading.get_ident())
        here = threads.index(threading.get_ident()) == 0
        if (slow == "front") == here:
            time.sleep(0.1)
        with open(read_by, "a") as out:
            out.write("front\n" if here else "back\n")
        return real(item, *args)

    monkeypatch.setattr(read_module, function, timed)
    log = BadInputLog(skip=True)
    corpus = read_corpus(root, log, Progress(enabled=False), workers=2)
    _same_corpus(corpus, expected)
    assert log.as_dict() == expected_log.as_dict()
    readers = read_by.read_text().split()
    fast = "back" if slow == "front" else "front"
    assert readers.count(fast) > readers.count(slow)
    return corpus, log, len(readers)


_NEEDS_TWO_CORES = pytest.mark.skipif(usable_cores() < 2, reason="a second reading thread")


@_NEEDS_TWO_CORES
@pytest.mark.parametrize("slow", ["front", "back"])
def test_documents_read_by_two_threads_give_the_same_corpus_whoever_reads_which(
        tmp_path, monkeypatch, slow):
    """Two threads take the documents in turn, biggest first: slowing either changes which
    reads which, never the corpus or the log."""
    root = _release_with_bad_sentences(tmp_path / "opus")
    _, log, documents = _read_with_one_reader_slowed(root, monkeypatch, text_reading,
                                                     "_document_texts", slow)
    assert log.counts == {"encoding": 4, "unknown sentence id": 4} and documents == 12


@_NEEDS_TWO_CORES
@pytest.mark.parametrize("slow", ["front", "back"])
def test_alignments_read_by_two_threads_give_the_same_corpus_whoever_reads_which(
        tmp_path, monkeypatch, slow):
    """As for documents: two threads take the alignment files in turn, sharing the side
    table (multi-id sides are keyed by it in the order they are met); slowing either changes
    which reads which, never the corpus or the log."""
    root = _chain_release(tmp_path / "opus", _TWELVE, 3, lambda number: [
        (f"s{number % 3} s2", "s1"), ("s0", f"s1 s{number % 3}")])
    (root / "xml" / "lc-ld.xml.gz").write_bytes(b"not gzip")
    corpus, log, sources = _read_with_one_reader_slowed(root, monkeypatch, link_reading,
                                                        "_read_source", slow)
    assert log.counts == {"corrupt file": 1} and sources == 11
    assert corpus.counts.multi_id_sides > 0



def test_lists_and_tags_of_single_and_multi_id_sides(tmp_path):
    """A side's lists and tags are its sentence's; a side of several ids joins those of its
    sentences with ";" (each value once, empty ones left out); Moses-line sides have none."""
    from conftest import OpusFolder, Sentence

    release = OpusFolder(tmp_path / "opus")
    release.sentences("en/t.xml", Sentence("s1", "One.", "7", "a"), Sentence("s2", "Two.", "8"),
                      Sentence("s3", "Three.", tags="b;c"), Sentence("s4", "Four."),
                      Sentence("s5", "Five.", "7", "a"))
    release.sentences("fr/t.xml", *(Sentence(f"s{n}", f"fr {n}") for n in range(1, 6)))
    release.links("en-fr", "en/t.xml", "fr/t.xml",
                  [("s1", "s1"), ("s2 s3", "s2"), ("s4", "s3"), ("s1 s5", "s4"), ("s3 s4", "s5")])
    corpus = read_corpus(release.write(), BadInputLog(), Progress(enabled=False), workers=1)
    english = [i for i, lang in enumerate(corpus.vertex_lang.tolist())
               if corpus.languages[lang] == "en"]
    found = {corpus.texts[i]: (corpus.lists[i], corpus.tags[i]) for i in english}
    assert found == {"One.": ("7", "a"), "Two. Three.": ("8", "b;c"), "Four.": ("", ""),
                     "One. Five.": ("7", "a"), "Three. Four.": ("", "b;c")}
    assert all(corpus.lists[i] == corpus.tags[i] == "" for i in range(len(corpus.texts))
               if i not in english)


def test_an_empty_sentence_is_no_sentence(tmp_path):
    """A Moses line of whitespace only, or an <s> without text, is no set member: its links are
    left out and counted; a side of several ids leaves an empty one out of its text."""
    from conftest import OpusFolder, Sentence, write_moses

    from tapaco.cli import main

    moses = write_moses(tmp_path / "moses", "en-fr", [
        ("en/a.xml", "fr/a.xml", str(n), fr, en, fr_text) for n, fr, en, fr_text in [
            (1, "1", "Hello.", "Bonjour."), (2, "1", "Hi there.", "Bonjour."),
            (3, "1", " \t ", "Bonjour."), (4, "2", "Hey.", "Salut."), (5, "2", "Yo.", "Salut."),
            (6, "3", "Bye.", "  ")]])
    release = OpusFolder(tmp_path / "xml")
    release.sentences("en/a.xml", *(Sentence(str(n), text) for n, text in enumerate(
        ["Hello.", "Hi there.", "", "Hey.", " ", "Yo."], 1)))
    release.sentences("fr/a.xml", Sentence("1", "Bonjour."), Sentence("2", "Salut."))
    release.links("en-fr", "en/a.xml", "fr/a.xml",
                  [("1", "1"), ("2", "1"), ("3", "1"), ("4 5", "2"), ("6", "2")])
    first_set = "0\t1\tHello.\t\t\n0\t2\tHi there.\t\t\n"
    for root, english, empty in (
            (moses, first_set + "1\t4\tHey.\t\t\n1\t5\tYo.\t\t\n", 2),
            (release.write(), first_set + "1\t4+5\tHey.\t\t\n1\t6\tYo.\t\t\n", 1)):
        out = tmp_path / f"{root.name}-out"
        assert main(["build", "--opus-dir", str(root), "--out", str(out), "--min-sets", "1",
                     "--quiet"]) == 0
        assert (out / "en.txt").read_text() == english
        stats = json.loads((out / "stats.json").read_text())
        assert stats["input"]["links_with_empty_text"] == empty


@pytest.mark.parametrize("bad", [b"\x00", b"\x0b", "\ufffe".encode()])
def test_a_control_character_in_a_moses_line_is_bad_input(tmp_path, capsys, bad):
    from conftest import write_moses

    from tapaco.cli import main

    root = write_moses(tmp_path / "opus", "en-fr", [
        ("en/a.xml", "fr/a.xml", "1", "1", "Hello.", "Bonjour."),
        ("en/a.xml", "fr/a.xml", "2", "1", "Hey.", "Bonjour.")])
    english = root / "moses" / "en-fr" / "Test.en-fr.en"
    english.write_bytes(english.read_bytes().replace(b"Hey", b"H" + bad + b"ey"))
    assert main(["build", "--opus-dir", str(root), "--out", str(tmp_path / "o")]) == 2
    error = without_compile_notice(capsys.readouterr().err)
    assert re.search(r"Test\.en-fr\.en: line 2, column 2: character (0x..|U\+FFFE) is not "
                     "allowed in text", error) and error.count("\n") == 1


def test_a_bad_moses_line_costs_its_link_only(tmp_path):
    """With --skip-bad-input, a line that is not UTF-8 leaves out its link, counted; the rest
    of the bitext is read (it used to leave out the whole bitext)."""
    from conftest import write_moses

    from tapaco.cli import main

    root = write_moses(tmp_path / "opus", "en-fr", [
        ("en/a.xml", "fr/a.xml", str(n), fr, en, fr_text) for n, fr, en, fr_text in [
            (1, "1", "Hello.", "Bonjour."), (2, "1", "Hi there.", "Bonjour."),
            (3, "1", "Hey.", "Bonjour."), (4, "2", "Bye.", "Salut."),
            (5, "2", "See you.", "Salut.")]])
    english = root / "moses" / "en-fr" / "Test.en-fr.en"
    english.write_bytes(english.read_bytes().replace(b"Hey", b"H\xffey"))
    out = tmp_path / "out"
    assert main(["build", "--opus-dir", str(root), "--out", str(out), "--min-sets", "1",
                 "--skip-bad-input", "--quiet"]) == 0
    assert (out / "en.txt").read_text() == ("0\t1\tHello.\t\t\n0\t2\tHi there.\t\t\n"
                                            "1\t4\tBye.\t\t\n1\t5\tSee you.\t\t\n")
    stats = json.loads((out / "stats.json").read_text())
    assert stats["input"]["bad_input_skipped"] == 1 and stats["input"]["links_with_empty_text"] == 1


@pytest.mark.parametrize("sorted_keys", [True, False])
def test_sentence_index_finds_the_last_sentence_of_each_key(sorted_keys):
    rng = np.random.default_rng(7)
    sentence_keys = rng.choice(1 << 40, 300, replace=False).astype(np.uint64)
    if sorted_keys:
        sentence_keys.sort()
    else:
        sentence_keys[::7] = sentence_keys[3]  # a repeated id: its last sentence is found
    last = {int(key): index for index, key in enumerate(sentence_keys.tolist())}
    wanted = np.concatenate([rng.choice(sentence_keys, 500),
                             rng.integers(0, 1 << 40, 50).astype(np.uint64)])
    expected = [last.get(int(key), -1) for key in wanted.tolist()]
    found = text_reading.SentenceIndex(sentence_keys).positions(wanted)
    assert found.tolist() == expected


def _reading_ahead(monkeypatch, sizes: list[int], ahead: int) -> list[int]:
    """The sources the threads of a :class:`_ReadAhead` over sources of these sizes claim while
    the first one's reading is held (their indexes, by when they were claimed)."""
    held, claimed = threading.Event(), []
    lock = threading.Lock()

    def read(source, table, skip):
        with lock:
            claimed.append(source)
        if source == 0:
            held.wait(10)
        return [], BadInputLog()

    monkeypatch.setattr(link_reading, "_read_source", read)
    monkeypatch.setattr(link_reading, "_input_bytes", lambda source: sizes[source])
    reading = link_reading._ReadAhead(list(range(len(sizes))), None, False, 2, ahead)
    for _ in range(200):  # until the other thread waits for room
        threading.Event().wait(0.01)
        if len(claimed) == reading.claimed and reading.waiting >= ahead:
            break
    seen = sorted(claimed)
    held.set()
    taken = list(reading.results())
    reading.stop()
    assert len(taken) == len(sizes)
    return seen


def test_reading_ahead_goes_past_a_large_source_by_bytes_not_by_count(monkeypatch):
    # source 0 is slow: the other thread reads on past it while the sources claimed and not
    # taken hold under `ahead` bytes, and claims no more once they reach it
    assert _reading_ahead(monkeypatch, [300] + [10] * 40, 330) == list(range(4))
    assert _reading_ahead(monkeypatch, [1] + [10] * 40, 300) == list(range(31))
