"""tapaco.marks: trivial and neutralisation marks on the pairs of a set.

Expected marks and evidence are worked out by hand from the rule tables; the paper's own
examples (Scherrer 2020, sections 5-6) come first. The grouped fast path is checked against a
brute force over every pair, on the embedded sample's build and on hand-built sets.
"""

from __future__ import annotations

import csv
import itertools
import os
import time
import unicodedata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
import regex
from conftest import SAMPLE

import tapaco.marks.marking as marking
import tapaco.marks.rules as rules_module
from tapaco.core.hashing import hash_range
from tapaco.export import language_rows_table
from tapaco.filters import FilterOptions
from tapaco.marks import (
    FEATURES,
    RULE_LANGUAGES,
    Mark,
    mark_language,
    mark_languages,
    marked_share,
    marks_text,
)
from tapaco.marks.evidence import evidence
from tapaco.marks.rules import language_rules, read_table
from tapaco.marks.screening import (
    FEATURE,
    SYMBOL,
    TRIVIAL,
    WORD,
    code_point_classes,
    line_screen,
    rows_to_mark,
)
from tapaco.pipeline import BuildOptions, build


def marks(lang: str, *texts: str) -> list[tuple[str, str, str, str]]:
    """The marks of one set of `texts` (sentence ids s0, s1...) as (id, id, mark, evidence)."""
    rows = [(1, f"s{i}", text, "", "") for i, text in enumerate(texts)]
    return [(m.first_id, m.second_id, m.mark, m.evidence) for m in mark_language(lang, rows)]


def pair_mark(lang: str, first: str, second: str) -> tuple[str, str] | None:
    found = marks(lang, first, second)
    assert len(found) <= 1
    return found[0][2:] if found else None


# ------------------------------------------------------------------------ the paper's examples

def test_paper_politeness_example_geh_gehen_sie():
    assert marks("de", "Geh!", "Gehen Sie!") == [
        ("s0", "s1", "neutralisation:politeness", "Geh/Gehen Sie")]


def test_paper_gender_example_he_she_is_tired():
    assert marks("en", "He is tired.", "She is tired.") == [
        ("s0", "s1", "neutralisation:gender", "He/She")]


@pytest.mark.parametrize("first, second", [
    ("Does Tom have a plan?", "Does Tom have a piano?"),  # the paper's "incorrect" pair
    ("The food was great in Italy.", "The Italian food was delicious."),  # its "partial" pair
])
def test_paper_incorrect_and_partial_pairs_are_not_marked(first, second):
    assert marks("en", first, second) == []


def test_released_tapaco_heads_mark_only_the_russian_gender_pair(shared_data):
    """The first lines of the released TaPaCo v1.0 files: only Я съел сыр. / Я съела сыр.
    (I ate cheese, said by a man / a woman) is a neutralisation; the rest differ in content
    words (ем / кушаю, yaourt / yoghourt, ate / eat)."""
    found = {}
    for lang in ("en", "de", "fr", "es", "ru"):
        text = (shared_data / "tapaco-v1.0-head" / f"{lang}.txt").read_text(encoding="utf-8")
        # the last line of each file lost its trailing newline and, with it, empty fields
        rows = [(int(f[0]), f[1], f[2], "", "") for f in
                csv.reader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE)]
        found[lang] = mark_language(lang, rows)
    assert found == {"en": [], "de": [], "fr": [], "es": [],
                     "ru": [Mark(1, "4712069", "4712070", "neutralisation:gender",
                                 "съел/съела")]}


# ------------------------------------------------------------------------ one rule at a time

