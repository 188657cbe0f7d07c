"""TaPaCo's BLEU filter: sacrebleu 2 sentence BLEU, exact and fast for millions of sentences.

TaPaCo walks each paraphrase set in ascending sentence-id order and drops a sentence whose
sentence BLEU as hypothesis against an earlier kept sentence as reference exceeds 50 (sacrebleu
`BLEU(smooth_method="floor", smooth_value=0.1, effective_order=True)`, tokenizer "zh" for Chinese,
"13a" otherwise). :func:`sentence_bleu` is that computation itself; :func:`tokenize` and
:func:`bleu_keep_mask` give exactly sacrebleu's tokens and decisions, in batch:

- 13a runs sacrebleu's regexes once per distinct whitespace word (as " word "), which is exact:
  each regex decides on a character and its neighbour, whitespace acts there like any other
  non-digit, non-punctuation character, and the regexes only ever insert spaces;
- words, tokens and n-grams get exact integer ids (no lossy hashing): words from their bytes,
  8 at a time, as uint64; n-grams by sorting packed uint64 (n-gram key, position);
- the clipped n-gram matches of all same-set pairs come from the n-grams that rows of a set
  share, BLEU is computed from them with numpy, and scores within `_TOLERANCE` of the
  threshold are recomputed from the same statistics by sacrebleu's own `BLEU.compute_bleu`
  (its float operations), so float rounding cannot flip a decision.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache

import numpy as np
import pandas as pd
from sacrebleu.metrics import BLEU

from tapaco.core.arrays import index_ranges

CHINESE_LANGUAGES: frozenset[str] = frozenset({"cmn", "wuu", "yue", "lzh", "zh"})

_SMOOTH_VALUE = 0.1
_MAX_ORDER = 4
_TOLERANCE = 1e-6
# A batch holds at most this many characters plus rows, hence tokens, token ids, sets, n-gram ids
# and positions, so that (n-gram id or set, token id, position) packs into 63 bits; a set larger
# than that alone is scored pair by pair with sacrebleu. The pair budget bounds memory.
_MAX_BATCH_SIZE = 1 << 21
_MAX_BATCH_PAIRS = 1 << 18
# sacrebleu 13a's replacements of HTML entities, in its order.
_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))
# sacrebleu's TokenizerRegexp substitutions, their patterns verbatim; the first one, " \1 "
# around single ASCII characters, runs as str.translate; the others' templates (r"\1 \2 ",
# r" \1 \2", r"\1 \2 ") are written as functions, which Python 3.11 applies 2x faster.
_ISOLATE_13A = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_ISOLATE = {code: f" {chr(code)} " for code in range(0x80) if _ISOLATE_13A.match(chr(code))}
_POST_13A = (
    (re.compile(r"([^0-9])([\.,])"), lambda match: f"{match[1]} {match[2]} "),
    (re.compile(r"([\.,])([^0-9])"), lambda match: f" {match[1]} {match[2]}"),
    (re.compile(r"([0-9])(-)"), lambda match: f"{match[1]} {match[2]} "),
)
# Masks of the n low bytes of a uint64.
_LOW_BYTES = np.array([(1 << 8 * n) - 1 for n in range(9)], np.uint64)
# Row separators: not whitespace, untouched by every tokenizer stage; the first one absent from
# the texts is used.
_SEPARATORS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0E, 0x1C), *range(0xE000, 0xF900))]


def tokenizer_for(lang: str) -> str:
    """The sacrebleu tokenizer TaPaCo uses for a language code: "zh" for Chinese, else "13a"."""
    return "zh" if lang in CHINESE_LANGUAGES else "13a"


@cache
def _bleu(tokenizer: str) -> BLEU:
    """TaPaCo's sacrebleu BLEU object for a tokenizer."""
    return BLEU(tokenize=tokenizer, smooth_method="floor", smooth_value=_SMOOTH_VALUE,
                effective_order=True)


def sentence_bleu(hypothesis: str, reference: str, tokenizer: str = "13a") -> float:
    """sacrebleu's sentence BLEU of `hypothesis` against `reference` (the reference computation)."""
    return _bleu(tokenizer).sentence_score(hypothesis, [reference]).score


