import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from independent import key_hash

from tapaco.core.text_column import TextColumn
from tapaco.normalize import (
    first_near_identical,
    near_identical_key,
    near_identical_keys,
    surface_key,
    surface_keys,
)


@pytest.mark.parametrize("text, key", [
    ("Don’t stop!", "Don't stop."),
    ("‘Hi’, he said…", "'Hi', he said..."),
    ("“Yes” – «no» „maybe“", "Yes - no maybe"),
    ('He said "go!"', "He said go."),
    ("Это «правда»!", "Это правда."),
    ("我饿了！", "我饿了."),
    ("Plain text.", "Plain text."),
])
def test_surface_key(text, key):
    assert surface_key(text) == key


@pytest.mark.parametrize("text, key", [
    ("Don't stop!", "dontstop"),
    ("DON’T  STOP", "dontstop"),
    ("Ｔｏｍ！", "tom"),
    ("Straße, bitte.", "strassebitte"),
    ("Это «правда»!", "этоправда"),
    ("我饿了！", "我饿了"),
])
def test_near_identical_key(text, key):
    assert near_identical_key(text) == key


@pytest.mark.parametrize("separator", ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u3000", "\t"])
def test_one_whitespace_for_ascii_and_other_texts(separator):
    """Whitespace (what str.isspace takes for it) is dropped alike whether or not the text holds
    a character above ASCII, by the reference and the kernel."""
    texts = [f"a{separator}b", f"é{separator}b", f"a{separator}b", f"é{separator}b"]
    assert [near_identical_key(text) for text in texts] == ["ab", "éb", "ab", "éb"]
    assert near_identical_keys(texts) == ["ab", "éb", "ab", "éb"]


def test_surface_keys_of_many_texts_are_the_keys_of_each():
    texts = ["Don’t stop!", "‘Hi’, he said…", 'He said "go!"', "我饿了！", "", "¿Qué?", "a\nb"]
    assert surface_keys(texts) == ["Don't stop.", "'Hi', he said...", "He said go.", "我饿了.",
                                   "", "?Qué?", "a\nb"]
    assert surface_keys([]) == []


def test_surface_hashes_are_the_same_in_every_interpreter():
    """Another interpreter (another str hash salt) hashes the same keys to the same numbers, so
    the reading processes' hashes compare."""
    import os
    import subprocess
    import sys

    from tapaco.normalize import SurfaceHashes

    texts = ["Go!", "Go.", "“Go.”", "", "東京😀"]
    probe = ("from tapaco.normalize import SurfaceHashes; "
             f"print(SurfaceHashes.of({texts!r}).hashes.tolist())")
    there = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout
             for seed in ("1", "2")}
    assert there == {f"{SurfaceHashes.of(texts).hashes.tolist()}\n"}
    assert SurfaceHashes.of(texts).hashes.tolist() == [key_hash(surface_key(text))
                                                       for text in texts]


def test_near_identical_keys_drop_what_the_regex_class_of_punctuation_and_space_matches():
    """The translate table against the definition: NFKC, casefold, then every match of the
    regex module's \\p{P} and every character str.isspace takes for whitespace removed; on
    random texts rich in punctuation and spaces of every block (each text holds one character
    above ASCII, so it takes the Unicode path)."""
    import random
    import sys
    import unicodedata

    import regex

    rng = random.Random(4)
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    marked = regex.findall(r"[\p{P}\s\p{Mn}\p{Lu}]", every) + list("\x1c\x1d\x1e\x1f")
    pool = [chr(code) for code in rng.sample(range(sys.maxunicode + 1), 20000)] + marked
    pattern = regex.compile(r"\p{P}+")
    for _ in range(3000):
        text = "é" + "".join(rng.choices(pool, k=rng.randint(0, 12)))
        folded = pattern.sub("", unicodedata.normalize("NFKC", text).casefold())
        expected = "".join(char for char in folded if not char.isspace())
        assert near_identical_key(text) == expected, ascii(text)


@pytest.mark.parametrize("texts", [
    [],
    [""],
    ["", "", "Ｔｏｍ！"],
    ["Don't stop!", "A\x1cB c", "Tom."],
    ["Это «правда»!", "Straße, bitte.", "ﬁ ‐ ǅ", "我饿了！"],
    ["Go!", "Это «правда»!", "", "DON’T  STOP", "x\x00y", "é"],
    ["Go!", "lone \ud800 surrogate", "Это"],
])
def test_near_identical_keys_of_many_texts_are_the_keys_of_each(texts):
    assert near_identical_keys(texts) == [near_identical_key(text) for text in texts]


MIXED = [*"aZ9 ,.!?'-\t\n\x1c\x1f", "é", "Ǆ", "ß", "ﬃ", "«", "。", "\u00a0", "\u3000", "\u0301",
         "ｱ", "𝐀", "İ", "ς", "Σ", "ΐ", "\ud800", "\u1100", "\u1161", "\u11a8", "가", "\u0b47",
         "\u0b3e", "e\u0301", "\u212b", "？", "！", "…", "\u037e", "\ufe56", "\u2047", "ｶ", "ﾞ"]


def test_near_identical_keys_of_random_mixed_texts_are_the_keys_of_each():
    """Characters the kernel's tables decide, and those they leave to the reference: NFKC
    changes (but to punctuation alone: full-width ？, …), combining marks, characters composing
    with the one before (Hangul jamo, Oriya AA, a half-width voiced mark after ｶ), lone
    surrogates, and the ASCII separators only the ASCII reference path drops."""
    import random

    rng = random.Random(9)
    texts = ["".join(rng.choices(MIXED, k=rng.randint(0, 8))) for _ in range(5000)]
    assert near_identical_keys(texts) == [near_identical_key(text) for text in texts]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=8))