RULE_CASES = [
    # language-independent: case, punctuation, spacing
    ("en", "Hurry up.", "hurry up.", "trivial", "case"),
    ("en", "Hurry up!", "Hurry up.", "trivial", "punctuation"),
    ("en", "I can't go.", "I can 't go .", "trivial", "spacing"),
    ("en", "Go now", "Go  now", "trivial", "spacing"),
    ("en", "I see you every day.", "I see you everyday.", "trivial", "spacing"),
    # contractions
    ("en", "I'm happy.", "I am happy!", "trivial", "I'm/I am; punctuation"),
    ("en", "I can't swim.", "I cannot swim.", "trivial", "can't/cannot"),
    ("en", "I won't go.", "I will not go.", "trivial", "won't/will not"),
    ("en", "I don't know.", "I do not know.", "trivial", "don't/do not"),
    ("en", "It's late.", "It is late.", "trivial", "It's/It is"),
    ("en", "He's gone.", "He has gone.", "trivial", "He's/He has"),
    ("en", "Tom's tired.", "Tom is tired.", "trivial", "Tom's/Tom is"),
    ("en", "I'd like tea.", "I would like tea.", "trivial", "I'd/I would"),
    ("en", "You'd better go.", "You had better go.", "trivial", "You'd/You had"),
    ("en", "We'll see.", "We will see.", "trivial", "We'll/We will"),
    ("en", "They've left.", "They have left.", "trivial", "They've/They have"),
    ("en", "You're late.", "You are late.", "trivial", "You're/You are"),
    ("en", "Let's go.", "Let us go.", "trivial", "Let's/Let us"),
    ("en", "I’m happy.", "I am happy.", "trivial", "I’m/I am"),
    ("de", "Wie geht's?", "Wie geht es?", "trivial", "geht's/geht es"),
    ("de", "Ich bin im Haus.", "Ich bin in dem Haus.", "trivial", "im/in dem"),
    # digits and number words
    ("en", "I have 3 cats.", "I have three cats.", "trivial", "3/three"),
    ("en", "I am 21.", "I am twenty-one.", "trivial", "21/twenty-one"),
    ("en", "I counted 105 sheep.", "I counted one hundred and five sheep.", "trivial",
     "105/one hundred and five"),
    ("en", "I was born in 2020.", "I was born in two thousand twenty.", "trivial",
     "2020/two thousand twenty"),
    ("en", "It weighs 1000 kg.", "It weighs a thousand kg.", "trivial", "1000/a thousand"),
    ("en", "I was born in 20 12.", "I was born in twenty twelve.", "trivial",
     "20 12/twenty twelve"),
    ("de", "Ich habe 3 Katzen.", "Ich habe drei Katzen.", "trivial", "3/drei"),
    ("de", "Er ist 21.", "Er ist einundzwanzig.", "trivial", "21/einundzwanzig"),
    ("fr", "J'ai 21 ans.", "J'ai vingt et un ans.", "trivial", "21/vingt et un"),
    ("fr", "J'ai 97 ans.", "J'ai quatre-vingt-dix-sept ans.", "trivial",
     "97/quatre-vingt-dix-sept"),
    ("fr", "Il y a 200 personnes.", "Il y a deux cents personnes.", "trivial",
     "200/deux cents"),
    ("es", "Tengo 32 años.", "Tengo treinta y dos años.", "trivial", "32/treinta y dos"),
    ("es", "Cuesta 1200 euros.", "Cuesta mil doscientos euros.", "trivial",
     "1200/mil doscientos"),
    ("ru", "Мне 25 лет.", "Мне двадцать пять лет.", "trivial", "25/двадцать пять"),
    ("ru", "Я видел 2 собаки.", "Я видел две собаки.", "trivial", "2/две"),
    # gender
    ("en", "I saw him.", "I saw her.", "neutralisation:gender", "him/her"),
    ("en", "It is his.", "It is hers.", "neutralisation:gender", "his/hers"),
    ("en", "He hurt himself.", "She hurt herself.", "neutralisation:gender",
     "He/She; himself/herself"),
    ("en", "He's tired.", "She is tired.", "neutralisation:gender", "He's/She is"),
    ("de", "Er ist müde.", "Sie ist müde.", "neutralisation:gender", "Er/Sie"),
    ("de", "Er ist mein Freund.", "Sie ist meine Freundin.", "neutralisation:gender",
     "Er/Sie; mein Freund/meine Freundin"),
    ("fr", "Il est fatigué.", "Elle est fatiguée.", "neutralisation:gender",
     "Il/Elle; fatigué/fatiguée"),
    ("fr", "Je le connais.", "Je la connais.", "neutralisation:gender", "le/la"),
    ("es", "Él está cansado.", "Ella está cansada.", "neutralisation:gender",
     "Él/Ella; cansado/cansada"),
    ("es", "Es mi amigo.", "Es mi amiga.", "neutralisation:gender", "amigo/amiga"),
    ("ru", "Я устал.", "Я устала.", "neutralisation:gender", "устал/устала"),
    ("ru", "Он прав.", "Она права.", "neutralisation:gender", "Он прав/Она права"),
    # politeness
    ("de", "Setz dich!", "Setzen Sie sich!", "neutralisation:politeness",
     "Setz dich/Setzen Sie sich"),
    ("de", "Hast du Zeit?", "Haben Sie Zeit?", "neutralisation:politeness", "Hast du/Haben Sie"),
    ("de", "Gehst du nach Hause?", "Gehen Sie nach Hause?", "neutralisation:politeness",
     "Gehst du/Gehen Sie"),
    ("de", "Ist das dein Buch?", "Ist das Ihr Buch?", "neutralisation:politeness", "dein/Ihr"),
    ("fr", "Tu es prêt ?", "Vous êtes prêt ?", "neutralisation:politeness", "Tu es/Vous êtes"),
    ("fr", "Dépêche-toi !", "Dépêchez-vous !", "neutralisation:politeness",
     "Dépêche-toi/Dépêchez-vous"),
    ("es", "¿Tienes hambre?", "¿Tiene hambre?", "neutralisation:politeness", "Tienes/Tiene"),
    ("es", "Ven aquí.", "Venga aquí.", "neutralisation:politeness", "Ven/Venga"),
    ("es", "Voy contigo.", "Voy con usted.", "neutralisation:politeness", "contigo/con usted"),
    ("ru", "Ты знаешь?", "Вы знаете?", "neutralisation:politeness", "Ты знаешь/Вы знаете"),
    ("ru", "Иди сюда!", "Идите сюда!", "neutralisation:politeness", "Иди/Идите"),
    ("ru", "Ты был прав.", "Вы были правы.", "neutralisation:politeness",
     "Ты был прав/Вы были правы"),
    # number
    ("en", "I am tired.", "We are tired.", "neutralisation:number", "I am/We are"),
    ("en", "I like it.", "I like them.", "neutralisation:number", "it/them"),
    ("en", "This is mine.", "These are ours.", "neutralisation:number",
     "This is mine/These are ours"),
    ("de", "Du bist müde.", "Ihr seid müde.", "neutralisation:number", "Du bist/Ihr seid"),
    ("de", "Geh!", "Geht!", "neutralisation:number", "Geh/Geht"),
    ("fr", "Il est fatigué.", "Ils sont fatigués.", "neutralisation:number",
     "Il est fatigué/Ils sont fatigués"),
    ("es", "¿Tiene hambre?", "¿Tienen hambre?", "neutralisation:number", "Tiene/Tienen"),
    ("es", "Voy con usted.", "Voy con ustedes.", "neutralisation:number", "usted/ustedes"),
    ("ru", "Он был прав.", "Они были правы.", "neutralisation:number",
     "Он был прав/Они были правы"),
    ("ru", "Я устал.", "Мы устали.", "neutralisation:number", "Я устал/Мы устали"),
    # two features at once: the smallest combination, features in the order of FEATURES
    ("de", "Gehen Sie!", "Geht!", "neutralisation:politeness+number", "Gehen Sie/Geht"),
    ("fr", "Il est fatigué.", "Elles sont fatiguées.", "neutralisation:gender+number",
     "Il est fatigué/Elles sont fatiguées"),
    ("es", "¿Tienes hambre?", "¿Tienen hambre?", "neutralisation:politeness+number",
     "Tienes/Tienen"),
]