def tokenize(texts: Sequence[str], tokenizer: str) -> list[str]:
    """What sacrebleu's tokenizer `tokenizer` returns for every text; 13a in batch."""
    texts = list(texts)
    if tokenizer != "13a":
        return [_bleu(tokenizer).tokenizer(text) for text in texts]
    tokenized: list[str] = []
    for lo, hi, _ in _batches(np.arange(len(texts)), texts):
        tokenized += _tokenize_13a(texts[lo:hi])
    return tokenized


def bleu_keep_mask(groups: np.ndarray, texts: Sequence[str], tokenizer: str,
                   max_bleu: float = 50.0) -> np.ndarray:
    """TaPaCo's BLEU filter: False for every row whose sentence BLEU as hypothesis against an
    earlier kept row of its set, as reference, exceeds `max_bleu`.

    `groups` gives each row's set; every set's rows are contiguous and in walking order.
    Decisions are those of :func:`sentence_bleu` applied pair by pair. `tokenizer` is "13a",
    "zh" or another sacrebleu tokenizer whose tokens are pieces of the text.
    """
    groups = np.asarray(groups)
    texts = list(texts)
    if groups.shape != (len(texts),):
        raise ValueError(f"{len(texts)} texts but groups of shape {groups.shape}")
    keep = bytearray(b"\x01") * len(texts)
    over: list[tuple[np.ndarray, np.ndarray]] = []
    for lo, hi, fits in _batches(groups, texts):
        if fits:
            over.append(_over_pairs(_Batch(groups, texts, tokenizer, lo, hi), max_bleu))
        else:
            _walk_pairwise(keep, texts, tokenizer, max_bleu, lo, hi)
    for refs, hyps in over:  # by hyp, then ref: keep[ref] is final when read
        for ref, hyp in zip(refs.tolist(), hyps.tolist()):
            if keep[ref]:
                keep[hyp] = 0
    return np.frombuffer(keep, np.uint8).astype(bool)


def _tokenize_13a(texts: list[str]) -> list[str]:
    """sacrebleu's 13a tokenization of (at least one) texts."""
    codes, rows, tokens = _codes_13a(texts)
    lengths = np.bincount(rows, minlength=len(texts))
    stream = np.zeros(len(codes) + len(texts), np.int64)
    is_token = np.ones(len(stream), bool)
    is_token[np.cumsum(lengths + 1) - lengths - 1] = False
    stream[is_token] = codes
    sep = tokens[0]
    joined = " ".join(np.asarray(tokens, dtype=object)[stream].tolist())
    # "sep a b sep sep c" -> "sepa bsepsepc" -> ["", "a b", "", "c"]
    return joined.replace(" " + sep, sep).replace(sep + " ", sep).split(sep)[1:]


def _token_ids(texts: list[str], tokenizer: str) -> tuple[np.ndarray, np.ndarray]:
    """Token ids (0..V-1) of the texts as sacrebleu's BLEU sees them, and the row of every token."""
    lines = [text.rstrip() for text in texts]
    if tokenizer == "13a":
        codes, rows, _ = _codes_13a(lines)
    else:
        codes, rows = _rows(_words(_join(tokenize(lines, tokenizer))[0])[0])
    return codes - 1, rows