def test_near_identical_keys_of_arbitrary_texts_are_the_keys_of_each(texts):
    assert near_identical_keys(texts) == [near_identical_key(text) for text in texts]


def first_of_each_key(groups: list[int], texts: list[str]) -> list[bool]:
    seen: set[tuple[int, str]] = set()
    keep = []
    for group, text in zip(groups, texts):
        keep.append((group, near_identical_key(text)) not in seen)
        seen.add((group, near_identical_key(text)))
    return keep


@pytest.mark.parametrize("set_size", [3, 40])
def test_first_near_identical_keeps_the_first_text_of_each_key_in_its_set(set_size):
    import random

    rng = random.Random(set_size)
    texts = ["".join(rng.choices(MIXED[:8] + MIXED[16:24], k=rng.randint(0, 3)))
             for _ in range(4000)]
    groups = sorted(rng.randrange(4000 // set_size) for _ in texts)
    expected = first_of_each_key(groups, texts)
    assert 500 < expected.count(False) < 3500
    assert first_near_identical(np.array(groups), texts).tolist() == expected
    column = TextColumn.of(["unread"] + texts[::-1])  # the rows read in place, picked
    picked = np.arange(len(texts), 0, -1)
    assert first_near_identical(np.array(groups), column, picked).tolist() == expected


def test_surface_hashes_say_which_keys_are_empty():
    from tapaco.normalize import SurfaceHashes

    texts = ["", "“”", '""', "Go!", " ", "!", "«»"]
    hashed = SurfaceHashes.of(texts)
    keys = [surface_key(text) for text in texts]
    assert hashed.nonempty.tolist() == [key != "" for key in keys]
    assert hashed.nonempty.tolist() == [False, False, False, True, True, True, False]
    assert hashed.hashes.tolist() == [key_hash(key) for key in keys]


def test_surface_hashes_key_texts_holding_each_character_the_key_changes():
    """Every character surface_key changes, alone and among others (ASCII, Cyrillic, CJK, an
    emoji: UTF-8 sequences of one to four bytes), gets its text keyed; the rest are hashed as
    they are."""
    import sys

    from tapaco.core.text_column import TextColumn
    from tapaco.normalize import surface_hashes

    changed = [chr(code) for code in range(sys.maxunicode + 1)
               if surface_key(chr(code)) != chr(code)]
    assert {'"', "!", "’", "“", "…", "«", "！", "。"} <= set(changed)
    texts = [f"{prefix}{char}{suffix}" for char in changed
             for prefix, suffix in (("", ""), ("Он ", " 東京😀"), ("😀", "x"))]
    texts += ["Plain.", "", "Он устал.", "東京へ行きます", "emoji 😀 ok", "Ü ß é"]
    hashed = surface_hashes(TextColumn.of(texts))
    assert hashed.tolist() == [key_hash(surface_key(text)) for text in texts]


def test_surface_hashes_in_chunks_on_threads(monkeypatch):
    """Chunks of rows hashed on three threads, the last one short: each row's own key hash."""
    import tapaco.normalize
    from tapaco.core.text_column import TextColumn
    from tapaco.normalize import surface_hashes

    texts = [f"{word}{'!' * (k % 3)} “{k}”" for k, word in enumerate(["Он", "東京", "a", ""] * 9)]
    monkeypatch.setattr(tapaco.normalize, "_HASH_CHUNK_ROWS", 5)
    expected = [key_hash(surface_key(text)) for text in texts]
    for workers in (1, 3):
        assert surface_hashes(TextColumn.of(texts)[1:], workers).tolist() == expected[1:]


def test_surface_hashes_read_a_slice_of_a_column_and_replaced_rows():
    """A column cut from a larger one starts inside its buffer; replaced rows move to its end."""
    from tapaco.core.text_column import TextColumn
    from tapaco.normalize import surface_hashes

    texts = ["Go!", "Stay.", "“Hi”", "Plain"]
    column = TextColumn.of(["Ahead!", "", "Stay.", "", "Plain"])[1:]
    for hashed in (column.with_rows([0, 2], ["Go!", "“Hi”"]), TextColumn.of(["Ahead", *texts])[1:]):
        assert (surface_hashes(hashed).tolist()
                == [key_hash(surface_key(text)) for text in texts])


@pytest.mark.parametrize("general", [False, True])
def test_surface_hashes_of_the_texts_documents_read_into_columns(tmp_path, general):
    """Texts as documents are read into columns: texts whose entities decode to a character
    the key changes (&quot;), texts read one by one (spaces, tabs); by the compiled scanner,
    and by the general path (a child element in a sentence sends the chunk there)."""
    import random

    from tapaco.core.opus import FileRef, read_sentences
    from tapaco.normalize import surface_hashes

    rng = random.Random(4)
    pieces = ["&quot;Go&quot;", "Don’t", "stop!", "«да»", "我饿了！", "a  b", "tab\tx", " lead",
              "plain", "R&amp;D", "¿Qué?", "😀", "…", "Ա՞"]
    texts = [" ".join(rng.choices(pieces, k=rng.randint(1, 4))) for _ in range(3000)]
    lines = [f'<s id="s{number}">{text}</s>' for number, text in enumerate(texts)]
    if general:
        lines[1500] = '<s id="s1500"><b>x</b>Hi “there”!</s>'
    path = tmp_path / "d.xml"
    path.write_text("\n".join(["<document>", *lines, "</document>", ""]), encoding="utf-8")
    sentences = read_sentences(FileRef(path))
    assert len(sentences.texts) == 3000
    assert (surface_hashes(sentences.texts).tolist()
            == [key_hash(surface_key(text)) for text in sentences.texts])
