"""The annotation page (`opusparcus serve`) in a real browser: Playwright driving Debian's
chromium against the app served by uvicorn in a thread.

Pairs with one annotator (keys, clicks, undo, skip, previous, reload), two annotators at once
and their agreement, a 1,000-pair sample answered on the page whose file must equal the terminal
annotator's and go through combine and cutoff, TaPaCo sets, a wrong link, and a phone screen.
Every expected value is worked out here by hand, never asked of the code under test. The page's
Content-Security-Policy forbids eval, so nothing here evaluates strings in the page: it waits
with `expect` on what the page shows.
"""

from __future__ import annotations

import bz2
import io
import json
import os
import random
import re
import shutil
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ranked_english

for _module in ("starlette", "uvicorn"):
    pytest.importorskip(_module, reason=f"the annotation page needs {_module} (the 'web' extra)")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need playwright (the 'test' extra)")

import uvicorn  # noqa: E402

from opusparcus.annotate import annotate  # noqa: E402
from opusparcus.cli import main  # noqa: E402
from tapaco.core.annotation.pairs import Annotation, write_annotations  # noqa: E402
from tapaco.core.annotation.web.app import create_app  # noqa: E402
from tapaco.core.annotation.web.desk import Desk  # noqa: E402
from tapaco.core.annotation.web.serve import LOOPBACK_NAMES, ServeOptions, listen, open_task  # noqa: E402
from tapaco.core.annotation.web.tasks import PairTask  # noqa: E402

expect = sync_api.expect


def _chromium() -> tuple[str | None, str]:
    """The chromium executable (env CHROMIUM overrides the search), or None and why not."""
    override = os.environ.get("CHROMIUM")
    if override:
        found = shutil.which(override)
        return found, f"CHROMIUM={override} is not an executable"
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return found, ("no chromium executable (chromium or chromium-browser on PATH, or set "
                   "CHROMIUM); `playwright install` needs the network")


CHROMIUM, _MISSING = _chromium()
if CHROMIUM is None:
    pytest.skip(_MISSING, allow_module_level=True)

LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
TOKENS = {1: "first-annotators-private-token", 2: "second-annotators-private-token"}
KEYS = {4: "4", 3: "3", 2: "2", 1: "1", "t": "t"}  # label -> key on the page and terminal
# the paper's Tables 4-5, as the page titles them (group: title)
PAIR_HEADINGS = ["Good: 2 × Green", "Mostly good: Green + Light green",
                 "Mostly good: 2 × Light green", "Mostly bad: Light green + Yellow",
                 "Mostly bad: 2 × Yellow", "Bad: Yellow + Red", "Bad: 2 × Red",
                 "Discarded: Trash", "Discarded: Disagree"]
SHOWN_POSITION = "#pair-view:not([hidden]) > #pair-position"
BUSY = re.compile(r"\bbusy\b")  # the page's mark of a request under way
PAIR_COLUMNS = ["4.0", "3.5", "3.0", "2.5", "2.0", "1.5", "1.0", "trash", "disagree"]


# -- by-hand references ---------------------------------------------------------------------

def kappa(pairs: list[tuple[object, object]]) -> float:
    """Cohen's kappa, written out: (observed - chance) / (1 - chance)."""
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    labels = {a for a, _ in pairs} | {b for _, b in pairs}
    chance = sum(sum(1 for a, _ in pairs if a == label) * sum(1 for _, b in pairs if b == label)
                 for label in labels) / (n * n)
    return (observed - chance) / (1 - chance)


def column(first, second) -> str:
    """The agreement column of two labels (1-4 or "t"), by the paper's rules."""
    if "t" in (first, second):
        return "trash"
    if abs(first - second) > 1:
        return "disagree"
    return f"{(first + second) / 2:.1f}"


def label_field(label) -> str:
    return "" if label is None else "trash" if label == "t" else str(label)


