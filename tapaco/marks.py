"""Marks on the paraphrase pairs of a TaPaCo language file that a user should trust less.

Scherrer (2020, sections 5-6) judged pairs by hand and found most of those that are not plain
good paraphrases either correct but trivial or "morphological neutralisation" (sentences that
"would be paraphrases of each other if one or more morphological features were considered to be
irrelevant": Geh! / Gehen Sie!, He is tired. / She is tired.), and left marking them
automatically to future work. This module marks them, for every pair inside each set of one
language file (`OUT/<lang>.txt`):

- ``trivial``: the two sentences differ only in case, punctuation, spacing, contractions
  (I'm / I am) or digits vs number words (3 / three).
- ``neutralisation:<feature>``: they differ only in words of the classes of one feature,
  ``gender`` (he/she, er/sie, il/elle...), ``politeness`` (du/Sie, tu/vous, ты/вы...) or
  ``number`` (I/we, est/sont...), plus trivial differences. When no single feature is enough
  but a combination is (Es-tu sûre ? / Êtes-vous sûrs ?: ``gender+number``), the smallest
  combination is named, features joined by ``+`` in the order gender, politeness, number;
  among equally small ones the first in that order.

Unmarked pairs are the ones to trust most. Each mark carries evidence: the differing words
(``he/she``, ``I'm/I am``, ``3/three``), then ``case``, ``punctuation``, ``spacing`` or
``Unicode forms`` for differences outside them.

A set is never compared pair by pair. Each sentence gets a *trivial key* (NFKC, casefold, its
words joined without spaces: punctuation dropped, symbols kept, Unicode digits as ASCII,
contractions expanded, number words as digits) and, for each combination of features, a
*neutralised key* (the same words, every word of a feature class replaced by its class). Only
sentences of one set sharing a key are paired: equal trivial keys make ``trivial``, else the
first combination whose keys are equal makes ``neutralisation``.

The words are data, one table per language, ``tapaco/mark_rules/<lang>.tsv`` (languages in
:data:`RULE_LANGUAGES`; others get the language-independent part of ``trivial``). A table is
UTF-8 TSV with the header ``kind form variants``; lines starting with ``#`` are comments and
each other row is one of:

- ``contraction``: a contraction and its expansion(s), ``|``-separated when ambiguous
  (``*'d`` → ``* would|* had``); a form starting with ``*`` is a suffix rule, ``*`` standing
  for the word the ending is attached to (``*n't`` → ``* not``; ``*'s`` → ``* is|* has``).
  Exact forms win over suffix rules (``can't`` → ``can not``, not ``ca not``).
- ``numeral``: a number word or phrase and its value in digits (``twenty`` 20, ``soixante
  dix`` 70). A run of number words is read as one number: a smaller value after a round larger
  one adds to it (twenty one → 21, hundred five → 105), 100, 1,000, 10**6 and 10**9 multiply
  what precedes them (two hundred → 200); anything else starts a new number.
- ``numeral_joiner``: a word allowed inside a number when it adds to it (``and`` in a hundred
  and five, ``y`` in treinta y dos); no variants.
- a feature (``gender``, ``politeness``, ``number``, or several comma-separated for a row
  that is all of them): forms that differ only in that feature, ``|``-separated (``geh`` /
  ``gehen Sie``). Forms of one feature linked through shared forms are one class (``him|her``
  and ``his|her``: him, his, her). A form written with a capital (``Sie``, ``Ihnen``) matches
  only a capitalised word. Where forms overlap, each reading gives a key (``Gehen Sie`` is the
  imperative of ``geh``, or ``gehen`` + ``Sie`` as in Gehst du? / Gehen Sie?).

Forms are matched as words (``\\w+``, so ``Gehen Sie!`` is gehen + sie and ``twenty-one`` is
twenty + one); in contractions an apostrophe before a word counts, with or without spaces
around it (OPUS writes ``can 't``, ``Qu' est``).

Limits. The marks are only as complete as the tables: verbs, adjectives and nouns are marked
only in the forms listed (frequent ones; plurals of nouns only for the French and Spanish
nouns with a feminine), and English ``number`` leaves out he/she/they (he|they would put he
and she in one number class). Compound numbers are read as far as the tables list their parts
(German up to 99 and the hundreds; not zweihundertfünfzig), digits followed by number words
(3 million) are not, and words for "one" that are also articles or inflect for gender (un,
une, uno, ein, один) are no numerals: un/une is gender. Ambiguous contractions give
both readings (He's: is or has; Tom's, even possessive, reads as Tom is / Tom has), at most
eight per sentence. Punctuation is dropped from the keys, so the imperative Geh nach Hause!
and the question Gehen Sie nach Hause? count as politeness. Spellings (ё / е, colour / color)
are not unified.
"""

