"""Moses tokenisation: exactly what sacremoses returns, in a compiled kernel.

Opusparcus identifies a raw sentence by its Moses-tokenised text,
``MosesTokenizer(lang).tokenize(text, escape=False, return_str=True)`` (defaults
``aggressive_dash_splits=False``, ``protected_patterns=None``). sacremoses runs a dozen regex
passes on each sentence, most with a template expanded in Python for every match, and a Python
loop over all tokens for the non-breaking prefixes. `moses_tokenize` runs the same
steps in :mod:`opusparcus.moses_kernels` over many sentences' code points at once, with tables
built here from sacremoses' own character sets and prefixes. The lines the kernel declines
(longer than its bound) go through `batch_moses_tokenize`: the same steps once over many
sentences joined by newlines, with C-level regular expressions.

Why each line of the batch path comes out exactly as sacremoses' result for that sentence:

* No step crosses a newline. A text's own newline is whitespace to sacremoses' first step, so
  it becomes a space first. No pattern can match a newline: a class sacremoses writes ``[^X]``
  is written ``[^X\\n]`` and one written ``[X]`` drops the newline (``IsN`` holds one); ``^``,
  ``$``, ``strip()`` and the "at the end" test of the multidot step act on line ends.
* The character sets are sacremoses' own: its ``IsAlnum`` (per language: CJK languages add
  letters), ``IsN``, ``IsAlpha`` and ``IsLower`` strings, which it pastes into classes as they
  are (they hold no ``\\ ] [ ^ -``, so a class is just that set), the prefixes from its
  ``NONBREAKING_PREFIXES`` and ``NUMERIC_ONLY_PREFIXES``. They are written out as escaped
  ranges, which also makes the big classes fast to test.
* A comma or apostrophe rule like ``([^X])'([^X])`` -> ``\\1 ' \\2`` runs as
  ``'(?<=[^X]')(?=[^X])`` -> `` ' ``: the same text for each match, but the neighbours are
  looked at instead of consumed. That differs only where two matches would share a character:
  two commas side by side, or two apostrophes at most two characters apart. Later steps only
  insert text, so such a pair exists at a rule only if it exists right after the whitespace
  step; those lines ("crowded", rare) are tokenised by sacremoses itself.
* Every whitespace run is squeezed to one space at once, where sacremoses keeps the double
  spaces left by removed control characters until its last step: in a line that is not crowded
  no rule tells one space from two (the neighbour rules see a space either way, the multidot
  test asks whether anything follows, tokens are split on any whitespace), and squeezing only
  brings commas and apostrophes closer, so the crowded test stays on the safe side.
* Non-breaking prefixes: only a token ending in "." can change. Such tokens are found in the
  reversed text (a dot is a literal that the regex engine searches fast) with the first
  character of the next token on the line, and sacremoses' four conditions are applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from sacremoses import MosesTokenizer

from opusparcus import moses_kernels as kernels
from tapaco.core.hashing import hash_range
from tapaco.core.interruptible import LARGE, in_background

#: Sentences joined into one string at a time (bounds memory; larger gains nothing).
CHUNK = 10_000
_DIGITS = frozenset("0123456789")

# Python's \s (the whitespace of str.isspace, str.split and str.strip) but " " and "\n",
# and the control characters sacremoses deletes that are not whitespace.
_OTHER_SPACE = r"\t\x0b\x0c\r\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_JUNK = r"\x00-\x08\x0e-\x1b"
_ODD_CHARACTER = re.compile(f"[{_OTHER_SPACE}{_JUNK}]")
WHITESPACE = frozenset(" \n\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
                       + "".join(map(chr, range(0x2000, 0x200B))))
# What sacremoses' padding class leaves alone besides IsAlnum and whitespace.
_UNPADDED = ".'`,-"
_APOSTROPHE_LANGUAGES = ("en", "fr", "it")
_SPACE_RUN = re.compile("   *")
# Where a rule that consumes its neighbours could match twice on one character.
_ADJACENT_COMMAS = re.compile(",,")
_CLOSE_APOSTROPHES = re.compile("'.?'")
# A run of k >= 2 dots is protected as " " + "DOT" * k + "MULTI" (+ " " unless at line end).
_MULTIDOT = re.compile(r"(\.\.\.*)")
_MULTIDOT_MARKER = re.compile(r"(DOT(?:DOT)*)MULTI")
# In the reversed text: a token ending in "." (group 2: the rest of it, reversed), and the first
# character of the next token on the same line (group 1; None after the last token).
_DOT_TOKEN_REVERSED = re.compile(r"\.(?<![^ \n]\.)(?:(?<=([^ \n]) \.)|)([^ \n]+)")
_TRAILING_DOT_APOSTROPHE = re.compile(r"\.' ?$", re.MULTILINE)

Rule = tuple[re.Pattern[str], str]


@dataclass(frozen=True)
class _Rules:
    """What depends on the language, compiled once."""

    pad: re.Pattern[str]
    commas: tuple[Rule, ...]
    apostrophes: tuple[Rule, ...] | None
    crowded: tuple[re.Pattern[str], ...]
    alpha: frozenset[str]
    lower: frozenset[str]
    kept_reversed: frozenset[str]
    numeric_reversed: frozenset[str]


def _class_body(characters: Iterable[str]) -> str:
    """A regex character-class body matching exactly `characters` (escaped ranges)."""
    ranges: list[list[int]] = []
    for point in sorted({ord(c) for c in characters}):
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return "".join(rf"\U{a:08x}" if a == b else rf"\U{a:08x}-\U{b:08x}" for a, b in ranges)


def _neighbour_rule(before: str, middle: str, after: str, replacement: str) -> Rule:
    """`middle` (one character) with a one-character class looked at on each side, if given."""
    behind = f"(?<=[{before}]{middle})" if before else ""
    ahead = f"(?=[{after}])" if after else ""
    return re.compile(middle + behind + ahead), replacement


def _comma_rules(digit: str) -> tuple[Rule, ...]:
    """sacremoses' COMMA_SEPARATE_1, _2 and _3."""
    return (_neighbour_rule(f"^{digit}\n", ",", "", " , "),
            _neighbour_rule("", ",", f"^{digit}\n", " , "),
            (re.compile(f",(?<=[{digit}],)$", re.MULTILINE), " , "))