def pair_file_text(pairs: list[tuple[int, str, str, str]], first: list, second: list) -> str:
    """An annotation file as it must read: header, then rank id sentence1 sentence2 labels."""
    lines = ["rank\tid\tsentence1\tsentence2\tannotator1\tannotator2"]
    lines += [f"{rank}\t{pair_id}\t{s1}\t{s2}\t{label_field(a)}\t{label_field(b)}"
              for (rank, pair_id, s1, s2), a, b in zip(pairs, first, second, strict=True)]
    return "\n".join(lines) + "\n"


def write_pairs(path: Path, pairs: list[tuple[int, str, str, str]]) -> Path:
    write_annotations(path, [Annotation(rank, pair_id, s1, s2, [None, None], 0)
                             for rank, pair_id, s1, s2 in pairs])
    assert path.read_text(encoding="utf-8") == pair_file_text(pairs, [None] * len(pairs),
                                                              [None] * len(pairs))
    return path


# -- the server and the browser -------------------------------------------------------------

@contextmanager
def serving(task, tokens=TOKENS):
    """The annotation app on a free loopback port in a thread; yields each annotator's link."""
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = create_app(Desk(task, tokens), LOOPBACK_NAMES)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive(), "the server thread ended before it started serving"
        assert time.monotonic() < deadline, "the server did not start within 15 s"
        time.sleep(0.01)
    try:
        yield {annotator: f"http://127.0.0.1:{port}/a/{token}/"
               for annotator, token in tokens.items()}
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        except sync_api.Error as error:
            pytest.skip(f"cannot start {CHROMIUM}: {str(error).splitlines()[0]}")
        yield launched
        launched.close()


class Annotator:
    """One annotator: a browser context of their own, its page, and the page's errors."""

    def __init__(self, browser, **context_options) -> None:
        self.context = browser.new_context(**context_options)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.allowed: set[str] = set()  # URLs whose failed load is the point of a test
        self.page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        self.page.on("console", self._console)

    def _console(self, message) -> None:
        url = message.location.get("url", "") if message.location else ""
        if message.type == "error" and "favicon" not in url and url not in self.allowed:
            self.errors.append(f"console error: {message.text} ({url})")

    def open(self, url: str) -> Annotator:
        self.page.goto(url)
        return self

    def shows(self, text: str) -> None:
        """Wait until the pair view is shown with `text` as its position line (the hidden view
        keeps its last text; the page updates both at once)."""
        expect(self.page.locator(SHOWN_POSITION)).to_have_text(text)

    def press(self, key: str, then: str | None) -> None:
        """Press a key and wait until the page shows `then` (a pair's position line), or the
        finished view when `then` is None: the page ignores keys while a request runs."""
        self.page.keyboard.press(key)
        self.wait(then)

    def wait(self, then: str | None) -> None:
        if then is None:
            expect(self.page.locator("#finished")).to_be_visible()
            # it may still be fetching the agreement: a key now would be lost
            expect(self.page.locator("body")).not_to_have_class(BUSY)
        else:
            self.shows(then)

    def chosen(self) -> list[str]:
        """The answers the page marks as this annotator's chosen one (0 or 1 of them)."""
        buttons = self.page.locator("#pair-view .answer.chosen")
        return [buttons.nth(i).get_attribute("data-answer") for i in range(buttons.count())]


@pytest.fixture
def annotators(browser):
    """Makes annotators; at the end closes them and fails on any error their pages showed."""
    made: list[Annotator] = []

    def make(**context_options) -> Annotator:
        made.append(Annotator(browser, **context_options))
        return made[-1]

    yield make
    try:
        for annotator in made:  # no request failed (the page would say why in #status)
            status = annotator.page.locator("#status")
            if status.count():
                expect(status).to_have_text("")
    finally:
        for annotator in made:
            annotator.context.close()
    assert [error for annotator in made for error in annotator.errors] == [], (
        "the page reported errors")


def position(index: int, pairs: list[tuple[int, str, str, str]]) -> str:
    return f"Pair {index + 1} of {len(pairs)} · {pairs[index][1]}"


def labels_in(path: Path) -> list[tuple[str, str]]:
    """Both label fields of every row of an annotation file, read as plain TSV."""
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    return [tuple(row.split("\t")[4:6]) for row in rows]


# -- pairs ----------------------------------------------------------------------------------

