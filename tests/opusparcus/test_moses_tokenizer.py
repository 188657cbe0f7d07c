"""The Moses tokenizer (the compiled kernel, sacremoses for the lines it declines) must return
exactly what sacremoses returns, for every input."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacremoses import MosesTokenizer

import opusparcus.moses_tokenizer as tokenizer_module
from opusparcus import moses_kernels
from opusparcus.moses_tokenizer import moses_tokenize

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
LANGUAGES = ("en", "fr", "de", "fi", "ru", "sv")
OPENSUBTITLES_LANGUAGES = ("bn", "bs", "da", "en", "eo", "fr", "hi", "hy", "is", "ru")
EVERY_CHARACTER = "".join(map(chr, range(0x110000)))


@cache
def _sacremoses(lang: str) -> MosesTokenizer:
    return MosesTokenizer(lang=lang)


def assert_like_sacremoses(texts: list[str], lang: str) -> None:
    got = moses_tokenize(texts, lang)
    assert len(got) == len(texts)
    tokenizer = _sacremoses(lang)
    wrong = [(text, expected, result) for text, result in zip(texts, got)
             if (expected := tokenizer.tokenize(text, escape=False, return_str=True)) != result]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ ({lang}), e.g. {wrong[:3]}"


# --- real text -------------------------------------------------------------------------------

@pytest.fixture
def data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not found: real-data tests need the shared folder beside "
                    "the project")
    return SHARED_DATA


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _real_files(data: Path, corpus: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of every file of one shared corpus."""
    if corpus == "opensubtitles":
        return [(path.suffix[1:], _lines(path))
                for lang in OPENSUBTITLES_LANGUAGES
                for path in sorted(data.glob(f"opensubtitles-v2018-moses/*/*.{lang}"))]
    if corpus == "tatoeba":
        return [(path.suffix[1:], _lines(path))
                for path in sorted(data.glob("tatoeba-v2021-moses/*/*")) if path.suffix != ".xml"]
    if corpus == "opus-rf":
        return [(lang, _lines(data / "opus-rf" / "moses" / f"RF-tokenized.{lang}"))
                for lang in ("en", "fr")]
    return [(path.stem, [line.split("\t")[2] for line in _lines(path)])
            for path in sorted(data.glob("tapaco-v1.0-head/*.txt"))]


@pytest.mark.parametrize("corpus", ["opensubtitles", "tatoeba", "opus-rf", "tapaco"])
def test_real_text_is_tokenised_as_by_sacremoses(data, corpus):
    files = _real_files(data, corpus)
    assert files and all(lines for _, lines in files)
    for own_language, lines in files:
        for lang in dict.fromkeys((*LANGUAGES, own_language)):
            assert_like_sacremoses(lines, lang)


def test_real_text_of_all_files_as_one_batch(data):
    lines = [line for corpus in ("opensubtitles", "tatoeba", "opus-rf", "tapaco")
             for _, file_lines in _real_files(data, corpus) for line in file_lines]
    for lang in LANGUAGES:
        assert_like_sacremoses(lines, lang)


# --- hand-made cases -------------------------------------------------------------------------

