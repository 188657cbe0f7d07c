"""tapaco.bleu against sacrebleu itself: tokens, filter decisions, and the released TaPaCo data."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from tapaco import bleu
from tapaco.bleu import bleu_keep_mask, sentence_bleu, tokenize, tokenizer_for
from tapaco.core.arrays import group_chunks

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

EDGE_CASES = [
    "", " ", "  \t  ", "&quot;quoted&quot; &amp; &lt;b&gt; &amp;quot; & &amp",
    "a<skipped>b <skip<skipped>ped> -<skipped>\nx", "line-\nbreak", "two\nlines", "-\n", "a-\n",
    "a\x85b", "a\u2028b\u2029c", "x\x1cy\x1dz\x1e\x1f", "nbsp\xa0here", "ideographic\u3000space",
    "3.5 1,000 10-20 -5 5- a.b ..5 ,.5 5., .,5 1.2.3 a,b,c 1..2 a.,b", "a. .a ,a a, 5.a a.5",
    "U.S.A. e.g. (x) [y] {z} $5 @me #1 ~ ` ^ _ | \\ / : ; < = > ? ! \" ' %",
    "\x00 nul \x01 soh", "emoji 😀 outside the BMP 𝄞.", "Ж.5 ж,5 Ж-5 5-Ж", "a-b-c 1-2-3 -1- --",
    "it's 'quoted' \"double\" “curly” ‘single’ — dash … ellipsis", "trailing space ",
    "trailing newline\n", "ends in dash-", "supercalifragilisticexpialidocious a",
    "ab ab\x00 ab\x00\x00 abcdefg abcdefg\x00 abcdefgh abcdefgh\x00 abcdefghijklmnop\x00",
    "жжжж жжжж\x00 жжж\x00\x00 жжжжжжжж", "lone \ud800 surrogate \udc00\ud800 pair",
    "我喉咙很干。 Tom's 30岁了, ok.", "ｆｕｌｌ　ｗｉｄｔｈ！", "    leading spaces",
]


@cache
def floor_bleu(tokenizer: str) -> BLEU:
    """TaPaCo's BLEU, built here rather than taken from tapaco.bleu."""
    return BLEU(tokenize=tokenizer, smooth_method="floor", smooth_value=0.1, effective_order=True)


def reference_bleu(hypothesis: str, reference: str, tokenizer: str = "13a") -> float:
    return floor_bleu(tokenizer).sentence_score(hypothesis, [reference]).score


@pytest.fixture(scope="module")
def data() -> Path:
    if not DATA.is_dir():
        pytest.skip("../shared/data not found: real-data tests need the shared folder beside the "
                    "project")
    return DATA


def lines(path: Path) -> list[str]:
    """The lines of a text file, split on "\\n" only (sentences may hold \\x85, \\u2028 ...)."""
    text = path.read_text(encoding="utf-8")
    return text.removesuffix("\n").split("\n")


def tapaco_rows(path: Path) -> list[list[str]]:
    """Rows (set id, sentence id, text, ...) of a released TaPaCo file."""
    return [line.split("\t") for line in lines(path)]


@pytest.fixture(scope="module")
def real_texts(data: Path) -> list[str]:
    paths = [*(data / "opensubtitles-v2018-moses").glob("*/*"),
             *(data / "tatoeba-v2021-moses").glob("*/*"),
             data / "opus-rf" / "moses" / "RF-tokenized.en",
             data / "opus-rf" / "moses" / "RF-tokenized.fr"]
    texts = [line for path in sorted(paths) if path.suffix not in (".ids", ".xml")
             for line in lines(path)]
    texts += [row[2] for path in sorted((data / "tapaco-v1.0-head").glob("*.txt"))
              for row in tapaco_rows(path)]
    assert len(texts) > 800
    return texts


def test_tokenizer_for() -> None:
    assert [tokenizer_for(lang) for lang in ("cmn", "wuu", "yue", "lzh", "zh")] == ["zh"] * 5
    assert [tokenizer_for(lang) for lang in ("en", "ja", "ko", "bg")] == ["13a"] * 4


