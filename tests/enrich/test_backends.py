"""Both NMT backends on a tiny random MarianMT model: shapes, scores, constraints, devices."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

for _module in ("torch", "transformers", "ctranslate2", "sentencepiece"):
    pytest.importorskip(_module, reason=f"NMT backend tests need {_module} (the 'enrich' extra)")

from tiny_model import sample_sentences  # noqa: E402

from tapaco.core.errors import MissingDependency  # noqa: E402
from tapaco.enrich.backends import (  # noqa: E402
    CTranslate2Translator,
    TransformersTranslator,
    Translator,
    detect_backend,
    load_translator,
)

SOURCES = sample_sentences()[:12]
MAX_LENGTH = 30


@pytest.fixture(scope="module", params=["transformers", "ctranslate2"])
def translator(request: pytest.FixtureRequest, marian_dir: Path, ct2_dir: Path) -> Translator:
    folder = marian_dir if request.param == "transformers" else ct2_dir
    return load_translator(folder, backend="auto")


def test_auto_backend_and_device(marian_dir: Path, ct2_dir: Path) -> None:
    assert detect_backend(marian_dir) == "transformers"
    assert detect_backend(ct2_dir) == "ctranslate2"
    hf = load_translator(marian_dir)
    ct = load_translator(ct2_dir)
    assert isinstance(hf, TransformersTranslator) and hf.device == "cpu"
    assert isinstance(ct, CTranslate2Translator) and ct.device == "cpu"
    assert ct.compute_type in ("int8", "default")


def test_unknown_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        load_translator(tmp_path)


@pytest.mark.parametrize("beam_size,num_hypotheses", [(1, 1), (4, 1), (4, 3)])
def test_shapes_and_scores(translator: Translator, beam_size: int, num_hypotheses: int) -> None:
    results = translator.translate(SOURCES, beam_size=beam_size, num_hypotheses=num_hypotheses,
                                   max_length=MAX_LENGTH)
    assert len(results) == len(SOURCES)
    for hypotheses in results:
        assert 1 <= len(hypotheses) <= num_hypotheses
        scores = [h.score for h in hypotheses]
        assert all(math.isfinite(s) and s <= 0 for s in scores)
        assert scores == sorted(scores, reverse=True)
        assert all(isinstance(h.text, str) for h in hypotheses)


def test_deterministic(translator: Translator) -> None:
    first = translator.translate(SOURCES, beam_size=4, max_length=MAX_LENGTH)
    again = translator.translate(SOURCES, beam_size=4, max_length=MAX_LENGTH)
    assert first == again


def test_batched_equals_one_at_a_time(translator: Translator) -> None:
    batched = translator.translate(SOURCES, beam_size=1, max_length=MAX_LENGTH)
    single = [translator.translate([s], beam_size=1, max_length=MAX_LENGTH)[0] for s in SOURCES]
    assert [h[0].text for h in batched] == [h[0].text for h in single]


@pytest.mark.parametrize("beam_size", [1, 4])
def test_suppressed_words_disappear(translator: Translator, beam_size: int) -> None:
    plain = translator.translate(SOURCES, beam_size=beam_size, max_length=MAX_LENGTH)
    suppressed = [sorted(set(h[0].text.split()))[:2] for h in plain]
    assert sum(map(len, suppressed)) >= 4, "the untouched model should produce some words"
    constrained = translator.translate(SOURCES, beam_size=beam_size, num_hypotheses=1,
                                       suppressed_words=suppressed, max_length=MAX_LENGTH)
    for words, before, after in zip(suppressed, plain, constrained):
        for word in words:
            assert word in before[0].text.split()
            assert word not in after[0].text.split()


def test_constraints_are_per_source(translator: Translator) -> None:
    plain = translator.translate(SOURCES, beam_size=1, max_length=MAX_LENGTH)
    index = next(i for i, h in enumerate(plain) if h[0].text.split())
    suppressed: list[list[str]] = [[] for _ in SOURCES]
    suppressed[index] = [plain[index][0].text.split()[0]]
    constrained = translator.translate(SOURCES, beam_size=1, suppressed_words=suppressed,
                                       max_length=MAX_LENGTH)
    assert constrained[index] != plain[index]
    others = [i for i in range(len(SOURCES)) if i != index]
    assert [constrained[i][0].text for i in others] == [plain[i][0].text for i in others]


def test_backends_agree_in_float32(marian_dir: Path, ct2_dir: Path) -> None:
    """Same text and the same length-normalised log-prob from both backends (greedy)."""
    hf = load_translator(marian_dir, backend="transformers")
    ct = load_translator(ct2_dir, backend="ctranslate2", compute_type="float32")
    for a, b in zip(hf.translate(SOURCES, beam_size=1, max_length=MAX_LENGTH),
                    ct.translate(SOURCES, beam_size=1, max_length=MAX_LENGTH)):
        assert a[0].text == b[0].text
        assert a[0].score == pytest.approx(b[0].score, abs=1e-3)


def test_missing_extra_message(monkeypatch: pytest.MonkeyPatch, ct2_dir: Path) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "ctranslate2":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.delitem(__import__("sys").modules, "ctranslate2")
    with pytest.raises(MissingDependency, match=r"ctranslate2 is not installed.*\[enrich\]"):
        load_translator(ct2_dir)


def test_a_source_longer_than_the_model_positions_is_cut(translator: Translator) -> None:
    """Marian models have 512 positions; both backends failed on longer sources."""
    long = " ".join(SOURCES * 40)
    results = translator.translate([long, SOURCES[0]], beam_size=2, max_length=MAX_LENGTH)
    alone = translator.translate([SOURCES[0]], beam_size=2, max_length=MAX_LENGTH)
    assert len(results) == 2 and results[1][0].text == alone[0][0].text