@pytest.mark.parametrize("lang, first, second, mark, evidence", RULE_CASES)
def test_rule(lang, first, second, mark, evidence):
    assert pair_mark(lang, first, second) == (mark, evidence)


# texts where screening all texts at once could go wrong: numbers meeting (a break between
# them), Unicode digits, compatibility forms, combining marks and Hangul jamo at a text's edge
# (they must not compose across texts), case folding that grows (ß), apostrophe look-alikes
# (ʼ is a letter to \w), "`" (a symbol until it is made an apostrophe), symbols, no word at all
SCREENED_TEXTS = ["3 4", "3, 4.", "١٢ ٣", "٣,٤", "1\u00a02", "ﬁ ½ ²", "３匹の猫", "e\u0301",
                  "\u0301x", "가\u1161", "\u1100", "\u1161", "Σ ΣΑΣ!", "Straße", "I`m", "x ’ y",
                  "Iʼm", "can 't", "", " ", "!!", "a\u2028b", "$5 + 6 = 11 €", "Tom's 2nd 3rd",
                  "HE€", "€he", "ＨＥ", "Ｓｉｅ", "ЖЕНА", "İ", "ǅ", "Ⓗⓔ"]


def _screen_reference(rules: rules_module.Rules, text: str) -> tuple[int, int]:
    """A text's plain key hash and what the table may do to it (FEATURE, TRIVIAL bits), from
    its words as the analysis lists them (one text at a time)."""
    words = rules_module._tokens(text)[0]
    key = "".join(word for word in words if word != "\x1f")
    codes = np.frombuffer(key.encode("utf-32-le"), np.uint32)
    trivial = (not rules.trivial_starts.isdisjoint(words)
               or rules.contractions and "'" in rules_module.normalised(text))
    return (hash_range(codes, 0, len(codes)),
            (FEATURE if not rules.feature_starts.isdisjoint(words) else 0)
            | (TRIVIAL if trivial else 0))