from __future__ import annotations

import difflib
import itertools
import unicodedata
from collections import Counter
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import regex

from tapaco.core.forked import Forked, FromBothEnds
from tapaco.export import Row

TRIVIAL = "trivial"
NEUTRALISATION = "neutralisation"
FEATURES = ("gender", "politeness", "number")
HEADER = ["set_id", "sentence_id_1", "sentence_id_2", "mark", "evidence"]
TABLE_HEADER = ["kind", "form", "variants"]
_WORD_KINDS = ("contraction", "numeral", "numeral_joiner")
# beside this module (not `files("tapaco")`: run from a folder holding another `tapaco/`, that
# namespace would be searched first)
_RULES = Path(__file__).with_name("mark_rules")
RULE_LANGUAGES: tuple[str, ...] = tuple(sorted(
    entry.name.removesuffix(".tsv") for entry in _RULES.iterdir() if entry.name.endswith(".tsv")))

# apostrophe look-alikes made "'" before tokenising (ʼ is even a letter to \w)
_APOSTROPHES = str.maketrans(dict.fromkeys("’ʼ‘`´", "'"))
# a word, flagged when an apostrophe precedes it (spaces allowed around it), or one symbol
_TOKEN = regex.compile(r"(?:(')\s?)?(\w+|\p{S})")
_DIGITS = regex.compile(r"\d\W+\d")
_NON_ASCII_DIGIT = regex.compile(r"(?![0-9])\d")
_MULTIPLIERS = (100, 1000, 10**6, 10**9)
#: Sets are marked in chunks of about this many sentences, shared between two processes.
CHUNK_SENTENCES = 20_000
_MAX_VARIANTS = 8  # readings of ambiguous contractions kept per sentence (He's: is / has)
_NUMBER_BREAK = "\x1f"  # between two numbers in a key: "two one" is not "twenty-one"


class Mark(NamedTuple):
    """A marked pair of one set: its sentence ids in file order, the mark and what differs."""

    set_id: int
    first_id: str
    second_id: str
    mark: str
    evidence: str


def _ascii_digit(match: regex.Match) -> str:
    return str(unicodedata.decimal(match.group()))


# A sentence's words (casefolded, ASCII digits, a break between two numbers) with, per word,
# whether an apostrophe preceded it and whether it was capitalised
_Tokens = tuple[list[str], list[bool], list[bool]]
# One reading of a sentence: its words after contractions and number words, and capitals
_Reading = tuple[list[str], list[bool]]
# A sentence's readings, each with the positions where a feature form may start
_Analysis = list[tuple[_Reading, list[int]]]


def _tokens(text: str) -> _Tokens:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    elif "`" in text:
        text = text.replace("`", "'")
    found = _TOKEN.findall(text)
    originals = [token for _, token in found]
    # Tokens hold no space, and casefolding and digits go character by character: one call
    # over the tokens joined by spaces.
    joined = " ".join(originals)
    if not originals:
        words = []
    elif text.isascii():
        words = joined.lower().split(" ")
    else:
        words = _NON_ASCII_DIGIT.sub(_ascii_digit, joined.casefold()).split(" ")
    apostrophes = [bool(apostrophe) for apostrophe, _ in found]
    capitals = [token[0].isupper() for token in originals]
    if _DIGITS.search(text):
        for i in range(len(words) - 1, 0, -1):
            if words[i].isdigit() and words[i - 1].isdigit():
                words.insert(i, _NUMBER_BREAK)
                apostrophes.insert(i, False)
                capitals.insert(i, False)
    return words, apostrophes, capitals


def _words(form: str) -> tuple[str, ...]:
    return tuple(_tokens(form)[0])


