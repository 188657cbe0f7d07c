#!/usr/bin/env python3
"""Generate a synthetic OPUS OpenSubtitles release, to benchmark the Opusparcus ranking.

Writes one target language and its pivot languages in OPUS's layouts. Moses with ids (always,
unless ``--forms xml``): ``DIR/moses/<l1>-<l2>.txt.zip`` (``l1 < l2``) with members
``OpenSubtitles/OpenSubtitles.<l1>-<l2>.<l1>``, ``.<l2>`` (one raw sentence a line, empty for an
empty side) and ``.ids`` (``<l1doc> TAB <l2doc> TAB <l1 ids> TAB <l2 ids>``, documents
``<lang>/<year>/<imdb>/<file>.xml.gz``, ids ``12`` or ``12 13``). cesAlign (``--forms xml``):
``DIR/xml/<l1>-<l2>.xml.gz`` over tokenised documents ``DIR/xml/<l>.zip`` (members
``OpenSubtitles/xml/<l>/<year>/<imdb>/<file>.xml``, ``<s id="sN">`` of ``<w>`` tokens); both
forms hold the same links, the Moses text being the detokenised ``<w>`` tokens.

The shape follows the real release: movies from 1950-2017 of a few hundred lines each, one
target document per movie shared by all bitexts (each pivot covers ~70 % of the movies), ~3 % of
links not 1:1 (1:2, 2:1, an empty side) and ~2 % misaligned. Sentences express "meanings": 30 %
of lines draw a Zipfian set of frequent short ones ("Yes." / "Yeah." ~ "Ja." / "Ja, ja."), the
rest a long tail of mostly unique 3-15 word sentences over per-language synthetic words; a
meaning has one or a few paraphrases per language, so pivot sentences aligned to several target
paraphrases exist. Generation is numpy-vectorised; the output depends only on the languages,
``--links-per-pivot`` and ``--seed``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from isal import igzip

CORPUS = "OpenSubtitles"
RELEASE_DATE = (2018, 6, 1, 0, 0, 0)  # fixed member dates keep the output byte-identical
FIRST_YEAR, LAST_YEAR = 1950, 2017
COVERAGE = 0.7  # share of the movies a pivot language has subtitles for
MEAN_LINES = 450  # lines per movie (log-normal median)
FREQUENT_SHARE = 0.30  # lines drawn from the frequent short sentences
N_FREQUENT = 2_000  # frequent meanings (the hand-written ones first)
TAIL_SPREAD = 10  # tail meaning ids span this many times the number of lines
N_WORDS = 30_000  # synthetic word vocabulary per language
FREQUENT_WORDS = 300  # frequent sentences use only the most frequent words
ZIPF_BITS = 20  # resolution of the word inverse-CDF tables

ONE_ONE, ONE_TWO, TWO_ONE, ONE_ZERO, ZERO_ONE = range(5)
TARGET_COUNT = np.array([1, 1, 2, 1, 0])  # target sentences per link kind
PIVOT_COUNT = np.array([1, 2, 1, 0, 1])  # pivot sentences per link kind
KIND_SHARES = (0.01, 0.01, 0.005)  # per target line: starts a 2:1, is a 1:2, is a 1:0 link
ZERO_ONE_SHARE = 0.005  # links followed by a pivot-only link
NOISE_SHARE = 0.02  # 1:1 links whose pivot sentence is a random one

PERIOD, QUESTION, EXCLAMATION, ELLIPSIS, COMMA = range(5)
PUNCTUATION = (".", "?", "!", "...", ",")
NAMES = {"latin": ("Sam", "John", "Mary", "Jack", "Anna", "Frank", "Lucy", "Nick"),
         "cyrillic": ("Сэм", "Джон", "Мэри", "Джек", "Анна", "Фрэнк", "Люси", "Ник")}
CYRILLIC = {"ru", "uk", "bg", "be", "mk", "sr"}
LETTERS = {  # (consonants, vowels) of the synthetic words
    "latin": ("bcdfghjklmnprstvwz", "aeiou"),
    "cyrillic": ("бвгджзклмнпрстфхцчшщ", "аеиоуыэюя"),
    "de": ("bcdfghjklmnprstvwzß", "aeiouäöü"),
    "fr": ("bcdfghjlmnprstvçz", "aeiouéèàâ"),
    "fi": ("hjklmnprstv", "aeiouyäö"),
    "sv": ("bdfghjklmnprstv", "aeiouåäö"),
}
FUNCTION_WORDS = {  # the most frequent words, tokenised
    "en": "you I the to a it that and what of me is this in we know don_'t I_'m your it_'s not "
          "be have here get go he on was can with all for there just like right want him come "
          "now they think see my about one so got out up are how can_'t that_'s you_'re we_'ll",
    "de": "ich du das ist nicht die es und der sie zu wir was ein mir ja mich den hier in mit so "
          "dich auf er hast habe bin wie noch",
    "fr": "je de est pas le vous la tu que un il et à a ne les ce en on ça une pour qui me des "
          "moi c'_est j'_ai l' d' qu'",
    "fi": "on ei se ja en mitä että sinä minä hän me te he nyt tämä oli olen olet kun niin mutta "
          "jos vain täällä mikä missä miksi",
    "sv": "jag det du är inte att en och har vi på i för med vad den han så kan här om ska men "
          "var mig dig hon nu till vill",
    "ru": "я не ты что в и это на с он мы вы так как но меня тебя все да нет здесь его она они "
          "было ну мне тебе если только",
}
HAND_SENTENCES = {  # tokenised frequent sentences: meaning by meaning, paraphrases split by |
    "en": """Yes .|Yeah .|Yes , yes .|Yep .
No .|No , no .|Nope .
What ?|What is it ?|Huh ?
Thank you .|Thanks .|Thank you very much .
Okay .|OK .|All right .|Alright .
I don 't know .|I dunno .|Don 't know .
Come on .|C 'mon .|Come on , come on .
Hello .|Hi .|Hey .
Oh .|Oh , my God .|Ah .
I 'm sorry .|Sorry .|Excuse me .
What do you mean ?|What are you talking about ?
Let 's go .|We 're leaving .|Come on , let 's go .
Wait .|Wait a minute .|Hold on .
I love you .|Love you .
Good night .|Night .
Where are you going ?|Where you going ?
Really ?|Seriously ?
Goodbye .|Bye .|See you .
Help !|Help me !|Somebody help !
Shut up !|Be quiet !|Quiet !
What happened ?|What 's going on ?
Are you okay ?|Are you all right ?|You okay ?
Me too .|Same here .
Of course .|Sure .|Certainly .
Go !|Get out !|Go , go , go !""",
    "de": """Ja .|Ja , ja .|Jawohl .