@pytest.mark.parametrize("lang", [*RULE_LANGUAGES, "it"])
def test_screening_all_texts_at_once_gives_each_texts_key_and_rewritable_words(lang,
                                                                               shared_data):
    """Each text's plain key hash and whether its words hold a form's first word (or an
    apostrophe, with contractions), screened over all the texts joined and in chunks, against
    the same from its own words; a text without a contraction or a number word has its plain
    key as its one trivial key, and one without any word of the table no other key."""
    rules = language_rules(lang)
    texts = SCREENED_TEXTS + [case[i] for case in RULE_CASES + NEVER_MARKED for i in (1, 2)]
    texts += [line.split("\t")[2] for path in sorted((shared_data / "tapaco-v1.0-head").glob(
        "*.txt")) for line in path.read_text(encoding="utf-8").splitlines()]
    expected = [_screen_reference(rules, text) for text in texts]
    assert any(rewrites for _, rewrites in expected) == (lang != "it")
    for size in (1, 2, 3, len(texts)):
        for start in range(0, len(texts), size):
            chunk = texts[start:start + size]
            keys, rewrites = line_screen(rules, "\n".join(chunk), len(chunk))
            assert list(zip(keys.tolist(), rewrites.tolist())) == expected[start:start + size]
    nfkc = [unicodedata.normalize("NFKC", text).translate(rules_module.APOSTROPHES)
            for text in texts]
    assert rules_module.normalised("\n".join(texts)) == "\n".join(nfkc)
    for text, (_, rewrites) in zip(texts, expected):
        analysis = rules.analyse(text)
        if not rewrites & TRIVIAL:
            assert rules.key_set(analysis, 0) == {"".join(rules_module._tokens(text)[0])}
        if not rewrites:
            assert not any(rules.key_set(analysis, level) for level in range(1, len(rules.labels)))
    assert line_screen(rules, "a\nb", 1) is None  # a text holding a newline


def test_case_folding_keeps_the_class_of_every_code_point():
    """What the screening relies on: a character folded (with Unicode digits as ASCII) is made
    of characters of its own class (word, symbol, other), and only a newline or an apostrophe
    gives one; the table of classes agrees with the regex module's (sampled); every character
    that NFKC may change, alone or beside others, makes its line normalised."""
    classes = code_point_classes()
    word, symbol = regex.compile(r"\w"), regex.compile(r"\p{S}")
    for code in [*range(0x250), *range(0x250, 0x110000, 7)]:
        if not 0xD800 <= code < 0xE000:
            character = chr(code)
            expected = WORD if word.match(character) else SYMBOL if symbol.match(character) else 0
            assert classes[code] == expected, hex(code)
    for code in range(0x110000):
        character = chr(code)
        if not unicodedata.is_normalized("NFKC", character) or unicodedata.combining(character):
            assert any(pattern.match(character) for pattern in rules_module._MAY_CHANGE_IN_NFKC)
        try:
            folded = rules_module.folded(character, "é")
        except ValueError:  # a digit to the regex module that unicodedata does not know
            continue
        if folded != character:
            assert all(classes[ord(f)] == classes[code] for f in folded), hex(code)
            assert "\n" not in folded and "'" not in folded, hex(code)