def _start(value: int) -> tuple[int, int]:
    return (value, 0) if value >= 1000 else (0, value)


def _extend(number: tuple[int, int], value: int) -> tuple[int, int] | None:
    """`number` (thousands part, rest) read on with `value`, or None when `value` starts a new
    number."""
    total, current = number
    if total + current == 0:
        return None
    if value in _MULTIPLIERS:
        if not 0 < current < value:
            return None
        if value < 1000:
            return total, current * value
        return (total + current * value, 0) if total % (value * 1000) == 0 else None
    base = current or total
    if base > value and base % 10 ** len(str(value)) == 0:
        return total, current + value
    return None


class _Rules:
    """One language's table, compiled for keying sentences."""

    def __init__(self, rows: list[tuple[str, str, list[str]]]) -> None:
        self.exact: dict[tuple[tuple[str, bool], ...], list[tuple[str, ...]]] = {}
        self.suffix: dict[str, list[tuple[str, list[tuple[str, ...]]]]] = {}
        self.numerals: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        self.joiners: set[str] = set()
        feature_rows = []
        for kind, form, variants in rows:
            if kind == "contraction":
                self._contraction(form, variants)
            elif kind == "numeral":
                words = _words(form)
                self.numerals.setdefault(words[0], []).append((words, int(variants[0])))
            elif kind == "numeral_joiner":
                self.joiners.add(form.casefold())
            else:
                feature_rows.append((kind.split(","), [form, *variants]))
        for entries in self.numerals.values():
            entries.sort(key=lambda entry: -len(entry[0]))
        self.contraction_starts = {key[0][0] for key in self.exact}
        self.max_exact = max(map(len, self.exact), default=0)
        self.features = tuple(f for f in FEATURES if any(f in kinds for kinds, _ in feature_rows))
        self.subsets = [subset for size in range(1, len(self.features) + 1)
                        for subset in itertools.combinations(self.features, size)]
        self.labels = [TRIVIAL] + [f"{NEUTRALISATION}:{'+'.join(s)}" for s in self.subsets]
        self.classes = [self._classes(feature_rows, set(subset)) for subset in self.subsets]
        self.feature_starts = {word for classes in self.classes for word in classes}

    def _contraction(self, form: str, variants: list[str]) -> None:
        # "*" (never a word) stands for the host word in the expansions of suffix rules
        expansions = [tuple(word for part in variant.split()
                            for word in (("*",) if part == "*" else _words(part)))
                      for variant in variants]
        if not form.startswith("*"):
            words, apostrophes, _ = _tokens(form)
            self.exact[tuple(zip(words, apostrophes))] = expansions
            return
        # "*n't": the host word ends in "n" and is followed by "t" after an apostrophe
        host_end, _, ending = form[1:].partition("'")
        self.suffix.setdefault(ending.casefold(), []).append((host_end.casefold(), expansions))

    @staticmethod
    def _classes(feature_rows: list[tuple[list[str], list[str]]], subset: set[str]
                 ) -> dict[str, list[tuple[tuple[str, ...], tuple[bool, ...] | None, str]]]:
        """The forms of the features in `subset` by first word, longest first, each with the
        capitals it needs (None: none) and its class (forms linked through shared forms) as a
        placeholder word."""
        parent: dict[tuple, tuple] = {}

        def root(form: tuple) -> tuple:
            while parent.setdefault(form, form) != form:
                form = parent[form]
            return form

        for kinds, forms in feature_rows:
            if subset.intersection(kinds):
                keys = []
                for form in forms:
                    words, _, capitals = _tokens(form)
                    keys.append((tuple(words), tuple(capitals)))
                for key in keys[1:]:
                    parent[root(key)] = root(keys[0])
        class_ids = {form: index for index, form in enumerate(sorted(set(map(root, parent))))}
        by_first: dict[str, list] = {}
        for form in sorted(parent):
            words, capitals = form
            by_first.setdefault(words[0], []).append(
                (words, capitals if any(capitals) else None, f"\x00{class_ids[root(form)]}\x00"))
        for entries in by_first.values():
            entries.sort(key=lambda entry: -len(entry[0]))
        return by_first

    def analyse(self, text: str) -> _Analysis:
        """The sentence's readings: contractions expanded (one reading per choice of an
        ambiguous one, at most `_MAX_VARIANTS`), then number words as digits; with each, the
        positions where a feature form may start."""
        words, apostrophes, capitals = _tokens(text)
        readings = [(words, capitals)]
        if (self.exact or self.suffix) and (any(apostrophes)
                                            or not self.contraction_starts.isdisjoint(words)):
            readings = self._expanded(words, apostrophes, capitals)
        if self.numerals:
            readings = [self._numbers(*reading) if not self.numerals.keys().isdisjoint(reading[0])
                        else reading for reading in readings]
        starts = self.feature_starts
        return [(reading, [i for i, word in enumerate(reading[0]) if word in starts]
                 if not starts.isdisjoint(reading[0]) else []) for reading in readings]

    def key_set(self, analysis: _Analysis, level: int) -> set[str]:
        """The sentence's keys at `level`: 0 trivial, then neutralised for each of
        `self.subsets`. There are several when a contraction is ambiguous or a form can be read
        two ways; none at a neutralised level when the sentence has no form of its features."""
        if level == 0:
            return {"".join(words) for (words, _), _ in analysis}
        return {"".join(words) for reading, hits in analysis if hits
                for words in self._neutralised(reading, hits, level - 1)}

    def _expanded(self, words: list[str], apostrophes: list[bool], capitals: list[bool]
                  ) -> list[_Reading]:
        readings: list[_Reading] = [([], [])]
        i = 0
        while i < len(words):
            length, alternatives = self._contraction_at(words, apostrophes, i)
            if len(alternatives) == 1 or len(readings) * len(alternatives) > _MAX_VARIANTS:
                for done, caps in readings:
                    done.extend(alternatives[0])
                    caps.extend([capitals[i]] + [False] * (len(alternatives[0]) - 1))
            else:
                readings = [(done + list(alt), caps + [capitals[i]] + [False] * (len(alt) - 1))
                            for done, caps in readings for alt in alternatives]
            i += length
        return readings

    def _contraction_at(self, words: list[str], apostrophes: list[bool], i: int
                        ) -> tuple[int, list[tuple[str, ...]]]:
        word = words[i]
        if word in self.contraction_starts:
            for length in range(min(self.max_exact, len(words) - i), 0, -1):
                key = tuple(zip(words[i:i + length], apostrophes[i:i + length]))
                if key in self.exact:
                    return length, self.exact[key]
        if i + 1 < len(words) and apostrophes[i + 1]:
            for host_end, expansions in self.suffix.get(words[i + 1], ()):
                if word.endswith(host_end) and len(word) > len(host_end):
                    stem = word[:len(word) - len(host_end)]
                    return 2, [tuple(stem if part == "*" else part for part in expansion)
                               for expansion in expansions]
        return 1, [(word,)]

    def _numeral_at(self, words: list[str], i: int) -> tuple[int, int] | None:
        for form, value in self.numerals.get(words[i], ()):
            if tuple(words[i:i + len(form)]) == form:
                return len(form), value
        return None

    def _numbers(self, words: list[str], capitals: list[bool]) -> _Reading:
        out_words: list[str] = []
        out_capitals: list[bool] = []

        def emit(word: str, capital: bool) -> None:
            if word.isdigit() and out_words and out_words[-1].isdigit():
                out_words.append(_NUMBER_BREAK)
                out_capitals.append(False)
            out_words.append(word)
            out_capitals.append(capital)

        number = None
        i = 0
        while i < len(words):
            found = self._numeral_at(words, i)
            if found is None and number is not None and words[i] in self.joiners:
                # a joiner only adds: "a hundred and five", not "two and three"
                following = self._numeral_at(words, i + 1) if i + 1 < len(words) else None
                added = (_extend(number, following[1])
                         if following and following[1] not in _MULTIPLIERS else None)
                if added is not None:
                    number = added
                    i += 1 + following[0]
                    continue
            if found is not None:
                length, value = found
                extended = _extend(number, value) if number is not None else None
                if extended is None and number is not None:
                    emit(str(sum(number)), False)
                number = extended or _start(value)
                i += length
                continue
            if number is not None:
                emit(str(sum(number)), False)
                number = None
            emit(words[i], capitals[i])
            i += 1
        if number is not None:
            emit(str(sum(number)), False)
        return out_words, out_capitals

    def _neutralised(self, reading: _Reading, hits: list[int], subset: int
                     ) -> list[list[str]]:
        """The reading's words with the forms of the features of `self.subsets[subset]` (which
        can only start at `hits`) replaced by their classes, one result per way of reading it,
        at most `_MAX_VARIANTS`; none without such forms. Each matching form is a way (Gehen
        Sie: the imperative, or gehen + Sie), and so is leaving the word where only forms of
        several words start (con usted, or con + usted)."""
        words, capitals = reading
        classes = self.classes[subset]
        results = []
        pending: list[tuple[int, list[str], bool]] = [(0, [], False)]
        while pending and len(results) < _MAX_VARIANTS:
            i, out, found = pending.pop()
            for hit in hits:
                if hit < i:
                    continue
                ways = [(hit + len(form), placeholder, True)
                        for form, needs_capital, placeholder in classes.get(words[hit], ())
                        if (len(form) == 1 or tuple(words[hit:hit + len(form)]) == form)
                        and (needs_capital is None or all(
                            capital for capital, needed in
                            zip(capitals[hit:hit + len(form)], needs_capital) if needed))]
                if not ways:
                    continue
                if ways[-1][0] > hit + 1:
                    ways.append((hit + 1, words[hit], found))
                out.extend(words[i:hit])
                pending.extend((end, [*out, word], replaced) for end, word, replaced in ways[1:])
                i, word, found = ways[0]
                out.append(word)
            if found:
                results.append(out + words[i:])
        return results


