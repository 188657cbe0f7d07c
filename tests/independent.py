"""A second, deliberately simple TaPaCo implementation that the tests compare the build with.

It parses XML with xml.etree, finds sets as connected components with networkx (not igraph, which
the build uses), normalises text with hand-written replacements and scores BLEU pair by pair with
sacrebleu. Slow, obvious, separate.
"""

from __future__ import annotations

import gzip
import unicodedata
import xml.etree.ElementTree as ElementTree
import zipfile
from pathlib import Path

import networkx
from sacrebleu.metrics import BLEU

TYPOGRAPHIC = {"’": "'", "‘": "'", "“": '"', "”": '"', "„": '"', "«": '"', "»": '"',
               "…": "...", "–": "-", "—": "-"}


def surface(text: str) -> str:
    for typographic, plain in TYPOGRAPHIC.items():
        text = text.replace(typographic, plain)
    return text.replace('"', "").replace("!", ".")


def near_identical(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(c for c in text
                   if not unicodedata.category(c).startswith("P") and not c.isspace())


def _xml_bytes(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def read_links(opus_dir: Path) -> list[tuple[tuple, tuple]]:
    """Links as ((lang, doc, side), (lang, doc, side)) from every xml/<a>-<b>.xml.gz."""
    links = []
    for path in sorted((opus_dir / "xml").glob("*-*.xml.gz")):
        root = ElementTree.fromstring(_xml_bytes(path))
        for group in root.iter("linkGrp"):
            from_doc, to_doc = group.get("fromDoc"), group.get("toDoc")
            for link in group.iter("link"):
                a, b = link.get("xtargets").split(";")
                if a.strip() and b.strip():
                    links.append(((from_doc.split("/")[0], from_doc, a.strip()),
                                  (to_doc.split("/")[0], to_doc, b.strip())))
    return links


def read_document(opus_dir: Path, document: str) -> dict[str, tuple[str, str, str]]:
    """id -> (text, lists, tags), from raw/ or xml/ zips or extracted files."""
    lang = document.split("/")[0]
    for kind in ("raw", "xml"):
        archive = opus_dir / kind / f"{lang}.zip"
        if archive.exists():
            with zipfile.ZipFile(archive) as opened:
                names = [n for n in opened.namelist()
                         if n.endswith(f"/{kind}/" + document.removesuffix(".gz"))]
                if names:
                    return _sentences(opened.read(names[0]))
        extracted = opus_dir / kind / document
        if extracted.exists():
            return _sentences(_xml_bytes(extracted))
    raise FileNotFoundError(document)


def _sentences(data: bytes) -> dict[str, tuple[str, str, str]]:
    found = {}
    for sentence in ElementTree.fromstring(data).iter("s"):
        words = [w.text or "" for w in sentence.iter("w")]
        # raw: the <s>'s own character data (a child's content is left out, as OpusTools does)
        own = "".join([sentence.text or "", *(child.tail or "" for child in sentence)])
        text = " ".join(words) if words else " ".join(own.split())
        found[sentence.get("id")] = (text, sentence.get("lists", ""), sentence.get("tags", ""))
    return found


def components(opus_dir: Path) -> tuple[list[set], dict]:
    """Connected components of link sides (alignment + surface links), and side texts; a side
    without text is no sentence, in no component."""
    links = read_links(opus_dir)
    documents: dict[str, dict] = {}
    sides = networkx.Graph(links)
    info = {}
    for side in list(sides.nodes):
        lang, document, ids = side
        if document not in documents:
            documents[document] = read_document(opus_dir, document)
        parts = [documents[document][i] for i in ids.split()]
        info[side] = (" ".join(p[0] for p in parts if p[0]), ";".join(p[1] for p in parts if p[1]),
                      ";".join(p[2] for p in parts if p[2]))
        if not info[side][0]:
            sides.remove_node(side)
    first_with_key = {}
    for side in sorted(side for side in info if side in sides):
        key = (side[0], surface(info[side][0]))
        if not key[1]:
            continue  # an empty text is similar to nothing
        if key in first_with_key:
            sides.add_edge(side, first_with_key[key])
        first_with_key.setdefault(key, side)
    return list(networkx.connected_components(sides)), info


def _numeric(side: tuple) -> tuple:
    first = side[2].split()[0].lstrip("s")
    whole, _, fraction = first.partition(".")
    return (side[1], int(whole), int(fraction or 0), side[2])


Sets = dict[str, list[tuple[int, list[tuple]]]]


def expected_sets(opus_dir: Path, max_set_size=100, bleu_max=50.0, min_sets=100,
                  tokenize=lambda lang: "13a") -> tuple[Sets, dict]:
    """lang -> [(component number, sides in ascending id order)] after all filters; texts."""
    groups, info = components(opus_dir)
    result: Sets = {}
    for number, group in enumerate(groups):
        by_lang: dict[str, list] = {}
        for side in group:
            by_lang.setdefault(side[0], []).append(side)
        for lang, members in by_lang.items():
            members.sort(key=_numeric)
            if not 2 <= len(members) <= max_set_size:
                continue
            seen, kept = set(), []
            for side in members:
                key = near_identical(info[side][0])
                if key not in seen:
                    seen.add(key)
                    kept.append(side)
            if len(kept) < 2:
                continue
            bleu = BLEU(tokenize=tokenize(lang), smooth_method="floor", smooth_value=0.1,
                        effective_order=True)
            final = []
            for side in kept:
                if all(bleu.sentence_score(info[side][0], [info[earlier][0]]).score <= bleu_max
                       for earlier in final):
                    final.append(side)
            if len(final) >= 2:
                result.setdefault(lang, []).append((number, final))
    return {lang: sets for lang, sets in result.items() if len(sets) >= min_sets}, info


def key_hash(key: str) -> int:
    """The surface hash of a key, written out: FNV-1a over its code points, high bits mixed in,
    as a signed 64-bit number."""
    mask = (1 << 64) - 1
    value = 14695981039346656037
    for char in key:
        value = ((value ^ ord(char)) * 1099511628211) & mask
    value ^= value >> 29
    value = (value * 11400714819323198485) & mask
    value ^= value >> 32
    return value - (1 << 64) if value >> 63 else value