def _codes_13a(texts: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """13a tokens of the texts: codes into the token list (whose entry 0 is a separator) and the
    row of every token. Each distinct whitespace word w of the pre-processed texts is tokenised
    once, as " w "."""
    joined, sep = _join(texts)
    word_codes, words = _words(_preprocess_13a(joined))
    word, row = _rows(word_codes)
    # words[0] is sep, so the tokens of word k follow the k-th separator
    split = (f" {sep} ".join(words) + " ").translate(_ISOLATE)
    for pattern, replacement in _POST_13A:
        split = pattern.sub(replacement, split)
    token_codes, tokens = _words(split)
    token, of_word = _rows(token_codes)
    per_word = np.bincount(of_word, minlength=len(words))
    counts = per_word[word]
    first = (np.cumsum(per_word) - per_word)[word]
    return token[index_ranges(first, counts)], np.repeat(row, counts), tokens


def _preprocess_13a(joined: str) -> str:
    """sacrebleu 13a's replacements before its regexes, on all lines at once (none of them can
    reach across a separator)."""
    joined = joined.replace("<skipped>", "")
    if "\n" in joined:
        joined = joined.replace("-\n", "").replace("\n", " ")
    if "&" in joined:
        for old, new in _ENTITIES:
            joined = joined.replace(old, new)
    return joined


def _join(lines: list[str]) -> tuple[str, str]:
    """The lines as one string, each opened by a separator word absent from them; the separator."""
    joined = f" {_SEPARATORS[0]} ".join(["", *lines])
    if joined.count(_SEPARATORS[0]) == len(lines):
        return joined, _SEPARATORS[0]
    free = set(_SEPARATORS).difference(joined)
    if not free:
        raise ValueError("the texts use every candidate separator character")
    sep = min(free)
    return f" {sep} ".join(["", *lines]), sep


def _words(joined: str) -> tuple[np.ndarray, list[str]]:
    """Codes of the whitespace-separated words of `joined` (as str.split() finds them), numbered
    by first occurrence, and the words by code."""
    units = _code_units(joined + " ")
    space = _space_table(units.itemsize)[units]
    starts = np.flatnonzero(~space & np.r_[True, space[:-1]])
    ends = np.flatnonzero(~space[:-1] & space[1:]) + 1
    width = units.itemsize
    data = np.zeros(len(units) * width + 7, np.uint8)
    spaced = data[:-7].view(units.dtype)
    spaced[:] = units
    spaced[space] = ord(" ")
    # each word is read with the space after it, which no word holds: no word then reads as
    # another one followed by zero bytes
    ids = _byte_string_ids(data, starts * width, (ends - starts + 1) * width)
    codes = pd.factorize(ids)[0]
    first = np.flatnonzero(np.diff(np.maximum.accumulate(np.r_[-1, codes])))
    return codes, [joined[start:end] for start, end in zip(starts[first], ends[first])]


def _code_units(text: str) -> np.ndarray:
    """`text` as one little-endian unsigned integer per character, in the narrowest width."""
    try:
        return np.frombuffer(text.encode("latin-1"), np.uint8)
    except UnicodeEncodeError:
        pass
    data = text.encode("utf-16-le", "surrogatepass")
    if len(data) == 2 * len(text):
        return np.frombuffer(data, "<u2")
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), "<u4")


@cache
def _space_table(width: int) -> np.ndarray:
    """For every code point below 256**width, whether str.split() splits on it."""
    return np.array([chr(code).isspace() for code in range(min(256**width, 0x110000))])