def _read_table(path: Path) -> list[tuple[str, str, list[str]]]:
    """The rows (kind, form, variants) of a rule table; ValueError names a malformed line."""
    rows = []
    header, *lines = path.read_text(encoding="utf-8").splitlines() or [""]
    if header.split("\t") != TABLE_HEADER:
        raise ValueError(f"{path}:1: expected the header {TABLE_HEADER}")
    for number, line in enumerate(lines, 2):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not fields[1].strip():
            raise ValueError(f"{path}:{number}: expected kind, form and variants")
        kind, form, variants = fields
        variants = [v.strip() for v in variants.split("|")] if variants.strip() else []
        kinds = kind.split(",")
        if kind in _WORD_KINDS:
            expected = {"contraction": len(variants) >= 1,
                        "numeral": len(variants) == 1 and variants[0].isdigit(),
                        "numeral_joiner": not variants}[kind]
        else:
            expected = bool(variants) and all(k in FEATURES for k in kinds)
        if not expected or not all(_words(v) for v in [form, *variants]):
            raise ValueError(f"{path}:{number}: malformed {kind!r} row")
        rows.append((kind, form.strip(), variants))
    return rows


@cache
def _rules(lang: str) -> _Rules:
    if lang not in RULE_LANGUAGES:
        return _Rules([])
    return _Rules(_read_table(_RULES / f"{lang}.tsv"))