def _apostrophe_rules(lang: str, alpha: str, digit: str) -> tuple[Rule, ...] | None:
    """sacremoses' ENGLISH_ or FR_IT_SPECIFIC_APOSTROPHE; None: each "'" becomes " ' "."""
    other = f"^{alpha}\n"
    if lang == "en":
        return (_neighbour_rule(other, "'", other, " ' "),
                _neighbour_rule(f"^{alpha}{digit}\n", "'", alpha, " ' "),
                _neighbour_rule(alpha, "'", other, " ' "),
                _neighbour_rule(alpha, "'", alpha, " '"),
                _neighbour_rule(digit, "'", "s", " '"))
    if lang in ("fr", "it"):
        return (_neighbour_rule(other, "'", other, " ' "),
                _neighbour_rule(other, "'", alpha, " ' "),
                _neighbour_rule(alpha, "'", other, " ' "),
                _neighbour_rule(alpha, "'", alpha, "' "))
    return None


@cache
def _sacremoses(lang: str) -> MosesTokenizer:
    return MosesTokenizer(lang=lang)


@cache
def _padding(alphanumeric: str) -> re.Pattern[str]:
    """sacremoses' PAD_NOT_ISALNUM ``([^{IsAlnum}\\s\\.'\\`\\,\\-])`` as a compact class."""
    return re.compile(f"([^{_class_body(set(alphanumeric) | WHITESPACE | set(_UNPADDED))}])")


@cache
def _classes() -> tuple[str, str]:
    """Class bodies of sacremoses' IsN and IsAlpha, without the newline IsN holds."""
    return (_class_body(set(MosesTokenizer.IsN) - {"\n"}),
            _class_body(set(MosesTokenizer.IsAlpha) - {"\n"}))


@cache
def _neighbour_rules(lang: str) -> tuple[tuple[Rule, ...], tuple[Rule, ...] | None]:
    """The comma rules and the apostrophe rules (None: each "'" becomes " ' ")."""
    digit, alpha = _classes()
    return _comma_rules(digit), _apostrophe_rules(lang, alpha, digit)


@cache
def _rules(lang: str) -> _Rules:
    tokenizer = _sacremoses(lang)
    commas, apostrophes = _neighbour_rules(lang if lang in _APOSTROPHE_LANGUAGES else "")
    numeric = frozenset(tokenizer.NUMERIC_ONLY_PREFIXES)
    kept = frozenset(tokenizer.NONBREAKING_PREFIXES) - numeric
    return _Rules(
        pad=_padding(tokenizer.IsAlnum),
        commas=commas,
        apostrophes=apostrophes,
        crowded=(_ADJACENT_COMMAS, _CLOSE_APOSTROPHES) if apostrophes else (_ADJACENT_COMMAS,),
        alpha=frozenset(tokenizer.IsAlpha),
        lower=frozenset(tokenizer.IsLower),
        kept_reversed=frozenset(prefix[::-1] for prefix in kept),
        numeric_reversed=frozenset(prefix[::-1] for prefix in numeric),
    )