@pytest.mark.parametrize("lang, first, second, mark, evidence", [
    ("it", "Sono stanco.", "sono stanco!", "trivial", "case; punctuation"),
    ("ar", "عندي ٣ كتب", "عندي 3 كتب", "trivial", "٣/3"),
    ("ja", "３匹の猫", "3匹の猫", "trivial", "Unicode forms"),
])
def test_languages_without_a_table_get_the_language_independent_trivial_rules(
        lang, first, second, mark, evidence):
    assert lang not in RULE_LANGUAGES
    assert pair_mark(lang, first, second) == (mark, evidence)


@pytest.mark.parametrize("lang, first, second", [
    ("it", "Ho tre gatti.", "Ho 3 gatti."),  # no Italian number words
    ("it", "Lui è stanco.", "Lei è stanca."),  # no Italian gender words
    ("en", "I'm happy.", "I'm happy, she said."),
])
def test_what_a_language_has_no_rule_for_is_not_marked(lang, first, second):
    assert pair_mark(lang, first, second) is None


def test_a_digit_newer_than_pythons_unicode_tables_stays_as_it_is():
    # U+10D41 (Garay, Unicode 16) is a digit to regex but unknown to unicodedata.decimal
    assert marks("en", "Room \U00010D41.", "Room \U00010D41!") == [
        ("s0", "s1", "trivial", "punctuation")]
    assert marks("en", "Room \U00010D41.", "Room 1!") == []
    assert marks("en", "Room \u0661.", "Room 1!") == [
        ("s0", "s1", "trivial", "\u0661/1; punctuation")]


# ------------------------------------------------------------------------ never marked

NEVER_MARKED = [
    ("en", "He is tired.", "She is sad."),
    ("en", "I'm happy.", "I am glad."),
    ("en", "He's tired.", "She is sad."),
    ("en", "I have two cats.", "I have three cats."),
    ("en", "I have 2 cats.", "I have three cats."),
    ("en", "I have two one cats.", "I have twenty-one cats."),
    ("en", "I have two and three cats.", "I have five cats."),
    ("en", "I was born in twenty twelve.", "I was born in 32."),
    ("en", "It is 3.5 m long.", "It is 35 m long."),
    ("en", "It costs 5$.", "It costs 5€."),
    ("en", "This is mine.", "That is mine."),
    ("en", "I'd like tea.", "I'd like coffee."),
    ("en", "He walks.", "She runs."),
    ("de", "Geh!", "Komm!"),
    ("de", "Geh!", "Kommen Sie!"),
    ("de", "Er ist müde.", "Sie ist krank."),
    ("de", "Hast du Zeit?", "Haben Sie Geld?"),
    ("de", "Hast du Zeit?", "Haben sie Zeit?"),  # lower-case sie: they, not the polite you
    ("de", "Ich bin im Haus.", "Ich bin in der Schule."),
    ("fr", "Dépêche -toi !", "Pressez -vous !"),  # the embedded sample's set 29
    ("fr", "Es-tu sûr ?", "Êtes-vous prêt ?"),
    ("fr", "Il est fatigué.", "Elle est triste."),
    ("fr", "C'est un parti.", "C'est une partie."),
    ("es", "¿Está segura?", "¿Están cansados?"),
    ("es", "Él está cansado.", "Ella está enferma."),
    ("es", "Volveré pronto.", "Yo regresaré pronto."),
    ("ru", "Я съел сыр.", "Я съела хлеб."),
    ("ru", "Ты прав.", "Вы рады."),
    ("ru", "Иди сюда!", "Идите домой!"),
    ("ru", "Я ем сыр.", "Я кушаю сыр."),
]


@pytest.mark.parametrize("lang, first, second", NEVER_MARKED)
def test_pairs_whose_content_words_differ_are_never_marked(lang, first, second):
    assert pair_mark(lang, first, second) is None


def test_a_content_word_added_to_any_marked_pair_unmarks_it():
    """Every marked pair of test_rule with one more word on one side: a content difference no
    rule may hide."""
    assert len(RULE_CASES) > 60
    for lang, first, second, _, _ in RULE_CASES:
        assert pair_mark(lang, first, second + " zebra") is None, (first, second)
        assert pair_mark(lang, "zebra " + first, second) is None, (first, second)