def sacrebleu_tokens(texts: list[str], tokenizer=Tokenizer13a) -> list[str]:
    """What sacrebleu's BLEU tokenizes: the right-stripped text."""
    return [tokenizer()(text.rstrip()) for text in texts]


def test_tokenize_edge_cases() -> None:
    expected = sacrebleu_tokens(EDGE_CASES)
    assert tokenize(EDGE_CASES, "13a") == expected
    assert [tokenize([text], "13a")[0] for text in EDGE_CASES] == expected
    assert tokenize(tuple(reversed(EDGE_CASES)), "13a") == expected[::-1]
    assert tokenize(EDGE_CASES, "zh") == sacrebleu_tokens(EDGE_CASES, TokenizerZh)
    assert tokenize([], "13a") == []


@pytest.mark.parametrize("text", [".," * 40, "a.,b" * 30, "1-" * 50, "/.," * 30 + "x-5",
                                  "中 " * 40, "中.,\u3000" * 30])
def test_tokenize_the_longest_growth(text: str) -> None:
    """Texts that 13a or zh lengthens the most, alone (their length sizes the kernel's
    buffers)."""
    for tokenizer, reference in (("13a", Tokenizer13a), ("zh", TokenizerZh)):
        assert tokenize([text], tokenizer) == sacrebleu_tokens([text], reference)
        assert (tokenize([text, text[:7]], tokenizer)
                == sacrebleu_tokens([text, text[:7]], reference))


def test_tokenize_every_code_point() -> None:
    chars = [chr(code) for code in range(0x110000)]
    runs = ["".join(chars[start:start + 256]) for start in range(0, len(chars), 256)]
    texts = [*runs, *(".".join(run) for run in runs[::8]), *("1-,".join(run) for run in runs[4::8])]
    assert tokenize(texts, "13a") == sacrebleu_tokens(texts)
    single = [f" .5{char}.5 " for char in chars[:0x30000]]  # zh's ranges, each alone
    assert tokenize(texts + single, "zh") == sacrebleu_tokens(texts + single, TokenizerZh)


PIECES = [*"ab1.,-&;<>/ \n\t\xa0\u2028é😀中。\u3000\u2000\u2001\u2a6d\u2a6e\uff0c",
          "&amp;", "&lt;", "&quot;", "<skipped>", "-\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), min_size=1,
                max_size=5),
       st.lists(st.text(), max_size=3))
def test_tokenize_arbitrary_text(pieces: list[str], anything: list[str]) -> None:
    texts = ["".join(pieces), *pieces, *anything]
    assert tokenize(texts, "13a") == sacrebleu_tokens(texts)
    assert tokenize(texts, "zh") == sacrebleu_tokens(texts, TokenizerZh)


def test_tokenize_real_data(real_texts: list[str]) -> None:
    texts = real_texts + EDGE_CASES
    expected = sacrebleu_tokens(texts)
    assert tokenize(texts, "13a") == expected
    assert [tokenize([text], "13a")[0] for text in texts] == expected
    assert tokenize(texts, "zh") == sacrebleu_tokens(texts, TokenizerZh)


def perturb(rng: random.Random, text: str) -> str:
    """A near copy: a word dropped, swapped, replaced or doubled, other punctuation, case, or
    trailing whitespace (which BLEU strips)."""
    words = text.split()
    kind = rng.randrange(7)
    if kind == 0 and len(words) > 1:
        del words[rng.randrange(len(words))]
    elif kind == 1 and len(words) > 1:
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    elif kind == 2 and words:
        words[rng.randrange(len(words))] = rng.choice(["the", "a", "not", "very", "5", "x-ray"])
    elif kind == 3 and words:
        words.insert(rng.randrange(len(words) + 1), rng.choice(words))
    elif kind == 4:
        return text.rstrip(".!?") + rng.choice([".", "!", "?", " .", "...", ""])
    elif kind == 5:
        return text.lower() if rng.random() < 0.5 else text.upper()
    else:
        return text + rng.choice([" ", "\n", "-\n", " &quot;", "  "])
    return " ".join(words)


