#!/usr/bin/env python3
"""Generate a synthetic OPUS Tatoeba release with a second, independent shape.

The TaPaCo build benchmark runs on two generators, ``generate_tatoeba.py`` and this one, written
separately so that what one generator's assumptions hide, the other shows. This one grows the
corpus the way Tatoeba grew: as a history of contributions, not as planned clusters.

Layout (OPUS's): ``OUT/raw/<l>.zip`` holding one member ``Tatoeba/raw/<l>/tatoeba.xml``
(``<s id="sN" [lists=".."] [tags=".."]>text</s>`` a line, ids ascending; a sentence OPUS split
in two is ``sN.0`` and ``sN.1``), ``OUT/xml/<l1>-<l2>.xml.gz`` cesAlign files (``l1 <= l2``, one
``linkGrp``, ``<link id="SLk" xtargets="ids;ids" overlap=".." />`` sorted by ids) and
``OUT/generated.json``, the summary.

Shape at ``--scale 1``: 7.8M sentences in 400 languages whose sizes follow log-normal quantiles
(English ~1.4M, then ~490k, ~400k; the median language ~2,300; the smallest 5; ``q..`` codes pad
the real ones), 6.6M links in ~8,900 alignment files, 40 of them intra-language (``xx-xx``); the
median file holds ~70 links, ~1,350 fewer than 10, the largest ~235k. History: every language
starts contributing at its own time (English first); a new sentence is an original (a new
meaning) or a translation of an earlier sentence: its target language is English (30-50 %), the
same language (10-12 % in the 40 intra languages) or one of its partner languages (4 for the
smallest, ~170 for English; drawn once by size^0.75, 3x inside one of 12 regions), the target
sentence one of that language's earlier ones drawn by a log-normal "fitness" (popular sentences
attract translations). Every translation links to its target; some also to their target's own
target (triangles, between partner languages) or to a second, unrelated earlier sentence
(bridges, which chain the translation trees into one giant component of ~40 % of the sentences;
~18 % of the sentences stay unlinked). ~0.15 % of link sides carry two ids (``sA sB``), ~0.15 %
of the sentences (all of 8+ words) are split by OPUS (``sN.0 sN.1`` sides).

Texts: a meaning is a stream of Zipf-distributed concepts; a language renders a concept as a
word of its own lexicon (syllables of its script: Latin with per-language letters, Cyrillic,
Arabic, Greek, Hebrew, Georgian, Armenian, Devanagari, Thai, Hangul; Chinese and Japanese
characters without spaces), some languages in reverse order. Translations of one meaning into
one language substitute ~15 % of the words (paraphrases); same-language links are paraphrases
or surface variants (same words, other punctuation, quotes, case or apostrophe); ~1 % of
originals repeat an earlier sentence of their language. Lengths: mostly 3-10 words, a long tail
to 60. ~12 % of sentences have ``lists``/``tags`` attributes; XML escapes (``&amp;``, ``&lt;``,
``&quot;``) appear in texts and attributes.

Planning is numpy-vectorised over per-sentence arrays (no Python object per sentence); texts
come from counter-based hashes and are assembled as bytes in chunks, streamed into the zip
members and gzip files by ``--jobs`` forked workers (scale 1: ~45 s with 2 jobs, ~1.2 GiB peak).
Output depends only on ``--scale`` and ``--seed`` (not on ``--jobs``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import igraph
import numpy as np
from isal import igzip

FULL_SENTENCES = 7_800_000
FULL_LINKS = 6_600_000
N_LANGUAGES = 400
SIZE_SIGMA = 2.1  # spread of the log-normal language sizes
MIN_FULL_SIZE = 3
N_REGIONS = 12
N_TOP = 12  # languages that translate less from English
N_INTRA = 40
TARGET_BETA = 0.75
PARTNERS_BASE, PARTNERS_FACTOR, PARTNERS_POWER = 2.0, 1.16, 0.35
REGION_BOOST = 3.0
BRIDGE_RATE = 0.025  # bridges per primary link
MULTI_SIDE_RATE = 0.0015
SPLIT_RATE = 0.001
DUPLICATE_RATE = 0.012
CONCEPTS = 120_000
CONCEPT_OFFSET = 2.5
CHUNK_SENTENCES = 65_536
CHUNK_LINKS = 262_144
RELEASE_DATE = (2023, 4, 12, 0, 0, 0)

# Language codes, the first ones roughly by decreasing size; padded with q.. (private use).
TOP_CODES = """en ru it tr eo de kab fr pt es hu he ja ber uk pl nl fi cmn mk lt cs mr da
tok sr tlh ia sv el bg ar jbo vi lfn ro la ko be nds fa id hr tt wuu yue ca nb sk bn hi ga is ta
et""".split()
OTHER_CODES = """cy gl sq az ka hy eu lv sl kk ur af th ms tl fo br oc ast ky uz tk mn swh yi ckb
kmr tg ug bs lb fy gd kw gv mt zza pms vec scn nap lmo frr stq gos li wa pcd co sc rm frp lad an
ext mwl lij fur lld csb szl hsb dsb rue ba cv sah udm kv mhr mrj myv mdf os ce av kbd ady krc kum
nog crh gag tyv alt bua xal koi lzh hak gan nan am ti so om ha yo ig zu xh st tn sn rw rn lg ln wo
ff bm ak ee mg ny qu ay gn nah yua tzo oj cho chr lkt nv kl iu moh km lo my si ne pa gu kn ml te
or as sa bho mai sd ps dv bo dz jv su ceb ilo pag war bcl pam hil ch mi sm to fj haw ty mh gil
niu rap tpi bi vo io ie nov avk qya sjn tzl ldn ang enm got grc non fro frm sga orv chu dng arq
ary arz acm apc afb ajp pnb kzj dtp bjn min ban mad bug ace tet kha lus mni grt sat new hrx pdc
gsw bar ksh vls zea hif rom sgs ltg vro liv izh vep krl olo sme sma smn eml rgn egl nrf gcf ht
pap srn jam cbk tvl nau wls yap pau chk pon kos lzz xmf ab kjh kaa chg ota hbo jpa tpw pal bal
brh glk mzn azb lki""".split()

SCRIPT_CODES = {
    "cyrillic": """ru uk be bg mk sr kk ky tg tt ba cv sah udm kv mhr mrj myv mdf os ce av kbd
        ady krc kum nog tyv alt bua xal koi rue orv chu dng ab kjh mn""",
    "arabic": "ar fa ur ps ug ckb sd pnb arq ary arz acm apc afb ajp ota bal brh glk mzn azb lki",
    "hanzi": "cmn yue wuu lzh hak gan",
    "japanese": "ja",
    "hangul": "ko",
    "greek": "el grc",
    "hebrew": "he yi hbo jpa lad",
    "georgian": "ka xmf lzz",
    "armenian": "hy",
    "devanagari": "hi mr ne sa mai bho new",
    "thai": "th",
}
SCRIPT_OF = {code: script for script, codes in SCRIPT_CODES.items() for code in codes.split()}
# (consonants, vowels) of the syllable-built scripts
LETTERS = {
    "latin": ("bcdfghjklmnprstvwz", "aeiou"),
    "cyrillic": ("бвгджзклмнпрстфхцчшщ", "аеиоуыэюяё"),
    "arabic": ("بتثجحخدذرزسشصضطظعغفقكلمنهوي", "اوي"),
    "greek": ("βγδζθκλμνξπρστφχψ", "αεηιουωάέήίόύώ"),
    "hebrew": ("בגדהוזחטיכלמנסעפצקרשת", "אוי"),
    "georgian": ("ბგდვზთკლმნპჟრსტფქღყშჩცძწჭხჯჰ", "აეიოუ"),
    "armenian": ("բգդզթժլխծկհձղճմյնշչպջռսվտրցփքֆ", "աեէըիոու"),
    "devanagari": ("कखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह", "ािीुूेैो"),
    "thai": ("กขคงจฉชซญดตถทธนบปผพฟภมยรลวศษสหอ", "ะาิีึืุูเแโ"),
}
EXTRA_LETTERS = {
    "de": "äöüß", "fr": "éèêàçù", "es": "áéíóúñ", "pt": "ãõçáéê", "tr": "çğışöü",
    "pl": "ąćęłńóśźż", "cs": "čďěňřšťůž", "hu": "áéíóöőúüű", "eo": "ĉĝĥĵŝŭ", "vi": "ăâđêôơư",
    "it": "àèéìòù", "ro": "ăâîșț", "lt": "ąčęėįšųūž", "fi": "äö", "sv": "åäö", "da": "æøå",
    "nb": "æøå", "is": "áðéíóþæö", "kab": "ḍḥɛɣṛṣṭẓ", "ber": "ḍḥɛɣṛṣṭ", "az": "əğıöşüç",
    "uz": "ʻ", "tk": "äçňöşüýž", "hr": "čćšžđ", "sl": "čšž", "lv": "āčēģīķļņšūž", "yo": "ẹọṣ",
    **dict.fromkeys("en nl la id ms tl swh tok jbo ia lfn io ie vo sw".split(), ""),
}
SPARE_LETTERS = "áéíóúàèìòùäëïöüñçšžčřłøåæœ"
CASED = {"latin", "cyrillic", "greek", "armenian"}
UNSPACED = {"hanzi", "japanese", "thai"}
APOSTROPHES = {  # (where, forms): words with apostrophes, left unescaped in the XML text
    "en": ("suffix", ("'s", "n't", "'ll", "'re", "'ve", "'m", "'d")),
    "nl": ("suffix", ("'s", "'t")),
    **{c: ("prefix", ("l'", "d'", "j'", "qu'", "n'", "s'", "c'"))
       for c in "fr it ca oc lb br ga".split()},
    "tlh": ("inside", ("'",)), "uz": ("inside", ("'",)),
}
NUMBERS = ("1", "2", "3", "10", "12", "20", "100", "1,000", "2023", "3.5", "7", "30")
TAG_NAMES = ("proverb", "idiom", "colloquial", "formal", "OK", "@change", "@needs native check",
             "question", "negation", "greeting", "weather", "food", "animals", "family", "time",
             "travel", "health", "sport", "music", "school", "work", "love", "money", "humour",
             "business", "Tom", "Mary", "children's book", "Q&A", "<3", 'the "so" word',
             "phrasal verb", "subjunctive", "passive", "past tense", "imperative", "numbers",
             "colours", "politeness", "saying", "発音", "орфография", "ortografía", "étymologie",
             "4 syllables", "tongue twister", "song lyrics", "Bible", "Esperanto", "linguistics")

# Final punctuation kinds and quote kinds of a sentence.
DOT, QUESTION, EXCLAIM, DOTS, ELLIPSIS, BARE = range(6)
N_PUNCT = 6
N_QUOTES = 7  # 0 none, 1 "..", 2 &quot;..&quot;, 3 “..”, 4 «..», 5 „..“, 6 「..」
# Kinds of own text: the canonical concept stream, a translation, a same-language paraphrase.
CANONICAL, TRANSLATION, PARAPHRASE = range(3)
SUBSTITUTION = np.array([0.0, 0.15, 0.35])

HEADER_DOC = '<?xml version="1.0" encoding="utf-8"?>\n<document id="{l}/tatoeba.xml.gz">\n'
FOOTER_DOC = "</document>\n"
HEADER_ALIGN = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<!DOCTYPE cesAlign PUBLIC "-//CES//DTD XML cesAlign//EN" "">\n'
    '<cesAlign version="1.0">\n'
    '<linkGrp targType="s" fromDoc="{a}/tatoeba.xml.gz" toDoc="{b}/tatoeba.xml.gz" >\n'
)
FOOTER_ALIGN = "</linkGrp>\n</cesAlign>\n"

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1, MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
POW10 = 10 ** np.arange(19, dtype=np.int64)


# ---------------------------------------------------------------------------- hashing


def mix(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser of a uint64 array (a new array)."""
    x = x + GOLDEN
    x ^= x >> np.uint64(30)
    x *= MIX1
    x ^= x >> np.uint64(27)
    x *= MIX2
    x ^= x >> np.uint64(31)
    return x


