"""One OpenSubtitles-like release in OPUS's three forms ranks byte-identically.

(a) Moses bitexts with `.ids` (raw text lines), (b) cesAlign over raw documents whose `<s>`
hold `<time>` elements, (c) cesAlign over tokenised documents whose `<w>` tokens are what the
Moses tokenizer (sacremoses itself, escape=False) makes of the raw text, with `<time>`
elements too. Movies from years ending in 4 (test) and 5 (dev) and others (train) give
candidates in every split.
"""

from __future__ import annotations

import bz2
import random
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from conftest import subtitle_xml, write_cesalign, write_document_zip, write_moses
from sacremoses import MosesTokenizer

from opusparcus.rank import RankOptions, rank

PIVOTS = ("de", "fr")
# meaning: (English paraphrases, German, French)
SHARED = [(["Yes.", "Yeah.", "Sure!"], "Ja.", "Oui.")]
MEANINGS = {
    "train": [(["Have a seat.", "Sit down, please.", "Take a seat!"], "Setz dich.",
               "Asseyez-vous."),
              (["What's going on?", "What is happening?"], "Was ist los?",
               "Qu'est-ce qui se passe ?")],
    "dev": [(["Good morning, Sam.", "Hello there, Sam!"], "Guten Morgen, Sam.", "Bonjour, Sam."),
            (["I don't know...", "No idea."], "Keine Ahnung.", "Je ne sais pas.")],
    "test": [(["Go away!", "Leave me alone."], "Geh weg!", "Va-t'en !"),
             (["Thank you very much.", "Thanks a lot!"], "Vielen Dank.", "Merci beaucoup.")],
}
YEARS = {"train": (2001, 1987), "dev": (1995, 2005), "test": (1994, 2004)}


@dataclass
class Movie:
    """One movie: a document per language, sentence i of each linked 1:1, plus a 2:1 link."""

    year: int
    number: int
    lines: dict[str, list[str]]

    def document(self, lang: str) -> str:
        return f"{lang}/{self.year}/{self.number}/{self.number + len(lang)}.xml.gz"

    def links(self, pivot: str) -> list[tuple[str, str]]:
        """(target ids, pivot ids): 1:1 for every pivot sentence but the last, which takes the
        last two target sentences."""
        count = len(self.lines[pivot])
        return [(str(i), str(i)) for i in range(1, count)] + [(f"{count} {count + 1}",
                                                               str(count))]


def _movies(seed: int = 5) -> list[Movie]:
    rng = random.Random(seed)
    movies = []
    for split, years in YEARS.items():
        for year in years:
            chosen = [rng.choice(MEANINGS[split] + SHARED) for _ in range(14)]
            english = [rng.choice(meaning[0]) for meaning in chosen]
            english[3] = ""  # an <s> holding only its times: no text, no sentence
            lines = {"en": english + ["Wait.", "Now."],
                     "de": [meaning[1] for meaning in chosen] + ["Warte jetzt."],
                     "fr": [meaning[2] for meaning in chosen] + ["Attends maintenant."]}
            movies.append(Movie(year, len(movies) + 1, lines))
    return movies


def _texts(movie: Movie, lang: str, ids: str) -> str:
    return " ".join(movie.lines[lang][int(i) - 1] for i in ids.split())


def write_moses_form(root: Path, movies: list[Movie]) -> Path:
    for pivot in PIVOTS:
        rows = []
        for movie in movies:
            for target_ids, pivot_ids in movie.links(pivot):
                row = (movie.document("en"), movie.document(pivot), target_ids, pivot_ids,
                       _texts(movie, "en", target_ids), _texts(movie, pivot, pivot_ids))
                rows.append(row if "en" < pivot else (row[1], row[0], row[3], row[2],
                                                      row[5], row[4]))
        write_moses(root, "-".join(sorted(("en", pivot))), rows, "OpenSubtitles", zipped=True)
    return root


def _write_alignments(root: Path, movies: list[Movie]) -> None:
    for pivot in PIVOTS:
        groups = []
        for movie in movies:
            links = movie.links(pivot)
            if pivot < "en":
                groups.append((movie.document(pivot), movie.document("en"),
                               [(b, a) for a, b in links]))
            else:
                groups.append((movie.document("en"), movie.document(pivot), links))
        write_cesalign(root / "xml" / f"{'-'.join(sorted(('en', pivot)))}.xml.gz", groups)