def perturb_chars(rng: random.Random, text: str) -> str:
    """A near copy of a Chinese sentence: a character dropped, replaced or inserted."""
    i = rng.randrange(len(text))
    kind = rng.randrange(3)
    if kind == 0 and len(text) > 1:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + rng.choice("的了我很好") + text[i + 1:]
    return text[:i] + rng.choice("的了！。") + text[i:]


def random_sets(rng: random.Random, sentences: list[str], count: int, near=perturb):
    """Sets of 2..30 rows: a sentence, near copies of earlier rows, and unrelated sentences."""
    groups, texts = [], []
    for group in range(count):
        members = [rng.choice(sentences)]
        for _ in range(rng.randint(2, 30) - 1):
            if rng.random() < 0.75:
                members.append(near(rng, rng.choice(members)))
            else:
                members.append(rng.choice(sentences))
        groups += [group] * len(members)
        texts += members
    return np.array(groups, np.int64), texts


def pair_scores(groups: np.ndarray, texts: list[str], tokenizer: str) -> dict:
    """BLEU of texts[j] against texts[i] for every pair i < j of a set."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return {(i, j): reference_bleu(texts[j], texts[i], tokenizer)
            for lo, hi in zip(starts, np.r_[starts[1:], len(texts)])
            for j in range(lo, hi) for i in range(lo, j)}


def walk(groups: np.ndarray, texts: list[str], scores: dict, max_bleu: float) -> np.ndarray:
    """The filter written out: row j is dropped when it scores over max_bleu against an earlier
    kept row of its set."""
    keep = np.ones(len(texts), bool)
    kept: list[int] = []
    for j in range(len(texts)):
        if j == 0 or groups[j] != groups[j - 1]:
            kept = []
        if all(scores[i, j] <= max_bleu for i in kept):
            kept.append(j)
        else:
            keep[j] = False
    return keep


@pytest.fixture(scope="module")
def sets_13a(real_texts: list[str]):
    sentences = [text for text in real_texts if text.strip()]
    groups, texts = random_sets(random.Random(20240611), sentences, 150)
    return groups, texts, pair_scores(groups, texts, "13a")


def test_keep_mask_matches_pairwise_sacrebleu(sets_13a) -> None:
    groups, texts, scores = sets_13a
    values = np.array(list(scores.values()))
    assert len(values) > 10_000
    assert (values > 50).sum() > 1000 and (values <= 50).sum() > 1000
    assert ((values > 45) & (values <= 55)).sum() > 100
    for max_bleu in (50.0, 30.0, 70.0):
        expected = walk(groups, texts, scores, max_bleu)
        assert 100 < (~expected).sum() < len(texts) - 100
        assert np.array_equal(bleu_keep_mask(groups, texts, "13a", max_bleu), expected)


def test_keep_mask_small_chunks_on_threads(sets_13a, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many chunks, several sets in some, sets larger than a chunk, on one and three threads."""
    groups, texts, scores = sets_13a
    monkeypatch.setattr(bleu, "_CHUNK_ROWS", 20)
    set_offsets = np.r_[np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]), len(groups)]
    chunks = group_chunks(set_offsets, 20)
    assert sum(last - first > 1 for first, last in chunks) > 10
    assert sum(set_offsets[last] - set_offsets[first] > 20 for first, last in chunks) > 10
    expected = walk(groups, texts, scores, 50)
    for workers in (1, 3):
        assert np.array_equal(bleu_keep_mask(groups, texts, "13a", workers=workers), expected)