# ------------------------------------------------------------------------ output and counts

def test_rows_are_sorted_by_set_then_by_position_with_ids_in_file_order():
    rows = [(3, "900", "I'm here.", "", ""), (3, "12", "He is here.", "", ""),
            (3, "50", "I am here.", "", ""), (3, "7", "She is here.", "", ""),
            (8, "5", "Hurry up!", "", ""), (8, "4", "Hurry up.", "", ""),
            (9, "1", "Alone.", "", "")]
    assert mark_language("en", rows) == [
        Mark(3, "900", "50", "trivial", "I'm/I am"),
        Mark(3, "12", "7", "neutralisation:gender", "He/She"),
        Mark(8, "5", "4", "trivial", "punctuation")]


def test_marks_text_is_a_tsv_with_a_header():
    text = marks_text([Mark(3, "900", "50", "trivial", "I'm/I am"),
                       Mark(3, "12", "7", "neutralisation:gender", "He/She")])
    assert text == ("set_id\tsentence_id_1\tsentence_id_2\tmark\tevidence\n"
                    "3\t900\t50\ttrivial\tI'm/I am\n"
                    "3\t12\t7\tneutralisation:gender\tHe/She\n")
    assert marks_text([]) == "set_id\tsentence_id_1\tsentence_id_2\tmark\tevidence\n"


def test_marked_share_counts_pairs_in_sets_and_marks_per_feature():
    set_ids = np.array([1, 1, 1, 2, 2, 5, 5, 5, 5])
    found = [Mark(1, "a", "b", "trivial", ""), Mark(1, "a", "c", "neutralisation:number", ""),
             Mark(2, "d", "e", "neutralisation:gender", ""),
             Mark(5, "f", "g", "neutralisation:gender+number", ""),
             Mark(5, "g", "h", "neutralisation:gender", "")]
    # 3 + 1 + 6 pairs; 5 marked
    assert marked_share(found, set_ids) == {
        "pairs": 10, "trivial": 1,
        "neutralisation": {"gender": 2, "number": 1, "gender+number": 1},
        "marked": 5, "marked_share": 0.5}
    assert marked_share([], np.zeros(0, np.int64)) == {
        "pairs": 0, "trivial": 0, "neutralisation": {}, "marked": 0, "marked_share": 0.0}


# ------------------------------------------------------------------------ fast path = brute force

def brute_force(lang: str, rows: list) -> list[Mark]:
    """Every pair of every set compared: the first level (trivial, then each combination of
    features) at which the two sentences' keys meet."""
    rules = language_rules(lang)
    by_set: dict[int, list] = {}
    for set_id, sentence_id, text, _, _ in rows:
        by_set.setdefault(set_id, []).append((sentence_id, text))
    found = []
    for set_id in sorted(by_set):
        members = by_set[set_id]
        for (id1, text1), (id2, text2) in itertools.combinations(members, 2):
            first, second = rules.analyse(text1), rules.analyse(text2)
            for level, label in enumerate(rules.labels):
                if rules.key_set(first, level) & rules.key_set(second, level):
                    found.append(Mark(set_id, id1, id2, label, evidence(text1, text2)))
                    break
    return found


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tapaco") / "out"
    build(SAMPLE, out, BuildOptions(FilterOptions(min_sets=1)))
    return out


def table_of(rows: list) -> pa.Table:
    """A language file's rows as the build hands them to the marks."""
    columns = list(zip(*rows)) or [()] * 5
    return language_rows_table(pa.array(columns[0], pa.int64()), pa.array(columns[1], pa.string()),
                               pa.array(columns[2], pa.large_string()), list(columns[3]),
                               list(columns[4]))


def read_rows(path: Path) -> list:
    with open(path, encoding="utf-8", newline="") as handle:
        return [(int(r[0]), r[1], r[2], r[3], r[4])
                for r in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)]


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_sample_build_marks_equal_the_brute_force(sample_build, lang):
    rows = read_rows(sample_build / f"{lang}.txt")
    assert len({row[0] for row in rows}) >= 3
    assert mark_language(lang, rows) == brute_force(lang, rows)


