"""`--language-id`: which sentences of a language are written in another one.

The identifier is heliport (the `langid` extra, imported at first use: its model is in its
wheel, nothing is downloaded). A sentence is dropped only when all of these hold:

1. it is long enough to judge: at least :data:`MIN_LETTERS` letters (Tatoeba's `Ja.` is not);
2. heliport's best language for it is not the file's: a close relative or a member of the same
   macrolanguage counts as the file's own (:data:`RELATIVES`; heliport already names
   Serbo-Croatian `hbs`, Malay and Indonesian `msa`, Mandarin `cmn`);
3. on its Moses-detokenised text (OPUS's tokenised `C' est quoi ?` is Walloon to heliport,
   `C'est quoi ?` French), the file's language scores worse than the best by more than
   `GAP + GAP_LETTERS / letters` (heliport's scores are means over the text's n-grams, so a
   short text needs a wider margin). Only the sentences step 2 names foreign are detokenised.

The constants were chosen on real Tatoeba text (docs/language_id.md). A language heliport does
not know (Klingon, Lojban, Toki Pona...) is never judged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from tapaco.core.errors import OptionError
from tapaco.core.language_codes import iso639_3, opus_code

IDENTIFIER = "heliport"
EXTRA_HINT = "pip install 'pivot-paraphrase-miner[langid]'"
MIN_LETTERS = 7
GAP = 0.4
GAP_LETTERS = 12.0
TOP = 8  # languages read first of heliport's ranking
BATCH = 1 << 15  # sentences made into Python strings and identified at a time
UNDETERMINED = frozenset({"und", "zxx"})

# ISO 639-3 codes that name heliport's label for the same language (macrolanguages and their
# members, codes heliport collapses)
_SAME_AS = {
    "zho": "cmn", "yue": "cmn", "wuu": "cmn", "lzh": "cmn", "nan": "cmn", "hak": "cmn",
    "gan": "cmn", "hsn": "cmn", "cjy": "cmn",
    "srp": "hbs", "hrv": "hbs", "bos": "hbs", "cnr": "hbs",
    "zsm": "msa", "ind": "msa", "zlm": "msa", "min": "msa",
    "fas": "pes", "prs": "pes",
    "arz": "ara", "apc": "ara", "ary": "ara", "acm": "ara", "afb": "ara", "ajp": "ara",
    "aeb": "ara", "arq": "ara", "ars": "ara", "acq": "ara", "ayl": "ara", "arb": "ara",
    "uzb": "uzn", "uzs": "uzn", "pus": "pbt", "pbu": "pbt", "pst": "pbt", "kur": "kmr",
    "orm": "gaz", "nor": "nob", "ekk": "est", "als": "sqi", "aln": "sqi", "aym": "ayr",
    "gug": "grn", "ydd": "yid", "lvs": "lav", "khk": "mon", "npi": "nep", "swh": "swa",
    "plt": "mlg", "kau": "knc", "kom": "kpv", "ory": "ori", "fil": "tgl", "ike": "iku",
}

# groups of languages whose short sentences an identifier cannot tell apart; a sentence named
# one of its file's group is not foreign
RELATIVES = (
    frozenset({"fra", "wln", "pcd", "nrf", "frp"}),
    frozenset({"deu", "gsw", "bar", "ksh", "pfl", "ltz", "swg"}),
    frozenset({"nld", "vls", "zea", "lim"}),
    frozenset({"ita", "scn", "lmo", "pms", "vec", "nap", "lij"}),
    frozenset({"spa", "ast", "ext", "arg"}),
    frozenset({"por", "glg", "mwl"}),
    frozenset({"cat", "oci"}),
    frozenset({"nob", "nno", "dan"}),
    frozenset({"ces", "slk"}),
    frozenset({"bul", "mkd"}),
    frozenset({"eng", "sco"}),
)
_GROUP = {code: min(group) for group in RELATIVES for code in group}


def identifier_label(code: str) -> str:
    """The label heliport would give a language named by any code the corpora use (`zh`, `cmn`
    and `yue` -> `cmn`; `sr` -> `hbs`; `fr` -> `fra`)."""
    three = iso639_3(code)
    return _SAME_AS.get(three, three)


def same_language(label: str, code: str) -> bool:
    """Whether an identifier's `label` names the language `code`, a member of it or a close
    relative."""
    own, named = identifier_label(code), identifier_label(label)
    return named == own or _GROUP.get(named, named) == _GROUP.get(own, own)


@cache
def _identifier_module():
    try:
        import heliport
    except ImportError:
        raise OptionError("--language-id", f"needs the langid extra ({EXTRA_HINT})") from None
    return heliport


def check_available() -> None:
    """Raise the one-line error of `--language-id` when the `langid` extra is missing."""
    _identifier_module()


@cache
def _identifier():
    return _identifier_module().Identifier()


def identifier_version() -> str:
    from importlib.metadata import version

    return version(IDENTIFIER)


@cache
def known_languages() -> frozenset[str]:
    """The labels heliport can give."""
    return frozenset(_identifier().get_confidence_all())


@cache
def own_labels(code: str) -> frozenset[str]:
    """heliport's labels that count as the language `code` (itself, its members, relatives)."""
    return frozenset(label for label in known_languages() if same_language(label, code))


