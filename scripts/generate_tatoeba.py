#!/usr/bin/env python3
"""Generate a synthetic OPUS Tatoeba release at real scale, to benchmark the TaPaCo build.

Writes exactly OPUS's layout: ``DIR/raw/<l>.zip`` holding one member
``Tatoeba/raw/<l>/tatoeba.xml`` (one ``<s id="sN" [lists=".." tags=".."]>`` per line, ids
globally unique and ascending within a document) and ``DIR/xml/<l1>-<l2>.xml.gz`` cesAlign
files (``l1 <= l2``, 1:1 links between existing ids, ~0.1 % multi-id sides).

The shape follows the real release: Zipf language sizes with English largest (~7.8M sentences
in 300 languages at ``--scale 1``), sentences grouped into translation clusters ("meanings")
whose connected components are heavy-tailed (many singletons, mostly 2-20, a few chained
clusters of thousands), paraphrases, near-identical variants (case, punctuation, typographic
quotes) and exact duplicates, ~1,700 alignment files (28 intra-language) with heavy-tailed link
counts. Generation is numpy-vectorised; output depends only on ``--scale``, ``--seed`` and
``--shape``.

``--shape table2`` calibrates what the filters find to the funnel of TaPaCo's Table 2 (Scherrer
2020): few near-identical variants, and ~20 chains of 2,000 meanings whose sets hold most of the
sentences in sets over 100. At ``--scale 1`` every row of the build's funnel (sets and sentences
after each filter) is within 15 % of the paper's (``docs/performance.md``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from isal import igzip

# Tatoeba-like language codes, roughly by decreasing size (OPUS spelling: 2 letters if any).
LANGUAGE_CODES = """
en eo tr it ru de fr pt es hu ja he ber pl uk kab nl fi mk lt cs cmn mr da tlh sr ia sv el ar
bg jbo tok lfn vi ro la ko nds be fa id hr tt wuu yue ca sk nb bn hi ga is ta et cy gl sq az
ka hy eu lv sl kk ur af th ms tl fo br oc ast ky uz tk mn swh yi ckb kmr tg ug bs lb fy gd kw
gv mt zza pms vec scn nap lmo frr stq gos li wa pcd co sc rm frp lad an ext mwl lij fur lld csb
szl hsb dsb rue ba cv sah udm kv mhr mrj myv mdf os ce av kbd ady krc kum nog crh gag tyv alt
bua xal koi lzh hak gan nan am ti so om ha yo ig zu xh st tn sn rw rn lg ln wo ff bm ak ee mg
ny qu ay gn nah yua tzo oj cho chr lkt nv kl iu moh km lo my si ne pa gu kn ml te or as sa bho
mai sd ps dv bo dz jv su ceb ilo pag war bcl pam hil ch mi sm to fj haw ty mh gil niu rap tpi
bi vo io ie nov avk qya sjn tzl ldn ang enm got grc non fro frm sga orv chu dng arq ary arz acm
apc afb ajp pnb kzj dtp bjn min ban mad bug ace tet kha lus mni grt sat new hrx pdc gsw bar ksh
vls zea hif rom sgs ltg vro liv izh vep krl olo sme sma smn eml rgn egl nrf gcf ht pap srn jam
cbk tvl nau wls yap pau chk pon kos lzz xmf ab kjh kaa chg ota hbo jpa tpw pal bal brh
""".split()
TOP_SIZES = (1_200_000, 800_000, 720_000, 700_000, 680_000, 600_000, 500_000, 400_000,
             380_000, 320_000, 220_000, 190_000)
N_LANGUAGES = 300
FULL_SENTENCES = 7_800_000
FULL_LINKS = 7_900_000
TAIL_FIRST, TAIL_LAST = 150_000, 15
N_INTRA, N_CORE, N_PAIRS = 28, 40, 1_700

SINGLE, HUB, ATTACHED = 0, 1, 2
CANONICAL, PARAPHRASE, NEAR, EXACT = 0, 1, 2, 3


@dataclass(frozen=True)
class Shape:
    """What the filters find in the release: the share of near-identical variants among the
    sentences that copy another, the chains of meanings that make the oversized sets (a share
    of every intra-language language's hubs in power-law chains of up to `chain_kmax` meanings
    at scale 1; `big_chains` more chains of `big_chain_meanings` meanings each at scale 1)."""

    near_share: float = 0.4
    chain_share: float = 0.015
    chain_kmax: int = 1000
    big_chains: int = 0
    big_chain_meanings: int = 0


# `default`: the generator's first shape. `table2`: TaPaCo's Table 2 funnel (Scherrer 2020):
# few near-identical sentences (38k removed), ~366k sentences in ~135 sets over 100.
SHAPES = {"default": Shape(),
          "table2": Shape(near_share=0.009, chain_kmax=150, big_chains=20,
                          big_chain_meanings=2_000)}

CYRILLIC = set("ru uk bg be mk sr kk tt ky mn tg ba cv sah udm kv mhr mrj myv mdf os ce av kbd "
               "ady krc kum nog tyv alt bua xal koi rue orv chu dng ab kjh".split())
SCRIPT_OF = {
    **{c: "cyrillic" for c in CYRILLIC},
    **{c: "hanzi" for c in "cmn yue wuu lzh hak gan".split()},
    "ja": "japanese", "ko": "hangul", "el": "greek", "grc": "greek", "ka": "georgian",
    "xmf": "georgian", "lzz": "georgian", "hy": "armenian",
    **{c: "arabic" for c in "ar fa ur ug ckb ps sd pnb arq ary arz acm apc afb ajp ota bal brh pal"
       .split()},
    **{c: "hebrew" for c in "he yi hbo jpa".split()},
    **{c: "devanagari" for c in "hi mr ne sa bho mai new".split()},
    "bn": "bengali", "as": "bengali", "ta": "tamil", "te": "telugu", "kn": "kannada",
    "ml": "malayalam", "gu": "gujarati", "pa": "gurmukhi", "si": "sinhala", "bo": "tibetan",
    "dz": "tibetan", "dv": "thaana", "th": "thai", "lo": "lao", "km": "khmer", "my": "myanmar",
    "am": "ethiopic", "ti": "ethiopic", "chr": "cherokee",
}
BLOCKS = {  # abugidas: consonants are the letters of the block, vowels its dependent signs
    "devanagari": (0x0900, 0x097F), "bengali": (0x0980, 0x09FF), "tamil": (0x0B80, 0x0BFF),
    "telugu": (0x0C00, 0x0C7F), "kannada": (0x0C80, 0x0CFF), "malayalam": (0x0D00, 0x0D7F),
    "gujarati": (0x0A80, 0x0AFF), "gurmukhi": (0x0A00, 0x0A7F), "sinhala": (0x0D80, 0x0DFF),
    "tibetan": (0x0F40, 0x0F7F), "thaana": (0x0780, 0x07B0), "thai": (0x0E01, 0x0E3A),
    "lao": (0x0E81, 0x0EBC), "khmer": (0x1780, 0x17D2), "myanmar": (0x1000, 0x103E),
    "ethiopic": (0x1200, 0x1350), "cherokee": (0x13A0, 0x13F5),
}
ALPHABETS = {  # (consonants, vowels)
    "latin": ("bcdfghjklmnprstvwz", "aeiou"),
    "cyrillic": ("бвгджзклмнпрстфхцчшщ", "аеиоуыэюяё"),
    "greek": ("βγδζθκλμνξπρστφχψ", "αεηιουωάέήίόύώ"),
    "georgian": ("ბგდვზთკლმნპჟრსტფქღყშჩცძწჭხჯჰ", "აეიოუ"),
    "armenian": ("բգդզթժլխծկհձղճմյնշչպջռսվտրցփքֆ", "աեէըիոու"),
    "arabic": ("بتثجحخدذرزسشصضطظعغفقكلمنهوي", "اوي"),
    "hebrew": ("בגדהוזחטיכלמנסעפצקרשת", "אוי"),
}
EXTRA_LETTERS = {
    "fr": "éèêàçùâîô", "de": "äöüß", "es": "áéíóúñ", "pt": "ãõáéíóúçâê", "it": "àèéìòù",
    "hu": "áéíóöőúüű", "tr": "çğıöşü", "pl": "ąćęłńóśźż", "cs": "áčďéěíňóřšťúůýž",
    "sk": "áäčďéíĺľňóôŕšťúýž", "ro": "ăâîșț", "lt": "ąčęėįšųūž", "lv": "āčēģīķļņšūž",
    "eo": "ĉĝĥĵŝŭ", "vi": "àáảãạăắằâấầđêếềôốồơớờưứừ", "da": "æøå", "nb": "æøå", "sv": "åäö",
    "fi": "äö", "is": "áðéíóúýþæö", "hr": "čćšžđ", "bs": "čćšžđ", "sl": "čšž", "et": "äöõü",
    "ga": "áéíóú", "cy": "âêîôŵŷ", "ca": "àèéíòóúç", "az": "əğıöşüç", "kab": "ḍḥɛɣṛṣṭẓčǧ",
    "ber": "ḍḥɛɣṛṣṭẓ", "yo": "ẹọṣàáèéìíòóùú", "uz": "ʻ", "tk": "äçňöşüýž", "kk": "әғқңөұүһі",
    "tt": "әөүҗңһ", "uk": "іїєґ", "be": "ў", "mk": "јљњ", "sr": "јљњ",
}
APOSTROPHES = {  # (kind, forms): words with apostrophes, which XML escapes as &apos;
    "en": ("suffix", ("'s", "n't", "'ll", "'re", "'ve", "'m", "'d")), "nl": ("suffix", ("'s",)),
    **{c: ("prefix", ("l'", "d'", "j'", "qu'", "n'", "s'", "c'", "m'"))
       for c in "fr it ca oc br lb ga pt".split()},
    "tlh": ("inside", ("'",)), "uz": ("inside", ("'",)),
}
NAMES = {"latin": ("Tom", "Mary"), "cyrillic": ("Том", "Мэри"), "hanzi": ("汤姆", "玛丽"),
         "japanese": ("トム", "メアリー"), "greek": ("Τομ", "Μαίρη")}
NO_CASE_SPACES = {"hanzi", "japanese", "thai", "lao", "khmer", "myanmar"}
TAGS = ("4 syllables", "proverb", "idiom", "colloquial", "formal", "OK", "@change",
        "@needs native check", "question", "negation", "past tense", "future", "imperative",
        "greeting", "weather", "food", "animals", "time", "family", "Tom's day", "Q&A",
        "children's book", "saying", "humor", "politeness", "business", "travel", "health",
        "sport", "music", "school", "work", "love", "numbers", "colors", 'the "X" phrase',
        "emotion", "money", "<3", "phrasal verb", "subjunctive", "passive", "ambiguous")

HEADER_DOC = '<?xml version="1.0" encoding="utf-8"?>\n<document id="{l}/tatoeba.xml.gz">\n'
HEADER_ALIGN = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<!DOCTYPE cesAlign PUBLIC "-//CES//DTD XML cesAlign//EN" "">\n'
    '<cesAlign version="1.0">\n'
    '<linkGrp targType="s" fromDoc="{a}/tatoeba.xml.gz" toDoc="{b}/tatoeba.xml.gz" >\n'
)
FOOTER_ALIGN = "</linkGrp>\n</cesAlign>\n"
RELEASE_DATE = (2023, 4, 12, 0, 0, 0)  # fixed member dates keep the output byte-identical


@dataclass
class Corpus:
    """Everything decided before writing: per sentence, per link and per language arrays."""

    codes: list[str]
    start: np.ndarray  # sentence offsets per language (len = languages + 1)
    lang: np.ndarray  # language index per sentence
    ids: np.ndarray  # Tatoeba id per sentence, ascending inside a language
    leader: np.ndarray  # sentence whose tokens a sentence copies (itself if canonical)
    kind: np.ndarray  # CANONICAL / PARAPHRASE / NEAR / EXACT
    length: np.ndarray  # words per sentence
    style: np.ndarray  # (case, typo, punct, quote) per sentence, shape (N, 4)
    attr: np.ndarray  # index into the attribute pool (0: no attributes)
    link_a: np.ndarray  # links, a in the file's first language
    link_b: np.ndarray
    multi_link: np.ndarray  # links with a two-id side
    multi_side: np.ndarray  # 0: side a, 1: side b
    multi_extra: np.ndarray  # the second sentence of that side
    seed: int


# ---------------------------------------------------------------------------- languages


def language_sizes(scale: float) -> np.ndarray:
    """Full-scale Zipf-like sizes rescaled; every language keeps at least 3 sentences."""
    top = np.array(TOP_SIZES, dtype=float)
    n_tail = N_LANGUAGES - len(top)
    target = FULL_SENTENCES - top.sum()
    t = np.linspace(0.0, 1.0, n_tail)
    lo, hi = 0.01, 5.0
    span = np.log10(TAIL_FIRST) - np.log10(TAIL_LAST)
    for _ in range(60):
        power = (lo + hi) / 2
        tail = 10 ** (np.log10(TAIL_FIRST) - span * t**power)
        lo, hi = (lo, power) if tail.sum() > target else (power, hi)
    sizes = np.concatenate([top, tail]) * scale
    return np.maximum(np.rint(sizes), 3).astype(np.int64)


def language_codes() -> list[str]:
    """The 300 language codes, padded with synthetic ``x..`` codes if needed."""
    codes = list(dict.fromkeys(LANGUAGE_CODES))
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(codes) < N_LANGUAGES:
        code = "x" + letters[i // 26 % 26] + letters[i % 26]
        if code not in codes:
            codes.append(code)
        i += 1
    return codes[:N_LANGUAGES]


def allowed_pairs(full_sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Language pairs that may have links: intra for the 28 largest, en-all, a clique of the
    40 largest, and a few big partners per smaller language, ~1,700 in all."""
    nl = len(full_sizes)
    allowed = np.zeros((nl, nl), dtype=bool)
    allowed[np.arange(N_INTRA), np.arange(N_INTRA)] = True
    allowed[0, 1:] = allowed[1:, 0] = True
    core = np.arange(1, N_CORE)
    allowed[np.ix_(core, core)] = True
    np.fill_diagonal(allowed[N_INTRA:, N_INTRA:], False)
    have = np.count_nonzero(np.triu(allowed))
    small = np.arange(N_CORE, nl)
    weight = full_sizes[small].astype(float) ** 0.4
    extra = np.minimum(np.rint(weight * (N_PAIRS - have) / weight.sum()), N_CORE - 1)
    core_p = full_sizes[core] / full_sizes[core].sum()
    for lang, k in zip(small, extra.astype(int), strict=True):
        partners = rng.choice(core, size=k, replace=False, p=core_p)
        allowed[lang, partners] = allowed[partners, lang] = True
    return allowed


