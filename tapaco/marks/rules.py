"""The rule tables of `--marks` and the keys they give a sentence: words (casefolded, digits as
ASCII), contractions expanded, number words as digits, and the forms of each feature replaced by
their class (the tables' format is in :mod:`tapaco.marks`)."""

from __future__ import annotations

import itertools
import unicodedata
from functools import cache
from pathlib import Path

import regex

TRIVIAL = "trivial"
NEUTRALISATION = "neutralisation"
FEATURES = ("gender", "politeness", "number")
TABLE_HEADER = ["kind", "form", "variants"]
_WORD_KINDS = ("contraction", "numeral", "numeral_joiner")
# the tables beside this package (not `files("tapaco")`: run from a folder holding another
# `tapaco/`, that namespace would be searched first)
_RULES = Path(__file__).parents[1] / "mark_rules"
RULE_LANGUAGES: tuple[str, ...] = tuple(sorted(
    entry.name.removesuffix(".tsv") for entry in _RULES.iterdir() if entry.name.endswith(".tsv")))

# apostrophe look-alikes made "'" before tokenising (ʼ is even a letter to \w)
_LOOK_ALIKES = "’ʼ‘`´"
APOSTROPHES = str.maketrans(dict.fromkeys(_LOOK_ALIKES, "'"))
# a word, flagged when an apostrophe precedes it (spaces allowed around it), or one symbol
_TOKEN = regex.compile(r"(?:(')\s?)?(\w+|\p{S})")
_WORD_OR_SYMBOL = regex.compile(r"\w+|\p{S}")
_DIGITS = regex.compile(r"\d\W+\d")
_NON_ASCII_DIGIT = regex.compile(r"(?![0-9])\d")
# (two patterns: one of the union is several times slower)
_MAY_CHANGE_IN_NFKC = (regex.compile(r"[^\p{NFKC_QC=Y}]"), regex.compile(r"\P{ccc=0}"))
_MULTIPLIERS = (100, 1000, 10**6, 10**9)
_MAX_VARIANTS = 8  # readings of ambiguous contractions kept per sentence (He's: is / has)
_NUMBER_BREAK = "\x1f"  # between two numbers in a key: "two one" is not "twenty-one"


def _ascii_digit(match: regex.Match) -> str:
    # regex may know digits newer than this Python's Unicode tables: those stay as they are
    digit = match.group()
    value = unicodedata.decimal(digit, None)
    return digit if value is None else str(value)


# A sentence's words (casefolded, ASCII digits, a break between two numbers) with, per word,
# whether an apostrophe preceded it and whether it was capitalised
_Tokens = tuple[list[str], list[bool], list[bool]]
# One reading of a sentence: its words after contractions and number words, and capitals
_Reading = tuple[list[str], list[bool]]
# A sentence's readings, each with the positions where a feature form may start
_Analysis = list[tuple[_Reading, list[int]]]


def normalised(text: str) -> str:
    """`text` in NFKC, apostrophe look-alikes as "'" (lines joined by newlines are normalised
    each alone: nothing composes with a newline)."""
    if text.isascii():
        return text.replace("`", "'") if "`" in text else text
    text = _nfkc(text)
    for look_alike in _LOOK_ALIKES:  # str.translate is far slower on long strings
        text = text.replace(look_alike, "'")
    return text


def _nfkc(text: str) -> str:
    """NFKC of `text`, normalising only its lines that hold a character NFKC may change (a text
    of none, whose characters are all NFKC_QC=Yes and starters, is in NFKC already)."""
    starts = sorted({text.rfind("\n", 0, match.start()) + 1
                     for pattern in _MAY_CHANGE_IN_NFKC for match in pattern.finditer(text)})
    pieces, at = [], 0
    for start in starts:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        pieces += [text[at:start], unicodedata.normalize("NFKC", text[start:end])]
        at = end
    return "".join(pieces) + text[at:]


def folded(text: str, normalised: str) -> str:
    """`text` (a part of `normalised`) casefolded, with Unicode digits as ASCII (character by
    character)."""
    if normalised.isascii():
        return text.lower()
    return _NON_ASCII_DIGIT.sub(_ascii_digit, text.casefold())


def _tokens(text: str, with_capitals: bool = True) -> _Tokens:
    """The sentence's words; `with_capitals` False: every word counted uncapitalised (for
    rules that need no capital)."""
    text = normalised(text)
    if "'" in text:
        found = _TOKEN.findall(text)
        originals = [token for _, token in found]
        apostrophes = [bool(apostrophe) for apostrophe, _ in found]
    else:
        originals = _WORD_OR_SYMBOL.findall(text)
        apostrophes = [False] * len(originals)
    # Tokens hold no space, and casefolding and digits go character by character: one call
    # over the tokens joined by spaces.
    words = folded(" ".join(originals), text).split(" ") if originals else []
    capitals = ([token[0].isupper() for token in originals] if with_capitals
                else [False] * len(originals))
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


class Rules:
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
        self.needs_capitals = any(needs_capital is not None for classes in self.classes
                                  for entries in classes.values()
                                  for _, needs_capital, _ in entries)
        self.contractions = bool(self.exact or self.suffix)
        # a text holding none of these words (and no apostrophe, where there are contractions)
        # has one trivial key, its words as they are; one holding no feature start either has
        # no neutralised key (tapaco.marks.screening)
        self.trivial_starts = self.contraction_starts | self.numerals.keys()

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
        words, apostrophes, capitals = _tokens(text, self.needs_capitals)
        readings = [(words, capitals)]
        if self.contractions and (any(apostrophes)
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


def read_table(path: Path) -> list[tuple[str, str, list[str]]]:
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
def language_rules(lang: str) -> Rules:
    if lang not in RULE_LANGUAGES:
        return Rules([])
    return Rules(read_table(_RULES / f"{lang}.tsv"))