Nein .|Nein , nein .
Was ?|Wie bitte ?
Danke .|Vielen Dank .|Danke schön .
Okay .|In Ordnung .|Gut .
Ich weiß nicht .|Keine Ahnung .
Komm schon .|Los .
Hallo .|Hi .
Oh .|Oh , mein Gott .
Tut mir leid .|Entschuldigung .
Was meinst du ?|Wovon redest du ?
Gehen wir .|Lass uns gehen .
Warte .|Moment mal .|Einen Moment .
Ich liebe dich .
Gute Nacht .
Wohin gehst du ?|Wo gehst du hin ?
Wirklich ?|Echt ?
Auf Wiedersehen .|Tschüss .
Hilfe !|Helft mir !
Halt die Klappe !|Sei still !|Ruhe !
Was ist passiert ?|Was ist los ?
Alles in Ordnung ?|Geht es dir gut ?
Ich auch .
Natürlich .|Klar .|Sicher .
Geh !|Raus !""",
    "fr": """Oui .|Ouais .|Oui , oui .
Non .|Non , non .
Quoi ?|Comment ?
Merci .|Merci beaucoup .
D' accord .|OK .|Bien .
Je sais pas .|Je ne sais pas .
Allez .|Viens .
Bonjour .|Salut .
Oh .|Oh , mon Dieu .
Désolé .|Pardon .|Excusez-moi .
Tu veux dire quoi ?|De quoi tu parles ?
On y va .|Allons-y .
Attends .|Une seconde .|Attendez .
Je t' aime .
Bonne nuit .
Où vas-tu ?|Tu vas où ?
Vraiment ?|Sérieux ?
Au revoir .|Salut .
À l' aide !|Au secours !
Tais-toi !|Silence !
Que s' est-il passé ?|Qu' est-ce qui se passe ?
Ça va ?|Tu vas bien ?
Moi aussi .
Bien sûr .|Évidemment .
Pars !|Sors !""",
    "fi": """Kyllä .|Joo .|Niin .
Ei .|Ei , ei .
Mitä ?|Häh ?
Kiitos .|Kiitos paljon .
Selvä .|Okei .|Hyvä on .
En tiedä .
No niin .|Tule .
Hei .|Moi .
Voi .|Voi luoja .
Anteeksi .|Olen pahoillani .
Mitä tarkoitat ?|Mistä puhut ?
Mennään .
Odota .|Hetkinen .
Rakastan sinua .
Hyvää yötä .
Minne olet menossa ?|Minne menet ?
Oikeasti ?|Todellako ?
Näkemiin .|Hei hei .
Apua !|Auttakaa !
Turpa kiinni !|Ole hiljaa !|Hiljaa !
Mitä tapahtui ?|Mitä on tekeillä ?
Oletko kunnossa ?|Onko kaikki hyvin ?
Niin minäkin .
Tietenkin .|Totta kai .|Toki .
Mene !|Ulos !""",
    "sv": """Ja .|Japp .
Nej .|Nej , nej .
Vad ?|Va ?
Tack .|Tack så mycket .
Okej .|Ok .|Visst .
Jag vet inte .
Kom igen .|Kom .
Hej .|Hallå .
Åh .|Herregud .
Förlåt .|Ursäkta .
Vad menar du ?|Vad pratar du om ?
Vi går .|Kom så går vi .
Vänta .|Vänta lite .
Jag älskar dig .
God natt .
Vart ska du ?
Verkligen ?|Seriöst ?
Hej då .
Hjälp !|Hjälp mig !
Håll käften !|Var tyst !|Tyst !
Vad hände ?|Vad händer ?
Är du okej ?|Mår du bra ?
Jag med .
Självklart .|Visst .|Absolut .
Gå !|Ut !""",
    "ru": """Да .|Ага .|Да , да .
Нет .|Нет , нет .
Что ?|Чего ?
Спасибо .|Большое спасибо .
Хорошо .|Ладно .|Ок .
Я не знаю .|Не знаю .
Давай .|Ну же .
Привет .|Здравствуйте .
Ох .|О боже .
Прости .|Извините .|Простите .
Что ты имеешь в виду ?|О чём ты говоришь ?
Пошли .|Идём .
Подожди .|Минутку .|Постой .
Я тебя люблю .
Спокойной ночи .
Куда ты идёшь ?|Куда ты ?
Правда ?|Серьёзно ?
Пока .|До свидания .
Помогите !|На помощь !
Заткнись !|Тише !|Замолчи !
Что случилось ?|Что происходит ?
Ты в порядке ?|С тобой всё в порядке ?
Я тоже .
Конечно .|Разумеется .
Иди !|Вон !""",
}
DOC_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<document id="{id}">\n'
ALIGN_HEADER = ('<?xml version="1.0" encoding="utf-8"?>\n'
                '<!DOCTYPE cesAlign PUBLIC "-//CES//DTD XML cesAlign//EN" "">\n'
                '<cesAlign version="1.0">\n')


# ---------------------------------------------------------------------------- helpers


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser of a uint64 array."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def hashed(*keys: Any) -> np.ndarray:
    """A uint64 hash of integer keys (arrays broadcast against each other)."""
    h = np.zeros(1, np.uint64)
    for key in keys:
        h = mix(h ^ np.asarray(key).astype(np.uint64))
    return h


def unit(*keys: Any) -> np.ndarray:
    """Uniform [0, 1) floats hashed from integer keys."""
    return (hashed(*keys) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def language_salt(code: str) -> int:
    """A fixed integer per language code."""
    return int.from_bytes(code.encode("utf-8")[:7].ljust(7, b"_"), "little")


def ranks_within(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ..., size-1 for every size, concatenated."""
    ends = np.cumsum(sizes)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - sizes, sizes)