def hashed(seed: int, stream: int, *keys: np.ndarray | int) -> np.ndarray:
    """A 64-bit hash of (seed, stream, keys...), elementwise over the (broadcast) keys."""
    h = mix(np.array([(seed & 0xFFFFFFFF) << 16 | stream], dtype=np.uint64))
    for key in keys:
        h = mix(h ^ np.asarray(key).astype(np.uint64))
    return h


def unit(h: np.ndarray, part: int = 0) -> np.ndarray:
    """A uniform [0, 1) float from 21 bits (part 0, 1 or 2) of a hash."""
    return ((h >> np.uint64(21 * part)) & np.uint64(0x1FFFFF)).astype(np.float64) / 2.0**21


# ---------------------------------------------------------------------------- languages


@dataclass
class Languages:
    """The languages, by decreasing full-scale size (index 0 is English)."""

    codes: list[str]
    scripts: list[str]
    full_size: np.ndarray
    size: np.ndarray  # at this scale
    start: np.ndarray  # when a language starts contributing (0-0.7)
    region: np.ndarray
    intra: np.ndarray  # bool: has same-language links (an xx-xx file)
    length_ratio: np.ndarray  # words per concept
    reverse: np.ndarray  # bool: renders a meaning's concepts in reverse order
    partners: np.ndarray  # (n, n) bool: languages translated from (English aside)

    def __len__(self) -> int:
        return len(self.codes)


def language_codes() -> list[str]:
    """The 400 codes: real ones (size order for the first), then ``qaa``.. ``qtz``."""
    codes = list(dict.fromkeys(TOP_CODES + OTHER_CODES))
    letters = "abcdefghijklmnopqrstuvwxyz"
    pad = (f"q{a}{b}" for a in letters[:20] for b in letters)
    while len(codes) < N_LANGUAGES:
        codes.append(next(pad))
    return codes[:N_LANGUAGES]