def _pair_groups(keys: list[set[str]]) -> set[tuple[int, int]]:
    """Pairs of positions whose key sets share a key."""
    groups: dict[str, list[int]] = {}
    for position, sentence_keys in enumerate(keys):
        for key in sentence_keys:
            groups.setdefault(key, []).append(position)
    return {pair for group in groups.values() if len(group) > 1
            for pair in itertools.combinations(group, 2)}


def _mark_set(rules: _Rules, members: list[tuple[str, str]]) -> dict[tuple[int, int], str]:
    """The marks of a set's pairs of positions: the first level (trivial, then each combination
    of features) at which the two sentences share a key.

    Only the trivial keys and the keys of all features at once (the last level) are computed
    for every sentence: two sentences sharing a key of some combination share one of all
    features (every form of a combination is one of all features, read the same way in both;
    only a sentence with more than `_MAX_VARIANTS` readings could break this). The levels
    between are computed for the sentences of such pairs only."""
    analyses = [rules.analyse(text) for _, text in members]
    last = len(rules.labels) - 1
    found = dict.fromkeys(_pair_groups([rules.key_set(a, 0) for a in analyses]), TRIVIAL)
    if not last:
        return found
    keys: dict[tuple[int, int], set[str]] = {}

    def key_set(position: int, level: int) -> set[str]:
        if (position, level) not in keys:
            keys[position, level] = rules.key_set(analyses[position], level)
        return keys[position, level]

    for pair in _pair_groups([key_set(position, last) for position in range(len(members))]):
        if pair not in found:
            level = next(level for level in range(1, last + 1)
                         if not key_set(pair[0], level).isdisjoint(key_set(pair[1], level)))
            found[pair] = rules.labels[level]
    return found


