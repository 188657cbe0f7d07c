"""Streaming, batched, resumable enrichment (tapaco.enrich.pipeline) with fake translators."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tapaco.core.errors import InputError
from tapaco.enrich.constraints import ConstraintOptions, compute_idf, lower_tokens
from tapaco.enrich.pipeline import COLUMNS, EnrichOptions, enrich, progress_path, stats_path
from tapaco.enrich.scoring import OutputFilterOptions

NO_FILTERS = OutputFilterOptions(drop_empty=False, drop_copies=False, max_length_ratio=None)
NO_FREQUENT = ConstraintOptions(top_frequent=None, max_df_ratio=None)


@dataclass
class Hyp:
    text: str
    score: float


class FakeTranslator:
    """Deterministic: outputs ``mapping[source]`` (default: the words reversed), replacing any
    suppressed word (case-insensitive) by 'zz'; records batches; can fail after N batches."""

    def __init__(self, mapping: dict[str, str] | None = None, fail_after: int | None = None):
        self.mapping = mapping or {}
        self.fail_after = fail_after
        self.batches: list[tuple[list[str], list[list[str]] | None]] = []

    def translate(self, texts: list[str], beam_size: int = 4, num_hypotheses: int = 1,
                  suppressed_words: list[list[str]] | None = None,
                  max_length: int = 256) -> list[list[Hyp]]:
        if self.fail_after is not None and len(self.batches) >= self.fail_after:
            raise RuntimeError("interrupted")
        self.batches.append((list(texts), suppressed_words))
        out = []
        for i, text in enumerate(texts):
            words = self.mapping.get(text, " ".join(reversed(text.split()))).split()
            banned = set(suppressed_words[i]) if suppressed_words else set()
            words = ["zz" if w.lower() in banned else w for w in words]
            out.append([Hyp(" ".join(words), -0.1 * len(words))])
        return out


def make_pairs(n: int) -> list[tuple[str, str]]:
    pairs = []
    for i in range(n):
        source = " ".join(f"s{i}w{j}" for j in range((i * 7) % 9 + 1))
        reference = f"The item{i} has word{i % 5} and rare{i} ."
        pairs.append((source, reference))
    return pairs


def read_rows(path: Path) -> list[dict[str, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == list(COLUMNS)
    return [dict(zip(COLUMNS, line.split("\t"))) for line in lines[1:]]


def test_one_row_per_input_in_input_order(tmp_path: Path) -> None:
    pairs = make_pairs(30)
    out = tmp_path / "out.tsv"
    options = EnrichOptions(window_size=7, max_batch_tokens=10, filters=NO_FILTERS)
    stats = enrich(iter(pairs), FakeTranslator(), out, options)
    rows = read_rows(out)
    assert [(r["source"], r["reference"]) for r in rows] == pairs
    assert all(r["paraphrase"] == " ".join(reversed(r["source"].split())) for r in rows)
    assert all(r["variant"] == "0" and r["suppressed"] == "" for r in rows)
    assert stats["sentences"] == 30 and stats["outputs"] == 30 and stats["kept"] == 30
    assert stats["windows"] == 5


def test_batches_respect_budget_and_are_length_sorted_per_window(tmp_path: Path) -> None:
    pairs = make_pairs(40)
    fake = FakeTranslator()
    enrich(pairs, fake, tmp_path / "o.tsv", EnrichOptions(window_size=8, max_batch_tokens=10))
    for texts, _ in fake.batches:
        lengths = [len(t.split()) for t in texts]
        assert sum(lengths) <= 10 or len(texts) == 1
    flat = [text for texts, _ in fake.batches for text in texts]
    assert len(flat) == 40
    for start in range(0, 40, 8):
        window = flat[start:start + 8]
        assert sorted(window) == sorted(s for s, _ in pairs[start:start + 8])
        lengths = [len(t.split()) for t in window]
        assert lengths == sorted(lengths)


def test_input_is_streamed_one_window_at_a_time(tmp_path: Path) -> None:
    pulled = 0

    def stream() -> Iterator[tuple[str, str]]:
        nonlocal pulled
        for pair in make_pairs(25):
            pulled += 1
            yield pair

    class Watching(FakeTranslator):
        def translate(self, texts, *args, **kwargs):  # type: ignore[no-untyped-def]
            windows_done = len(self.batches)  # one batch per window with this budget
            assert pulled <= (windows_done + 1) * 10
            return super().translate(texts, *args, **kwargs)

    enrich(stream(), Watching(), tmp_path / "o.tsv",
           EnrichOptions(window_size=10, max_batch_tokens=10_000))
    assert pulled == 25


def echo_setup(n: int, variants: int) -> tuple[list[tuple[str, str]], FakeTranslator, object]:
    pairs = make_pairs(n)
    idf = compute_idf(reference for _, reference in pairs)
    return pairs, FakeTranslator({s: r for s, r in pairs}), idf


def test_constrained_variants_never_contain_suppressed_words(tmp_path: Path) -> None:
    pairs, fake, idf = echo_setup(12, 3)
    out = tmp_path / "o.tsv"
    options = EnrichOptions(variants=3, window_size=5, max_batch_tokens=12,
                            filters=NO_FILTERS, constraints=NO_FREQUENT)
    stats = enrich(pairs, fake, out, options, idf=idf)
    rows = read_rows(out)
    assert len(rows) == 12 * 4 and stats["outputs"] == 48
    by_input = [rows[i:i + 4] for i in range(0, 48, 4)]
    for (source, reference), group in zip(pairs, by_input):
        assert [r["variant"] for r in group] == ["0", "1", "2", "3"]
        assert all(r["source"] == source and r["reference"] == reference for r in group)
        assert group[0]["paraphrase"] == reference  # echoes when nothing is suppressed
        previous: list[str] = []
        for j, row in enumerate(group[1:], start=1):
            suppressed = row["suppressed"].split(";")
            assert len(suppressed) == j and suppressed[:j - 1] == previous
            assert not set(suppressed) & set(lower_tokens(row["paraphrase"]))
            assert set(suppressed) <= set(lower_tokens(reference))
            previous = suppressed
    # item<i> and rare<i> have df 1 (ties broken alphabetically), word<i % 5> has df 2 or 3
    assert [by_input[i][3]["suppressed"] for i in (0, 7)] == ["item0;rare0;word0",
                                                            "item7;rare7;word2"]


def test_variants_stop_when_content_words_run_out(tmp_path: Path) -> None:
    pairs = [("x y", "Cat ."), ("p q", "Dog runs .")]
    idf = compute_idf(r for _, r in pairs)
    out = tmp_path / "o.tsv"
    options = EnrichOptions(variants=5, filters=NO_FILTERS, constraints=NO_FREQUENT)
    enrich(pairs, FakeTranslator(dict(pairs)), out, options, idf=idf)
    assert [(r["reference"], r["variant"]) for r in read_rows(out)] == [
        ("Cat .", "0"), ("Cat .", "1"), ("Dog runs .", "0"), ("Dog runs .", "1"),
        ("Dog runs .", "2")]


def test_stats_counts_and_default_filters(tmp_path: Path) -> None:
    pairs, fake, idf = echo_setup(10, 2)
    out = tmp_path / "o.tsv"
    options = EnrichOptions(variants=2, constraints=NO_FREQUENT, window_size=4)
    stats = enrich(pairs, fake, out, options, idf=idf)
    assert stats["sentences"] == 10 and stats["outputs"] == 30
    assert stats["dropped_copy"] == 10  # variant 0 echoes the reference
    assert stats["kept"] == 20 and len(read_rows(out)) == 20
    assert stats["kept"] + sum(v for k, v in stats.items() if k.startswith("dropped_")) == 30
    assert json.loads(stats_path(out).read_text()) == stats
    assert stats["sentences_per_second"] > 0
    kept_with_dropped = tmp_path / "all.tsv"
    options.write_dropped = True
    enrich(pairs, FakeTranslator(dict(pairs)), kept_with_dropped, options, idf=idf)
    rows = read_rows(kept_with_dropped)
    assert len(rows) == 30 and sum(r["dropped_by"] == "copy" for r in rows) == 10


def run_interrupted(tmp_path: Path, name: str, fail_after: int, options: EnrichOptions,
                    idf: object, pairs: list[tuple[str, str]]) -> Path:
    out = tmp_path / name
    with pytest.raises(RuntimeError, match="interrupted"):
        enrich(iter(pairs), FakeTranslator(dict(pairs), fail_after=fail_after), out, options,
               idf=idf)
    return out


@pytest.mark.parametrize("fail_after", [0, 3, 30, 45])
@pytest.mark.parametrize("partial", [False, True])
def test_resume_gives_the_same_file(tmp_path: Path, fail_after: int, partial: bool) -> None:
    pairs, _, idf = echo_setup(23, 2)
    options = EnrichOptions(variants=2, window_size=5, max_batch_tokens=8,
                            constraints=NO_FREQUENT, write_dropped=True)
    full = tmp_path / "full.tsv"
    full_stats = enrich(iter(pairs), FakeTranslator(dict(pairs)), full, options, idf=idf)
    out = run_interrupted(tmp_path, "part.tsv", fail_after, options, idf, pairs)
    if out.exists():
        assert full.read_bytes().startswith(out.read_bytes()) and len(read_rows(out)) > 0
    else:  # the first window was not done: nothing written yet
        assert not progress_path(out).exists()
    assert out.exists() == (fail_after > 20)  # about 10 batches a window here
    if partial and out.exists():
        with open(out, "ab") as handle:
            handle.write(b"half a row\twritten before the cr")
    stats = enrich(iter(pairs), FakeTranslator(dict(pairs)), out, options, idf=idf)
    assert out.read_bytes() == full.read_bytes()
    timing = {"seconds", "run_seconds", "run_sentences", "sentences_per_second"}
    assert {k: v for k, v in stats.items() if k not in timing} == \
        {k: v for k, v in full_stats.items() if k not in timing}
    again = enrich(iter(pairs), FakeTranslator(dict(pairs)), out, options, idf=idf)
    assert out.read_bytes() == full.read_bytes() and again["run_sentences"] == 0
    assert json.loads(progress_path(out).read_text())["complete"] is True


def test_resume_twice_with_other_batching(tmp_path: Path) -> None:
    pairs, _, idf = echo_setup(30, 1)
    options = EnrichOptions(variants=1, window_size=4, constraints=NO_FREQUENT)
    full = tmp_path / "full.tsv"
    enrich(pairs, FakeTranslator(dict(pairs)), full, options, idf=idf)
    out = run_interrupted(tmp_path, "p.tsv", 2, options, idf, pairs)
    options.max_batch_tokens = 3  # batching does not change the rows
    run_interrupted(tmp_path, "p.tsv", 5, options, idf, pairs)
    enrich(pairs, FakeTranslator(dict(pairs)), out, options, idf=idf)
    assert out.read_bytes() == full.read_bytes()


def test_resume_with_other_options_is_refused(tmp_path: Path) -> None:
    pairs, _, idf = echo_setup(12, 1)
    options = EnrichOptions(variants=1, window_size=4, constraints=NO_FREQUENT)
    out = run_interrupted(tmp_path, "p.tsv", 1, options, idf, pairs)
    before = out.read_bytes()
    options.beam_size = 4
    with pytest.raises(InputError, match=r"other options \(beam_size 12, now 4\); --overwrite"):
        enrich(pairs, FakeTranslator(dict(pairs)), out, options, idf=idf)
    assert out.read_bytes() == before
    enrich(pairs, FakeTranslator(dict(pairs)), out, options, idf=idf, overwrite=True)
    assert json.loads(stats_path(out).read_text())["options"]["beam_size"] == 4


def test_variants_need_idf(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="IDF"):
        enrich([], FakeTranslator(), tmp_path / "o.tsv", EnrichOptions(variants=1))


def test_decoding_options_are_passed(tmp_path: Path) -> None:
    seen = {}

    class Spy(FakeTranslator):
        def translate(self, texts, beam_size=4, num_hypotheses=1, suppressed_words=None,
                      max_length=256):  # type: ignore[no-untyped-def]
            seen.update(beam=beam_size, n=num_hypotheses, max_length=max_length,
                        suppressed=suppressed_words)
            return super().translate(texts, beam_size, num_hypotheses, suppressed_words,
                                     max_length)

    enrich([("a b", "c d")], Spy(), tmp_path / "o.tsv", EnrichOptions(max_length=64))
    assert seen == {"beam": 12, "n": 1, "max_length": 64, "suppressed": None}


def test_tabs_and_newlines_in_text_do_not_break_rows(tmp_path: Path) -> None:
    out = tmp_path / "o.tsv"
    enrich([("a\tb", "x\ny z")], FakeTranslator(), out, EnrichOptions(filters=NO_FILTERS))
    rows = read_rows(out)
    assert rows[0]["source"] == "a b" and rows[0]["reference"] == "x y z"


def test_a_finished_output_is_left_as_it_is(tmp_path: Path) -> None:
    pairs, fake, _ = echo_setup(9, 0)
    out = tmp_path / "o.tsv"
    options = EnrichOptions(window_size=4, filters=NO_FILTERS)
    first = enrich(pairs, fake, out, options)
    files = {p: p.read_bytes() for p in tmp_path.iterdir()}
    again = enrich(pairs, FakeTranslator(fail_after=0), out, options)  # would fail if called
    assert again["already_complete"] is True and again["run_sentences"] == 0
    assert again["sentences"] == first["sentences"] == 9
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == files


def test_a_grown_input_continues_the_finished_output(tmp_path: Path) -> None:
    pairs, _, _ = echo_setup(11, 0)
    options = EnrichOptions(window_size=4, filters=NO_FILTERS)
    full = tmp_path / "full.tsv"
    enrich(pairs, FakeTranslator(), full, options)
    out = tmp_path / "o.tsv"
    enrich(pairs[:6], FakeTranslator(), out, options)
    stats = enrich(pairs, FakeTranslator(), out, options)
    assert out.read_bytes() == full.read_bytes()
    assert stats["run_sentences"] == 5 and "already_complete" not in stats


def test_another_input_is_not_resumed(tmp_path: Path) -> None:
    pairs, _, _ = echo_setup(12, 0)
    options = EnrichOptions(window_size=4)
    out = tmp_path / "o.tsv"
    enrich(pairs, FakeTranslator(), out, options)
    before = out.read_bytes()
    changed = [pairs[0], ("other source", pairs[1][1]), *pairs[2:]]
    with pytest.raises(InputError, match="was made from another input"):
        enrich(changed, FakeTranslator(), out, options)
    with pytest.raises(InputError, match="was made from another input"):
        enrich(pairs[:5], FakeTranslator(), out, options)  # shorter than consumed
    assert out.read_bytes() == before


def test_variants_resume_only_with_the_same_references(tmp_path: Path) -> None:
    pairs, _, idf = echo_setup(12, 1)
    options = EnrichOptions(variants=1, window_size=4, constraints=NO_FREQUENT)
    out = run_interrupted(tmp_path, "p.tsv", 1, options, idf, pairs)  # one window done
    other_idf = compute_idf([*(r for _, r in pairs), "An extra reference ."])
    with pytest.raises(InputError, match="other references"):
        enrich(pairs, FakeTranslator(dict(pairs)), out, options, idf=other_idf)


def test_a_checkpoint_of_an_earlier_version_is_not_resumed(tmp_path: Path) -> None:
    pairs, _, _ = echo_setup(5, 0)
    out = tmp_path / "o.tsv"
    enrich(pairs, FakeTranslator(), out, EnrichOptions())
    state = json.loads(progress_path(out).read_text())
    progress_path(out).write_text(json.dumps({**state, "version": 1}))
    with pytest.raises(InputError, match="another version of tapaco enrich; --overwrite"):
        enrich(pairs, FakeTranslator(), out, EnrichOptions())


def test_constraint_settings_do_not_matter_without_variants(tmp_path: Path) -> None:
    pairs, _, _ = echo_setup(5, 0)
    out = tmp_path / "o.tsv"
    enrich(pairs, FakeTranslator(), out, EnrichOptions())
    again = enrich(pairs, FakeTranslator(), out, EnrichOptions(constraints=NO_FREQUENT))
    assert again["already_complete"] is True


def test_stats_record_options_and_versions(tmp_path: Path) -> None:
    out = tmp_path / "o.tsv"
    stats = enrich(make_pairs(3), FakeTranslator(), out, EnrichOptions(beam_size=5))
    assert stats["written_by"] == "tapaco enrich" and stats["options"]["beam_size"] == 5
    assert stats["signature"].startswith("tapaco-enrich|pivot-paraphrase-miner:")
    assert "|sacrebleu:" in stats["signature"] and "|beam_size:5|" in stats["signature"]