SIX = [(3, "en-N3", "It was a last minute thing .", "This wasn't planned ."),
       (8, "en-N8", "Honey , look .", "Um , honey , listen ."),
       (15, "en-N15", "Hang that up .", "Hang up the phone ."),
       (21, "en-N21", "Another one ?", "Partner again ?"),
       (30, "en-N30", "She's over there .", "Take me to him ."),
       (42, "en-N42", "Déjà vu « again » .", "Ça & <b>tags</b> stay text .")]


def test_one_annotator_keys_clicks_undo_skip_back_and_reload(tmp_path, annotators):
    path = write_pairs(tmp_path / "en-sample.tsv", SIX)
    with serving(PairTask(path)) as links:
        one = annotators().open(links[1])
        page = one.page
        one.shows(position(0, SIX))
        expect(page.locator("#sentence1")).to_have_text(SIX[0][2])
        expect(page.locator("#sentence2")).to_have_text(SIX[0][3])
        expect(page.locator("#progress-text")).to_have_text("0 / 6 done")
        expect(page.locator("#who")).to_have_text("annotator 1")
        expect(page.locator("#title")).to_have_text("Paraphrase pairs · en")
        assert one.chosen() == []

        one.press("4", position(1, SIX))
        expect(page.locator("#sentence1")).to_have_text(SIX[1][2])
        one.press("3", position(2, SIX))
        one.press("t", position(3, SIX))
        page.locator("#pair-view .answer[data-answer='1']").click()  # Bad, by the mouse
        one.wait(position(4, SIX))
        expect(page.locator("#progress-text")).to_have_text("4 / 6 done")
        assert labels_in(path)[:4] == [("4", ""), ("3", ""), ("trash", ""), ("1", "")]

        one.press("u", position(3, SIX))  # undo: the Bad pair again, its label cleared
        expect(page.locator("#sentence2")).to_have_text(SIX[3][3])
        expect(page.locator("#progress-text")).to_have_text("3 / 6 done")
        assert one.chosen() == []
        assert labels_in(path) == [("4", ""), ("3", ""), ("trash", ""), ("", ""), ("", ""),
                                   ("", "")]

        one.press("ArrowRight", position(4, SIX))  # skip it ...
        one.press("2", position(5, SIX))
        one.press("1", position(3, SIX))  # ... it comes back after the last pair
        expect(page.locator("#progress-text")).to_have_text("5 / 6 done")

        one.press("ArrowLeft", position(2, SIX))  # look back: own answers are marked
        assert one.chosen() == ["trash"]
        one.press("ArrowLeft", position(1, SIX))
        assert one.chosen() == ["3"]
        expect(page.locator("#sentence1")).to_have_text(SIX[1][2])
        one.press("2", position(3, SIX))  # change it; then on to the one left
        assert labels_in(path)[1] == ("2", "")

        one.press("ArrowLeft", position(2, SIX))
        page.reload()  # resumes at the first pair not answered
        one.shows(position(3, SIX))
        expect(page.locator("#progress-text")).to_have_text("5 / 6 done")
        assert one.chosen() == []

        one.press("4", None)
        expect(page.locator("#progress-text")).to_have_text("6 / 6 done")
        expect(page.locator("#finished-text")).to_contain_text("once the other annotator")
        expect(page.locator("#agreement")).to_be_hidden()
        one.press("ArrowLeft", position(5, SIX))  # back from the end: the last pair
        assert one.chosen() == ["1"]
    assert path.read_text(encoding="utf-8") == pair_file_text(
        SIX, [4, 2, "t", 4, 2, 1], [None] * 6)


EIGHT = [(n, f"fr-N{n}", f"Phrase numéro {n} .", f"Autre phrase {n} .") for n in
         (2, 5, 7, 11, 13, 17, 19, 23)]
FIRST = [4, 4, 3, 3, 2, 1, "t", 4]
SECOND = [4, 3, 3, 1, 2, 2, "t", 2]


