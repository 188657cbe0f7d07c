"""TaPaCo's BLEU filter: sacrebleu 2 sentence BLEU, fast for millions of sentences.

TaPaCo walks each paraphrase set in ascending sentence-id order and drops a sentence whose
sentence BLEU as hypothesis against an earlier kept sentence as reference exceeds 50 (sacrebleu
`BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)`, tokenizer "zh" for Chinese,
"13a" otherwise). :func:`sentence_bleu` is that reference computation. :func:`tokenize` and
:func:`bleu_keep_mask` give exactly the same tokens and decisions in batch:

- 13a runs sacrebleu's regexes once per distinct whitespace word, which is exact because each
  of them only looks at a character and its neighbour, and whitespace is a neighbour that never
  changes a decision;
- tokens and n-grams get exact integer ids (no hashing) by sorting packed uint64 keys;
- the clipped n-gram matches of all same-set pairs come from the n-grams that two rows of a
  set share, BLEU is computed with numpy, and scores within `_TOLERANCE` of the threshold are
  recomputed with sacrebleu, so float rounding cannot flip a decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

import numpy as np
from sacrebleu.metrics import BLEU

CHINESE_LANGUAGES: frozenset[str] = frozenset({"cmn", "wuu", "yue", "lzh", "zh"})

_SMOOTH_VALUE = 0.1
_MAX_ORDER = 4
_TOLERANCE = 1e-6
# A batch holds at most this many characters, hence tokens, token ids, n-gram ids and positions,
# so that (n-gram id, token id, position) packs into 63 bits; a set larger than that alone is
# scored pair by pair with sacrebleu.
_MAX_BATCH_CHARS = 1 << 21
_MAX_BATCH_PAIRS = 1 << 22
# sacrebleu's 13a pre-processing of a line, in its order (the "&" ones only change lines with "&").
_PRE_13A = (("<skipped>", ""), ("-\n", ""), ("\n", " "),
            ("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
# sacrebleu's TokenizerRegexp substitutions, verbatim.
_POST_13A = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)
# Row separators: not whitespace, untouched by every tokenizer stage; the first one absent from
# the texts is used.
_SEPARATORS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0E, 0x1C), *range(0xE000, 0xF900))]


def tokenizer_for(lang: str) -> str:
    """The sacrebleu tokenizer TaPaCo uses for a language code: "zh" for Chinese, else "13a"."""
    return "zh" if lang in CHINESE_LANGUAGES else "13a"


@cache
def _bleu(tokenizer: str) -> BLEU:
    return BLEU(tokenize=tokenizer, smooth_method="floor", smooth_value=_SMOOTH_VALUE,
                effective_order=True)


def sentence_bleu(hypothesis: str, reference: str, tokenizer: str = "13a") -> float:
    """sacrebleu's sentence BLEU of `hypothesis` against `reference` (the reference computation)."""
    return _bleu(tokenizer).sentence_score(hypothesis, [reference]).score


def tokenize(texts: Sequence[str], tokenizer: str) -> list[str]:
    """What sacrebleu's tokenizer `tokenizer` returns for every text; 13a in batch."""
    if tokenizer != "13a":
        return [_bleu(tokenizer).tokenizer(text) for text in texts]
    codes, words = _codes_13a(list(texts))
    sep = words[0]
    joined = " ".join(np.asarray(words, dtype=object)[codes].tolist())
    return joined.replace(" " + sep, sep).replace(sep + " ", sep).split(sep)[1:]


def _join(lines: list[str]) -> str:
    """The lines as one string of words, each line opened by a separator word absent from them."""
    for sep in _SEPARATORS:
        joined = f"{sep} " + f" {sep} ".join(lines)
        if joined.count(sep) == len(lines):
            return joined
    raise ValueError("the texts use every candidate separator character")


def _words(joined: str) -> tuple[np.ndarray, list[str]]:
    """Codes of the whitespace-separated words of `joined`, numbered by first occurrence."""
    ids: dict[str, int] = {}
    codes = np.fromiter((ids.setdefault(word, len(ids)) for word in joined.split()), np.int64)
    return codes, list(ids)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of the index ranges [start, start + length)."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - ends + lengths, lengths) + np.arange(ends[-1] if len(ends) else 0)


def _codes_13a(texts: list[str]) -> tuple[np.ndarray, list[str]]:
    """13a tokens of the texts as codes into a token list; code 0 (the separator) opens each text.

    Each distinct whitespace word w of the pre-processed texts is tokenised once, as " w ".
    """
    joined = _join(texts)
    for old, new in _PRE_13A:
        joined = joined.replace(old, new)
    word_codes, words = _words(joined)
    split = _join(words[1:]) + " "
    for pattern, replacement in _POST_13A:
        split = pattern.sub(replacement, split)
    token_codes, tokens = _words(split)
    opens = np.flatnonzero(token_codes == 0)
    starts = np.r_[0, opens + 1]
    lengths = np.r_[1, np.diff(np.r_[opens, len(token_codes)]) - 1]
    return token_codes[_ranges(starts[word_codes], lengths[word_codes])], tokens