def test_pairs_near_the_threshold_are_settled_by_sacrebleu(sets_13a) -> None:
    """A pair the kernel scored within a hair of the threshold and decided otherwise than
    sacrebleu (here: not over) makes its set walked again by the reference."""
    groups, texts, scores = sets_13a
    (ref, hyp), score = next((pair, score) for pair, score in scores.items() if 50 < score < 60)
    lo, hi = np.flatnonzero(groups == groups[hyp])[[0, -1]]
    expected = walk(groups, texts, scores, 50)
    keep = expected.copy()
    keep[lo:hi + 1] = False
    tokens = [len(tokenize([texts[row]], "13a")[0].split()) for row in (hyp, ref)]
    near = np.array([[ref, hyp, *matched_ngrams(texts[hyp], texts[ref]), *tokens, 0]], np.int64)
    set_offsets = np.r_[np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]), len(groups)]
    picked = keep.copy()
    bleu._settle_near_pairs(keep, near, set_offsets, texts, "13a", 50.0)
    assert np.array_equal(keep, expected)
    backwards = np.arange(len(texts))[::-1]  # the rows walked, picked from a reversed column
    bleu._settle_near_pairs(picked, near, set_offsets, list(texts)[::-1], "13a", 50.0,
                            backwards)
    assert np.array_equal(picked, expected)