# ---------------------------------------------------------------------------- structure


def sample_roles(lang: np.ndarray, nl: int, rng: np.random.Generator) -> np.ndarray:
    """Role of every sentence: SINGLE (no link), HUB (leads a meaning) or ATTACHED."""
    rank = np.arange(nl)
    p_single = np.where(rank < N_CORE, 0.07, 0.12)
    p_hub = np.where(rank < N_CORE, 0.22, 0.08)
    p_single[0], p_hub[0] = 0.05, 0.72
    u = rng.random(len(lang))
    role = (u >= p_single[lang]).astype(np.int8)
    role += u >= (p_single + p_hub)[lang]
    return role


def partner_weights(allowed: np.ndarray, hub_count: np.ndarray) -> np.ndarray:
    """Row L: probability that an attached sentence of L joins a meaning led by language M."""
    nl = len(hub_count)
    rank = np.arange(nl)
    en_share = np.where(rank < N_CORE, 0.35, 0.75)
    intra_share = np.where(rank < N_INTRA, 0.10, 0.0)
    intra_share[0] = 0.40
    base = allowed * (hub_count.astype(float) ** 0.7)[None, :]
    np.fill_diagonal(base, 0.0)
    base[1:, 0] = 0.0
    rest = 1.0 - intra_share - np.where(rank == 0, 0.0, en_share)
    sums = base.sum(axis=1, keepdims=True)
    weights = np.divide(base, sums, out=np.zeros_like(base), where=sums > 0) * rest[:, None]
    weights[1:, 0] = en_share[1:] * (hub_count[0] > 0)
    weights[rank, rank] = intra_share * (hub_count > 0) * np.diag(allowed)
    sums = weights.sum(axis=1, keepdims=True)
    return np.divide(weights, sums, out=np.zeros_like(weights), where=sums > 0)