def _byte_string_ids(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Ids of the byte strings data[start:start + length] (data ending in 7 spare bytes): equal
    iff the strings are equal, given that two strings never differ only in trailing zero bytes.

    Each round factorizes the next 8 bytes, as uint64, joined to the id of the part before;
    once few strings are left (under 1/64), a dict numbers the rest whole."""
    windows = np.ndarray((len(data) - 7,), "<u8", data, strides=(1,))
    ids = np.empty(len(starts), np.int64)
    active = np.arange(len(starts))
    prefix = np.zeros(0, np.uint64)
    read, offset = 0, 0
    while len(active) * 64 > len(starts):
        left = lengths[active] - read
        value = windows[starts[active] + read] & _LOW_BYTES[np.minimum(left, 8)]
        if read:
            value = (prefix << np.uint64(32)) | pd.factorize(value)[0].astype(np.uint64)
        codes = pd.factorize(value)[0]
        ids[active] = offset + codes
        offset += int(codes.max()) + 1
        going_on = left > 8
        active, prefix, read = active[going_on], codes[going_on].astype(np.uint64), read + 8
    seen: dict[bytes, int] = {}
    rest = [data[start:start + length].tobytes()
            for start, length in zip(starts[active].tolist(), lengths[active].tolist())]
    ids[active] = offset + np.fromiter((seen.setdefault(key, len(seen)) for key in rest),
                                       np.int64, len(rest))
    return ids


def _rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codes other than 0, and their row: code 0 is the separator word opening each row."""
    is_word = codes != 0
    return codes[is_word], np.cumsum(~is_word)[is_word] - 1


def _batches(groups: np.ndarray, texts: list[str]) -> Iterator[tuple[int, int, bool]]:
    """(lo, hi, fits) of consecutive batches of whole sets within the size (characters plus
    rows) and pair budgets; a set over the size budget is a batch of its own with fits False."""
    if not len(texts):
        return
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    bounds = np.r_[starts, len(texts)]
    sizes = np.diff(bounds)
    chars = np.fromiter(map(len, texts), np.int64, len(texts)) + 1
    total_size = np.r_[0, np.cumsum(np.add.reduceat(chars, starts))]
    total_pairs = np.r_[0, np.cumsum(sizes * (sizes - 1) // 2)]
    first = 0
    while first < len(starts):
        end = min(np.searchsorted(total_size, total_size[first] + _MAX_BATCH_SIZE, "right"),
                  np.searchsorted(total_pairs, total_pairs[first] + _MAX_BATCH_PAIRS, "right")) - 1
        end = max(int(end), first + 1)
        fits = total_size[end] - total_size[first] <= _MAX_BATCH_SIZE
        yield int(bounds[first]), int(bounds[end]), bool(fits)
        first = end


def _walk_pairwise(keep: bytearray, texts: list[str], tokenizer: str, max_bleu: float,
                   lo: int, hi: int) -> None:
    """The BLEU filter on the set of rows [lo, hi) with sacrebleu, pair by pair."""
    for hyp in range(lo + 1, hi):
        if any(keep[ref] and sentence_bleu(texts[hyp], texts[ref], tokenizer) > max_bleu
               for ref in range(lo, hyp)):
            keep[hyp] = 0


def _over_pairs(batch: _Batch, max_bleu: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows (ref, hyp) of the batch's pairs scoring over `max_bleu`, ordered by hyp then ref."""
    if max_bleu < 0:  # every pair is over, even those without a match (score 0)
        ref, hyp = batch.pairs(np.arange(batch.n_pairs))
        return ref + batch.lo, hyp + batch.lo
    matches = batch.matches()
    index = np.flatnonzero(matches[0] > 0)
    ref, hyp = batch.pairs(index)
    matches, hyp_len, ref_len = matches[:, index], batch.length[hyp], batch.length[ref]
    score = _scores(matches, hyp_len, ref_len)
    for k in np.flatnonzero(np.abs(score - max_bleu) <= _TOLERANCE).tolist():
        score[k] = _sacrebleu_score(matches[:, k].astype(np.int64).tolist(), int(hyp_len[k]),
                                    int(ref_len[k]))
    over = score > max_bleu
    return ref[over] + batch.lo, hyp[over] + batch.lo


def _sacrebleu_score(matches: list[int], hyp_len: int, ref_len: int) -> float:
    """sacrebleu's own score of a pair from its statistics (its float operations, exactly)."""
    totals = [max(hyp_len - order, 0) for order in range(_MAX_ORDER)]
    return BLEU.compute_bleu(matches, totals, hyp_len, ref_len, smooth_method="floor",
                             smooth_value=_SMOOTH_VALUE, effective_order=True).score


def _scores(matches: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """sacrebleu's compute_bleu (floor smoothing, effective order) for pairs with a unigram match:
    `matches` has shape (4, pairs)."""
    log_sum = np.zeros(len(hyp_len))
    for order, found in enumerate(matches):
        total = hyp_len - order
        numerator = np.where(found > 0, 100.0 * found, 100.0 * _SMOOTH_VALUE)
        log_sum += np.where(total > 0, np.log(numerator / np.maximum(total, 1)), 0.0)
    brevity = np.where(hyp_len < ref_len, np.exp(1 - ref_len / hyp_len), 1.0)
    return brevity * np.exp(log_sum / np.minimum(hyp_len, _MAX_ORDER))


class _Batch:
    """Rows [lo, hi) of the input (whole sets): their tokens and the index of their pairs.

    Pair (a, b) of a set, a before b, has index pair_base[b] + local[a], so pairs run by b, then
    a; rows are numbered from lo.
    """

    def __init__(self, groups: np.ndarray, texts: list[str], tokenizer: str, lo: int, hi: int):
        self.lo = lo
        self.tokens, self.token_row = _token_ids(texts[lo:hi], tokenizer)
        self.length = np.bincount(self.token_row, minlength=hi - lo)
        new_group = np.r_[True, groups[lo + 1:hi] != groups[lo:hi - 1]]
        self.group = np.cumsum(new_group) - 1
        self.local = np.arange(hi - lo) - np.flatnonzero(new_group)[self.group]
        self.pair_base = np.cumsum(self.local) - self.local
        self.n_pairs = int(self.local.sum())

    def pairs(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows (a, b) of the pairs with the given indices."""
        b = np.searchsorted(self.pair_base, index, side="right") - 1
        return b - self.local[b] + index - self.pair_base[b], b

    def matches(self) -> np.ndarray:
        """Clipped n-gram matches of every pair, shape (4, pairs): n-grams of order n + 1 are
        only looked for where both n-grams inside are shared within the set."""
        found = np.zeros((_MAX_ORDER, self.n_pairs))
        positions = np.arange(len(self.tokens))
        prefix = self.group[self.token_row]
        for order in range(_MAX_ORDER):
            if not len(positions):
                break
            gram, position = _sorted_grams(prefix[positions], self.tokens[positions + order],
                                           positions)
            prefix = np.full(len(self.tokens), -1)
            found[order] = self._shared(gram, position, prefix)
            positions = np.flatnonzero((prefix[:-1] >= 0) & (prefix[1:] >= 0)
                                       & (self.token_row[:-1] == self.token_row[1:]))
        return found

    def _shared(self, gram: np.ndarray, position: np.ndarray, prefix: np.ndarray) -> np.ndarray:
        """Matches per pair of the n-grams (sorted keys and positions) that several rows of a set
        share; writes dense ids of those n-grams at their positions into `prefix`."""
        row = self.token_row[position]
        new_gram = np.r_[True, gram[1:] != gram[:-1]]
        entry = np.flatnonzero(new_gram | np.r_[True, row[1:] != row[:-1]])
        gram_id = np.cumsum(new_gram) - 1
        entry_gram = gram_id[entry]
        is_shared = np.bincount(entry_gram) >= 2
        at_shared = is_shared[gram_id]
        prefix[position[at_shared]] = (np.cumsum(is_shared) - 1)[gram_id[at_shared]]
        chosen = is_shared[entry_gram]
        count = np.diff(np.r_[entry, len(gram)])[chosen]
        return self._count_pairs(entry_gram[chosen], row[entry[chosen]], count)

    def _count_pairs(self, gram: np.ndarray, row: np.ndarray, count: np.ndarray) -> np.ndarray:
        """Sum over n-grams of min(count in a, count in b) for every pair (a, b) of rows; the
        (gram, row, count) entries are sorted by gram, then row."""
        first = np.flatnonzero(np.r_[True, gram[1:] != gram[:-1]])
        size = np.diff(np.r_[first, len(gram)])
        later = np.repeat(first + size, size) - 1 - np.arange(len(gram))
        a = np.repeat(np.arange(len(gram)), later)
        b = a + 1 + index_ranges(np.zeros(len(later), np.int64), later)
        pair = self.pair_base[row[b]] + self.local[row[a]]
        return np.bincount(pair, weights=np.minimum(count[a], count[b]), minlength=self.n_pairs)


def _sorted_grams(prefix: np.ndarray, token: np.ndarray,
                  position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keys of the n-grams (prefix id, last token) at the (ascending) positions, sorted, with
    their positions: one np.sort of packed uint64 (key, position)."""
    position_bits = np.uint64(max(int(position[-1]).bit_length(), 1))
    token_bits = np.uint64(max(int(token.max()).bit_length(), 1))
    key = (prefix.astype(np.uint64) << token_bits) | token.astype(np.uint64)
    key = np.sort((key << position_bits) | position.astype(np.uint64))
    return key >> position_bits, (key & ((np.uint64(1) << position_bits) - np.uint64(1))).astype(
        np.int64)