def zipf_table(n: int, exponent: float, offset: float) -> np.ndarray:
    """Inverse CDF of ranks 0..n-1 with p ~ 1 / (rank + offset)^exponent, in 2^ZIPF_BITS steps."""
    cdf = np.cumsum(1.0 / (np.arange(n) + offset) ** exponent)
    quantiles = (np.arange(2**ZIPF_BITS) + 0.5) / 2**ZIPF_BITS * cdf[-1]
    return np.searchsorted(cdf, quantiles).astype(np.int32)


def cap(text: str) -> str:
    """Capitalise the first letter only (keeping ``ß`` rather than ``SS``)."""
    first = text[:1].upper()
    return (first if len(first) == 1 else text[:1]) + text[1:]


def script_of(code: str) -> str:
    """``cyrillic`` or ``latin``: the alphabet of a language's synthetic words."""
    return "cyrillic" if code in CYRILLIC else "latin"


# ---------------------------------------------------------------------------- vocabulary


def glues_left(token: str, code: str) -> bool:
    """Whether a token follows the previous one without a space in raw text."""
    spaced = ("?", "!") if code == "fr" else ()
    return (token in PUNCTUATION and token not in spaced) or (
        token.startswith("'") and len(token) > 1)


def glues_right(token: str) -> bool:
    """Whether the next token follows without a space (French elision ``l'``)."""
    return token.endswith("'") and len(token) > 1


def detokenize(tokens: list[str], code: str) -> str:
    """Raw text of tokens: spaces except before punctuation and clitics, after elisions."""
    out = tokens[0]
    for before, token in zip(tokens, tokens[1:]):
        out += token if glues_left(token, code) or glues_right(before) else " " + token
    return out


def nonbreaking_prefixes(code: str) -> set[str]:
    """Words that sacremoses would not split from a final period (kept out of the words)."""
    try:
        from sacremoses import MosesTokenizer

        prefixes = MosesTokenizer(lang=code).NONBREAKING_PREFIXES
    except Exception:  # a missing list only risks a few unsplit final periods
        return set()
    return {p.split()[0] for p in prefixes if p.strip()}


def synthetic_words(code: str, count: int, rng: np.random.Generator,
                    banned: set[str]) -> list[str]:
    """``count`` distinct pronounceable words, shorter ones first (their Zipf ranks)."""
    consonants, vowels = LETTERS.get(code, LETTERS[script_of(code)])
    onset = np.array([*consonants, "", ""], dtype=object)
    syllable = (onset[:, None] + np.array(list(vowels), dtype=object)[None, :]).ravel()
    n = int(count * 1.6) + 200
    n_syllables = rng.choice([1, 2, 3, 4], size=n, p=[0.15, 0.4, 0.33, 0.12])
    words = syllable[rng.integers(len(syllable), size=n)]
    for k in range(1, 4):
        words = np.where(n_syllables > k, words + syllable[rng.integers(len(syllable), size=n)],
                         words)
    coda = np.array(list(consonants), dtype=object)[rng.integers(len(consonants), size=n)]
    words = np.where(rng.random(n) < 0.3, words + coda, words)
    unique = [w for w in dict.fromkeys(words.tolist())
              if len(w) > 1 and w not in banned and cap(w) not in banned]
    noise = rng.normal(0.0, 1.2, len(unique))
    order = np.argsort(np.array([len(w) for w in unique]) + noise, kind="stable")
    return [unique[i] for i in order[:count]]


@dataclass
class Vocabulary:
    """Token entries of a language, their rendering tables and its frequent sentences."""

    code: str
    salt: int
    entries: list[str]  # tokenised form of each entry (a few hold two tokens: "don 't")
    raw_table: np.ndarray  # (first * 3 + sep) * E + entry; sep 0 "", 1 " ", 2 "\n"
    tok_table: np.ndarray  # (first * 2 + last) * E + entry, followed by " " or "\n"
    glue_left: np.ndarray
    glue_right: np.ndarray
    elides: np.ndarray  # the entry starts with an elision (``j' ai``)
    words: np.ndarray  # entry ids of the words by Zipf rank
    last_rank: np.ndarray  # per rank: the rank used at the end of a sentence (no "Mr." words)
    names: np.ndarray
    hand_tokens: np.ndarray  # entry ids of the hand-written sentences, concatenated
    hand_start: np.ndarray  # per hand-written sentence (+1): its first token
    hand_first: np.ndarray  # per hand meaning: its first sentence
    hand_count: np.ndarray  # per hand meaning: its paraphrases
    all_words: np.ndarray  # Zipf inverse CDF over all words
    top_words: np.ndarray  # the same over the FREQUENT_WORDS most frequent


def hand_sentences(code: str) -> list[list[str]]:
    """Hand-written frequent sentences of a language (tokenised), by meaning."""
    text = HAND_SENTENCES.get(code, "")
    return [line.split("|") for line in text.splitlines() if line.strip()]


def build_vocabulary(code: str, seed: int) -> Vocabulary:
    """Entries (punctuation, names, words, hand-sentence tokens) and tables of a language."""
    salt = language_salt(code)
    rng = np.random.default_rng([seed, 7, salt])
    function = [w.replace("_", " ") for w in FUNCTION_WORDS.get(code, "").split()]
    names = list(NAMES[script_of(code)])
    prefixes = nonbreaking_prefixes(code)
    banned = prefixes | set(function) | {n.lower() for n in names}
    words = list(dict.fromkeys(function + synthetic_words(code, N_WORDS - len(function), rng,
                                                         banned)))
    hand = hand_sentences(code)
    tokens = [t for meaning in hand for sentence in meaning for t in sentence.split()]
    entries = list(dict.fromkeys([*PUNCTUATION, *names, *words, *tokens]))
    index = {entry: i for i, entry in enumerate(entries)}
    sentences = [s.split() for meaning in hand for s in meaning]
    counts = np.array([len(meaning) for meaning in hand], np.int64)
    raw_table, tok_table = render_tables(entries, code)
    return Vocabulary(
        code=code, salt=salt, entries=entries, raw_table=raw_table, tok_table=tok_table,
        glue_left=np.array([glues_left(e.split()[0], code) for e in entries]),
        glue_right=np.array([glues_right(e.split()[-1]) for e in entries]),
        elides=np.array([glues_right(e.split()[0]) for e in entries]),
        words=np.array([index[w] for w in words], np.int32),
        last_rank=safe_last_ranks(words, prefixes),
        names=np.array([index[n] for n in names], np.int32),
        hand_tokens=np.array([index[t] for s in sentences for t in s], np.int32),
        hand_start=np.r_[0, np.cumsum([len(s) for s in sentences])].astype(np.int64),
        hand_first=(np.cumsum(counts) - counts).astype(np.int64), hand_count=counts,
        all_words=zipf_table(len(words), 1.05, 2.7),
        top_words=zipf_table(min(FREQUENT_WORDS, len(words)), 1.0, 2.7),
    )