def segment_offsets(sorted_values: np.ndarray, n: int) -> np.ndarray:
    """Start offsets of the values 0..n in a sorted array (n + 1 entries)."""
    return np.searchsorted(sorted_values, np.arange(n + 1))


def attach(role: np.ndarray, lang: np.ndarray, allowed: np.ndarray,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hubs, the meaning of every sentence (index of its hub in ``hubs``, -1 if none) and the
    hub weights (heavy-tailed: how many translations a meaning attracts)."""
    nl = allowed.shape[0]
    hubs = np.flatnonzero(role == HUB)
    hub_start = segment_offsets(lang[hubs], nl)
    hub_w = np.minimum(rng.lognormal(0.0, 1.3, len(hubs)), 80.0)
    weights = partner_weights(allowed, np.diff(hub_start))
    attached = np.flatnonzero(role == ATTACHED)
    att_start = segment_offsets(lang[attached], nl)
    target = np.full(len(attached), -1)
    for li in range(nl):
        lo, hi = att_start[li], att_start[li + 1]
        if hi > lo and weights[li].sum() > 0:
            target[lo:hi] = rng.choice(nl, size=hi - lo, p=weights[li])
    meaning = np.full(len(lang), -1)
    meaning[hubs] = np.arange(len(hubs))
    order = np.argsort(target, kind="stable")
    bounds = segment_offsets(target[order], nl)
    for m in range(nl):
        chosen = attached[order[bounds[m]:bounds[m + 1]]]
        cw = np.cumsum(hub_w[hub_start[m]:hub_start[m + 1]])
        if len(chosen) and len(cw):
            local = np.searchsorted(cw, rng.random(len(chosen)) * cw[-1], side="right")
            meaning[chosen] = hub_start[m] + np.minimum(local, len(cw) - 1)
    share_siblings(attached, lang, target, meaning, rng)
    return hubs, meaning, hub_w


def share_siblings(attached: np.ndarray, lang: np.ndarray, target: np.ndarray,
                   meaning: np.ndarray, rng: np.random.Generator, share: float = 0.15) -> None:
    """Let some attached sentences join the meaning of another sentence of their language that
    chose the same partner language: same-language paraphrases inside a meaning."""
    ok = target >= 0
    att, key = attached[ok], lang[attached[ok]] * (target.max() + 1) + target[ok]
    order = np.argsort(key, kind="stable")
    att, key = att[order], key[order]
    first = np.r_[0, np.flatnonzero(np.diff(key)) + 1]
    size = np.diff(np.r_[first, len(key)])
    seg = np.repeat(np.arange(len(first)), size)
    pick = np.flatnonzero(rng.random(len(att)) < share)
    other = first[seg[pick]] + (rng.random(len(pick)) * size[seg[pick]]).astype(np.int64)
    meaning[att[pick]] = meaning[att[other]].copy()


def efraimidis_sample(weights: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k indices drawn without replacement with probability ~ weights."""
    keys = np.log(rng.random(len(weights))) / weights
    return np.argpartition(-keys, k - 1)[:k] if k > 0 else np.zeros(0, dtype=np.int64)


def chain_sizes(budget: int, kmax: int, rng: np.random.Generator) -> np.ndarray:
    """Power-law chain lengths (in meanings) that use up to ``budget`` meanings."""
    ks = np.arange(2, kmax + 1)
    p = ks**-2.4 / (ks**-2.4).sum()
    sizes = rng.choice(ks, size=budget // 2 + 1, p=p)
    cut = np.searchsorted(np.cumsum(sizes), budget, side="right")
    return sizes[:cut]


def random_trees(sizes: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random recursive trees over consecutive runs of ``sizes`` items: (child, parent)."""
    starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
    pos = np.arange(int(sizes.sum()))
    tree_start = np.repeat(starts, sizes)
    depth = pos - tree_start
    parent = tree_start + (rng.random(len(pos)) * depth).astype(np.int64)
    child = depth > 0
    return pos[child], parent[child]


def chain_meanings(hubs: np.ndarray, hub_w: np.ndarray, lang: np.ndarray, scale: float,
                   shape: Shape, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Chain some meanings of intra-language languages by hub-hub paraphrase links: the few
    components of thousands of sentences. Returns (child hub, parent hub) pairs."""
    kmax = max(20, int(shape.chain_kmax * scale**0.3))
    hub_lang = lang[hubs]
    children, parents = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    big = round(shape.big_chains * scale)
    for li in range(N_INTRA):
        own = np.flatnonzero(hub_lang == li)
        chosen = own[efraimidis_sample(hub_w[own], int(shape.chain_share * len(own)), rng)]
        rng.shuffle(chosen)
        sizes = chain_sizes(len(chosen), kmax, rng)
        chosen = chosen[:int(sizes.sum())]
        bigs = big // N_INTRA + (li < big % N_INTRA)
        if bigs:  # drawn after the others, so that without them the release is the same
            rest = np.setdiff1d(own, chosen)
            extra = rest[efraimidis_sample(hub_w[rest], min(bigs * shape.big_chain_meanings,
                                                            len(rest)), rng)]
            rng.shuffle(extra)
            count = len(extra) // shape.big_chain_meanings
            chosen = np.concatenate([chosen, extra[:count * shape.big_chain_meanings]])
            sizes = np.concatenate([sizes, np.full(count, shape.big_chain_meanings, np.int64)])
        if len(sizes):
            child, parent = random_trees(sizes, rng)
            children.append(hubs[chosen[child]])
            parents.append(hubs[chosen[parent]])
    return np.concatenate(children), np.concatenate(parents)


@dataclass
class Groups:
    """Sentences sorted by (meaning, language, hub first) and the segments of that order."""

    order: np.ndarray
    position: np.ndarray  # position of each sentence in order
    group_first: np.ndarray  # per position: first position of its (meaning, language) group
    group_size: np.ndarray
    meaning_first: np.ndarray  # per position: first position of its meaning
    meaning_size: np.ndarray


def segments(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per position of a sorted key array: first position and size of its run."""
    firsts = np.r_[0, np.flatnonzero(keys[1:] != keys[:-1]) + 1]
    sizes = np.diff(np.r_[firsts, len(keys)])
    return np.repeat(firsts, sizes), np.repeat(sizes, sizes)


def make_groups(meaning: np.ndarray, lang: np.ndarray, role: np.ndarray, nl: int) -> Groups:
    """Sort sentences by meaning, then language, hub first, and find the runs."""
    key = (meaning * nl + lang) * 2 + (role != HUB)
    order = np.argsort(key, kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    group_first, group_size = segments(key[order] // 2)
    meaning_first, meaning_size = segments(meaning[order])
    return Groups(order, position, group_first, group_size, meaning_first, meaning_size)


def extra_links(groups: Groups, lang: np.ndarray, allowed: np.ndarray, existing: np.ndarray,
                needed: int, rng: np.random.Generator) -> np.ndarray:
    """Further links inside meanings between allowed pairs (translations of translations)."""
    n = len(lang)
    pos = np.flatnonzero(groups.meaning_size >= 2)
    first, size = groups.meaning_first[pos], groups.meaning_size[pos]
    found: list[np.ndarray] = []
    total = 0
    for _ in range(8):
        step = 1 + (rng.random(len(pos)) * (size - 1)).astype(np.int64)
        a = groups.order[pos]
        b = groups.order[first + (pos - first + step) % size]
        keep = allowed[lang[a], lang[b]]
        codes = np.minimum(a, b)[keep] * n + np.maximum(a, b)[keep]
        found.append(codes)
        candidates = np.setdiff1d(np.unique(np.concatenate(found)), existing, assume_unique=True)
        total = len(candidates)
        if total >= needed:
            break
    if total > needed:
        candidates = np.sort(rng.choice(candidates, size=needed, replace=False))
    return candidates


def sentence_ids(start: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Globally unique, gappy Tatoeba-like ids, ascending inside each language."""
    n = int(start[-1])
    pool = np.cumsum(rng.geometric(0.62, n)) + 1
    ids = pool[rng.permutation(n)]
    for lo, hi in zip(start[:-1], start[1:], strict=True):
        ids[lo:hi].sort()
    return ids


def resolve_leaders(leader: np.ndarray) -> np.ndarray:
    """Follow leader pointers until every leader is canonical (its own leader)."""
    for _ in range(10):
        nxt = leader[leader]
        if np.array_equal(nxt, leader):
            return leader
        leader = nxt
    raise RuntimeError("leader chains did not converge")


def choose_duplicates(leader: np.ndarray, lang: np.ndarray, start: np.ndarray,
                      protected: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exact duplicates of text across meanings: some canonical sentences copy another
    canonical sentence of their language."""
    canonical = np.flatnonzero(leader == np.arange(len(leader)))
    canonical = canonical[~protected[canonical]]
    dup = canonical[rng.random(len(canonical)) < 0.004]
    rest = np.setdiff1d(canonical, dup, assume_unique=True)
    rest_start = np.searchsorted(rest, start)
    lo, hi = rest_start[lang[dup]], rest_start[lang[dup] + 1]
    ok = hi > lo
    dup, lo, hi = dup[ok], lo[ok], hi[ok]
    targets = rest[lo + (rng.random(len(dup)) * (hi - lo)).astype(np.int64)]
    leader[dup] = targets
    return dup


def sentence_kinds(leader: np.ndarray, chained: np.ndarray, dup: np.ndarray, shape: Shape,
                   rng: np.random.Generator) -> np.ndarray:
    """CANONICAL for leaders, else PARAPHRASE / NEAR, chained hubs and duplicates fixed."""
    n = len(leader)
    kind = np.where(rng.random(n) < 1 - shape.near_share, PARAPHRASE, NEAR).astype(np.int8)
    kind[leader == np.arange(n)] = CANONICAL
    kind[chained] = PARAPHRASE
    kind[dup] = EXACT
    return kind


def sentence_lengths(meaning: np.ndarray, lang: np.ndarray, leader: np.ndarray,
                     kind: np.ndarray, nl: int, rng: np.random.Generator) -> np.ndarray:
    """Words per sentence: correlated inside a meaning, copied (+-1) by variants."""
    base = 3 + rng.negative_binomial(4, 0.5, int(meaning.max()) + 1)
    factor = rng.uniform(0.8, 1.25, nl)
    noise = rng.integers(-1, 2, len(meaning))
    length = np.clip(np.rint(base[meaning] * factor[lang]) + noise, 3, 15).astype(np.int64)
    copy = kind != CANONICAL
    length[copy] = length[leader[copy]]
    para = kind == PARAPHRASE
    delta = rng.choice(np.array([-1, 0, 0, 1]), size=int(para.sum()))
    length[para] = np.clip(length[para] + delta, 3, 15)
    return length


def sentence_styles(leader: np.ndarray, kind: np.ndarray, lang: np.ndarray,
                    codes: list[str], rng: np.random.Generator) -> np.ndarray:
    """(case, typo, punct, quote): case 0 capitalised / 1 lower / 2 upper; typo 0 ASCII /
    1 typographic; punct 0 . 1 ? 2 ! 3 ellipsis; quote 0 none / 1 double / 2 guillemets."""
    n = len(leader)
    no_case = np.array([SCRIPT_OF.get(c, "latin") in NO_CASE_SPACES for c in codes])
    style = np.empty((n, 4), dtype=np.int8)
    style[:, 0] = rng.choice(3, size=n, p=[0.975, 0.02, 0.005])
    style[:, 1] = np.where(no_case[lang], rng.random(n) < 0.95, rng.random(n) < 0.08)
    style[:, 2] = rng.choice(4, size=n, p=[0.68, 0.22, 0.08, 0.02])
    style[:, 3] = rng.choice(3, size=n, p=[0.97, 0.02, 0.01])
    copy = kind != CANONICAL
    style[copy] = style[leader[copy]]
    para = np.flatnonzero((kind == PARAPHRASE) & (rng.random(n) < 0.1))
    style[para, 2] = rng.integers(0, 3, len(para))
    near = np.flatnonzero(kind == NEAR)
    dim = rng.choice(4, size=len(near), p=[0.3, 0.15, 0.4, 0.15])
    dim[(dim == 0) & no_case[lang[near]]] = 1
    for d, modulo in ((0, 2), (1, 2), (2, 4), (3, 3)):
        rows = near[dim == d]
        style[rows, d] = (style[rows, d] + 1) % modulo
    return style


def attribute_choices(lang: np.ndarray, pool_size: int, rng: np.random.Generator) -> np.ndarray:
    """Index into the attribute pool per sentence (0: none), ~12 % with lists."""
    p = np.where(lang < N_CORE, 0.16, 0.08)
    has = rng.random(len(lang)) < p
    pick = zipf_draws(pool_size - 1, len(lang), 1.1, rng) + 1
    return np.where(has, pick, 0)


def multi_sides(link_a: np.ndarray, link_b: np.ndarray, link_codes: np.ndarray, groups: Groups,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """~0.1 % of links get a second id on one side: a sibling of the same group that is not
    itself linked to the other side (``link_codes``: sorted min * n + max of all links)."""
    picked = np.flatnonzero(rng.random(len(link_a)) < 0.003)
    side = (groups.group_size[groups.position[link_a[picked]]] < 2).astype(np.int8)
    x = np.where(side == 0, link_a[picked], link_b[picked])
    other = np.where(side == 0, link_b[picked], link_a[picked])
    p = groups.position[x]
    first, size = groups.group_first[p], groups.group_size[p]
    y = groups.order[first + (p - first + 1) % size]
    code = np.minimum(y, other) * len(groups.order) + np.maximum(y, other)
    linked = link_codes[np.minimum(np.searchsorted(link_codes, code), len(link_codes) - 1)] == code
    ok = (size >= 2) & (y != other) & (y != x) & ~linked
    return picked[ok], side[ok], y[ok]


def orient(a: np.ndarray, b: np.ndarray, lang: np.ndarray, codes: list[str],
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Put the link side of the file's first language (string order) first."""
    name_rank = np.argsort(np.argsort(np.array(codes)))
    ra, rb = name_rank[lang[a]], name_rank[lang[b]]
    swap = (ra > rb) | ((ra == rb) & (rng.random(len(a)) < 0.5))
    return np.where(swap, b, a), np.where(swap, a, b)


@dataclass
class Links:
    """The link graph: meanings, their groups, every link and the chained hubs."""

    meaning: np.ndarray
    groups: Groups
    codes: np.ndarray  # sorted min * n + max of every link
    chain_child: np.ndarray
    chain_parent: np.ndarray


def plan_links(lang: np.ndarray, nl: int, scale: float, shape: Shape,
               rng: np.random.Generator) -> Links:
    """Roles, meanings, chains and links (primary to the hub, chain, extra inside meanings)."""
    n = len(lang)
    allowed = allowed_pairs(language_sizes(1.0), rng)
    role = sample_roles(lang, nl, rng)
    hubs, meaning, hub_w = attach(role, lang, allowed, rng)
    singles = np.flatnonzero(meaning < 0)
    role[singles] = SINGLE
    meaning[singles] = len(hubs) + np.arange(len(singles))
    attached = np.flatnonzero(role == ATTACHED)
    child, parent = chain_meanings(hubs, hub_w, lang, scale, shape, rng)
    a = np.concatenate([attached, child])
    b = np.concatenate([hubs[meaning[attached]], parent])
    existing = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
    groups = make_groups(meaning, lang, role, nl)
    needed = max(0, int(FULL_LINKS * scale) - len(existing))
    extra = extra_links(groups, lang, allowed, existing, needed, rng)
    codes = np.sort(np.concatenate([existing, extra]))
    return Links(meaning, groups, codes, child, parent)


def plan_leaders(links: Links, lang: np.ndarray, start: np.ndarray, shape: Shape,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Leader (canonical sentence copied) and kind of every sentence."""
    groups, child, parent = links.groups, links.chain_child, links.chain_parent
    leader = groups.order[groups.group_first[groups.position]]
    leader[child] = parent
    protected = np.zeros(len(lang), dtype=bool)
    protected[child] = protected[parent] = True
    leader = resolve_leaders(leader)
    dup = choose_duplicates(leader, lang, start, protected, rng)
    leader = resolve_leaders(leader)
    return leader, sentence_kinds(leader, child, dup, shape, rng)


def plan_corpus(scale: float, seed: int, shape: Shape = SHAPES["default"]) -> Corpus:
    """Decide everything about the release (no text yet): a pure function of scale, seed and
    shape."""
    rng = np.random.default_rng(seed)
    codes = language_codes()
    nl = len(codes)
    sizes = language_sizes(scale)
    start = np.r_[0, np.cumsum(sizes)]
    lang = np.repeat(np.arange(nl), sizes)
    links = plan_links(lang, nl, scale, shape, rng)
    n = len(lang)
    link_a, link_b = orient(links.codes // n, links.codes % n, lang, codes, rng)
    leader, kind = plan_leaders(links, lang, start, shape, rng)
    length = sentence_lengths(links.meaning, lang, leader, kind, nl, rng)
    style = sentence_styles(leader, kind, lang, codes, rng)
    multi_link, multi_side, multi_extra = multi_sides(link_a, link_b, links.codes,
                                                      links.groups, rng)
    return Corpus(
        codes=codes, start=start, lang=lang, ids=sentence_ids(start, rng), leader=leader,
        kind=kind, length=length, style=style, attr=attribute_choices(lang, 20_000, rng),
        link_a=link_a, link_b=link_b, multi_link=multi_link, multi_side=multi_side,
        multi_extra=multi_extra, seed=seed,
    )


# ---------------------------------------------------------------------------- vocabulary


def block_letters(script: str) -> tuple[str, str]:
    """Letters and dependent vowel signs of an abugida's Unicode block."""
    lo, hi = BLOCKS[script]
    chars = [chr(c) for c in range(lo, hi + 1) if unicodedata.name(chr(c), "")]
    consonants = "".join(c for c in chars if unicodedata.category(c).startswith("L") and any(
        word in unicodedata.name(c) for word in ("LETTER", "CHARACTER", "SYLLABLE")))
    vowels = "".join(c for c in chars if unicodedata.category(c) in ("Mn", "Mc")
                     and "VOWEL SIGN" in unicodedata.name(c))
    return consonants, vowels


def syllables(code: str, script: str, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Syllable inventories (first syllable, later syllables) of a language."""
    if script == "hanzi":
        chars = np.array([chr(0x4E00 + i) for i in rng.choice(6000, 2500, replace=False)])
        return chars.astype(object), chars.astype(object)
    if script == "japanese":
        kanji = np.array([chr(0x4E00 + i) for i in rng.choice(6000, 2000, replace=False)])
        kana = np.array([chr(c) for c in range(0x3041, 0x3094)])
        return kanji.astype(object), kana.astype(object)
    if script == "hangul":
        chars = np.array([chr(0xAC00 + i) for i in rng.choice(11172, 900, replace=False)])
        return chars.astype(object), chars.astype(object)
    if script in BLOCKS:
        consonants, vowels = block_letters(script)
        vowels = vowels or consonants
    else:
        consonants, vowels = ALPHABETS[script]
        for letter in EXTRA_LETTERS.get(code, ""):
            if unicodedata.normalize("NFD", letter)[0] in "aeiouyаеиоуыэюяёıі":
                vowels += letter
            else:
                consonants += letter
    onset = np.array(list(consonants) + ["", ""], dtype=object)
    nucleus = np.array(list(vowels), dtype=object)
    syl = onset[:, None] + nucleus[None, :]
    flat = syl.ravel()
    return flat, flat


def build_words(code: str, script: str, size: int, rng: np.random.Generator) -> list[str]:
    """A Zipf-ranked synthetic vocabulary (shorter words first) of a language."""
    first, rest = syllables(code, script, rng)
    count = int(size * 1.4) + 50
    n_syl = rng.choice([1, 2, 3, 4], size=count, p=[0.25, 0.4, 0.25, 0.1])
    if script in ("hanzi", "hangul"):
        n_syl = rng.choice([1, 2, 3], size=count, p=[0.45, 0.5, 0.05])
    words = first[rng.integers(len(first), size=count)]
    for k in range(1, 4):
        more = rest[rng.integers(len(rest), size=count)]
        words = np.where(n_syl > k, words + more, words)
    words = list(dict.fromkeys(w for w in words.tolist() if w))[:size]
    noise = rng.normal(0.0, 1.5, len(words))
    ranked = [words[i] for i in np.argsort([len(w) for w in words] + noise, kind="stable")]
    return decorate(code, script, ranked, rng)


def decorate(code: str, script: str, words: list[str], rng: np.random.Generator) -> list[str]:
    """Names, apostrophe words and a few escape-needing tokens at realistic ranks."""
    names = NAMES.get(script)
    if names and len(words) > 60:
        words[5], words[40] = names
    if code in APOSTROPHES:
        kind, forms = APOSTROPHES[code]
        size = len(words) // (10 if kind == "inside" else 40)
        for rank in rng.choice(np.arange(20, len(words)), size=size, replace=False):
            w, form = words[rank], forms[rank % len(forms)]
            words[rank] = {"suffix": w + form, "prefix": form + w}.get(kind, w[:1] + form + w[1:])
        if code == "en" and len(words) > 10:
            words[8] = "don't"
    if script == "latin" and len(words) > 3000:
        words[700], words[2900] = "&", "AT&T"
    return words


def cap(word: str) -> str:
    """Capitalise the first letter only (keeping ``ß`` rather than ``SS``)."""
    first = word[:1].upper()
    return (first if len(first) == 1 else word[:1]) + word[1:]


def escape(text: str) -> str:
    """XML-escape text (``&amp; &lt; &gt; &apos; &quot;``)."""
    if not any(c in text for c in "&<>'\""):
        return text
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))


def word_table(words: list[str], spaced: bool) -> np.ndarray:
    """Object array indexed by ((case * 2 + typo) * 2 + is_last) * V + word."""
    sep = " " if spaced else ""
    tables = []
    for case in (lambda w: w, cap, str.upper):
        forms = [case(w) for w in words]
        for typo in (False, True):
            shown = [escape(w.replace("'", "’") if typo else w) for w in forms]
            arr = np.array(shown, dtype=object)
            tables += [arr + sep, arr]
    return np.concatenate(tables)


def vocabulary_size(full_size: int) -> int:
    """Vocabulary size for a language of ``full_size`` sentences: 200-20,000."""
    return int(np.clip(4 * full_size**0.6, 200, 20_000))


# ---------------------------------------------------------------------------- rendering


def punctuation(script: str, code: str) -> tuple[list[str], list[str], list[str]]:
    """Final punctuation (ASCII row, typographic row) and quote marks for a language."""
    if script in ("hanzi", "japanese"):
        ascii_p, typo_p = [".", "?", "!", "..."], ["。", "？", "！", "……"]
        quotes = ["", "&quot;", "&quot;", "", "「", "『"], ["", "&quot;", "&quot;", "", "」", "』"]
        return [ascii_p, typo_p], *quotes
    full = {"greek": ".", "devanagari": "।", "armenian": "։", "ethiopic": "።"}.get(script, ".")
    question = {"greek": ";", "arabic": "؟"}.get(script, "?")
    ascii_p = [".", question, "!", "..."]
    typo_p = [full, "\u037e" if script == "greek" else question, "!", "…"]
    opening = "„" if code in ("de", "cs", "sk", "pl", "ro", "hu", "bg", "lt") else "“"
    return ([ascii_p, typo_p], ["", "&quot;", "&quot;", "", opening, "«"],
            ["", "&quot;", "&quot;", "", "”", "»"])


def language_tokens(c: Corpus, lo: int, hi: int, vocab: int,
                    rng: np.random.Generator) -> np.ndarray:
    """Flat word indices of sentences lo..hi: Zipf draws, copied from leaders for variants."""
    length = c.length[lo:hi]
    offsets = np.r_[0, np.cumsum(length)]
    ranks = np.arange(1, vocab + 1)
    cdf = np.cumsum(1.0 / (ranks + 2.0) ** 1.05)
    tok = np.searchsorted(cdf, rng.random(offsets[-1]) * cdf[-1], side="right")
    tok = np.minimum(tok, vocab - 1)
    sent = np.repeat(np.arange(hi - lo), length)
    j = np.arange(offsets[-1]) - offsets[sent]
    lead = c.leader[lo:hi][sent] - lo
    copy = (c.kind[lo:hi][sent] != CANONICAL) & (j < length[lead])
    tok[copy] = tok[offsets[lead[copy]] + j[copy]]
    paraphrase_edits(tok, offsets, length, c.kind[lo:hi] == PARAPHRASE, vocab, rng)
    return tok


def paraphrase_edits(tok: np.ndarray, offsets: np.ndarray, length: np.ndarray, para: np.ndarray,
                     vocab: int, rng: np.random.Generator) -> None:
    """Substitute one or two words and sometimes swap two neighbours."""
    rows = np.flatnonzero(para)
    for share in (1.0, 0.4):
        pick = rows[rng.random(len(rows)) < share]
        at = offsets[pick] + (rng.random(len(pick)) * length[pick]).astype(np.int64)
        tok[at] = rng.integers(0, min(vocab, 2000), len(pick))
    pick = rows[rng.random(len(rows)) < 0.3]
    at = offsets[pick] + (rng.random(len(pick)) * (length[pick] - 1)).astype(np.int64)
    tok[at], tok[at + 1] = tok[at + 1].copy(), tok[at].copy()


def sentence_frames(c: Corpus, li: int, lo: int, hi: int, attr_pool: np.ndarray) -> np.ndarray:
    """Pieces of sentences lo..hi with the words left empty. Sentence i takes ``length + 6``
    pieces: ``<s id="``, ``sN``, attributes and ``">``, words 1..n-1, opening quote, word n,
    closing quote, final punctuation and ``</s>``."""
    code = c.codes[li]
    script = SCRIPT_OF.get(code, "latin")
    length, style = c.length[lo:hi], c.style[lo:hi]
    base = np.r_[0, np.cumsum(length + 6)]
    pieces = np.empty(base[-1], dtype=object)
    starts = base[:-1]
    pieces[starts] = '<s id="'
    pieces[starts + 1] = np.array([f"s{i}" for i in c.ids[lo:hi].tolist()], dtype=object)
    pieces[starts + 2] = attr_pool[c.attr[lo:hi]]
    punct, q_open, q_close = punctuation(script, code)
    ends = np.array([p + "</s>\n" for row in punct for p in row], dtype=object)
    qi = style[:, 1] * 3 + style[:, 3]
    pieces[starts + length + 2] = np.array(q_open, dtype=object)[qi]
    pieces[starts + length + 4] = np.array(q_close, dtype=object)[qi]
    pieces[starts + length + 5] = ends[style[:, 1] * 4 + style[:, 2]]
    return pieces


def place_words(pieces: np.ndarray, tok: np.ndarray, table: np.ndarray, vocab: int,
                length: np.ndarray, style: np.ndarray) -> None:
    """Put each word, in its case / typography / spacing form, into its sentence frame."""
    base = np.r_[0, np.cumsum(length + 6)]
    sent = np.repeat(np.arange(len(length)), length)
    j = np.arange(len(tok)) - (base[sent] - 6 * sent)
    last = j == length[sent] - 1
    case = style[sent, 0]
    form = np.where(case == 2, 2, (j == 0) & (case == 0))
    index = ((form * 2 + style[sent, 1]) * 2 + last) * vocab + tok
    pieces[base[sent] + 3 + j + last] = table[index]


def render_document(c: Corpus, li: int, attr_pool: np.ndarray) -> bytes:
    """The XML document of language ``li``."""
    code = c.codes[li]
    script = SCRIPT_OF.get(code, "latin")
    rng = np.random.default_rng([c.seed, 1, li])
    lo, hi = int(c.start[li]), int(c.start[li + 1])
    words = build_words(code, script, vocabulary_size(int(language_sizes(1.0)[li])), rng)
    table = word_table(words, script not in NO_CASE_SPACES)
    tok = language_tokens(c, lo, hi, len(words), rng)
    pieces = sentence_frames(c, li, lo, hi, attr_pool)
    place_words(pieces, tok, table, len(words), c.length[lo:hi], c.style[lo:hi])
    body = "".join(pieces.tolist())
    return (HEADER_DOC.format(l=code) + body + "</document>\n").encode("utf-8")


def zipf_draws(n_values: int, count: int, exponent: float,
               rng: np.random.Generator) -> np.ndarray:
    """``count`` Zipf-distributed draws from 0..n_values-1."""
    cdf = np.cumsum(1.0 / np.arange(1, n_values + 1) ** exponent)
    draws = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
    return np.minimum(draws, n_values - 1)


def attribute_pool(size: int, seed: int) -> np.ndarray:
    """Pool of pieces closing the id attribute: entry 0 has no attributes, the others carry
    ``lists`` (1-4 list numbers) and/or ``tags`` (1-3 phrases)."""
    rng = np.random.default_rng([seed, 3])
    kind = rng.random(size)
    n_lists, n_tags = rng.integers(1, 5, size), rng.integers(1, 4, size)
    lists = zipf_draws(12_000, 4 * size, 1.2, rng).reshape(size, 4) + 1
    tags = zipf_draws(len(TAGS), 3 * size, 0.9, rng).reshape(size, 3)
    pool = ['">']
    for i in range(1, size):
        parts = ""
        if kind[i] < 0.85:
            numbers = dict.fromkeys(lists[i, : n_lists[i]].tolist())
            parts += ' lists="' + ";".join(map(str, numbers)) + '"'
        if kind[i] > 0.65:
            phrases = dict.fromkeys(TAGS[t] for t in tags[i, : n_tags[i]].tolist())
            parts += ' tags="' + escape(";".join(phrases)) + '"'
        pool.append('"' + parts + ">")
    return np.array(pool, dtype=object)


def render_alignment(c: Corpus, lo: int, hi: int, overlap: np.ndarray) -> bytes:
    """The gzipped cesAlign file of links lo..hi (one language pair)."""
    a, b = c.link_a[lo:hi], c.link_b[lo:hi]
    n = hi - lo
    side_a = np.array([f"s{i}" for i in c.ids[a].tolist()], dtype=object)
    side_b = np.array([f"s{i}" for i in c.ids[b].tolist()], dtype=object)
    first, last = np.searchsorted(c.multi_link, [lo, hi])
    for k in range(first, last):
        link, extra = int(c.multi_link[k]) - lo, int(c.multi_extra[k])
        x = int(a[link] if c.multi_side[k] == 0 else b[link])
        both = " ".join(f"s{i}" for i in sorted((int(c.ids[x]), int(c.ids[extra]))))
        (side_a if c.multi_side[k] == 0 else side_b)[link] = both
    rng = np.random.default_rng([c.seed, 2, lo])
    pieces = np.empty(7 * n, dtype=object)
    pieces[0::7] = '<link id="SL'
    pieces[1::7] = np.array([str(k) for k in range(1, n + 1)], dtype=object)
    pieces[2::7] = '" xtargets="'
    pieces[3::7] = side_a
    pieces[4::7] = ";"
    pieces[5::7] = side_b
    pieces[6::7] = overlap[rng.integers(0, len(overlap), n)]
    la, lb = c.codes[c.lang[a[0]]], c.codes[c.lang[b[0]]]
    text = HEADER_ALIGN.format(a=la, b=lb) + "".join(pieces.tolist()) + FOOTER_ALIGN
    return igzip.compress(text.encode("utf-8"), compresslevel=1, mtime=0)


# ---------------------------------------------------------------------------- writing

_STATE: dict = {}


def sort_links(c: Corpus) -> np.ndarray:
    """Sort links by (file, a, b) in place; return the link offsets of each file."""
    nl = len(c.codes)
    pair = c.lang[c.link_a] * nl + c.lang[c.link_b]
    order = np.lexsort((c.ids[c.link_b], c.ids[c.link_a], pair))
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    c.link_a, c.link_b = c.link_a[order], c.link_b[order]
    c.multi_link = inverse[c.multi_link]
    keep = np.argsort(c.multi_link)
    c.multi_link, c.multi_side = c.multi_link[keep], c.multi_side[keep]
    c.multi_extra = c.multi_extra[keep]
    pair = pair[order]
    return np.r_[0, np.flatnonzero(np.diff(pair)) + 1, len(pair)]


def write_document(li: int) -> int:
    """Worker: write ``raw/<l>.zip`` of language ``li``; return its size."""
    c, out = _STATE["corpus"], _STATE["out"]
    code = c.codes[li]
    data = render_document(c, li, _STATE["attr_pool"])
    path = out / "raw" / f"{code}.zip"
    member = zipfile.ZipInfo(f"Tatoeba/raw/{code}/tatoeba.xml", date_time=RELEASE_DATE)
    member.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, data, compresslevel=1)
    return path.stat().st_size


def write_alignment(bounds: tuple[int, int]) -> int:
    """Worker: write ``xml/<l1>-<l2>.xml.gz`` of links lo..hi; return its size."""
    c, out = _STATE["corpus"], _STATE["out"]
    lo, hi = bounds
    la, lb = c.codes[c.lang[c.link_a[lo]]], c.codes[c.lang[c.link_b[lo]]]
    path = out / "xml" / f"{la}-{lb}.xml.gz"
    path.write_bytes(render_alignment(c, lo, hi, _STATE["overlap"]))
    return path.stat().st_size


def run_tasks(function: Callable[[Any], int], tasks: list, jobs: int) -> list[int]:
    """Run writer tasks, in ``jobs`` forked processes when ``jobs > 1``."""
    if jobs <= 1:
        return [function(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(function, tasks, chunksize=1)


def write_corpus(c: Corpus, out: Path, jobs: int) -> tuple[int, int]:
    """Write all files; return (number of alignment files, bytes written)."""
    (out / "raw").mkdir(parents=True, exist_ok=True)
    (out / "xml").mkdir(parents=True, exist_ok=True)
    bounds = sort_links(c)
    overlap = np.array([f'" overlap="{v:.3f}" />\n' for v in np.linspace(0.1, 1.0, 901)],
                       dtype=object)
    _STATE.update(corpus=c, out=out, attr_pool=attribute_pool(20_000, c.seed), overlap=overlap)
    sizes = np.diff(c.start)
    doc_tasks = [int(li) for li in np.argsort(-sizes, kind="stable")]
    files = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    link_tasks = sorted(files, key=lambda f: f[0] - f[1])
    written = run_tasks(write_document, doc_tasks, jobs)
    written += run_tasks(write_alignment, link_tasks, jobs)
    _STATE.clear()
    return len(files), int(sum(written))


# ---------------------------------------------------------------------------- statistics


def component_sizes(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sizes of the connected components of n nodes (vectorised union-find)."""
    parent = np.arange(n)
    while True:
        pa, pb = parent[a], parent[b]
        differ = pa != pb
        if not differ.any():
            break
        parent[np.maximum(pa, pb)[differ]] = np.minimum(pa, pb)[differ]
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    return np.bincount(np.unique(parent, return_inverse=True)[1])


def component_histogram(c: Corpus) -> list[tuple[str, int, int]]:
    """(size bucket, components, sentences) rows of the link graph."""
    a = np.concatenate([c.link_a, c.multi_extra])
    b = np.concatenate([c.link_b, np.where(c.multi_side == 0, c.link_a[c.multi_link],
                                           c.link_b[c.multi_link])])
    sizes = component_sizes(len(c.lang), a, b)
    edges = [1, 2, 3, 6, 11, 21, 51, 101, 1001, 10**9]
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sel = (sizes >= lo) & (sizes < hi)
        label = str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+"
        rows.append((label, int(sel.sum()), int(sizes[sel].sum())))
    rows.append(("largest: " + ", ".join(map(str, np.sort(sizes)[-5:][::-1].tolist())), 0, 0))
    return rows


def print_stats(c: Corpus) -> None:
    """Print the component-size histogram and the sentence kinds."""
    print("component size   components    sentences")
    for label, count, total in component_histogram(c):
        print(f"{label:<16} {count:>10} {total:>12}" if count else label)
    kinds = np.bincount(c.kind, minlength=4)
    print("sentence kinds: canonical {}, paraphrase {}, near-identical {}, exact duplicate {}"
          .format(*kinds.tolist()))


# ---------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="release folder to write")
    parser.add_argument("--scale", type=float, default=1.0, help="1.0: ~7.8M sentences")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="default",
                        help="table2: calibrated to TaPaCo's Table 2 funnel (see Shape)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes for writing files")
    parser.add_argument("--stats", action="store_true",
                        help="also print the component-size histogram")
    return parser.parse_args(argv)


def generate(out: Path, scale: float, seed: int = 0, jobs: int = 1,
             stats: bool = False, shape: str = "default") -> dict:
    """Generate a release into ``out``; return its summary."""
    started = time.perf_counter()
    corpus = plan_corpus(scale, seed, SHAPES[shape])
    planned = time.perf_counter() - started
    if stats:
        print_stats(corpus)
    files, written = write_corpus(corpus, out, jobs)
    intra = int(np.count_nonzero(corpus.lang[corpus.link_a] == corpus.lang[corpus.link_b]))
    pairs = corpus.lang[corpus.link_a] * len(corpus.codes) + corpus.lang[corpus.link_b]
    intra_files = len(np.unique(pairs[corpus.lang[corpus.link_a] == corpus.lang[corpus.link_b]]))
    return {
        "languages": len(corpus.codes), "sentences": len(corpus.lang),
        "links": len(corpus.link_a), "intra_links": intra, "alignment_files": files,
        "intra_files": intra_files, "files": files + len(corpus.codes), "bytes": written,
        "plan_seconds": round(planned, 2),
        "seconds": round(time.perf_counter() - started, 2),
    }


def main(argv: list[str] | None = None) -> None:
    """Generate a release and print its summary."""
    args = parse_args(argv)
    summary = generate(args.out, args.scale, args.seed, args.jobs, args.stats, args.shape)
    print(
        f"{summary['languages']} languages, {summary['sentences']:,} sentences, "
        f"{summary['links']:,} links, {summary['alignment_files']} alignment files "
        f"({summary['intra_files']} intra-language), {summary['bytes'] / 2**20:,.1f} MiB "
        f"in {summary['seconds']:.1f} s"
    )


if __name__ == "__main__":
    main()