def full_sizes() -> np.ndarray:
    """Full-scale sizes: log-normal quantiles summing to FULL_SENTENCES, largest first."""
    n = N_LANGUAGES
    z = np.array([NormalDist().inv_cdf((n - k - 0.5) / n) for k in range(n)])
    jitter = np.random.default_rng(20230412).normal(0.0, 0.15, n)
    jitter[0] = 0.0
    values = np.sort(np.exp(SIZE_SIGMA * z + jitter))[::-1]
    sizes = np.maximum(np.rint(values / values.sum() * FULL_SENTENCES), MIN_FULL_SIZE)
    sizes[0] += FULL_SENTENCES - sizes.sum()
    return sizes.astype(np.int64)


def plan_languages(scale: float, seed: int) -> Languages:
    """Codes, scripts, sizes and the per-language constants of the history."""
    codes = language_codes()
    n = len(codes)
    full = full_sizes()
    size = np.maximum(np.rint(full * scale), 1).astype(np.int64)
    rank = np.arange(n)
    rng = np.random.default_rng([seed, 1])
    start = np.clip(0.7 * (rank / n) ** 0.5 + rng.normal(0, 0.08, n), 0.0, 0.7)
    start[0] = 0.0
    region = rng.integers(0, N_REGIONS, n)
    intra = rank < N_INTRA - 12
    intra[rng.choice(np.arange(N_INTRA, 160), size=12, replace=False)] = True
    scripts = [SCRIPT_OF.get(c, "latin") for c in codes]
    ratio = rng.uniform(0.8, 1.2, n)
    ratio[[i for i, s in enumerate(scripts) if s in ("hanzi", "japanese")]] *= 1.3
    reverse = rng.random(n) < 0.2
    reverse[[codes.index(c) for c in ("ja", "ko", "tr", "hi")]] = True
    reverse[0] = False
    partners = partner_mask(full, region, rng)
    return Languages(codes, scripts, full, size, start, region, intra, ratio, reverse, partners)


def partner_mask(full_size: np.ndarray, region: np.ndarray,
                 rng: np.random.Generator) -> np.ndarray:
    """Row L: the languages (English aside) whose sentences L's contributors translate, a few
    for a small language, ~150 for the largest; drawn by size^beta, more inside a region."""
    n = len(full_size)
    count = np.minimum(np.rint(PARTNERS_BASE + PARTNERS_FACTOR * full_size**PARTNERS_POWER),
                       n - 2).astype(np.int64)
    weight = full_size.astype(float) ** TARGET_BETA
    mask = np.zeros((n, n), dtype=bool)
    for li in range(n):
        w = weight * np.where(region == region[li], REGION_BOOST, 1.0)
        w[[0, li]] = 0.0
        keys = np.log(rng.random(n)) / np.maximum(w, 1e-300)
        mask[li, np.argpartition(-keys, count[li] - 1)[:count[li]]] = True
    return mask


def target_matrix(langs: Languages) -> np.ndarray:
    """Row L: the probability that a translation into L translates a sentence of language M."""
    n = len(langs)
    rank = np.arange(n)
    weight = langs.full_size.astype(float) ** TARGET_BETA
    other = np.where(langs.partners, weight[None, :], 0.0)
    other /= other.sum(axis=1, keepdims=True)
    english = np.where(rank < N_TOP, 0.30, 0.50)
    english[0] = 0.0
    same = np.where(langs.intra, np.where(rank == 0, 0.12, 0.10), 0.0)
    matrix = other * (1.0 - english - same)[:, None]
    matrix[:, 0] += english
    matrix[rank, rank] += same
    return matrix


def translation_share(langs: Languages) -> np.ndarray:
    """Per language, the share of its sentences that are translations (the rest originals)."""
    rank = np.arange(len(langs))
    share = np.where(rank < N_TOP, 0.70, 0.85)
    share[0] = 0.45
    return share


# ---------------------------------------------------------------------------- history


@dataclass
class Plan:
    """Every decision, per sentence in time order (index = time rank) and per link."""

    langs: Languages
    seed: int
    lang: np.ndarray  # int16
    ids: np.ndarray  # int64, ascending with time
    by_lang: np.ndarray  # time ranks grouped by language (ascending inside one)
    lang_start: np.ndarray  # offsets of each language in by_lang
    root: np.ndarray  # the original whose meaning a sentence carries
    source: np.ndarray  # the sentence whose words it repeats (itself if its own)
    variant: np.ndarray  # CANONICAL / TRANSLATION / PARAPHRASE of its own text
    length: np.ndarray  # words
    punct: np.ndarray
    quote: np.ndarray
    lower: np.ndarray
    typo: np.ndarray
    attr: np.ndarray  # index into the attribute pool (0: none)
    split: np.ndarray  # bool: OPUS split it into sN.0 and sN.1
    link_new: np.ndarray  # the later sentence of each link
    link_old: np.ndarray
    link_kind: np.ndarray  # 0 translation, 1 triangle, 2 bridge
    multi_link: np.ndarray  # links whose newer side holds two ids (sorted)
    multi_partner: np.ndarray  # the second id's sentence