@pytest.mark.parametrize("offset", [-1e-7, 0.0, 1e-7])
def test_the_kernel_hands_pairs_within_a_hair_of_the_threshold_to_sacrebleu(
        offset: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair scored within a hair of the threshold, on either side of it, reaches sacrebleu
    with its statistics (the kernel's float score alone must not decide it)."""
    reference = "I ate the cheese in the kitchen yesterday."
    hypothesis = "I ate the cheese in the kitchen yesterday evening."
    score = reference_bleu(hypothesis, reference)
    statistics = floor_bleu("13a")._extract_corpus_statistics([hypothesis], [[reference]])[0]
    settled = []
    settle = bleu._sacrebleu_score
    monkeypatch.setattr(bleu, "_sacrebleu_score",
                        lambda *pair: settled.append(pair) or settle(*pair))
    keep = bleu_keep_mask(np.zeros(2, np.int64), [reference, hypothesis], "13a", score + offset)
    assert settled == [(statistics[2:6], statistics[0], statistics[1])]
    assert keep.tolist() == [True, offset >= 0]
    settled.clear()
    assert bleu_keep_mask(np.zeros(2, np.int64), [reference, hypothesis], "13a", score + 0.01)[1]
    assert settled == []


def matched_ngrams(hypothesis: str, reference: str) -> list[int]:
    """sacrebleu's clipped n-gram matches of a pair, order 1 to 4."""
    statistics = floor_bleu("13a")._extract_corpus_statistics([hypothesis], [[reference]])[0]
    return statistics[2:6]


def test_keep_mask_reference_is_the_walk(sets_13a) -> None:
    groups, texts, scores = sets_13a
    lo = int(np.flatnonzero(groups == groups[0])[-1]) + 1
    hi = int(np.flatnonzero(groups == groups[2000])[-1]) + 1
    expected = walk(groups[lo:hi], texts[lo:hi],
                    {(i - lo, j - lo): s for (i, j), s in scores.items() if lo <= i < hi}, 50)
    assert np.array_equal(bleu.reference_keep_mask(groups[lo:hi], texts[lo:hi], "13a"), expected)


def test_keep_mask_chinese(data: Path) -> None:
    sentences = [row[2] for lang in ("cmn", "wuu", "yue")
                 for row in tapaco_rows(data / "tapaco-v1.0-head" / f"{lang}.txt")]
    groups, texts = random_sets(random.Random(7), sentences, 40, perturb_chars)
    scores = pair_scores(groups, texts, "zh")
    values = np.array(list(scores.values()))
    assert (values > 50).sum() > 100 and (values <= 50).sum() > 100
    expected = walk(groups, texts, scores, 50)
    assert np.array_equal(bleu_keep_mask(groups, texts, "zh"), expected)


def test_keep_mask_compares_with_kept_rows_only() -> None:
    first = "I ate the cheese in the kitchen yesterday."
    dropped = "I ate the cheese in the kitchen yesterday evening."
    third = "We ate cheese in the kitchen yesterday evening."
    assert reference_bleu(dropped, first) > 50 and reference_bleu(third, dropped) > 50
    assert reference_bleu(third, first) <= 50
    mask = bleu_keep_mask(np.zeros(3, np.int64), [first, dropped, third], "13a")
    assert mask.tolist() == [True, False, True]
    mask = bleu_keep_mask(np.array([0, 0, 1]), [first, dropped, third], "13a")
    assert mask.tolist() == [True, False, True]


def test_keep_mask_of_a_set_with_more_distinct_tokens_than_16_bits_number() -> None:
    # the kernel packs a set's n-grams as 16-bit token ids when they fit: past 65,536 distinct
    # tokens it numbers them in a table instead
    many = " ".join(f"w{k}" for k in range(70_000))
    texts = [many, "I ate the cheese in the kitchen yesterday.",
             "I ate the cheese in the kitchen yesterday evening.",
             "the kitchen ate yesterday in the cheese.", "w5 w6 w7 w8 w9 w10 w11 w12",
             "w9 w10 w11 w12 w13 w14 w15", "w8 w7 w6 w5 w9 w11 w10 w12",
             "w5 w6 w7 w8 w9 w10 w11"]
    groups = np.zeros(len(texts), np.int64)
    expected = [True, True, False, True, True, True, True, False]
    assert bleu.reference_keep_mask(groups, texts, "13a").tolist() == expected
    assert bleu_keep_mask(groups, texts, "13a").tolist() == expected


def test_threshold_is_strict(sets_13a) -> None:
    _, texts, scores = sets_13a
    for (i, j), score in list(scores.items())[:2000:100]:
        pair = [texts[i], texts[j]]
        assert bleu_keep_mask(np.zeros(2, np.int64), pair, "13a", score).all()
        below = np.nextafter(score, -1.0)
        assert not bleu_keep_mask(np.zeros(2, np.int64), pair, "13a", below)[1]


def test_keep_mask_degenerate_input() -> None:
    assert bleu_keep_mask(np.zeros(0, np.int64), [], "13a").shape == (0,)
    texts = ["", " ", "a", "a", "a\n", "b", ""]
    mask = bleu_keep_mask(np.array([0, 0, 1, 1, 1, 2, 3]), texts, "13a")
    assert mask.tolist() == [True, True, True, False, False, True, True]
    mask = bleu_keep_mask(np.array([0, 0, 1, 1, 1, 2, 3]), texts, "13a", -1.0)
    assert mask.tolist() == [True, False, True, False, False, True, True]
    with pytest.raises(ValueError, match="groups"):
        bleu_keep_mask(np.zeros(2, np.int64), ["a"], "13a")


def test_released_sets_keep_every_row(data: Path) -> None:
    pairs = 0
    for path in sorted((data / "tapaco-v1.0-head").glob("*.txt")):
        rows = sorted(tapaco_rows(path), key=lambda row: (int(row[0]), int(row[1])))
        groups = np.array([int(row[0]) for row in rows])
        pairs += sum(n * (n - 1) // 2 for n in np.unique(groups, return_counts=True)[1])
        assert bleu_keep_mask(groups, [row[2] for row in rows], tokenizer_for(path.stem)).all()
    assert pairs > 500


def test_exp_smoothing_would_drop_a_released_row(data: Path) -> None:
    rows = tapaco_rows(data / "tapaco-v1.0-head" / "bg.txt")
    ids = [row[1] for row in rows]
    earlier, later = rows[ids.index("434056")], rows[ids.index("434057")]
    assert earlier[0] == later[0] and ids.index("434056") < ids.index("434057")
    hyp, ref = later[2], earlier[2]
    assert (hyp, ref) == ("Жадна съм.", "Жаден съм.")
    exp = BLEU(tokenize="13a", effective_order=True).sentence_score(hyp, [ref]).score
    assert round(exp, 1) == 55.0
    assert sentence_bleu(hyp, ref) == reference_bleu(hyp, ref) <= 50
