"""Several languages in one run: every bitext read once, each language's output byte-identical
to ranking it alone."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import write_moses

from opusparcus.cli import main
from opusparcus.rank import RankOptions, rank, rank_languages

LANGS = ("de", "en", "fr")
# Meanings expressed in every language, with paraphrases: pairs of a language sharing pivots.
MEANINGS = [
    {"en": ["Yes.", "Yeah.", "Sure."], "fr": ["Oui.", "Ouais."], "de": ["Ja.", "Jawohl."]},
    {"en": ["No.", "Nope."], "fr": ["Non.", "Nan."], "de": ["Nein.", "Nee."]},
    {"en": ["Thank you.", "Thanks."], "fr": ["Merci.", "Merci bien."],
     "de": ["Danke.", "Danke schön."]},
    {"en": ["Where are you?", "Where are you now?"], "fr": ["Où es-tu ?", "T'es où ?"],
     "de": ["Wo bist du?", "Wo steckst du?"]},
    {"en": ["Let's go!", "Come on, let's go."], "fr": ["Allons-y !", "On y va."],
     "de": ["Los geht's!", "Gehen wir."]},
    {"en": ["I don't know.", "No idea."], "fr": ["Je ne sais pas.", "Aucune idée."],
     "de": ["Ich weiß nicht.", "Keine Ahnung."]},
]
# Meanings only in movies of years ending in 5 (dev) or 4 (test), so that they hold new pairs.
HELD_OUT = {
    5: [{"en": ["Get out of here!", "Leave this place now."],
         "fr": ["Sors d'ici !", "Quitte cet endroit."], "de": ["Raus hier!", "Verschwinde."]}],
    4: [{"en": ["What time is it?", "Do you have the time?"],
         "fr": ["Quelle heure est-il ?", "Tu as l'heure ?"],
         "de": ["Wie spät ist es?", "Hast du die Uhrzeit?"]}],
}


def _release(root: Path, seed: int = 3) -> Path:
    """Moses+ids bitexts for every pair of LANGS over movies of several years."""
    rng = random.Random(seed)
    rows: dict[str, list] = {"de-en": [], "de-fr": [], "en-fr": []}
    for movie, year in enumerate([1994, 1995, 2001, 2003, 2004, 2005, 2010, 1984, 1975], 1):
        lines = [rng.choice(MEANINGS + HELD_OUT.get(year % 10, [])) for _ in range(40)]
        for pair in rows:
            a, b = pair.split("-")
            for number, meaning in enumerate(lines, 1):
                rows[pair].append((f"{a}/{year}/{movie}/1.xml.gz", f"{b}/{year}/{movie}/1.xml.gz",
                                   str(number), str(number), rng.choice(meaning[a]),
                                   rng.choice(meaning[b])))
    for pair, pair_rows in rows.items():
        write_moses(root, pair, pair_rows, "OpenSubtitles", zipped=True)
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("pivots", [(), ("de",)])
def test_one_run_for_several_languages_equals_separate_runs(tmp_path, pivots):
    root = _release(tmp_path / "opus")
    langs = ("en", "fr") if pivots else LANGS
    options = RankOptions(pivots=pivots, workers=2)
    together = rank_languages(root, langs, tmp_path / "together", options)
    for lang in langs:
        alone = rank(root, lang, tmp_path / f"alone-{lang}", options)
        assert together[lang] == alone
        assert _files(tmp_path / "together" / lang) == _files(tmp_path / f"alone-{lang}" / lang)
        assert all(alone["pairs_written"].values()), alone["pairs_written"]
        assert set(alone["bitexts"]) == (set(pivots) or set(LANGS) - {lang})


def test_each_bitext_is_read_once(tmp_path, monkeypatch):
    import opusparcus.rank as ranking

    root = _release(tmp_path / "opus")
    read = []
    original = ranking.read_bitext_pieces
    monkeypatch.setattr(ranking, "read_bitext_pieces",
                        lambda opus_dir, source, *rest: read.append(source.path.name)
                        or original(opus_dir, source, *rest))
    rank_languages(root, LANGS, tmp_path / "out", RankOptions(workers=1))
    assert sorted(read) == ["de-en.txt.zip", "de-fr.txt.zip", "en-fr.txt.zip"]


def test_langs_all_ranks_every_language_with_a_bitext(tmp_path):
    root = _release(tmp_path / "opus")
    assert main(["rank", "--opus-dir", str(root), "--langs", "all", "--out",
                 str(tmp_path / "out"), "--workers", "1", "--quiet"]) == 0
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == list(LANGS)
    stats = json.loads((tmp_path / "out" / "fr" / "stats.json").read_text())
    assert stats["links_read"] == 2 * 9 * 40
