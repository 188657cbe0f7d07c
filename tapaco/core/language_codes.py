"""Language codes: Tatoeba's (ISO 639-3: `eng`, `fra`, `cmn`) as OPUS and TaPaCo name them, and
any of these back to ISO 639-3 (what language identifiers name).

OPUS names a language by its two-letter ISO 639-1 code where ISO 639-3 gives the language one
(`eng` -> `en`, `nob` -> `nb`, `heb` -> `he`) and keeps the Tatoeba code otherwise (`cmn`,
`yue`, `pes`, `ber`, `toki`): the names of TaPaCo v1.0's 73 files.
"""

from __future__ import annotations

from tapaco.core.errors import usage_error

# ISO 639-3 code -> ISO 639-1 code, for every language ISO 639-1 names
_TWO_LETTER = dict(pair.split(":") for pair in """
aar:aa abk:ab ave:ae afr:af aka:ak amh:am arg:an ara:ar asm:as ava:av aym:ay aze:az bak:ba
bel:be bul:bg bis:bi bam:bm ben:bn bod:bo bre:br bos:bs cat:ca che:ce cha:ch cos:co cre:cr
ces:cs chu:cu chv:cv cym:cy dan:da deu:de div:dv dzo:dz ewe:ee ell:el eng:en epo:eo spa:es
est:et eus:eu fas:fa ful:ff fin:fi fij:fj fao:fo fra:fr fry:fy gle:ga gla:gd glg:gl grn:gn
guj:gu glv:gv hau:ha heb:he hin:hi hmo:ho hrv:hr hat:ht hun:hu hye:hy her:hz ina:ia ind:id
ile:ie ibo:ig iii:ii ipk:ik ido:io isl:is ita:it iku:iu jpn:ja jav:jv kat:ka kon:kg kik:ki
kua:kj kaz:kk kal:kl khm:km kan:kn kor:ko kau:kr kas:ks kur:ku kom:kv cor:kw kir:ky lat:la
ltz:lb lug:lg lim:li lin:ln lao:lo lit:lt lub:lu lav:lv mlg:mg mah:mh mri:mi mkd:mk mal:ml
mon:mn mar:mr msa:ms mlt:mt mya:my nau:na nob:nb nde:nd nep:ne ndo:ng nld:nl nno:nn nor:no
nbl:nr nav:nv nya:ny oci:oc oji:oj orm:om ori:or oss:os pan:pa pli:pi pol:pl pus:ps por:pt
que:qu roh:rm run:rn ron:ro rus:ru kin:rw san:sa srd:sc snd:sd sme:se sag:sg sin:si slk:sk
slv:sl smo:sm sna:sn som:so sqi:sq srp:sr ssw:ss sot:st sun:su swe:sv swa:sw tam:ta tel:te
tgk:tg tha:th tir:ti tuk:tk tgl:tl tsn:tn ton:to tur:tr tso:ts tat:tt twi:tw tah:ty uig:ug
ukr:uk urd:ur uzb:uz ven:ve vie:vi vol:vo wln:wa wol:wo xho:xh yid:yi yor:yo zha:za zho:zh
zul:zu""".split())


def opus_code(tatoeba_code: str) -> str:
    """The OPUS name of a Tatoeba language code."""
    return _TWO_LETTER.get(tatoeba_code, tatoeba_code)


def opus_codes(tatoeba_codes: list[str], where: str) -> list[str]:
    """The OPUS names of an export's languages; two codes that would share a name are an
    error (their sentences would merge into one language)."""
    named: dict[str, str] = {}
    for code in tatoeba_codes:
        name = opus_code(code)
        if name in named:
            raise usage_error(where, f"languages {named[name]} and {code} would both be {name}; "
                              "--language-codes export keeps the export's codes")
        named[name] = code
    return [opus_code(code) for code in tatoeba_codes]


_THREE_LETTER = {two: three for three, two in _TWO_LETTER.items()}
# codes OPUS or Tatoeba use that are neither ISO 639-1 nor ISO 639-3
_OTHER_NAMES = {"toki": "tok", "zh_cn": "cmn", "zh_tw": "cmn", "zh_CN": "cmn", "zh_TW": "cmn",
                "pt_br": "por", "pt_BR": "por", "sh": "hbs", "ze_zh": "cmn", "ze_en": "eng"}


def iso639_3(code: str) -> str:
    """The ISO 639-3 code of a language named by ISO 639-1 (`fr`), ISO 639-3 (`fra`) or a name
    OPUS or Tatoeba use (`toki`, `zh_CN`, `pt_br`, `sh`); an unknown code as it is, lowercased."""
    if code in _OTHER_NAMES:
        return _OTHER_NAMES[code]
    code = code.lower()
    return _THREE_LETTER.get(code, code)