def write_raw_form(root: Path, movies: list[Movie]) -> Path:
    _write_alignments(root, movies)
    for lang in ("en", *PIVOTS):
        write_document_zip(root, "raw", lang, {
            movie.document(lang): subtitle_xml(list(zip(map(str, range(1, 99)),
                                                        movie.lines[lang])))
            for movie in movies})
    return root


def tokenised_xml(sentences: list[str], tokenizer: MosesTokenizer) -> str:
    """A tokenised OpenSubtitles document: `<time>` elements around `<w>` tokens."""
    lines = ['<?xml version="1.0" encoding="utf-8"?>', '<document id="1">']
    for number, text in enumerate(sentences, 1):
        tokens = tokenizer.tokenize(text, escape=False) if text else []
        lines += [f'  <s id="{number}">', f'    <time id="T{number}S" value="00:00:01,000" />']
        lines += [f'    <w id="{number}.{k}">{escape(token)}</w>'
                  for k, token in enumerate(tokens, 1)]
        lines += [f'    <time id="T{number}E" value="00:00:02,000" />', "  </s>"]
    return "\n".join([*lines, "</document>"]) + "\n"


def write_tokenised_form(root: Path, movies: list[Movie]) -> Path:
    _write_alignments(root, movies)
    for lang in ("en", *PIVOTS):
        tokenizer = MosesTokenizer(lang=lang)
        write_document_zip(root, "xml", lang, {
            movie.document(lang): tokenised_xml(movie.lines[lang], tokenizer)
            for movie in movies})
    return root


def _outputs(out: Path) -> dict[str, bytes]:
    return {"train": bz2.decompress((out / "en/train/en-train.txt.bz2").read_bytes()),
            "dev": (out / "en/dev/en-dev-candidates.txt").read_bytes(),
            "test": (out / "en/test/en-test-candidates.txt").read_bytes()}


def test_moses_raw_and_tokenised_forms_rank_byte_identically(tmp_path):
    movies = _movies()
    writers = {"moses": write_moses_form, "raw": write_raw_form,
               "tokenised": write_tokenised_form}
    outputs, stats = {}, {}
    for form, writer in writers.items():
        root = writer(tmp_path / form, movies)
        stats[form] = rank(root, "en", tmp_path / f"out-{form}", RankOptions(workers=1))
        outputs[form] = _outputs(tmp_path / f"out-{form}")
    assert all(outputs["moses"][split].count(b"\n") >= 2 for split in ("train", "dev", "test"))
    assert outputs["raw"] == outputs["moses"]
    assert outputs["tokenised"] == outputs["moses"]
    for form in writers:
        for pivot in PIVOTS:
            counts = stats[form]["bitexts"][pivot]
            # 15 pivot sentences a movie: 14 1:1 links (one to the empty en sentence), one 2:1
            assert (counts["one_to_one"], counts["not_one_to_one"],
                    counts["links_with_empty_text"]) == (14 * 6, 6, 6), (form, pivot)


def test_documents_option_chooses_the_folder_read_first(tmp_path, capsys):
    """Both folders present: `--documents raw` never opens xml/ (here a corrupt zip) and ranks
    as the Moses form does; `--documents xml` reads xml/ first and stops at the bad zip."""
    from opusparcus.cli import main

    movies = _movies()
    expected = tmp_path / "out-moses"
    rank(write_moses_form(tmp_path / "moses", movies), "en", expected, RankOptions(workers=1))
    root = write_raw_form(tmp_path / "both", movies)
    (root / "xml" / "en.zip").write_bytes(b"not a zip")
    arguments = ["rank", "--opus-dir", str(root), "--lang", "en", "--workers", "1", "--quiet"]
    assert main([*arguments, "--out", str(tmp_path / "raw"), "--documents", "raw"]) == 0
    assert _outputs(tmp_path / "raw") == _outputs(expected)
    assert '"documents": "raw"' in (tmp_path / "raw/en/stats.json").read_text()
    assert main([*arguments, "--out", str(tmp_path / "xml"), "--documents", "xml"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "en.zip: not a readable zip file" in error[0]