def mark_language(lang: str, rows: list[Row]) -> list[Mark]:
    """The marked pairs of one language file's rows (all sets of language `lang`), sorted by set
    id, then by the positions of the two sentences in their set (file order)."""
    rules = _rules(lang)
    sets: dict[int, list[tuple[str, str]]] = {}
    for set_id, sentence_id, text, _, _ in rows:
        sets.setdefault(set_id, []).append((sentence_id, text))
    marks = []
    for set_id in sorted(sets):
        members = sets[set_id]
        if len(members) < 2:
            continue
        for (p, q), mark in sorted(_mark_set(rules, members).items()):
            marks.append(Mark(set_id, members[p][0], members[q][0], mark,
                              _evidence(members[p][1], members[q][1])))
    return marks


class _Chunk(NamedTuple):
    """Rows start:end of a language file, whole sets."""

    lang: str
    start: int
    end: int


def _chunks(files: dict[str, list[Row]]) -> list[_Chunk]:
    """Every language file in chunks of whole sets, about CHUNK_SENTENCES rows each, in file
    order (a file whose set ids are not ascending is one chunk: its marks come in set order)."""
    chunks = []
    for lang, rows in files.items():
        set_ids = np.fromiter((row[0] for row in rows), np.int64, len(rows))
        if not (set_ids[1:] >= set_ids[:-1]).all():
            chunks.append(_Chunk(lang, 0, len(rows)))
            continue
        set_starts = np.flatnonzero(np.diff(set_ids, prepend=-1)).tolist() + [len(rows)]
        start = 0
        for set_start in set_starts[1:]:
            if set_start - start >= CHUNK_SENTENCES or set_start == len(rows):
                chunks.append(_Chunk(lang, start, set_start))
                start = set_start
    return chunks


def _marks_from_the_back(claims: FromBothEnds, chunks: list[_Chunk],
                         files: dict[str, list[Row]]) -> dict[int, list[Mark]]:
    return {index: _chunk_marks(chunks[index], files) for index in claims.back()}


def _chunk_marks(chunk: _Chunk, files: dict[str, list[Row]]) -> list[Mark]:
    return mark_language(chunk.lang, files[chunk.lang][chunk.start:chunk.end])


def mark_languages(files: dict[str, list[Row]], parallel: bool = True) -> dict[str, list[Mark]]:
    """:func:`mark_language` of every language file. Chunks of whole sets are claimed from the
    front of the list by this process and from the back by a forked one (`parallel`, where two
    cores are free) until the two meet; the marks are put back in file order, the same either
    way."""
    chunks = _chunks(files)
    claims = FromBothEnds(len(chunks))
    with Forked(_marks_from_the_back, claims, chunks, files,
                parallel=parallel and len(chunks) > 1) as second:
        marks_of = {index: _chunk_marks(chunks[index], files) for index in claims.front()}
        marks_of.update(second.result())
    marks: dict[str, list[Mark]] = {lang: [] for lang in files}
    for index, chunk in enumerate(chunks):
        marks[chunk.lang] += marks_of[index]
    return marks


# a word with the words joined to it by apostrophes (I'm, can 't, Qu' est), or one symbol
_UNIT = regex.compile(r"\w+(?:\s?['’ʼ‘`´]\s?\w+)*|\p{S}")
_SPACE = regex.compile(r"\s+")


class _Layout(NamedTuple):
    """A sentence cut for evidence: the spans of its word units and their compared forms."""

    spans: list[tuple[int, int]]
    compared: list[str]


@lru_cache(maxsize=4096)
def _layout(text: str) -> _Layout:
    matches = list(_UNIT.finditer(text))
    compared = [_SPACE.sub("", unicodedata.normalize("NFKC", m.group())).translate(_APOSTROPHES)
                .casefold() for m in matches]
    return _Layout([m.span() for m in matches], compared)