def safe_last_ranks(words: list[str], prefixes: set[str]) -> np.ndarray:
    """Per word rank, the next rank whose word may end a sentence: not an elision (``l'``) nor
    a word that Moses keeps together with a following period (``I.``, ``Mr.``)."""
    last = [w.split()[-1] for w in words]
    unsafe = np.array([glues_right(t) or t in prefixes or cap(t) in prefixes for t in last])
    position = np.where(unsafe, len(words) - 1, np.arange(len(words)))
    return np.minimum.accumulate(position[::-1])[::-1].astype(np.int32)


def render_tables(entries: list[str], code: str) -> tuple[np.ndarray, np.ndarray]:
    """Every entry in every (capitalised, separator) form, raw and tokenised."""
    raw = [detokenize(e.split(), code) for e in entries]
    raw_table = np.array([form + sep for first in (raw, [cap(r) for r in raw])
                          for sep in ("", " ", "\n") for form in first], dtype=object)
    tok_table = np.array([form + sep for first in (entries, [cap(e) for e in entries])
                          for sep in (" ", "\n") for form in first], dtype=object)
    return raw_table, tok_table


# ---------------------------------------------------------------------------- sentences


def variant_counts(vocab: Vocabulary, meaning: np.ndarray, frequent_max: int,
                   tail_shares: tuple[float, ...]) -> np.ndarray:
    """Paraphrases a meaning has in the language (hand-written, frequent or tail)."""
    u = unit(vocab.salt, meaning, 11)
    counts = 1 + np.searchsorted(np.cumsum(tail_shares), u, side="right")
    counts = np.where(meaning < N_FREQUENT, 1 + (u * frequent_max).astype(np.int64), counts)
    hand = meaning < len(vocab.hand_count)
    counts[hand] = vocab.hand_count[meaning[hand]]
    return counts