def pick_earlier(sentences: np.ndarray, target_lang: np.ndarray, u: np.ndarray,
                 plan_arrays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """For each sentence (time rank), a sentence of ``target_lang`` written before it, drawn by
    fitness (``u`` uniform); -1 where that language has none yet."""
    by_lang, lang_start, cum_fitness = plan_arrays
    out = np.full(len(sentences), -1, dtype=np.int64)
    order = np.argsort(target_lang, kind="stable")
    bounds = np.searchsorted(target_lang[order], np.arange(len(lang_start)))
    for m in range(len(lang_start) - 1):
        chosen = order[bounds[m]:bounds[m + 1]]
        if not len(chosen):
            continue
        lo, hi = lang_start[m], lang_start[m + 1]
        members, cum = by_lang[lo:hi], cum_fitness[lo:hi]
        before = np.searchsorted(members, sentences[chosen])
        ok = before > 0
        last = np.maximum(before - 1, 0)
        at = np.searchsorted(cum, u[chosen] * cum[last], side="right")
        out[chosen[ok]] = members[np.minimum(at, last)[ok]]
    return out


def draw_languages(sentence_lang: np.ndarray, matrix: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
    """A target language per sentence from its language's row of ``matrix``."""
    out = np.empty(len(sentence_lang), dtype=np.int64)
    order = np.argsort(sentence_lang, kind="stable")
    bounds = np.searchsorted(sentence_lang[order], np.arange(matrix.shape[0] + 1))
    for li in range(matrix.shape[0]):
        chosen = order[bounds[li]:bounds[li + 1]]
        if len(chosen):
            out[chosen] = rng.choice(matrix.shape[0], size=len(chosen), p=matrix[li])
    return out


def resolve(pointer: np.ndarray) -> np.ndarray:
    """Follow pointers to earlier entries until every entry points at a fixed point."""
    while True:
        nxt = pointer[pointer]
        if np.array_equal(nxt, pointer):
            return pointer
        pointer = nxt


def timeline(langs: Languages, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Language per time rank, and the sentence ids (ascending, gappy)."""
    block = np.repeat(np.arange(len(langs), dtype=np.int16), langs.size)
    when = langs.start[block] + (1.0 - langs.start[block]) * rng.random(len(block))
    lang = block[np.argsort(when, kind="stable")]
    del block, when
    gaps = rng.geometric(0.7, len(lang))
    jumps = rng.random(len(lang)) < 0.001
    gaps[jumps] += rng.integers(50, 5_000, int(jumps.sum()))
    return lang, 1_000 + np.cumsum(gaps)


def link_history(lang: np.ndarray, langs: Languages, scale: float,
                 rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Originals, translations and their targets, triangles and bridges."""
    n = len(lang)
    by_lang = np.argsort(lang, kind="stable")
    lang_start = np.searchsorted(lang[by_lang], np.arange(len(langs) + 1))
    fitness = rng.lognormal(0.0, 1.1, n)
    cum = np.cumsum(fitness[by_lang])
    cum -= np.repeat(np.r_[0.0, cum[lang_start[1:-1] - 1]], np.diff(lang_start))
    arrays = (by_lang, lang_start, cum)
    matrix = target_matrix(langs)
    translating = np.flatnonzero(rng.random(n) < translation_share(langs)[lang])
    want = draw_languages(lang[translating], matrix, rng)
    target = pick_earlier(translating, want, rng.random(n), arrays)
    missing = target < 0  # nothing written yet in that language: translate English instead
    target[missing] = pick_earlier(translating[missing], np.zeros(int(missing.sum()), np.int64),
                                   rng.random(n), arrays)
    keep = target >= 0
    translating, target = translating[keep], target[keep]
    parent = np.arange(n)
    parent[translating] = target
    root = resolve(parent.copy())
    # bridges: a second, independent earlier sentence
    bridging = translating[rng.random(len(translating)) < BRIDGE_RATE]
    bridge = pick_earlier(bridging, draw_languages(lang[bridging], matrix, rng),
                          rng.random(n), arrays)
    good = (bridge >= 0) & (bridge != parent[bridging])
    good &= (lang[bridge] != lang[bridging]) | langs.intra[lang[bridging]]
    bridging, bridge = bridging[good], bridge[good]
    # triangles: also the target's own target, as many as the link budget leaves
    grand = parent[target]
    allowed = langs.partners | langs.partners.T
    allowed[0, :] = allowed[:, 0] = True
    allowed[np.diag_indices(len(langs))] = langs.intra
    able = (grand != target) & allowed[lang[translating], lang[grand]]
    able &= ~np.isin(translating * n + grand, bridging * n + bridge)
    budget = max(0, round(FULL_LINKS * scale) - len(translating) - len(bridging))
    candidates = np.flatnonzero(able)
    chosen = np.sort(rng.choice(candidates, size=min(budget, len(candidates)), replace=False))
    new = np.concatenate([translating, translating[chosen], bridging])
    old = np.concatenate([target, grand[chosen], bridge])
    kind = np.repeat(np.arange(3, dtype=np.int8), [len(translating), len(chosen), len(bridging)])
    return {"by_lang": by_lang, "lang_start": lang_start, "parent": parent, "root": root,
            "translating": translating, "new": new, "old": old, "kind": kind}


def texts_plan(lang: np.ndarray, langs: Languages, history: dict[str, np.ndarray],
               rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Whose words each sentence repeats, its own-text kind and length."""
    n = len(lang)
    parent, root, translating = history["parent"], history["root"], history["translating"]
    variant = np.full(n, CANONICAL, dtype=np.int8)
    variant[translating] = TRANSLATION
    source = np.arange(n)
    same = translating[lang[parent[translating]] == lang[translating]]
    copies = same[rng.random(len(same)) < 0.5]  # surface variants of their target
    variant[same] = PARAPHRASE
    source[copies] = parent[copies]
    # a few originals repeat an earlier sentence of their language (another meaning)
    by_lang, lang_start = history["by_lang"], history["lang_start"]
    originals = np.flatnonzero(parent == np.arange(n))
    repeat = originals[rng.random(len(originals)) < DUPLICATE_RATE]
    position = np.empty(n, dtype=np.int64)
    position[by_lang] = np.arange(n) - np.repeat(lang_start[:-1], np.diff(lang_start))
    earlier = position[repeat]
    repeat, earlier = repeat[earlier > 0], earlier[earlier > 0]
    pick = (rng.random(len(repeat)) * earlier).astype(np.int64)
    source[repeat] = by_lang[lang_start[lang[repeat]] + pick]
    source = resolve(source)
    concept_length = concept_lengths(n, rng)
    noise = rng.normal(0.0, 0.12, n)
    length = np.rint(concept_length[root] * langs.length_ratio[lang] * (1.0 + noise))
    length = np.clip(length, 1, 60).astype(np.int16)
    length[variant == CANONICAL] = np.clip(
        np.rint(concept_length * langs.length_ratio[lang]), 1, 60)[variant == CANONICAL]
    return {"source": source, "variant": variant, "length": length, "copies": copies,
            "repeat": repeat}


def concept_lengths(n: int, rng: np.random.Generator) -> np.ndarray:
    """Words per meaning: mostly 3-10, some 8-16, a tail to 60, a few of one or two words."""
    mode = rng.choice(4, size=n, p=[0.74, 0.20, 0.045, 0.015])
    centre = np.array([6.0, 11.0, 22.0, 1.5])[mode]
    spread = np.array([0.35, 0.30, 0.35, 0.3])[mode]
    return np.clip(np.rint(centre * np.exp(rng.normal(0.0, 1.0, n) * spread)), 1, 60)


def styles_plan(lang: np.ndarray, langs: Languages, root: np.ndarray, source: np.ndarray,
                copies: np.ndarray, repeat: np.ndarray,
                rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Final punctuation (a meaning's class), quotes, lower case and typographic apostrophes;
    surface variants take their source's style with one change."""
    n = len(lang)
    klass = rng.choice([DOT, QUESTION, EXCLAIM, DOTS, BARE], size=n,
                       p=[0.66, 0.22, 0.07, 0.03, 0.02]).astype(np.int8)
    punct = klass[root]
    dots = punct == DOTS
    punct[dots & (rng.random(n) < 0.4)] = ELLIPSIS
    flip = (rng.random(n) < 0.04) & ((punct == DOT) | (punct == EXCLAIM))
    punct[flip] = np.where(punct[flip] == DOT, EXCLAIM, DOT)
    allowed = np.array([quote_kinds(c, s) for c, s in zip(langs.codes, langs.scripts,
                                                          strict=True)], dtype=np.int8)
    quote = np.where(rng.random(n) < 0.03,
                     allowed[lang, rng.integers(0, allowed.shape[1], n)], 0).astype(np.int8)
    lower = (rng.random(n) < 0.015).astype(np.int8)
    typo = (rng.random(n) < 0.08).astype(np.int8)
    variants = np.concatenate([copies, repeat[rng.random(len(repeat)) < 0.5]])
    src = source[variants]
    punct[variants], quote[variants] = punct[src], quote[src]
    lower[variants], typo[variants] = lower[src], typo[src]
    change = rng.integers(0, 4, len(variants))
    p = punct[variants]
    p = np.select([p == DOT, p == EXCLAIM, p == DOTS, p == ELLIPSIS],
                  [EXCLAIM, DOT, ELLIPSIS, DOTS], p)
    punct[variants] = np.where(change == 0, p, punct[variants])
    q = np.where(quote[variants] > 0, 0, allowed[lang[variants], 0])
    quote[variants] = np.where(change == 1, q, quote[variants])
    typo[variants] ^= (change == 2).astype(np.int8)
    lower[variants] ^= (change == 3).astype(np.int8)
    return {"punct": punct, "quote": quote, "lower": lower, "typo": typo}


def quote_kinds(code: str, script: str) -> tuple[int, int, int]:
    """Three quote kinds a language uses (drawn uniformly; the first also for variants)."""
    if script in ("hanzi", "japanese"):
        return (6, 3, 6)
    if script == "cyrillic":
        return (4, 5, 2)
    if script == "arabic":
        return (4, 1, 4)
    if code in ("de", "cs", "sk", "pl", "hu", "ro", "lt", "bg"):
        return (5, 2, 1)
    if code in ("fr", "ru", "it", "es", "ca", "oc", "br"):
        return (4, 3, 2)
    return (3, 1, 2)


def multi_sides(link_new: np.ndarray, link_old: np.ndarray, lang: np.ndarray, split: np.ndarray,
                by_lang: np.ndarray, lang_start: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Links whose newer side holds a second id: the sentence of its language just before it."""
    n = len(lang)
    picked = np.flatnonzero(rng.random(len(link_new)) < MULTI_SIDE_RATE)
    position = np.empty(n, dtype=np.int64)
    position[by_lang] = np.arange(n)
    at = position[link_new[picked]]
    first = lang_start[lang[link_new[picked]]]
    partner = by_lang[np.maximum(at - 1, 0)]
    ok = (at > first) & ~split[partner] & ~split[link_new[picked]]
    ok &= partner != link_old[picked]
    return picked[ok], partner[ok]


def plan_corpus(scale: float, seed: int) -> Plan:
    """Decide everything about the release (no text yet): a pure function of scale and seed."""
    langs = plan_languages(scale, seed)
    rng = np.random.default_rng([seed, 2])
    lang, ids = timeline(langs, rng)
    history = link_history(lang, langs, scale, rng)
    texts = texts_plan(lang, langs, history, rng)
    styles = styles_plan(lang, langs, history["root"], texts["source"], texts["copies"],
                         texts["repeat"], rng)
    n = len(lang)
    own = texts["source"] == np.arange(n)
    split = own & (texts["length"] >= 8) & (rng.random(n) < SPLIT_RATE * 4)
    split &= ~np.isin(np.arange(n), texts["source"][~own])  # nobody repeats a split sentence
    styles["quote"][split] = 0
    pool = attribute_pool(seed)
    rate = np.where(np.arange(len(langs)) < 20, 0.15, 0.07)[lang]
    attr = np.where(rng.random(n) < rate, zipf_ranks(rng.random(n), len(pool) - 1) + 1, 0)
    new, old = history["new"], history["old"]
    multi_link, multi_partner = multi_sides(new, old, lang, split, history["by_lang"],
                                            history["lang_start"], rng)
    return Plan(langs, seed, lang, ids, history["by_lang"], history["lang_start"],
                history["root"].astype(np.int32), texts["source"].astype(np.int32),
                texts["variant"], texts["length"], styles["punct"], styles["quote"],
                styles["lower"], styles["typo"], attr.astype(np.int32), split, new.astype(np.int32),
                old.astype(np.int32), history["kind"], multi_link, multi_partner.astype(np.int32))


def zipf_ranks(u: np.ndarray, count: int, offset: float = 1.0) -> np.ndarray:
    """Ranks 0..count-1 with probability ~ 1 / (rank + offset), from uniforms ``u``."""
    ranks = offset * ((count + offset) / offset) ** u - offset
    return np.minimum(ranks.astype(np.int64), count - 1)


# ---------------------------------------------------------------------------- vocabulary


def syllable_inventory(code: str, script: str, rng: np.random.Generator) -> list[str]:
    """The syllables words of a language are built from."""
    if script == "hanzi":
        return [chr(0x4E00 + int(i)) for i in rng.choice(0x51A5, 3000, replace=False)]
    if script == "japanese":
        kanji = [chr(0x4E00 + int(i)) for i in rng.choice(0x51A5, 1800, replace=False)]
        return kanji + [chr(c) for c in range(0x3041, 0x3094)] * 4
    if script == "hangul":
        return [chr(0xAC00 + int(i)) for i in rng.choice(11172, 1200, replace=False)]
    consonants, vowels = LETTERS[script]
    if script == "latin":
        extra = EXTRA_LETTERS.get(code)
        if extra is None:
            extra = "".join(rng.choice(list(SPARE_LETTERS), size=int(rng.integers(0, 4)),
                                       replace=False))
        vowels += "".join(c for c in extra if c in "áéíóúàèìòùäëïöüâêîôûãõőűůěėęąīūāēøåæœơư")
        consonants += "".join(c for c in extra if c not in vowels)
    onsets = list(consonants) + ["", ""]
    codas = ["", "", "", "n", "r", "s", "l", "t"] if script == "latin" else [""]
    return [o + v + c for o in onsets for v in vowels for c in codas]


def build_lexicon(li: int, code: str, script: str, size: int, seed: int) -> list[str]:
    """Language ``li``'s words, most frequent (shortest) first, XML-escaped."""
    rng = np.random.default_rng([seed, 7, li])
    inventory = np.array(syllable_inventory(code, script, rng), dtype=object)
    count = int(size * 1.5) + 100
    weights = [0.3, 0.45, 0.2, 0.05] if script in ("hanzi", "hangul", "japanese") else \
        [0.2, 0.4, 0.28, 0.12]
    syllables = rng.choice(4, size=count, p=weights) + 1
    words = inventory[rng.integers(len(inventory), size=count)]
    for k in range(1, 4):
        more = inventory[rng.integers(len(inventory), size=count)]
        words = np.where(syllables > k, words + more, words)
    unique = list(dict.fromkeys(words.tolist()))[:size]
    order = np.argsort(np.array([len(w) for w in unique]) + rng.normal(0, 1.2, len(unique)),
                       kind="stable")
    ranked = [unique[i] for i in order]
    return [w.replace("&", "&amp;").replace("<", "&lt;") for w in decorate(code, script, ranked,
                                                                           rng)]


def decorate(code: str, script: str, words: list[str], rng: np.random.Generator) -> list[str]:
    """Apostrophe words, numbers and a few ampersand words at realistic ranks."""
    if code in APOSTROPHES and len(words) > 100:
        where, forms = APOSTROPHES[code]
        for rank in rng.choice(np.arange(15, len(words)), size=len(words) // 25, replace=False):
            w, form = words[rank], forms[int(rank) % len(forms)]
            words[rank] = {"suffix": w + form, "prefix": form + w}.get(where, w[:1] + form + w[1:])
    for rank, number in zip(range(40, len(words), 37), NUMBERS):
        words[rank] = number
    if script == "latin" and len(words) > 2_000:
        words[300], words[1_700] = "&", "R&D"
    if code == "en" and len(words) > 5_000:
        words[4_321] = "<3"
    return words


def lexicon_size(full_size: int) -> int:
    """Words in a language's lexicon: 400-30,000 by its full-scale size."""
    return int(np.clip(60 * full_size**0.45, 400, 30_000))


def punctuation(script: str) -> list[str]:
    """The six final punctuation pieces (DOT .. BARE) of a script."""
    if script in ("hanzi", "japanese"):
        return ["。", "？", "！", "...", "……", ""]
    question = {"arabic": "؟", "greek": ";"}.get(script, "?")
    dot = {"devanagari": "।", "armenian": "։", "thai": ""}.get(script, ".")
    return [dot, question, "!", "...", "…", ""]


QUOTES = [("", ""), ('"', '"'), ("&quot;", "&quot;"), ("“", "”"), ("«", "»"), ("„", "“"),
          ("「", "」")]


# ---------------------------------------------------------------------------- bytes


@dataclass
class Pieces:
    """Strings as one byte blob: piece k is ``blob[start[k]:start[k] + size[k]]``."""

    blob: np.ndarray
    start: np.ndarray
    size: np.ndarray

    @classmethod
    def of(cls, strings: Iterable[str]) -> Pieces:
        encoded = [s.encode("utf-8") for s in strings]
        size = np.array([len(b) for b in encoded], dtype=np.int64)
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls(blob, np.cumsum(size) - size, size)

    @classmethod
    def decimal(cls, values: np.ndarray, prefix: str = "") -> Pieces:
        """``prefix`` + each value in decimal, built without a Python string per value."""
        v = np.asarray(values, dtype=np.int64)
        digits = 1 + (v[:, None] >= POW10[None, 1:12]).sum(axis=1)
        width = int(digits.max()) if len(v) else 1
        table = (v[:, None] // POW10[width - 1::-1][None, :]) % 10 + 48
        keep = np.arange(width)[None, :] >= (width - digits)[:, None]
        head = np.frombuffer(prefix.encode(), dtype=np.uint8)
        table = np.concatenate([np.broadcast_to(head, (len(v), len(head))), table], axis=1)
        keep = np.concatenate([np.ones((len(v), len(head)), bool), keep], axis=1)
        size = digits + len(head)
        return cls(table[keep].astype(np.uint8), np.cumsum(size) - size, size)

    def __len__(self) -> int:
        return len(self.size)

    def __add__(self, other: Pieces) -> Pieces:
        return Pieces(np.concatenate([self.blob, other.blob]),
                      np.concatenate([self.start, other.start + len(self.blob)]),
                      np.concatenate([self.size, other.size]))

    def join(self, sequence: np.ndarray) -> bytes:
        """The pieces of ``sequence`` (piece numbers) concatenated."""
        size = self.size[sequence]
        end = np.cumsum(size)
        if not len(end):
            return b""
        index = np.repeat(self.start[sequence] - (end - size), size)
        index += np.arange(int(end[-1]))
        return self.blob[index].tobytes()

    def text(self, k: int) -> str:
        """Piece k as a string."""
        return self.blob[self.start[k]:self.start[k] + self.size[k]].tobytes().decode("utf-8")


def attribute_pool(seed: int, size: int = 4_000) -> list[str]:
    """Pieces closing a sentence's start tag: 0 ``">``, the others with ``lists`` (1-3 list
    numbers) and/or ``tags`` (1-3 names, XML-escaped)."""
    rng = np.random.default_rng([seed, 5])
    pool = ['">']
    for _ in range(size - 1):
        kind = rng.random()
        parts = ""
        if kind < 0.8:
            numbers = dict.fromkeys(zipf_ranks(rng.random(int(rng.integers(1, 4))), 9_000) + 1)
            parts += ' lists="' + ";".join(map(str, numbers)) + '"'
        if kind > 0.6:
            names = dict.fromkeys(TAG_NAMES[int(t)] for t in zipf_ranks(
                rng.random(int(rng.integers(1, 4))), len(TAG_NAMES), 2.0))
            value = ";".join(names).replace("&", "&amp;").replace("<", "&lt;")
            parts += ' tags="' + value.replace('"', "&quot;") + '"'
        pool.append('"' + parts + ">")
    return pool


# ---------------------------------------------------------------------------- documents


class DocumentRenderer:
    """Renders the sentences of one language, chunk by chunk, as XML bytes."""

    def __init__(self, plan: Plan, li: int, attr_pool: list[str]) -> None:
        self.plan, self.li = plan, li
        langs = plan.langs
        script = langs.scripts[li]
        self.words = build_lexicon(li, langs.codes[li], script,
                                   lexicon_size(int(langs.full_size[li])), plan.seed)
        self.vocab = len(self.words)
        self.cased = script in CASED
        sep = "" if script in UNSPACED else " "
        comma = {"hanzi": "，", "japanese": "、", "arabic": "، ", "thai": " "}.get(script, ", ")
        strings: list[str] = []
        for cap in (False, True):
            forms = [w[:1].upper() + w[1:] if cap and self.cased else w for w in self.words]
            for typo in (False, True):
                shown = [w.replace("'", "’") for w in forms] if typo else forms
                strings += [w + sep for w in shown] + shown + [w + comma for w in shown]
        self.open = len(strings)
        strings += ['<s id="', "</s>\n"]
        self.punct = len(strings)
        strings += punctuation(script)
        self.quote_open = len(strings)
        strings += [q[0] for q in QUOTES]
        self.quote_close = len(strings)
        strings += [q[1] for q in QUOTES]
        self.attr = len(strings)
        strings += attr_pool
        self.static = Pieces.of(strings)

    def word_pieces(self, source: np.ndarray, length: np.ndarray, own: np.ndarray,
                    split_at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Piece numbers of every word of the chunk, and the word's position in its sentence."""
        plan, seed = self.plan, self.plan.seed
        total = int(length.sum())
        sentence = np.repeat(np.arange(len(length)), length)
        j = np.arange(total) - np.repeat(np.cumsum(length) - length, length)
        src = source[sentence]
        n_words = length[sentence]
        p = np.where(plan.langs.reverse[self.li], n_words - 1 - j, j)
        concept = zipf_ranks(unit(hashed(seed, 11, plan.root[src], p)), CONCEPTS, CONCEPT_OFFSET)
        h = hashed(seed, 12, src, p)
        swap = unit(h, 0) < SUBSTITUTION[plan.variant[src]]
        concept = np.where(swap, zipf_ranks(unit(h, 1), CONCEPTS, CONCEPT_OFFSET), concept)
        word = np.where(concept < self.vocab, concept,
                        (concept * 2_654_435_761 + self.li) % self.vocab)
        last = (j == n_words - 1) | (j == split_at[sentence] - 1)
        comma = (unit(h, 2) < 0.05) & (j > 0)
        tail = np.where(last, 1, np.where(comma, 2, 0))
        cap = (j == 0) & (plan.lower[own][sentence] == 0)
        form = (cap.astype(np.int64) * 2 + plan.typo[own][sentence].astype(np.int64)) * 3 + tail
        return form * self.vocab + word, j

    def render(self, own: np.ndarray) -> bytes:
        """The XML lines of sentences ``own`` (time ranks of this language, ascending)."""
        plan = self.plan
        source = plan.source[own].astype(np.int64)
        length = plan.length[source].astype(np.int64)
        split = plan.split[own]
        split_at = np.where(split, length // 2, -10)
        words, j = self.word_pieces(source, length, own, split_at)
        m = len(own)
        count = length + 7
        base = np.cumsum(count) - count
        ids = Pieces.decimal(plan.ids[own], "s")
        seq = np.empty(int(count.sum()), dtype=np.int64)
        seq[base] = self.open
        seq[base + 1] = len(self.static) + np.arange(m)
        quote = plan.quote[own].astype(np.int64)
        seq[base + 2] = self.attr + plan.attr[own].astype(np.int64)
        seq[base + 3] = self.quote_open + quote
        seq[np.repeat(base + 4, length) + j] = words
        seq[base + 4 + length] = self.punct + plan.punct[own].astype(np.int64)
        seq[base + 5 + length] = self.quote_close + quote
        seq[base + 6 + length] = self.open + 1
        extra: list[str] = []
        for k in np.flatnonzero(split).tolist():
            sid = int(plan.ids[own[k]])
            extra.append(f"s{sid}.0")
            seq[base[k] + 1] = len(self.static) + m + len(extra) - 1
            at = base[k] + 4 + split_at[k] - 1
            extra.append(self.static.text(int(seq[at])) + f'</s>\n<s id="s{sid}.1">')
            seq[at] = len(self.static) + m + len(extra) - 1
        pieces = self.static + ids + Pieces.of(extra) if extra else self.static + ids
        return pieces.join(seq)


# ---------------------------------------------------------------------------- alignments


def side_pieces(plan: Plan, sentences: np.ndarray) -> Pieces:
    """Link sides ``sN`` of ``sentences``; ``sN.0 sN.1`` for split ones."""
    pieces = Pieces.decimal(plan.ids[sentences], "s")
    split = np.flatnonzero(plan.split[sentences])
    if not len(split):
        return pieces
    texts = [f"s{plan.ids[sentences[k]]}.0 s{plan.ids[sentences[k]]}.1" for k in split.tolist()]
    extra = Pieces.of(texts)
    both = pieces + extra
    both.start[split] = extra.start + len(pieces.blob)
    both.size[split] = extra.size
    return Pieces(both.blob, both.start[:len(pieces)], both.size[:len(pieces)])


OVERLAPS = ['" overlap="0.900" />\n'] * 6 + [f'" overlap="{v:.3f}" />\n'
                                             for v in (0.5, 0.667, 0.75, 0.8, 1.0)]


def render_links(plan: Plan, a: np.ndarray, b: np.ndarray, first: int,
                 multi: dict[int, tuple[int, int]], rows: np.ndarray) -> bytes:
    """Link lines numbered from ``first``; ``multi``: row -> (side, partner) of two-id sides."""
    n = len(a)
    side_a, side_b = side_pieces(plan, a), side_pieces(plan, b)
    numbers = Pieces.decimal(np.arange(first, first + n))
    static = Pieces.of(['<link id="SL', '" xtargets="', ";", *OVERLAPS])
    extra: list[str] = []
    seq = np.empty(7 * n, dtype=np.int64)
    offset = len(static)
    seq[0::7] = 0
    seq[1::7] = offset + np.arange(n)
    seq[2::7] = 1
    seq[3::7] = offset + n + np.arange(n)
    seq[4::7] = 2
    seq[5::7] = offset + 2 * n + np.arange(n)
    pick = hashed(plan.seed, 21, rows) % np.uint64(len(OVERLAPS))
    seq[6::7] = 3 + pick.astype(np.int64)
    for k, (side, partner) in multi.items():
        x = int((a if side == 0 else b)[k])
        pair = sorted((int(plan.ids[x]), int(plan.ids[partner])))
        extra.append(f"s{pair[0]} s{pair[1]}")
        seq[7 * k + (3 if side == 0 else 5)] = offset + 3 * n + len(extra) - 1
    pieces = static + numbers + side_a + side_b
    if extra:
        pieces = pieces + Pieces.of(extra)
    return pieces.join(seq)


@dataclass
class LinkFiles:
    """Links sorted by file, then by ids: the from and to sentence of each, file bounds."""

    a: np.ndarray
    b: np.ndarray
    bounds: np.ndarray  # link offsets of each file
    multi_row: np.ndarray  # sorted rows with a two-id side
    multi_side: np.ndarray
    multi_partner: np.ndarray
    intra: int


def sort_links(plan: Plan) -> LinkFiles:
    """Orient links (the side of the alphabetically first language first; older first in an
    intra-language file) and sort them by (file, from id, to id)."""
    codes = plan.langs.codes
    name_rank = np.argsort(np.argsort(np.array(codes)))
    new, old = plan.link_new.astype(np.int64), plan.link_old.astype(np.int64)
    rn, ro = name_rank[plan.lang[new]], name_rank[plan.lang[old]]
    new_first = rn < ro
    a, b = np.where(new_first, new, old), np.where(new_first, old, new)
    file_key = np.minimum(rn, ro) * len(codes) + np.maximum(rn, ro)
    order = np.lexsort((plan.ids[b], plan.ids[a], file_key))
    a, b, file_key = a[order], b[order], file_key[order]
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    rows = inverse[plan.multi_link]
    side = (~new_first[plan.multi_link]).astype(np.int8)  # side holding the newer sentence
    keep = np.argsort(rows)
    bounds = np.r_[0, np.flatnonzero(np.diff(file_key)) + 1, len(file_key)]
    intra = int(np.count_nonzero(rn == ro))
    return LinkFiles(a.astype(np.int32), b.astype(np.int32), bounds, rows[keep], side[keep],
                     plan.multi_partner[keep], intra)


# ---------------------------------------------------------------------------- writing

_STATE: dict[str, Any] = {}


def write_document(li: int) -> int:
    """Worker: write ``raw/<l>.zip`` of language ``li``; its size."""
    plan, out = _STATE["plan"], _STATE["out"]
    code = plan.langs.codes[li]
    renderer = DocumentRenderer(plan, li, _STATE["attr_pool"])
    members = plan.by_lang[plan.lang_start[li]:plan.lang_start[li + 1]]
    path = out / "raw" / f"{code}.zip"
    info = zipfile.ZipInfo(f"Tatoeba/raw/{code}/tatoeba.xml", date_time=RELEASE_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    if hasattr(info, "compress_level"):  # Python 3.13+
        info.compress_level = 1
    else:
        info._compresslevel = 1
    with zipfile.ZipFile(path, "w") as archive, archive.open(info, "w") as member:
        member.write(HEADER_DOC.format(l=code).encode())
        for lo in range(0, len(members), CHUNK_SENTENCES):
            member.write(renderer.render(members[lo:lo + CHUNK_SENTENCES]))
        member.write(FOOTER_DOC.encode())
    return path.stat().st_size


def write_alignment(span: tuple[int, int]) -> int:
    """Worker: write the alignment file of links ``lo..hi``; its size."""
    plan, files, out = _STATE["plan"], _STATE["files"], _STATE["out"]
    lo, hi = span
    codes = plan.langs.codes
    la, lb = codes[plan.lang[files.a[lo]]], codes[plan.lang[files.b[lo]]]
    path = out / "xml" / f"{la}-{lb}.xml.gz"
    first, last = np.searchsorted(files.multi_row, [lo, hi])
    with igzip.IGzipFile(str(path), "wb", compresslevel=1, mtime=0) as fh:
        fh.write(HEADER_ALIGN.format(a=la, b=lb).encode())
        for start in range(lo, hi, CHUNK_LINKS):
            end = min(start + CHUNK_LINKS, hi)
            multi = {int(files.multi_row[k]) - start: (int(files.multi_side[k]),
                                                       int(files.multi_partner[k]))
                     for k in range(first, last) if start <= files.multi_row[k] < end}
            fh.write(render_links(plan, files.a[start:end], files.b[start:end], start - lo + 1,
                                  multi, np.arange(start, end)))
        fh.write(FOOTER_ALIGN.encode())
    return path.stat().st_size


def run_tasks(function: Callable[[Any], int], tasks: list, jobs: int) -> list[int]:
    """Run writer tasks, in ``jobs`` forked processes when ``jobs > 1``."""
    if jobs <= 1:
        return [function(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return list(pool.imap_unordered(function, tasks, chunksize=1 if len(tasks) < 500 else 8))


def write_release(plan: Plan, files: LinkFiles, out: Path, jobs: int) -> int:
    """Write every document and alignment file; the bytes written."""
    (out / "raw").mkdir(parents=True, exist_ok=True)
    (out / "xml").mkdir(parents=True, exist_ok=True)
    _STATE.update(plan=plan, files=files, out=out, attr_pool=attribute_pool(plan.seed))
    try:
        documents = [int(li) for li in np.argsort(-plan.langs.size, kind="stable")]
        written = run_tasks(write_document, documents, jobs)
        spans = list(zip(files.bounds[:-1].tolist(), files.bounds[1:].tolist(), strict=True))
        spans.sort(key=lambda span: span[0] - span[1])
        written += run_tasks(write_alignment, spans, jobs)
    finally:
        _STATE.clear()
    return int(sum(written))


# ---------------------------------------------------------------------------- statistics


def component_stats(plan: Plan) -> dict:
    """Connected components of the sentences under the links (a two-id side joins both)."""
    n = len(plan.lang)
    new = np.concatenate([plan.link_new, plan.multi_partner]).astype(np.int64)
    old = np.concatenate([plan.link_old, plan.link_old[plan.multi_link]]).astype(np.int64)
    graph = igraph.Graph(n)
    graph.add_edges(np.column_stack([new, old]))
    sizes = np.bincount(np.asarray(graph.connected_components().membership))
    del graph
    linked = sizes[sizes > 1]
    largest = np.sort(linked)[::-1][:5].tolist()
    buckets = {"2": (2, 2), "3-5": (3, 5), "6-20": (6, 20), "21-100": (21, 100),
               "101-10000": (101, 10_000), ">10000": (10_001, n + 1)}
    return {
        "unlinked_sentences": int(np.count_nonzero(sizes == 1)),
        "components": len(linked),  # of two sentences or more
        "largest_components": largest,
        "giant_share": round(largest[0] / n, 4) if largest else 0.0,
        "component_sizes": {k: int(np.count_nonzero((linked >= lo) & (linked <= hi)))
                            for k, (lo, hi) in buckets.items()},
    }


def generate(out: Path, scale: float, seed: int = 0, jobs: int = 1) -> dict:
    """Generate a release into ``out``; return its summary (also ``out/generated.json``)."""
    started = time.perf_counter()
    plan = plan_corpus(scale, seed)
    files = sort_links(plan)
    planned = time.perf_counter() - started
    components = component_stats(plan)
    written = write_release(plan, files, out, jobs)
    codes = plan.langs.codes
    pairs = [(codes[plan.lang[files.a[lo]]], codes[plan.lang[files.b[lo]]])
             for lo in files.bounds[:-1].tolist()]
    kinds = np.bincount(plan.link_kind, minlength=3)
    own = plan.source == np.arange(len(plan.lang))
    summary = {
        "generator": "generate_tatoeba_independent", "scale": scale, "seed": seed,
        "languages": len(codes), "sentences": len(plan.lang), "links": len(plan.link_new),
        "intra_links": files.intra, "alignment_files": len(pairs),
        "intra_files": sum(x == y for x, y in pairs), "files": len(pairs) + len(codes),
        "bytes": written,
        "links_per_file": {"median": float(np.median(np.diff(files.bounds))),
                           "max": int(np.diff(files.bounds).max()),
                           "files_under_10_links": int(np.count_nonzero(
                               np.diff(files.bounds) < 10))},
        "link_kinds": {"translation": int(kinds[0]), "triangle": int(kinds[1]),
                       "bridge": int(kinds[2])},
        "multi_id_sides": len(plan.multi_link), "split_sentences": int(plan.split.sum()),
        "repeated_texts": int(np.count_nonzero(~own)),
        "sentences_with_attributes": int(np.count_nonzero(plan.attr)),
        **components,
        "plan_seconds": round(planned, 2),
        "seconds": round(time.perf_counter() - started, 2),
    }
    (out / "generated.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def summary_lines(summary: dict) -> list[str]:
    """A readable summary of a generated release."""
    sizes = summary["component_sizes"]
    return [
        f"{summary['languages']} languages, {summary['sentences']:,} sentences, "
        f"{summary['links']:,} links ({summary['intra_links']:,} intra-language), "
        f"{summary['alignment_files']:,} alignment files ({summary['intra_files']} "
        f"intra-language; median {summary['links_per_file']['median']:g} links, "
        f"{summary['links_per_file']['files_under_10_links']:,} under 10), "
        f"{summary['bytes'] / 2**20:,.1f} MiB in {summary['seconds']:.1f} s "
        f"(plan {summary['plan_seconds']:.1f} s)",
        f"components: {summary['unlinked_sentences']:,} unlinked sentences, "
        f"{summary['components']:,} of 2+ (" + ", ".join(f"{k}: {v:,}" for k, v in sizes.items())
        + f"); largest {', '.join(f'{s:,}' for s in summary['largest_components'])} "
        f"(giant {summary['giant_share']:.1%} of the sentences)",
        f"links: {summary['link_kinds']['translation']:,} translations, "
        f"{summary['link_kinds']['triangle']:,} triangles, {summary['link_kinds']['bridge']:,} "
        f"bridges; {summary['multi_id_sides']:,} two-id sides, {summary['split_sentences']:,} "
        f"split sentences, {summary['repeated_texts']:,} repeated texts, "
        f"{summary['sentences_with_attributes']:,} sentences with lists/tags",
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="release folder to write")
    parser.add_argument("--scale", type=float, default=1.0, help="1.0: ~7.8M sentences")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes for writing files")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Generate a release and print its summary."""
    args = parse_args(argv)
    print("\n".join(summary_lines(generate(args.out, args.scale, args.seed, args.jobs))))


if __name__ == "__main__":
    main()