@pytest.mark.parametrize("parallel", [True, False])
def test_marks_of_every_language_in_chunks_equal_each_language_alone(sample_build, monkeypatch,
                                                                      parallel):
    files = {path.stem: read_rows(path) for path in sorted(sample_build.glob("*.txt"))}
    files["zz"] = [(set_id, f"{set_id}{side}", text, "", "") for set_id in range(1, 21)
                   for side, text in (("a", f"Tired {set_id}."), ("b", f"tired {set_id}"))]
    by_language = {lang: brute_force(lang, rows) for lang, rows in files.items()}
    assert len(by_language["zz"]) == 20 and sum(map(len, by_language.values())) >= 25
    monkeypatch.setattr(marking, "CHUNK_SENTENCES", 3)  # many chunks, a set never cut
    tables = {lang: table_of(rows) for lang, rows in files.items()}
    chunks = marking._chunks(tables)
    assert len(chunks) > 2 * len(files)
    this_process, chunk_marks = os.getpid(), marking._chunk_marks

    def slow_here(chunk, files):  # the forked process then marks most chunks, from the back
        if os.getpid() == this_process:
            time.sleep(0.02)
        return chunk_marks(chunk, files)

    monkeypatch.setattr(marking, "_chunk_marks", slow_here)
    assert mark_languages(tables, parallel=parallel) == by_language