def choose_variants(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A paraphrase per occurrence, the first one most often."""
    return (counts * rng.random(len(counts)) ** 1.5).astype(np.int64)


def hand_tokens(vocab: Vocabulary, meaning: np.ndarray,
                variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tokens and token counts of hand-written sentences."""
    sentence = vocab.hand_first[meaning] + np.minimum(variant, vocab.hand_count[meaning] - 1)
    n = np.diff(vocab.hand_start)[sentence]
    return vocab.hand_tokens[np.repeat(vocab.hand_start[sentence], n) + ranks_within(n)], n


@dataclass
class Shape:
    """Per synthetic sentence: words, words before an inner comma (0: none), name (-1: none),
    final punctuation entry."""

    words: np.ndarray
    comma: np.ndarray
    name: np.ndarray
    final: np.ndarray


def sentence_shapes(salt: int, meaning: np.ndarray, variant: np.ndarray) -> Shape:
    """Lengths and decorations; names and punctuation agree across languages."""
    frequent = meaning < N_FREQUENT
    u = [unit(meaning, k) for k in range(5)]
    delta = (unit(salt, meaning, 5) * 3).astype(np.int64) - 1
    tail = np.clip(3 + (13 * u[0] ** 1.8).astype(np.int64) + delta, 3, 15)
    words = np.where(frequent, 1 + (3 * u[0] ** 1.3).astype(np.int64), tail)
    inner = (1 + (words - 2) * unit(salt, meaning, 6)).astype(np.int64)
    comma = np.where(~frequent & (words >= 4) & (u[1] < 0.2), inner, 0)
    name = np.where(~frequent & (u[2] < 0.08), (u[3] * len(NAMES["latin"])).astype(np.int64), -1)
    shares = np.where(frequent[:, None], [0.5, 0.8, 1.0, 1.0], [0.6, 0.85, 0.97, 1.0])
    final = (u[4][:, None] >= shares).sum(axis=1)
    changed = (variant >= 2) & (variant % 2 == 0)
    final = np.where(changed, np.where(final == PERIOD, EXCLAMATION, PERIOD), final)
    return Shape(words, comma, name, final)


def synthetic_tokens(vocab: Vocabulary, meaning: np.ndarray,
                     variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tokens of generated sentences: Zipf words, an inner comma, ``, Name``, punctuation;
    paraphrases (variant > 0) replace one word (two from variant 3)."""
    shape = sentence_shapes(vocab.salt, meaning, variant)
    n = shape.words + (shape.comma > 0) + 2 * (shape.name >= 0) + 1
    sent = np.repeat(np.arange(len(n)), n)
    j = ranks_within(n)
    comma, end = shape.comma[sent], n[sent]
    k = j - ((comma > 0) & (j > comma))
    v = variant[sent]
    key = hashed(vocab.salt, meaning, 12)
    first_swap = (unit(key, variant, 1) * shape.words).astype(np.int64)
    second_swap = (unit(key, variant, 2) * shape.words).astype(np.int64)
    swapped = ((v >= 1) & (k == first_swap[sent])) | ((v >= 3) & (k == second_swap[sent]))
    h = mix(key[sent] ^ (k + 1000 * swapped * v).astype(np.uint64)) >> np.uint64(64 - ZIPF_BITS)
    frequent = meaning[sent] < N_FREQUENT
    rank = np.minimum(np.where(frequent, vocab.top_words[h], vocab.all_words[h]),
                      len(vocab.words) - 1)
    rank = np.where(k == shape.words[sent] - 1, vocab.last_rank[rank], rank)
    tok = vocab.words[rank]
    has_name = shape.name[sent] >= 0
    tok = np.where((comma > 0) & (j == comma), COMMA, tok)
    tok = np.where(has_name & (j == end - 3), COMMA, tok)
    tok = np.where(has_name & (j == end - 2), vocab.names[np.maximum(shape.name[sent], 0)], tok)
    tok = np.where(j == end - 1, shape.final[sent], tok)
    following = np.r_[tok[1:], PERIOD]
    stranded = vocab.glue_right[tok] & (vocab.elides[following] | (following < len(PUNCTUATION)))
    tok[stranded] = vocab.words[vocab.last_rank[rank[stranded]]]
    return tok.astype(np.int32), n


def sentence_tokens(vocab: Vocabulary, meaning: np.ndarray,
                    variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat entry ids and token counts of the sentences (meaning, variant) of a language."""
    hand = meaning < len(vocab.hand_count)
    lengths = np.zeros(len(meaning), np.int64)
    parts = []
    for chosen, build in ((hand, hand_tokens), (~hand, synthetic_tokens)):
        rows = np.flatnonzero(chosen)
        tok, n = build(vocab, meaning[rows], variant[rows])
        lengths[rows] = n
        parts.append((rows, tok, n))
    offsets = np.cumsum(lengths) - lengths
    flat = np.empty(int(lengths.sum()), np.int32)
    for rows, tok, n in parts:
        flat[np.repeat(offsets[rows], n) + ranks_within(n)] = tok
    return flat, lengths


def render(vocab: Vocabulary, tok: np.ndarray, lengths: np.ndarray,
           tokenized: bool = False) -> np.ndarray:
    """The sentences as strings (object array): raw text, or tokens joined by spaces."""
    ends = np.cumsum(lengths)
    first = np.zeros(len(tok), np.int64)
    first[ends - lengths] = 1
    last = np.zeros(len(tok), bool)
    last[ends - 1] = True
    entries = len(vocab.entries)
    if tokenized:
        pieces = vocab.tok_table[(first * 2 + last) * entries + tok]
    else:
        glue = vocab.glue_right[tok] | vocab.glue_left[np.r_[tok[1:], 0]]
        sep = np.where(last, 2, np.where(glue, 0, 1))
        pieces = vocab.raw_table[(first * 3 + sep) * entries + tok]
    texts = "".join(pieces.tolist()).split("\n")
    texts.pop()
    out = np.empty(len(texts), dtype=object)
    out[:] = texts
    return out


def render_keys(vocab: Vocabulary, meaning: np.ndarray, variant: np.ndarray,
                tokenized: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Texts of the distinct (meaning, variant) keys and each input's index into them."""
    keys, inverse = np.unique(meaning * 8 + variant, return_inverse=True)
    tok, lengths = sentence_tokens(vocab, keys // 8, keys % 8)
    return render(vocab, tok, lengths, tokenized), inverse


# ---------------------------------------------------------------------------- movies


@dataclass
class Movies:
    """The movies (one target document each) and the meaning of every target line."""

    year: np.ndarray
    imdb: np.ndarray
    length: np.ndarray  # target lines
    offset: np.ndarray  # first line (global line index)
    rank: np.ndarray  # position in release order (year, imdb)
    meaning: np.ndarray  # per line
    variant: np.ndarray  # per line: the target paraphrase used


def movie_lengths(n_lines: int, rng: np.random.Generator) -> np.ndarray:
    """Log-normal line counts whose sum reaches ``n_lines``."""
    lengths = np.zeros(0, np.int64)
    while lengths.sum() < n_lines:
        more = max(8, int((n_lines - lengths.sum()) / MEAN_LINES * 1.2))
        draw = np.clip(np.rint(rng.lognormal(np.log(MEAN_LINES), 0.5, more)), 60, 3000)
        lengths = np.concatenate([lengths, draw.astype(np.int64)])
    return lengths[: np.searchsorted(np.cumsum(lengths), n_lines) + 1]


def tail_meanings(count: int, n_lines: int, rng: np.random.Generator) -> np.ndarray:
    """Long-tail meanings: mostly unique, with a skew towards small ids (recurring lines)."""
    return N_FREQUENT + (TAIL_SPREAD * n_lines * rng.random(count) ** 2).astype(np.int64)


def frequent_meanings(count: int, rng: np.random.Generator) -> np.ndarray:
    """Zipf-distributed frequent meanings (rank 0: "Yes.")."""
    cdf = np.cumsum(1.0 / np.arange(1, N_FREQUENT + 1))
    return np.searchsorted(cdf, rng.random(count) * cdf[-1]).astype(np.int64)


def plan_movies(links_per_pivot: int, target: Vocabulary, seed: int) -> Movies:
    """Movies enough for every pivot to cover ~COVERAGE of them, and their lines."""
    rng = np.random.default_rng([seed, 0])
    length = movie_lengths(int(links_per_pivot * 1.03 / COVERAGE) + 1000, rng)
    n = len(length)
    years = np.arange(FIRST_YEAR, LAST_YEAR + 1)
    weights = np.exp((years - FIRST_YEAR) / 18.0)
    year = rng.choice(years, size=n, p=weights / weights.sum())
    imdb = rng.choice(9_000_000, size=n, replace=False) + 10_000
    order = np.lexsort((imdb, year))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    n_lines = int(length.sum())
    frequent = rng.random(n_lines) < FREQUENT_SHARE
    meaning = tail_meanings(n_lines, n_lines, rng)
    meaning[frequent] = frequent_meanings(int(frequent.sum()), rng)
    variant = choose_variants(variant_counts(target, meaning, 4, (0.85, 0.12, 0.03)), rng)
    return Movies(year, imdb, length, np.cumsum(length) - length, rank, meaning, variant)


def file_ids(movies: Movies, code: str, seed: int) -> np.ndarray:
    """OPUS file id of each movie's document in a language."""
    return 1_000_000 + (unit(seed, language_salt(code), movies.imdb) * 6_000_000).astype(np.int64)


def document_paths(movies: Movies, code: str, seed: int) -> np.ndarray:
    """``<lang>/<year>/<imdb>/<file>.xml.gz`` of each movie (object array)."""
    files = file_ids(movies, code, seed)
    return np.array([f"{code}/{y}/{i}/{f}.xml.gz" for y, i, f in zip(
        movies.year.tolist(), movies.imdb.tolist(), files.tolist())], dtype=object)


# ---------------------------------------------------------------------------- bitexts


@dataclass
class Bitext:
    """The links of one target-pivot bitext, in release order, and its pivot sentences."""

    pivot: str
    movie: np.ndarray  # per link
    kind: np.ndarray  # per link: ONE_ONE ... ZERO_ONE
    line: np.ndarray  # per link: first target line (global index; -1 for none)
    pivot_first: np.ndarray  # per link: first pivot sentence (index into the next arrays)
    pivot_number: np.ndarray  # per link: that sentence's number in its document (from 1)
    pivot_meaning: np.ndarray  # per pivot sentence
    pivot_variant: np.ndarray


def chosen_lines(movies: Movies, n_links: int,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(movie, position) of the lines of a random subset of movies holding enough lines."""
    order = rng.permutation(len(movies.length))
    total = np.cumsum(movies.length[order])
    k = min(len(order), int(np.searchsorted(total, n_links * 1.03 + 50)) + 1)
    chosen = order[:k]
    sizes = movies.length[chosen]
    return np.repeat(chosen, sizes), ranks_within(sizes)


def link_kinds(movie: np.ndarray, position: np.ndarray, movies: Movies,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Kind of the link starting at each line, and which lines continue a 2:1 link."""
    u = rng.random(len(movie))
    two_one = (u < KIND_SHARES[0]) & (position < movies.length[movie] - 1)
    two_one &= ~np.r_[False, two_one[:-1]]
    cuts = np.cumsum(KIND_SHARES)
    kind = np.where(two_one, TWO_ONE, ONE_ONE)
    kind = np.where((u >= cuts[0]) & (u < cuts[1]), ONE_TWO, kind)
    kind = np.where((u >= cuts[1]) & (u < cuts[2]), ONE_ZERO, kind)
    return kind, np.r_[False, two_one[:-1]]


def pivot_sentences(bitext_kind: np.ndarray, line: np.ndarray, movies: Movies,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Meaning of every pivot sentence and the first pivot sentence of every link: the
    translation of the target line, a random line for misaligned 1:1 links, a new tail
    sentence for the second half of a 1:2 link and for pivot-only links."""
    count = PIVOT_COUNT[bitext_kind]
    first = np.cumsum(count) - count
    n_lines = len(movies.meaning)
    meaning = tail_meanings(int(count.sum()), n_lines, rng)
    translated = np.flatnonzero((count >= 1) & (bitext_kind != ZERO_ONE))
    source = line[translated]
    noisy = (bitext_kind[translated] == ONE_ONE) & (rng.random(len(translated)) < NOISE_SHARE)
    linked = line[line >= 0]
    source[noisy] = linked[rng.integers(0, len(linked), int(noisy.sum()))]
    meaning[first[translated]] = movies.meaning[source]
    return meaning, first


def plan_bitext(movies: Movies, vocab: Vocabulary, n_links: int, seed: int) -> Bitext:
    """Links of the target-pivot bitext of ``vocab``'s language, ``n_links`` of them."""
    rng = np.random.default_rng([seed, 1, vocab.salt])
    movie, position = chosen_lines(movies, n_links, rng)
    kind, continued = link_kinds(movie, position, movies, rng)
    keep = ~continued
    movie, kind, line = movie[keep], kind[keep], (movies.offset[movie] + position)[keep]
    extra = rng.random(len(kind)) < ZERO_ONE_SHARE
    at = np.repeat(np.arange(len(kind)), 1 + extra)
    second = np.r_[False, at[1:] == at[:-1]]
    movie, kind, line = movie[at], np.where(second, ZERO_ONE, kind[at]), line[at]
    line[second] = -1
    order = np.argsort(movies.rank[movie[:n_links]], kind="stable")
    movie, kind, line = movie[:n_links][order], kind[:n_links][order], line[:n_links][order]
    meaning, first = pivot_sentences(kind, line, movies, rng)
    variant = choose_variants(variant_counts(vocab, meaning, 3, (0.8, 0.17, 0.03)), rng)
    starts = np.flatnonzero(np.r_[True, movie[1:] != movie[:-1]])
    base = np.repeat(first[starts], np.diff(np.r_[starts, len(movie)]))
    return Bitext(vocab.code, movie, kind, line, first, first - base + 1, meaning, variant)


# ---------------------------------------------------------------------------- writing

_STATE: dict = {}


def joined_texts(texts: np.ndarray, first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per link: the text of its 0, 1 or 2 consecutive sentences starting at ``first``."""
    out = np.full(len(first), "", dtype=object)
    one, two = count == 1, count == 2
    out[one] = texts[first[one]]
    out[two] = texts[first[two]] + " " + texts[first[two] + 1]
    return out


def id_fields(number: np.ndarray, count: np.ndarray, prefix: str = "") -> np.ndarray:
    """Per link: ``""``, ``"12"`` or ``"12 13"`` (with ``prefix`` before each number)."""
    top = int(number.max()) + 2 if len(number) else 2
    single = np.array([f"{prefix}{i}" for i in range(top)], dtype=object)
    double = np.array([f"{prefix}{i} {prefix}{i + 1}" for i in range(top)], dtype=object)
    out = np.full(len(number), "", dtype=object)
    for k, table in ((1, single), (2, double)):
        out[count == k] = table[number[count == k]]
    return out


def link_sides(b: Bitext, movies: Movies, prefix: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Target and pivot id fields of every link."""
    target_count, pivot_count = TARGET_COUNT[b.kind], PIVOT_COUNT[b.kind]
    target_number = np.where(b.line >= 0, b.line - movies.offset[b.movie] + 1, 0)
    return (id_fields(target_number, target_count, prefix),
            id_fields(b.pivot_number, pivot_count, prefix))


def ordered(target: str, pivot: str, target_value: Any, pivot_value: Any) -> tuple:
    """(l1, l2, value of l1, value of l2) with l1 < l2."""
    if target < pivot:
        return target, pivot, target_value, pivot_value
    return pivot, target, pivot_value, target_value


def write_member(archive: zipfile.ZipFile, name: str, text: str) -> None:
    """Add a deflated member with a fixed date."""
    member = zipfile.ZipInfo(name, date_time=RELEASE_DATE)
    member.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(member, text.encode("utf-8"), compresslevel=1)


def write_moses(b: Bitext, pivot_texts: np.ndarray, out: Path) -> int:
    """``moses/<l1>-<l2>.txt.zip``; its size."""
    movies, target = _STATE["movies"], _STATE["target"]
    target_text = joined_texts(_STATE["target_texts"], b.line, TARGET_COUNT[b.kind])
    pivot_text = joined_texts(pivot_texts, b.pivot_first, PIVOT_COUNT[b.kind])
    target_ids, pivot_ids = link_sides(b, movies)
    l1, l2, (text1, ids1, docs1), (text2, ids2, docs2) = ordered(
        target.code, b.pivot, (target_text, target_ids, _STATE["target_docs"]),
        (pivot_text, pivot_ids, document_paths(movies, b.pivot, _STATE["seed"])))
    pair = docs1 + "\t" + docs2 + "\t"
    pieces = np.empty(5 * len(b.kind), dtype=object)
    pieces[0::5], pieces[1::5], pieces[2::5] = pair[b.movie], ids1, "\t"
    pieces[3::5], pieces[4::5] = ids2, "\n"
    name = f"{l1}-{l2}"
    path = out / "moses" / f"{name}.txt.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for lang, text in ((l1, text1), (l2, text2)):
            write_member(archive, f"{CORPUS}/{CORPUS}.{name}.{lang}", "\n".join(text.tolist())
                         + "\n")
        write_member(archive, f"{CORPUS}/{CORPUS}.{name}.ids", "".join(pieces.tolist()))
    return path.stat().st_size


def document_xml(file_id: int, sentences: list[str]) -> str:
    """A tokenised OPUS document: ``<s id="sN">`` of ``<w id="wN.K">`` tokens."""
    parts = [DOC_HEADER.format(id=file_id)]
    for i, sentence in enumerate(sentences, 1):
        tokens = sentence.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        words = "".join(f'<w id="w{i}.{k}">{t}</w>' for k, t in enumerate(tokens.split(), 1))
        parts.append(f'<s id="s{i}">{words}</s>\n')
    parts.append("</document>\n")
    return "".join(parts)


def write_documents(path: Path, code: str, movies: Movies, chosen: np.ndarray,
                    sentences_of: Callable[[int], list[str]]) -> int:
    """``xml/<lang>.zip`` with the documents of the chosen movies; its size."""
    files = file_ids(movies, code, _STATE["seed"])
    with zipfile.ZipFile(path, "w") as archive:
        for m in chosen.tolist():
            name = f"{CORPUS}/xml/{code}/{movies.year[m]}/{movies.imdb[m]}/{files[m]}.xml"
            write_member(archive, name, document_xml(int(files[m]), sentences_of(m)))
    return path.stat().st_size


def write_alignment(b: Bitext, out: Path) -> int:
    """``xml/<l1>-<l2>.xml.gz``: one ``<linkGrp>`` per document pair; its size."""
    movies, target = _STATE["movies"], _STATE["target"]
    target_ids, pivot_ids = link_sides(b, movies, prefix="s")
    l1, l2, (ids1, docs1), (ids2, docs2) = ordered(
        target.code, b.pivot, (target_ids, _STATE["target_docs"]),
        (pivot_ids, document_paths(movies, b.pivot, _STATE["seed"])))
    starts = np.flatnonzero(np.r_[True, b.movie[1:] != b.movie[:-1]]).tolist()
    parts = [ALIGN_HEADER]
    for lo, hi in zip(starts, [*starts[1:], len(b.movie)]):
        m = int(b.movie[lo])
        parts.append(f'<linkGrp targType="s" fromDoc="{docs1[m]}" toDoc="{docs2[m]}">\n')
        parts += [f'<link id="SL{k}" xtargets="{a};{z}" />\n' for k, (a, z) in enumerate(
            zip(ids1[lo:hi].tolist(), ids2[lo:hi].tolist()), 1)]
        parts.append("</linkGrp>\n")
    parts.append("</cesAlign>\n")
    path = out / "xml" / f"{l1}-{l2}.xml.gz"
    path.write_bytes(igzip.compress("".join(parts).encode("utf-8"), compresslevel=1, mtime=0))
    return path.stat().st_size


def write_pivot_documents(b: Bitext, vocab: Vocabulary, out: Path) -> int:
    """``xml/<pivot>.zip``: the pivot sentences of each movie in the bitext; its size."""
    texts, inverse = render_keys(vocab, b.pivot_meaning, b.pivot_variant, tokenized=True)
    sentence_texts = texts[inverse]
    starts = np.flatnonzero(np.r_[True, b.movie[1:] != b.movie[:-1]])
    chosen = b.movie[starts]
    ends = np.r_[b.pivot_first[starts[1:]], len(sentence_texts)]
    bounds = dict(zip(chosen.tolist(), zip(b.pivot_first[starts].tolist(), ends.tolist())))
    return write_documents(out / "xml" / f"{b.pivot}.zip", b.pivot, _STATE["movies"], chosen,
                           lambda m: sentence_texts[slice(*bounds[m])].tolist())


# ---------------------------------------------------------------------------- statistics


def bitext_stats(b: Bitext, pivot_codes: np.ndarray) -> dict:
    """1:1 links, distinct pivot sentences, the most frequent pivot sentence and fan-outs."""
    one = b.kind == ONE_ONE
    target = _STATE["target_codes"][b.line[one]]
    pivot = pivot_codes[b.pivot_first[one]]
    frequency = np.bincount(pivot)
    top = int(frequency.argmax())
    pairs = np.unique(pivot.astype(np.int64) << 32 | target)
    fanout = np.bincount((pairs >> 32).astype(np.int64))
    return {"links": len(b.kind), "one_to_one": int(one.sum()),
            "distinct_pivot_sentences": int(np.count_nonzero(frequency)),
            "top_pivot_code": top, "top_pivot_links": int(frequency[top]),
            "top_pivot_fanout": int(fanout[top]), "max_fanout": int(fanout.max())}


def write_bitext(pivot: str) -> dict:
    """Worker: plan, render and write one bitext in the chosen forms; its statistics."""
    movies, out, forms, seed = (_STATE[k] for k in ("movies", "out", "forms", "seed"))
    vocab = build_vocabulary(pivot, seed)
    b = plan_bitext(movies, vocab, _STATE["links_per_pivot"], seed)
    texts, inverse = render_keys(vocab, b.pivot_meaning, b.pivot_variant)
    codes = pd.factorize(texts)[0]
    stats = bitext_stats(b, codes[inverse])
    stats["top_pivot_sentence"] = texts[np.flatnonzero(codes == stats.pop("top_pivot_code"))[0]]
    stats["bytes"] = 0
    if "moses" in forms:
        stats["bytes"] += write_moses(b, texts[inverse], out)
    if "xml" in forms:
        stats["bytes"] += write_alignment(b, out) + write_pivot_documents(b, vocab, out)
    used = np.zeros(len(movies.meaning), bool)
    used[b.line[b.kind == ONE_ONE]] = True
    stats["target_lines_used"] = np.packbits(used)
    stats["split_links"] = np.bincount(movies.year[b.movie] % 10, minlength=10).tolist()
    return stats


def write_target_documents(_: str) -> dict:
    """Worker: ``xml/<target>.zip``, every movie's target document."""
    movies, out, target = _STATE["movies"], _STATE["out"], _STATE["target"]
    texts, inverse = render_keys(target, movies.meaning, movies.variant, tokenized=True)
    line_texts = texts[inverse]
    size = write_documents(out / "xml" / f"{target.code}.zip", target.code, movies,
                           np.argsort(movies.rank), lambda m: line_texts[
                               movies.offset[m]:movies.offset[m] + movies.length[m]].tolist())
    return {"bytes": size}


def run_tasks(function: Callable[[str], dict], tasks: list[str], jobs: int) -> list[dict]:
    """Run writer tasks, in ``jobs`` forked processes when ``jobs > 1``."""
    if jobs <= 1 or len(tasks) <= 1:
        return [function(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
        return pool.map(function, tasks, chunksize=1)


def _task(name: str) -> dict:
    """Worker entry: a pivot's bitext, or the target documents (``"\\0target"``)."""
    return write_target_documents(name) if name == "\0target" else write_bitext(name)


# ---------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="release folder to write")
    parser.add_argument("--lang", default="en", help="target language")
    parser.add_argument("--pivots", default="de,fi,fr,ru,sv", help="comma-separated")
    parser.add_argument("--links-per-pivot", type=int, default=4_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--forms", default="moses", help="moses, xml or moses,xml")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes for writing bitexts")
    args = parser.parse_args(argv)
    args.pivots = [p for p in dict.fromkeys(args.pivots.split(",")) if p and p != args.lang]
    args.forms = {f.strip() for f in args.forms.split(",") if f.strip()}
    if not args.pivots or not args.forms or not args.forms <= {"moses", "xml"}:
        parser.error("need at least one pivot and --forms from moses, xml")
    return args


def generate(out: Path, lang: str, pivots: list[str], links_per_pivot: int, seed: int = 0,
             forms: set[str] | frozenset[str] = frozenset({"moses"}), jobs: int = 1) -> dict:
    """Generate a release into ``out``; return its summary."""
    started = time.perf_counter()
    target = build_vocabulary(lang, seed)
    movies = plan_movies(links_per_pivot, target, seed)
    texts, inverse = render_keys(target, movies.meaning, movies.variant)
    for form in forms:
        (out / form).mkdir(parents=True, exist_ok=True)
    _STATE.update(movies=movies, target=target, target_texts=texts[inverse], out=out,
                  target_codes=pd.factorize(texts)[0][inverse].astype(np.int64), seed=seed,
                  forms=forms, links_per_pivot=links_per_pivot,
                  target_docs=document_paths(movies, lang, seed))
    tasks = sorted(pivots) + (["\0target"] if "xml" in forms else [])
    results = run_tasks(_task, tasks, jobs)
    _STATE.clear()
    return summarize(lang, sorted(pivots), links_per_pivot, seed, forms, movies, texts,
                     inverse, results, time.perf_counter() - started)


def summarize(lang: str, pivots: list[str], links_per_pivot: int, seed: int, forms: set[str],
              movies: Movies, texts: np.ndarray, inverse: np.ndarray, results: list[dict],
              seconds: float) -> dict:
    """The release summary from the workers' statistics."""
    used = np.zeros(len(movies.meaning), bool)
    decades = np.zeros(10, np.int64)
    bitexts = {}
    for pivot, stats in zip(pivots, results):
        used |= np.unpackbits(stats.pop("target_lines_used"))[: len(used)].astype(bool)
        decades += stats.pop("split_links")
        bitexts["-".join(sorted((lang, pivot)))] = stats
    codes = pd.factorize(texts)[0][inverse]
    links = sum(s["links"] for s in bitexts.values())
    return {
        "lang": lang, "pivots": pivots, "links_per_pivot": links_per_pivot, "seed": seed,
        "forms": sorted(forms), "movies": len(movies.length),
        "target_lines": len(movies.meaning), "links": links,
        "one_to_one_links": sum(s["one_to_one"] for s in bitexts.values()),
        "distinct_target_sentences": int(len(np.unique(codes[used]))),
        "split_links": {"train": int(decades.sum() - decades[4] - decades[5]),
                        "dev": int(decades[5]), "test": int(decades[4])},
        "bitexts": bitexts, "bytes": sum(r["bytes"] for r in results),
        "seconds": round(seconds, 2),
    }


def summary_lines(s: dict) -> list[str]:
    """The printed summary."""
    lines = [f"{'bitext':<7} {'links':>11} {'1:1':>7} {'pivot sents':>12} {'fan-out':>8} "
             f"{'max':>6} {'MB':>8}  most frequent pivot sentence (1:1 links)"]
    for name, b in s["bitexts"].items():
        lines.append(f"{name:<7} {b['links']:>11,} {100 * b['one_to_one'] / b['links']:>6.2f}% "
                     f"{b['distinct_pivot_sentences']:>12,} {b['top_pivot_fanout']:>8,} "
                     f"{b['max_fanout']:>6,} {b['bytes'] / 1e6:>8.1f}  "
                     f"{b['top_pivot_sentence']!r} ({b['top_pivot_links']:,})")
    split = s["split_links"]
    lines += [
        f"{s['links']:,} links ({100 * s['one_to_one_links'] / s['links']:.2f} % 1:1) in "
        f"{s['movies']:,} movies, {s['target_lines']:,} {s['lang']} lines, "
        f"{s['distinct_target_sentences']:,} distinct {s['lang']} sentences in 1:1 links",
        f"links by split: train {split['train']:,}, dev {split['dev']:,}, test {split['test']:,}",
        f"{s['bytes'] / 1e6:,.1f} MB ({', '.join(s['forms'])}) in {s['seconds']:.1f} s",
    ]
    return lines


def main(argv: list[str] | None = None) -> None:
    """Generate a release and print its summary."""
    args = parse_args(argv)
    summary = generate(args.out, args.lang, args.pivots, args.links_per_pivot, args.seed,
                       args.forms, args.jobs)
    print("\n".join(summary_lines(summary)))


if __name__ == "__main__":
    main()