def _joined(texts: Sequence[str]) -> str:
    """"\\n" + the texts joined by "\\n"; a newline inside a text becomes a space."""
    joined = "\n" + "\n".join(texts)
    if joined.count("\n") != len(texts):
        joined = "\n" + "\n".join(text.replace("\n", " ") for text in texts)
    return joined


def _odd_replacement(match: re.Match[str]) -> str:
    return " " if match[0].isspace() else ""


def _squeeze_and_strip(text: str) -> str:
    """Every line with single spaces and stripped (" " is its only whitespace)."""
    text = _SPACE_RUN.sub(" ", text)
    return text.replace("\n ", "\n").replace(" \n", "\n").rstrip(" ")


def _normalize_space(text: str) -> str:
    """Whitespace runs -> " ", control characters deleted, lines stripped."""
    return _squeeze_and_strip(_ODD_CHARACTER.sub(_odd_replacement, text))


def _split_map(pattern: re.Pattern[str], text: str, step: int,
               replace: Callable[[list[str]], list[str]]) -> str:
    """Split on `pattern` (`step - 1` groups), rewrite the first group's slots, join again."""
    parts = pattern.split(text)
    if len(parts) > 1:
        parts[1::step] = replace(parts)
    return "".join(parts)


def _multidot_markers(parts: list[str]) -> list[str]:
    return [" " + "DOT" * len(run) + "MULTI" + (" " if after[:1] not in ("", "\n") else "")
            for run, after in zip(parts[1::2], parts[2::2])]


def _replace_multidots(text: str) -> str:
    """sacremoses' replace_multidots, the end of a line counting as the end of the text."""
    return _split_map(_MULTIDOT, text, 2, _multidot_markers)