def _token_ids(texts: list[str], tokenizer: str) -> tuple[np.ndarray, np.ndarray]:
    """Token ids (0..V-1) of the BLEU-preprocessed texts and the row of every token."""
    lines = [text.rstrip() for text in texts]
    if tokenizer == "13a":
        codes, _ = _codes_13a(lines)
    else:
        codes, _ = _words(_join(tokenize(lines, tokenizer)))
    is_token = codes != 0
    return codes[is_token] - 1, np.cumsum(~is_token)[is_token] - 1


class _Batch:
    """Rows [lo, hi) of the input: whole sets, their rows' tokens and the index of their pairs.

    Pair (a, b) of a set, a before b, gets index pair_base[b] + local[a]; in index order pairs
    run by b, then a.
    """

    def __init__(self, groups: np.ndarray, texts: list[str], tokenizer: str, lo: int, hi: int):
        self.lo, self.hi = lo, hi
        self.tokens, self.token_row = _token_ids(texts[lo:hi], tokenizer)
        self.length = np.bincount(self.token_row, minlength=hi - lo)
        new_group = np.r_[True, groups[lo + 1:hi] != groups[lo:hi - 1]]
        self.group = np.cumsum(new_group) - 1
        first = np.flatnonzero(new_group)
        self.local = np.arange(hi - lo) - first[self.group]
        self.pair_base = np.cumsum(self.local) - self.local
        self.n_pairs = int(self.local.sum())

    def pairs(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows (a, b) of the pairs with the given (sorted) indices."""
        b = np.searchsorted(self.pair_base, index, side="right") - 1
        return index - self.pair_base[b] + b - self.local[b], b

    def matches(self) -> np.ndarray:
        """Clipped n-gram matches, shape (4, n_pairs), of every pair of a set."""
        found = np.zeros((_MAX_ORDER, self.n_pairs))
        positions = np.arange(len(self.tokens))
        prefix = np.zeros(len(self.tokens), np.int64)
        for order in range(_MAX_ORDER):
            if not len(positions):
                break
            key = _pack(prefix[positions], self.tokens[positions + order], positions)
            shared, shared_id, entries = self._shared_grams(key)
            found[order] = self._count_pairs(*entries)
            prefix = np.full(len(self.tokens), -1)
            prefix[shared] = shared_id
            positions = np.flatnonzero((prefix[:-1] >= 0) & (prefix[1:] >= 0)
                                       & (self.token_row[:-1] == self.token_row[1:]))
        return found

    def _shared_grams(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
        """Positions of n-grams that several rows of a set share, their dense ids, and the
        (gram, row, count) entries of those n-grams sorted by gram then row."""
        key = np.sort(key)
        position = (key & ((1 << _POSITION_BITS[0]) - 1)).astype(np.int64)
        gram_key = key >> np.uint64(_POSITION_BITS[0])
        row = self.token_row[position]
        new_gram = np.r_[True, (gram_key[1:] != gram_key[:-1])
                         | (self.group[row[1:]] != self.group[row[:-1]])]
        new_entry = np.flatnonzero(new_gram | np.r_[True, row[1:] != row[:-1]])
        gram = np.cumsum(new_gram) - 1
        entry_gram = gram[new_entry]
        is_shared = np.bincount(entry_gram) >= 2
        chosen = is_shared[entry_gram]
        counts = np.diff(np.r_[new_entry, len(key)])
        entries = (entry_gram[chosen], row[new_entry[chosen]], counts[chosen])
        at_shared = is_shared[gram]
        return position[at_shared], (np.cumsum(is_shared) - 1)[gram[at_shared]], entries

    def _count_pairs(self, gram: np.ndarray, row: np.ndarray, count: np.ndarray) -> np.ndarray:
        """Sum over shared n-grams of min(count in a, count in b) for every pair (a, b)."""
        first = np.flatnonzero(np.r_[True, gram[1:] != gram[:-1]])
        size = np.diff(np.r_[first, len(gram)])
        later = np.repeat(size, size) - 1 - (np.arange(len(gram)) - np.repeat(first, size))
        a = np.repeat(np.arange(len(gram)), later)
        b = a + 1 + _ranges(np.zeros(len(later), np.int64), later)
        pair = self.pair_base[row[b]] + self.local[row[a]]
        weight = np.minimum(count[a], count[b])
        return np.bincount(pair, weights=weight, minlength=self.n_pairs)


_POSITION_BITS = [0]


def _pack(prefix: np.ndarray, token: np.ndarray, position: np.ndarray) -> np.ndarray:
    """uint64 keys ((prefix, token), position); sets _POSITION_BITS for unpacking."""
    position_bits = max(int(position[-1]).bit_length(), 1)
    token_bits = max(int(token.max()).bit_length(), 1)
    _POSITION_BITS[0] = position_bits
    key = (prefix.astype(np.uint64) << np.uint64(token_bits)) | token.astype(np.uint64)
    return (key << np.uint64(position_bits)) | position.astype(np.uint64)