def test_two_annotators_at_once_see_only_their_own_labels_then_agreement(tmp_path,
                                                                           annotators):
    path = write_pairs(tmp_path / "fr-sample.tsv", EIGHT)
    # by hand: 4+4 -> 4.0, 4+3 -> 3.5, 3+3 -> 3.0, 3+1 disagree, 2+2 -> 2.0, 1+2 -> 1.5,
    # trash, 4+2 disagree
    counts = ["1", "1", "1", "0", "1", "1", "0", "1", "2"]
    assert [Counter(column(a, b) for a, b in zip(FIRST, SECOND))[key]
            for key in PAIR_COLUMNS] == [int(count) for count in counts]
    by_hand = kappa(list(zip(FIRST, SECOND)))  # observed 4/8, chance 12/64
    assert by_hand == pytest.approx((0.5 - 12 / 64) / (1 - 12 / 64))
    summary = f"5 of 8 pairs kept. Cohen's kappa {by_hand:.3f}."

    with serving(PairTask(path)) as links:
        one = annotators()
        one.context.clock.install()  # the waiting page checks every 5 s: fast-forwarded
        one.open(links[1])
        two = annotators()
        done = {1: 0, 2: 0}
        people = {1: (one, FIRST), 2: (two, SECOND)}
        for who, count in [(1, 3), (2, 2), (1, 2), (2, 4), (1, 3), (2, 2)]:
            annotator, labels = people[who]
            if who == 2 and done[2] == 0:
                annotator.open(links[2])
                expect(annotator.page.locator("#who")).to_have_text("annotator 2")
            for _ in range(count):
                index = done[who]
                annotator.shows(position(index, EIGHT))
                expect(annotator.page.locator("#progress-text")).to_have_text(
                    f"{index} / 8 done")
                assert annotator.chosen() == []  # the other's label is never shown
                after = position(index + 1, EIGHT) if index + 1 < len(EIGHT) else None
                annotator.press(KEYS[labels[index]], after)
                done[who] += 1
            assert labels_in(path) == [
                (label_field(a) if n < done[1] else "", label_field(b) if n < done[2] else "")
                for n, (a, b) in enumerate(zip(FIRST, SECOND))]
            if who == 1 and done[1] == 8:  # first done: waits for the other one
                expect(one.page.locator("#finished-text")).to_contain_text(
                    "once the other annotator is done")
                expect(one.page.locator("#agreement")).to_be_hidden()

        two.press("ArrowLeft", position(7, EIGHT))  # looking back shows only one's own
        assert two.chosen() == ["2"]
        two.press("ArrowRight", None)
        one.page.clock.run_for(6_000)
        for annotator in (one, two):
            page = annotator.page
            expect(page.locator("#agreement-table")).to_be_visible()
            expect(page.locator("#finished-text")).to_have_text("Both annotators are done.")
            expect(page.locator("#agreement-table th")).to_have_text(PAIR_HEADINGS)
            expect(page.locator("#agreement-table td")).to_have_text(counts)
            expect(page.locator("#agreement-summary")).to_have_text(summary)
    assert path.read_text(encoding="utf-8") == pair_file_text(EIGHT, FIRST, SECOND)


# -- the 1,000-pair run ---------------------------------------------------------------------