def _punctuation(text: str, cuts: list[tuple[int, int]]) -> str:
    """The punctuation of `text` outside the spans `cuts` (in order), spaces dropped."""
    kept, end = [], 0
    for cut_start, cut_end in cuts:
        kept.append(text[end:cut_start])
        end = cut_end
    kept.append(text[end:])
    return _SPACE.sub("", unicodedata.normalize("NFKC", "".join(kept)))


# how two forms of one word unit can differ, each with the change that removes the difference
_STEPS = {"case": str.casefold,
          "punctuation": lambda unit: unit.translate(_APOSTROPHES),
          "spacing": lambda unit: _SPACE.sub("", unit),
          "Unicode forms": lambda unit: unicodedata.normalize("NFKC", unit)}


def _needed_steps(first: str, second: str) -> list[str]:
    """The steps without which the two forms of a unit stay different."""
    needed = []
    for name in _STEPS:
        a, b = first, second
        for other, change in _STEPS.items():
            if other != name:
                a, b = change(a), change(b)
        if a != b:
            needed.append(name)
    return needed


def _evidence(first: str, second: str) -> str:
    """What differs between two sentences: the differing word spans (`he/she`, `I'm/I am`, `∅`
    for none) in order, then `case`, `punctuation`, `spacing`, `Unicode forms` for
    differences outside them; `spacing` alone when only the spaces differ."""
    layouts = _layout(first), _layout(second)
    parts: list[str] = []
    flags: set[str] = set()
    # each sentence's word units and differing spans, cut out before comparing punctuation
    cuts: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])

    def span(side: int, start: int, end: int) -> str:
        spans = layouts[side].spans[start:end]
        if not spans:
            return "∅"
        cuts[side].append((spans[0][0], spans[-1][1]))
        return (first, second)[side][spans[0][0]:spans[-1][1]]

    matcher = difflib.SequenceMatcher(None, layouts[0].compared, layouts[1].compared,
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            cuts[0].extend(layouts[0].spans[i1:i2])
            cuts[1].extend(layouts[1].spans[j1:j2])
            for (a1, a2), (b1, b2) in zip(layouts[0].spans[i1:i2], layouts[1].spans[j1:j2]):
                if first[a1:a2] != second[b1:b2]:
                    flags.update(_needed_steps(first[a1:a2], second[b1:b2]))
        elif "".join(layouts[0].compared[i1:i2]) == "".join(layouts[1].compared[j1:j2]):
            span(0, i1, i2)
            span(1, j1, j2)
            flags.add("spacing")
        else:
            parts.append(f"{span(0, i1, i2)}/{span(1, j1, j2)}")
    if _punctuation(first, cuts[0]) != _punctuation(second, cuts[1]):
        flags.add("punctuation")
    if not parts and not flags and first != second:
        flags.add("spacing")
    return "; ".join(parts + [flag for flag in _STEPS if flag in flags])


def marks_text(marks: list[Mark]) -> str:
    """`OUT/marks/<lang>.tsv`: the header line, then one tab-separated line per mark."""
    lines = ["\t".join(HEADER)] + ["\t".join(map(str, mark)) for mark in marks]
    return "\n".join(lines) + "\n"


def marked_share(marks: list[Mark], rows: list[Row]) -> dict:
    """Counts for the statistics: pairs inside sets (n(n-1)/2 per set of n), pairs marked
    trivial, pairs marked neutralisation per feature (or `+`-joined features), pairs marked and
    their share of the pairs."""
    sizes = Counter(row[0] for row in rows)
    pairs = sum(n * (n - 1) // 2 for n in sizes.values())
    labels = Counter(mark.mark for mark in marks)
    features = [label.partition(":")[2] for label in labels if label != TRIVIAL]
    neutralisation = {feature: labels[f"{NEUTRALISATION}:{feature}"]
                      for feature in sorted(features, key=_feature_order)}
    return {"pairs": pairs, "trivial": labels[TRIVIAL], "neutralisation": neutralisation,
            "marked": len(marks), "marked_share": round(len(marks) / pairs, 4) if pairs else 0.0}


def _feature_order(features: str) -> tuple[int, list[int]]:
    names = features.split("+")
    return len(names), [FEATURES.index(name) for name in names]