def judged(code: str) -> bool:
    """Whether sentences of the language `code` are judged (heliport knows it)."""
    return identifier_label(code) in known_languages()


def _letters(text: str) -> int:
    return sum(character.isalpha() for character in text)


def _best_labels(texts: list[str]) -> list[str]:
    """heliport's best label of each text (it holds the GIL: one thread)."""
    identify = _identifier().identify
    return [identify(text, ignore_confidence=True) for text in texts]


def _clearly_foreign(text: str, code: str) -> bool:
    """Step 3: the file's language scores worse than the best by the length's margin (read
    from heliport's first :data:`TOP` languages, all of them when the file's is not there
    and the last of those is within the margin)."""
    margin = GAP + GAP_LETTERS / max(_letters(text), 1)
    for count in (TOP, len(known_languages())):
        ranked = _identifier().identify_topk_with_score(text, count)
        if ranked[0][0] in UNDETERMINED:  # nothing heliport reads as text
            return False
        best = ranked[0][1]
        own = [score for label, score in ranked if label in own_labels(code)]
        if own:
            return own[0] - best > margin
        if ranked[-1][1] - best > margin:
            return True
    return True  # the file's language is not in heliport's ranking (not judged: unreachable)


@cache
def _detokenizer(code: str) -> Callable[[list[str]], str]:
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang=opus_code(iso639_3(code))).detokenize


def foreign(texts: Sequence[str], code: str) -> np.ndarray:
    """Which of `texts`, sentences of the language `code`, are in another language (all False
    for a language heliport does not know)."""
    result = np.zeros(len(texts), bool)
    if not judged(code):
        return result
    detokenize = _detokenizer(code)
    for start in range(0, len(texts), BATCH):
        batch = list(texts[start:start + BATCH])
        long_enough = [i for i, text in enumerate(batch) if _letters(text) >= MIN_LETTERS]
        labels = _best_labels([batch[i] for i in long_enough])
        for i, label in zip(long_enough, labels):
            if label not in own_labels(code) and label not in UNDETERMINED:
                text = detokenize(batch[i].split())
                result[start + i] = (_letters(text) >= MIN_LETTERS
                                     and _clearly_foreign(text, code))
    return result


@dataclass
class LanguageIdCounts:
    """What `--language-id` did, per language: sentences judged and dropped, and the languages
    the identifier does not know (kept whole)."""

    judged: dict[str, int]
    dropped: dict[str, int]
    not_judged: dict[str, int]

    def as_dict(self) -> dict:
        return {"identifier": IDENTIFIER, "version": identifier_version(),
                "min_letters": MIN_LETTERS, "gap": GAP,
                "gap_letters": GAP_LETTERS, "judged": sum(self.judged.values()),
                "dropped": sum(self.dropped.values()),
                "not_judged": sum(self.not_judged.values()),
                "per_language": {lang: {"judged": self.judged[lang],
                                        "dropped": self.dropped[lang]}
                                 for lang in sorted(self.judged)},
                "languages_not_judged": sorted(self.not_judged)}


def card_note(section: dict) -> str:
    """The dataset card's sentence on `--language-id` (`section`: stats.json's `language_id`)."""
    return (f"Language identification ({section['identifier']} {section['version']}, "
            f"`--language-id`) judged {section['judged']:,} sentences and dropped "
            f"{section['dropped']:,} as written in another language (counts per language in "
            f"`stats.json`, `language_id`); languages it does not know were kept whole"
            + (f" ({', '.join(section['languages_not_judged'])})"
               if section["languages_not_judged"] else "") + ".")