def _restore_multidots(text: str) -> str:
    """sacremoses' restore_multidots: one dot for each DOT of a (DOT)+MULTI."""
    return _split_map(_MULTIDOT_MARKER, text, 2,
                      lambda parts: ["." * (len(run) // 3) for run in parts[1::2]])


def _nonbreaking_prefixes(text: str, rules: _Rules) -> str:
    """sacremoses' handles_nonbreaking_prefixes on single-spaced, stripped lines."""
    parts = _DOT_TOKEN_REVERSED.split(text[::-1])
    if len(parts) == 1:
        return text
    alpha, lower = rules.alpha, rules.lower
    kept, numeric = rules.kept_reversed, rules.numeric_reversed
    # In reversed text, "prefix ." reads ". xiferp".
    parts[1::3] = [
        "." if (prefix in kept or following in lower
                or (following in _DIGITS and prefix in numeric)
                or ("." in prefix and not alpha.isdisjoint(prefix))) else ". "
        for following, prefix in zip(parts[1::3], parts[2::3])]
    return "".join(parts)[::-1]


def _line_indices(pattern: re.Pattern[str], text: str) -> set[int]:
    """Indices of the lines (after the leading empty one) where `pattern` matches."""
    lines: set[int] = set()
    line, position = -1, 0
    for match in pattern.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        lines.add(line)
    return lines


def _crowded_lines(text: str, rules: _Rules) -> list[int]:
    """Indices of the lines where a neighbour rule could match twice on one character."""
    return sorted(set().union(*(_line_indices(pattern, text) for pattern in rules.crowded)))


def _apply(rules: Iterable[Rule], text: str) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def _tokenize_chunk(texts: Sequence[str], lang: str) -> list[str]:
    rules = _rules(lang)
    text = _normalize_space(_joined(texts))
    crowded = _crowded_lines(text, rules)
    text = _replace_multidots(" ".join(rules.pad.split(text)))
    text = _apply(rules.commas, text)
    if rules.apostrophes is None:
        text = text.replace("'", " ' ")
    else:
        text = _apply(rules.apostrophes, text)
    text = _nonbreaking_prefixes(_squeeze_and_strip(text), rules)
    text = _TRAILING_DOT_APOSTROPHE.sub(" . ' ", text)
    result = _restore_multidots(text).split("\n")[1:]
    for index in crowded:
        result[index] = _sacremoses(lang).tokenize(texts[index], escape=False, return_str=True)
    return result


def batch_moses_tokenize(texts: Sequence[str], lang: str) -> list[str]:
    """:func:`moses_tokenize` by regular expressions over many texts at once: the path of the
    lines the kernel declines, and its reference in the tests."""
    result: list[str] = []
    for group in _bounded_groups(texts):
        result += _tokenize_chunk(group, lang)
    return result


def _bounded_groups(texts: Sequence[str]) -> Iterator[list[str]]:
    """The texts in order, in groups of at most CHUNK lines and, but for a longer line alone,
    LARGE code points: a regular expression's pass over a group is one call that no signal
    interrupts."""
    group: list[str] = []
    size = 0
    for text in texts:
        if group and (len(group) == CHUNK or size + len(text) > LARGE):
            yield group
            group, size = [], 0
        group.append(text)
        size += len(text)
    if group:
        yield group


@dataclass(frozen=True)
class _KernelTables:
    """The kernel's view of a language: class bits per code point, its apostrophe rules, and
    its non-breaking prefixes (hashed, sorted by hash)."""

    classes: np.ndarray
    apostrophes: int
    prefix_hashes: np.ndarray
    prefix_kinds: np.ndarray
    prefix_offsets: np.ndarray
    prefix_codes: np.ndarray

    def arguments(self) -> tuple:
        return (self.classes, self.apostrophes, self.prefix_hashes, self.prefix_kinds,
                self.prefix_offsets, self.prefix_codes)


def _codes_of(characters: Iterable[str]) -> np.ndarray:
    return np.array(sorted({ord(c) for c in characters}), np.int64)


def _class_table(tokenizer: MosesTokenizer) -> np.ndarray:
    classes = np.zeros(0x110000, np.uint8)
    controls = {chr(code) for code in range(32)} - WHITESPACE
    for characters, bit in ((WHITESPACE, kernels.WHITESPACE), (controls, kernels.JUNK),
                            (tokenizer.IsN, kernels.DIGIT), (tokenizer.IsAlpha, kernels.ALPHA),
                            (tokenizer.IsLower, kernels.LOWER), ("s", kernels.LETTER_S),
                            ("'", kernels.APOSTROPHE)):
        classes[_codes_of(characters)] |= bit
    padded = np.ones(0x110000, bool)
    padded[_codes_of(set(tokenizer.IsAlnum) | WHITESPACE | set(_UNPADDED))] = False
    classes[padded] |= kernels.PADDED
    return classes


def _prefix_tables(rules: _Rules) -> tuple[np.ndarray, ...]:
    prefixes = sorted([(prefix[::-1], kernels.KEPT) for prefix in rules.kept_reversed]
                      + [(prefix[::-1], kernels.NUMERIC_ONLY) for prefix in rules.numeric_reversed])
    codes = [np.array([ord(c) for c in prefix], np.int32) for prefix, _ in prefixes]
    hashes = np.array([hash_range(code, 0, len(code)) for code in codes], np.int64)
    order = np.argsort(hashes, kind="stable")
    lengths = np.array([len(codes[i]) for i in order], np.int64)
    return (hashes[order], np.array([prefixes[i][1] for i in order], np.int64),
            np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            np.concatenate([np.zeros(0, np.int32), *(codes[i] for i in order)]))


@cache
def _kernel_tables(lang: str) -> _KernelTables:
    apostrophes = {"en": kernels.ENGLISH, "fr": kernels.FRENCH_ITALIAN,
                   "it": kernels.FRENCH_ITALIAN}.get(lang, kernels.ANY_APOSTROPHE)
    return _KernelTables(_class_table(_sacremoses(lang)), apostrophes,
                         *_prefix_tables(_rules(lang)))


def _kernel_chunk(texts: list[str], lang: str) -> list[str]:
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    offsets = np.zeros(len(texts) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), "<i4")
    out, declined = in_background(kernels.tokenize_lines, codes, offsets,
                                  *_kernel_tables(lang).arguments(), size=len(codes))
    result = out.astype("<i4", copy=False).tobytes().decode("utf-32-le", "surrogatepass")
    lines = result.split("\n")
    left = np.flatnonzero(declined).tolist()
    for line, text in zip(left, batch_moses_tokenize([texts[line] for line in left], lang)):
        lines[line] = text
    return lines


def moses_tokenize(texts: Sequence[str], lang: str) -> list[str]:
    """For every text, exactly sacremoses MosesTokenizer(lang=lang).tokenize(text, escape=False,
    return_str=True): by the compiled kernel, the lines it declines by
    :func:`batch_moses_tokenize`."""
    result: list[str] = []
    for start in range(0, len(texts), CHUNK):
        result += _kernel_chunk(list(texts[start:start + CHUNK]), lang)
    return result