def test_a_file_whose_sets_are_not_in_order_is_marked_whole(sample_build, monkeypatch):
    rows = read_rows(sample_build / "fr.txt")
    shuffled = rows[len(rows) // 2:] + rows[:len(rows) // 2]
    monkeypatch.setattr(marking, "CHUNK_SENTENCES", 3)
    assert mark_languages({"fr": table_of(shuffled)}) == {"fr": brute_force("fr", shuffled)}


def test_sample_build_marks_by_hand(sample_build):
    """fr set 27 (Es-tu sûr ? in its six forms) and es set 27; nothing else is marked."""
    fr = mark_language("fr", read_rows(sample_build / "fr.txt"))
    assert [m[1:] for m in fr] == [
        ("558534", "558536", "neutralisation:politeness", "Es -tu/Êtes -vous"),
        ("558534", "558538", "neutralisation:gender+number", "Es -tu sûre/Êtes -vous sûrs"),
        ("558534", "1098738", "neutralisation:gender", "sûre/sûr"),
        ("558534", "1098789", "neutralisation:number", "Es -tu sûre/Êtes -vous sûres"),
        ("558536", "558538", "neutralisation:gender+number", "sûre/sûrs"),
        ("558536", "1098738", "neutralisation:gender+politeness", "Êtes -vous sûre/Es -tu sûr"),
        ("558536", "1098789", "neutralisation:number", "sûre/sûres"),
        ("558538", "1098738", "neutralisation:number", "Êtes -vous sûrs/Es -tu sûr"),
        ("558538", "1098789", "neutralisation:gender", "sûrs/sûres"),
        ("1098738", "1098789", "neutralisation:gender+number", "Es -tu sûr/Êtes -vous sûres")]
    assert {m.set_id for m in fr} == {27}
    assert mark_language("es", read_rows(sample_build / "es.txt")) == [
        Mark(27, "895222", "895229", "neutralisation:gender+number", "Está segura/Están seguros")]
    assert mark_language("en", read_rows(sample_build / "en.txt")) == []


@pytest.mark.parametrize("lang", RULE_LANGUAGES)
def test_hand_built_sets_marks_equal_the_brute_force(lang):
    """Each language's examples above in two big sets (all of them; every other one), so that
    sentences of different examples meet too."""
    examples = [case for case in RULE_CASES if case[0] == lang]
    examples += [(*case, None, None) for case in NEVER_MARKED if case[0] == lang]
    rows = [(set_id, f"{set_id}-{i}-{side}", case[1 + side], "", "")
            for set_id in (1, 2) for i, case in enumerate(examples) for side in (0, 1)
            if set_id == 1 or i % 2]
    found = mark_language(lang, rows)
    assert len(found) >= len([case for case in examples if case[3]])
    assert found == brute_force(lang, rows)


@pytest.mark.parametrize("lang", RULE_LANGUAGES)
def test_sets_of_a_few_sentences_marks_equal_the_brute_force(lang):
    """Each example in a set of its own with the first sentence of the next example and a
    sentence of no table word: the screening keeps some rows of a set and leaves out others
    (the filler beside feature forms only), and the marks are the brute force's."""
    examples = [case for case in RULE_CASES + NEVER_MARKED if case[0] == lang]
    rows = [(i, f"{i}-{side}", text, "", "")
            for i, case in enumerate(examples)
            for side, text in enumerate([case[1], case[2], examples[(i + 1) % len(examples)][1],
                                         "Qqq zzz."])]
    table = table_of(rows)
    kept = rows_to_mark(language_rules(lang), table["set_id"].to_numpy(),
                        marking._joined(table["text"]))
    assert 0 < len(kept) < len(rows)
    assert mark_language(lang, rows) == brute_force(lang, rows)


# ------------------------------------------------------------------------ the tables

def test_rule_languages_and_their_features():
    assert RULE_LANGUAGES == ("de", "en", "es", "fr", "ru")
    assert language_rules("en").features == ("gender", "number")
    for lang in ("de", "es", "fr", "ru"):
        assert language_rules(lang).features == FEATURES
    assert language_rules("xx").labels == ["trivial"]


@pytest.mark.parametrize("lang", RULE_LANGUAGES)
def test_feature_forms_are_reachable(lang):
    """No feature form holds a number word or a contraction: those are rewritten before
    features are looked up, so such a form could never match."""
    rules = language_rules(lang)
    numerals = {form[0] for entries in rules.numerals.values() for form, _ in entries
                if len(form) == 1}
    contractions = {key[0][0] for key in rules.exact if len(key) == 1}
    for classes in rules.classes:
        for entries in classes.values():
            for form, _, _ in entries:
                assert numerals.isdisjoint(form) and contractions.isdisjoint(form), form


@pytest.mark.parametrize("content, message", [
    ("# a comment\nkind\tform\tvariants\n", ":1: expected the header"),
    ("kind\tform\n", ":1: expected the header"),
    ("kind\tform\tvariants\n# a comment\nnumeral\ttwelve\tXII\n", ":3: malformed 'numeral'"),
    ("kind\tform\tvariants\ngender\the\t\n", ":2: malformed 'gender' row"),
    ("kind\tform\tvariants\ncase\the\tshe\n", ":2: malformed 'case' row"),
    ("kind\tform\tvariants\n\ngender\the\n", ":3: expected kind, form and variants"),
])
def test_malformed_tables_are_refused_with_their_line(tmp_path, content, message):
    path = tmp_path / "xx.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_table(path)


def test_build_with_marks_writes_them_and_leaves_the_release_files_alone(tmp_path):
    plain = tmp_path / "plain"
    marked = tmp_path / "marked"
    build(SAMPLE, plain, BuildOptions(FilterOptions(min_sets=1)))
    stats = build(SAMPLE, marked, BuildOptions(FilterOptions(min_sets=1), marks=True))
    assert not (plain / "marks").exists()
    for lang in ("en", "es", "fr"):
        assert (plain / f"{lang}.txt").read_bytes() == (marked / f"{lang}.txt").read_bytes()
        rows = list(csv.reader((marked / f"{lang}.txt").open(encoding="utf-8"),
                               delimiter="\t", quoting=csv.QUOTE_NONE))
        sizes = {}
        for row in rows:
            sizes[row[0]] = sizes.get(row[0], 0) + 1
        assert stats["marks"][lang]["pairs"] == sum(n * (n - 1) // 2 for n in sizes.values())
        lines = (marked / "marks" / f"{lang}.tsv").read_text(encoding="utf-8").splitlines()
        assert lines[0] == "set_id\tsentence_id_1\tsentence_id_2\tmark\tevidence"
        assert len(lines) - 1 == stats["marks"][lang]["marked"]
    french = (marked / "marks" / "fr.tsv").read_text(encoding="utf-8")
    # "Es-tu sûre ?" / "Es-tu sûr ?": only the adjective's gender differs
    assert "27\t558534\t1098738\tneutralisation:gender\tsûre/sûr\n" in french
    assert "Marked pairs (--marks)" in (marked / "stats.md").read_text(encoding="utf-8")
    assert "marks" not in stats["options"] or stats["options"]["marks"] is True
    assert "marks" not in (plain / "stats.json").read_text(encoding="utf-8")