EDGE_CASES = [
    # whitespace and control characters
    "", " ", "   ", "\t", "\n", "\x01", "\x00\x1b", "\x1c", " \x01 ", "a\x01b", "a \x01 b",
    "a\tb", "a\nb", "two\nlines\n", "\r\n", "a\r\nb", "\xa0a\xa0", "a\u2028b\u3000c",
    # commas
    ",", ",,", ",a", "a,", ", a ,", "a,,b", "a , , b", ",5", "5,", "5,300", "5,a", "a,5",
    "1,2,3", "A,B,C,D,E", "٣,٤",
    # apostrophes and quotes
    "' ", "'", "''", "'''", "'a", "a'", "a'b", "' a '", "'Hello.'", "He said 'no.'",
    "He said 'no'.", "x.'", "x. '", ".'", "'.", "a .'", "'s", "5's", "5'5", "5'S", "7's.",
    "5'sa", "the '90s", "'tis", "'Tis 'twas", "rock 'n' roll", "rock'n'roll", "it's", "It's",
    "don't", "can't.", "I'm", "we'll", "THEY'RE", "WON'T", "l'homme", "aujourd'hui",
    "jusqu'à l'aube", "d'l'", "Qu'est-ce que c'est ?", '"quoted"', "``tick''", "`tick`",
    # non-breaking prefixes
    "Mr. Smith", "Mr.", "mr. smith", "Mrs. Smith's", "No. 5", "No. five", "No.5", "No. ٣",
    "pp. ５", "No. Smith", "no. 5", "Art. 12", "Art. Silva", "pp. 3", "pp. A", "p. 5", "p. A",
    "Nr. 5", "nr. A", "U.S.A.", "The U.S.A. are big.", "etc.", "etc. etc.", "e.g. this",
    "i.e. That", "a.b.c.", "A. b", "A. B", "z.B. das", "S. 5", "Ⅻ. 5", "3.14", "3.14.", "3.",
    "v2.0.1", "Hello.", "Hello .", "Hello. World.",
    # dots
    "Wait...", "Wait.....x", "Wait... what?", "...", "..", ".", "....", ". .", "x. . .",
    "..x..", "a..b", "DOTMULTI", "DOTDOTMULTI x", "..DOTMULTI", "DOT..", "xDOTDOTMULTI.",
    "MULTI...",
    # other scripts and symbols
    "Wait!!!", "What?!", "Really ? !", "Ça va ?", "Ça va?", "« Oui »", "Привет, мир!",
    "Я ем сыр.", "т.е. так", "Γειά σου Κόσμε.", "Ο κ. Παπαδόπουλος.", "日本語の文。", "日.本. 語",
    "本. x", "x.日. A", "你好，世界！", "おなか空いた！", "한국어 문장.",
    "😀 smile 😀.", "a😀b", "👍🏽!", "(paren)", "[x]", "{y}", "<tag>", "a--b", "a-b", "a/b",
    "100%", "$5", "5€", "#hash", "@user", "a&b", "a|b", "a;b:c", "½ ²",
    # long runs
    "x" * 300 + ".", "." * 5000, "x" + "." * 10_000 + "y", "'" * 50, "," * 51, "a " * 200,
]


@pytest.mark.parametrize("lang", [*LANGUAGES, "it", "is", "pt", "nl", "ja", "zh", "xx"])
def test_hand_made_cases(lang):
    assert_like_sacremoses(EDGE_CASES, lang)


@pytest.mark.parametrize("text", EDGE_CASES[:40])
def test_each_hand_made_case_alone(text):
    for lang in ("en", "fr", "fi"):
        assert_like_sacremoses([text], lang)


def test_small_chunks_give_the_same_result(monkeypatch):
    whole = moses_tokenize(EDGE_CASES, "en")
    monkeypatch.setattr(tokenizer_module, "CHUNK", 7)
    assert moses_tokenize(EDGE_CASES, "en") == whole
    assert moses_tokenize([], "en") == []


def test_known_results():
    assert moses_tokenize(["Mr. Smith isn't here...", "He said 'no.'", "No. 5, please."], "en") == [
        "Mr. Smith isn 't here ...", "He said ' no . ' ", "No. 5 , please ."]
    assert moses_tokenize(["L'homme, aujourd'hui ?"], "fr") == ["L' homme , aujourd' hui ?"]


# --- randomised ------------------------------------------------------------------------------

POOL = ("abcdeénñsStTöÅzAZÉÇ" "абвгдёжЖЯ" "0123456789" ".....,,,'''\"-!?;:()…"
        + "     " + "\t\x01")
WORDS = ("I you he it we the a and but go don't can't it's I'm Mr. Mrs. Dr. No. etc. John "
         "time money yes no okay sorry je tu c'est l'homme aujourd'hui qu'il M. Mme oui non "
         "minä sinä hän on ei kyllä esim. jne. n. 5 12 3.5 1,000 1990 я ты да нет т.е.").split()
ENDS = (".", ".", "?", "!", "...", "", "?!", ".'", '."', " !", "…", ",")