def test_a_thousand_pairs_on_the_page_equal_the_terminal_then_combine_and_cutoff(
        tmp_path, annotators, capsys):
    # 60 English phrases over 7 French ones: every two share a pivot, C(60, 2) = 1770 pairs
    ranked = ranked_english(tmp_path, links=1200, english=60, french=7)
    assert len(bz2.decompress(ranked.read_bytes()).splitlines()) == 1770
    web = tmp_path / "web.tsv"
    assert main(["sample", "--ranked", str(ranked), "--n", "1000", "--seed", "3",
                 "--out", str(web)]) == 0
    terminal = tmp_path / "terminal.tsv"
    shutil.copyfile(web, terminal)
    ids = [line.split("\t")[1] for line in web.read_text(encoding="utf-8").splitlines()[1:]]
    assert len(ids) == 1000 == len(set(ids))

    rng = random.Random(3)
    choices = [4, 3, 2, 1, "t"]
    first = [rng.choice(choices) for _ in ids]
    second = [a if rng.random() < 0.7 else rng.choice(choices) for a in first]

    def shown(index: int) -> str | None:
        return f"Pair {index + 1} of 1000 · {ids[index]}" if index < len(ids) else None

    with serving(PairTask(web)) as links:
        one, two = annotators().open(links[1]), annotators().open(links[2])
        one.shows(shown(0))
        two.shows(shown(0))
        started = time.monotonic()
        for index, (a, b) in enumerate(zip(first, second)):
            one.page.keyboard.press(KEYS[a])  # both requests run at once ...
            two.page.keyboard.press(KEYS[b])
            one.wait(shown(index + 1))  # ... and each page moves on only once saved
            two.wait(shown(index + 1))
        browser_seconds = time.monotonic() - started
        kept = sum(column(a, b) not in ("trash", "disagree") for a, b in zip(first, second))
        summary = f"{kept} of 1000 pairs kept. Cohen's kappa {kappa(list(zip(first, second))):.3f}."
        for annotator in (one, two):
            expect(annotator.page.locator("#progress-text")).to_have_text("1000 / 1000 done")
            # the one whose last answer was saved first may wait for the other (it checks
            # every 20 s): loading the page again shows the agreement at once
            annotator.page.reload()
            expect(annotator.page.locator("#agreement-summary")).to_have_text(summary)

    for annotator, labels in ((1, first), (2, second)):
        keys = "".join(KEYS[label] + "\n" for label in labels)
        result = annotate(terminal, annotator, io.StringIO(keys), io.StringIO())
        assert result == {"answered": 1000, "remaining": 0}
    assert web.read_bytes() == terminal.read_bytes()
    expected_labels = [(label_field(a), label_field(b)) for a, b in zip(first, second)]
    assert labels_in(web) == expected_labels

    capsys.readouterr()
    combined = tmp_path / "combined.tsv"
    assert main(["combine", "--annotations", str(web), "--out", str(combined)]) == 0
    assert f"kept {kept} pairs" in capsys.readouterr().out
    assert len(combined.read_text(encoding="utf-8").splitlines()) == 1 + kept
    assert main(["cutoff", "--ranked", str(ranked), "--annotations", str(combined),
                 "--out", str(tmp_path / "cuts")]) == 0
    cuts = json.loads((tmp_path / "cuts" / "cutoffs.json").read_text())["cuts"]
    assert len(cuts) == 3
    print(f"\n2 x 1,000 answers on the page: {browser_seconds:.1f} s")


# -- TaPaCo sets ----------------------------------------------------------------------------

SETS = {  # set id -> [(sentence id, text)]; set 10 holds one Latin-script sentence
    10: [("101", "אני אוהב תפוחים."), ("102", "התפוחים אהובים עליי."),
         ("103", "I like apples.")],
    20: [("201", "מה השעה?"), ("202", "כמה השעה עכשיו?"), ("203", "איזו שעה עכשיו?"),
         ("204", "הכלב ישן.")],
    30: [("301", "תודה רבה."), ("302", "תודה."), ("303", "ברוך הבא.")],
}
OUTLIERS = {1: {10: {"103"}, 20: {"204"}, 30: set()},
            2: {10: {"102", "103"}, 20: {"204"}, 30: {"303"}}}


def set_labels(path: Path) -> dict[str, tuple[str, str]]:
    rows = path.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "set_id\tsentence_id\tsentence\tannotator1\tannotator2"
    return {fields[1]: (fields[3], fields[4]) for fields in
            (row.split("\t") for row in rows[1:])}


def expected_set_labels(annotators_done: int) -> dict[str, tuple[str, str]]:
    labels = {}
    for set_id, members in SETS.items():
        for sentence_id, _ in members:
            labels[sentence_id] = tuple(
                ("outlier" if sentence_id in OUTLIERS[who][set_id] else "ok")
                if who <= annotators_done else "" for who in (1, 2))
    return labels