def _pool_string(rng: random.Random) -> str:
    return "".join(rng.choice(POOL) for _ in range(rng.randint(0, 16)))


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 10))]
    for _ in range(rng.randint(0, 2)):
        words[rng.randrange(len(words))] += rng.choice([",", "...", "'", ":", ";"])
    text = " ".join(words)
    text = text[0].upper() + text[1:] + rng.choice(ENDS)
    frame = rng.choice(["{}", "{}", "{}", "- {} - Yes.", '"{}"', "'{}'", " {} ", "({})"])
    return frame.format(text)


@pytest.mark.parametrize("lang", ["en", "fr", "fi"])
def test_random_strings(lang):
    rng = random.Random(20240611)
    texts = [_pool_string(rng) for _ in range(20_000)] + [_sentence(rng) for _ in range(5_000)]
    rng.shuffle(texts)
    assert_like_sacremoses(texts, lang)


PIECES = st.sampled_from([*"aAsSzZéÉñÅжЖяΣς日本한0٣５ .,'`-\"!?;:()…@%", "\t", "\x01", "\x1c",
                          "\xa0", "\n", "\u2028", "\ud800", "😀", "DOT", "MULTI", "Mr", "No",
                          "pp", "Art", "etc", "e.g", "M", "Mme", "..", "...", "'s", "n't", ",5",
                          "5,", "l'", "qu'"])


@settings(max_examples=400, deadline=None)
@given(texts=st.lists(st.lists(PIECES, max_size=24).map("".join), min_size=1, max_size=8),
       lang=st.sampled_from(["en", "fr", "it", "de", "fi", "ru", "zh", "ja", "xx"]))
def test_kernel_equals_sacremoses_on_generated_text(texts, lang):
    assert_like_sacremoses(texts, lang)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(max_size=40), min_size=1, max_size=8),
       lang=st.sampled_from(["en", "fr", "de"]))
def test_kernel_equals_sacremoses_on_any_unicode(texts, lang):
    assert_like_sacremoses(texts, lang)


def test_the_kernel_declines_only_overlong_lines():
    texts = ["Mr. Smith, I'm here...", "x" * moses_kernels.MAX_LINE + ", y.", "DOTMULTI..."]
    codes = np.frombuffer("".join(texts).encode("utf-32-le"), "<i4")
    offsets = np.cumsum([0, *map(len, texts)]).astype(np.int64)
    _, declined = moses_kernels.tokenize_lines(codes, offsets,
                                               *tokenizer_module._kernel_tables("en").arguments())
    assert declined.tolist() == [False, True, False]
    assert_like_sacremoses(texts, "en")


# --- the sets the module writes out must be sacremoses' ones ----------------------------------

def _with_bit(lang: str, bit: int) -> str:
    classes = tokenizer_module._kernel_tables(lang).classes
    return "".join(chr(code) for code in np.flatnonzero(classes & bit).tolist())


def test_whitespace_and_junk_are_what_sacremoses_squeezes_and_deletes():
    assert _with_bit("en", moses_kernels.WHITESPACE) == "".join(
        c for c in EVERY_CHARACTER if c.isspace())
    assert _with_bit("en", moses_kernels.JUNK) == "".join(
        chr(i) for i in range(32) if not chr(i).isspace())


def test_padding_class_is_sacremoses_class():
    for lang in ("en", "ja"):
        # sacremoses pastes its sets into classes unescaped: right only without these.
        tokenizer = _sacremoses(lang)
        for characters in (tokenizer.IsAlnum, tokenizer.IsAlpha, tokenizer.IsN, tokenizer.IsLower):
            assert not set(characters) & set("\\]-[^")
    padding = _sacremoses("en").PAD_NOT_ISALNUM[0]
    assert _with_bit("en", moses_kernels.PADDED) == "".join(padding.findall(EVERY_CHARACTER))
    # sacremoses' own CJK class is too slow to run over every code point: a sample.
    sample = EVERY_CHARACTER[::307] + "".join(EDGE_CASES[:200])
    padding = _sacremoses("ja").PAD_NOT_ISALNUM[0]
    padded = set(_with_bit("ja", moses_kernels.PADDED))
    assert [c for c in sample if c in padded] == padding.findall(sample)