def test_sets_marked_by_click_and_key_saved_with_enter_then_agreement(tmp_path, annotators):
    language_file = tmp_path / "he.txt"
    language_file.write_text("".join(f"{set_id}\t{sentence_id}\t{text}\t\t\n"
                                     for set_id, members in SETS.items()
                                     for sentence_id, text in members), encoding="utf-8")
    labels = tmp_path / "he-checks.tsv"
    told = io.StringIO()
    task = open_task(ServeOptions(file=language_file, sets=None, labels=labels), told)
    assert "wrote 3 sets (10 sentences)" in told.getvalue()
    assert set_labels(labels) == expected_set_labels(0)

    def set_position(n: int, set_id: int) -> str:
        return f"Set {n} of 3 · set {set_id} · {len(SETS[set_id])} sentences"

    with serving(task) as links:
        one = annotators()
        one.context.clock.install()  # the waiting page checks every 5 s: fast-forwarded
        one.open(links[1])
        page = one.page
        members = page.locator("#members li")
        position_line = page.locator("#set-position")
        expect(position_line).to_have_text(set_position(1, 10))
        expect(page.locator("#title")).to_have_text("Paraphrase sets · he")
        expect(members).to_have_text([text for _, text in SETS[10]])
        # how to mark is on screen beside the set, not only in the guidelines
        expect(page.locator("#set-hint")).to_be_visible()
        expect(page.locator("#set-hint")).to_contain_text("to mark it as an outlier")
        expect(page.locator("#set-hint")).to_contain_text("Enter saves the set")
        for n in range(3):
            expect(members.nth(n)).to_have_attribute("dir", "auto")
        expect(members.nth(0)).to_have_css("direction", "rtl")
        expect(members.nth(2)).to_have_css("direction", "ltr")
        expect(page.locator("#pair-view")).to_be_hidden()

        members.nth(2).click()  # mark by click
        expect(members.nth(2)).to_have_class("outlier")
        page.keyboard.press("2")  # and by key, then unmark by key
        expect(members.nth(1)).to_have_class("outlier")
        page.keyboard.press("2")
        expect(members.nth(1)).not_to_have_class("outlier")
        page.keyboard.press("Enter")
        expect(position_line).to_have_text(set_position(2, 20))
        assert {k: v for k, v in set_labels(labels).items() if k.startswith("1")} == {
            "101": ("ok", ""), "102": ("ok", ""), "103": ("outlier", "")}

        page.keyboard.press("u")  # undo: set 10 again, nothing marked, labels cleared
        expect(position_line).to_have_text(set_position(1, 10))
        expect(page.locator("#members li.outlier")).to_have_count(0)
        assert set_labels(labels) == expected_set_labels(0)
        page.keyboard.press("3")
        expect(members.nth(2)).to_have_class("outlier")
        page.locator("#save-set").click()
        expect(position_line).to_have_text(set_position(2, 20))

        page.keyboard.press("1")
        page.keyboard.press("4")
        page.keyboard.press("1")
        expect(page.locator("#members li.outlier")).to_have_text(["הכלב ישן."])
        page.keyboard.press("Enter")
        expect(position_line).to_have_text(set_position(3, 30))
        page.keyboard.press("ArrowLeft")  # look back: own marks shown
        expect(position_line).to_have_text(set_position(2, 20))
        expect(page.locator("#members li.outlier")).to_have_text(["הכלב ישן."])
        page.keyboard.press("ArrowRight")
        expect(position_line).to_have_text(set_position(3, 30))
        page.keyboard.press("Enter")  # nothing marked: every sentence ok
        expect(page.locator("#finished")).to_be_visible()
        expect(page.locator("#progress-text")).to_have_text("3 / 3 done")
        assert set_labels(labels) == expected_set_labels(1)

        two = annotators().open(links[2])
        page = two.page
        members = page.locator("#members li")
        position_line = page.locator("#set-position")
        expect(position_line).to_have_text(set_position(1, 10))
        expect(page.locator("#members li.outlier")).to_have_count(0)  # not the other's
        page.keyboard.press("3")
        members.nth(1).click()
        page.keyboard.press("Enter")
        expect(position_line).to_have_text(set_position(2, 20))
        members.nth(3).click()
        page.keyboard.press("Enter")
        expect(position_line).to_have_text(set_position(3, 30))
        page.keyboard.press("3")
        page.keyboard.press("Enter")
        expect(page.locator("#agreement-table")).to_be_visible()
        assert set_labels(labels) == expected_set_labels(2)

        # by hand over the 10 sentences: both ok 6, both outlier 2 (103, 204), annotator 2
        # only 2 (102, 303); only set 20 agrees fully; kappa: observed 8/10, chance
        # (8*6 + 2*4)/100
        pairs = [expected_set_labels(2)[sentence_id] for members_ in SETS.values()
                 for sentence_id, _ in members_]
        by_hand = kappa(pairs)
        assert by_hand == pytest.approx((0.8 - 0.56) / (1 - 0.56))
        expect(page.locator("#agreement-table th")).to_have_text(
            ["both ok", "both outlier", "outlier for annotator 1 only",
             "outlier for annotator 2 only"])
        expect(page.locator("#agreement-table td")).to_have_text(["6", "2", "0", "2"])
        expect(page.locator("#agreement-summary")).to_have_text(
            f"1 of 3 sets with full agreement. Cohen's kappa {by_hand:.3f}.")
        one.page.clock.run_for(6_000)  # the first one's page shows it too
        expect(one.page.locator("#agreement-table td")).to_have_text(["6", "2", "0", "2"])


# -- a wrong link, a phone --------------------------------------------------------------------

def test_a_wrong_token_gets_the_error_page_and_no_data(tmp_path, annotators):
    path = write_pairs(tmp_path / "en-sample.tsv", SIX)
    before = path.read_bytes()
    with serving(PairTask(path)) as links:
        base = links[1].split("/a/")[0]
        wrong = f"{base}/a/{TOKENS[1][:-1]}x/"
        stranger = annotators()
        stranger.allowed.add(wrong)  # the browser logs the 404 of the page itself
        response = stranger.page.goto(wrong)
        assert response.status == 404
        expect(stranger.page.locator("h1")).to_have_text("This link is not valid")
        expect(stranger.page.locator("#pair-view")).to_have_count(0)
        request = stranger.context.request
        for api in ("api/info", "api/unit?after=-1", "api/unit?index=0", "api/agreement",
                    "app.js"):
            answer = request.get(wrong + api)
            assert answer.status == 404
            text = answer.text()
            assert "This link is not valid" in text
            assert not any(pair_id in text or s1 in text for _, pair_id, s1, _ in SIX)
        for api, body in (("api/answer", {"unit": "en-N3", "answer": "4"}), ("api/undo", {})):
            answer = request.post(wrong + api, data=body,
                                  headers={"Origin": base, "Content-Type": "application/json"})
            assert answer.status == 404
        # the right link, for contrast: the same requests do answer
        assert request.get(links[1] + "api/info").json()["progress"]["total"] == 6
    assert path.read_bytes() == before


def test_a_phone_screen_shows_the_four_categories_without_scrolling_sideways(tmp_path,
                                                                              annotators):
    long_word = "Supercalifragilisticexpialidocious" * 3
    pairs = [(1, "en-N1", f"A very long word : {long_word} .", "Short ."), *SIX[1:]]
    path = write_pairs(tmp_path / "en-sample.tsv", pairs)
    with serving(PairTask(path)) as links:
        phone = annotators(viewport={"width": 390, "height": 800}, is_mobile=True,
                           has_touch=True).open(links[1])
        page = phone.page
        phone.shows(position(0, pairs))
        width = page.viewport_size["width"]
        assert width == 390
        for answer in ("4", "3", "2", "1", "trash"):
            button = page.locator(f"#pair-view .answer[data-answer='{answer}']")
            expect(button).to_be_visible()
            box = button.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
                answer, box)
            assert box["y"] + box["height"] <= 800, (answer, box)  # no scrolling down either
        for sentence in ("#sentence1", "#sentence2"):
            box = page.locator(sentence).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (sentence, box)
        page.locator("#pair-view .answer[data-answer='3']").tap()
        phone.shows(position(1, pairs))
    assert labels_in(path)[0] == ("3", "")
