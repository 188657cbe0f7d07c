"""The enrich options check their ranges on creation, so the library API and the command line
refuse the same values (with the command line's option names)."""

from __future__ import annotations

import pytest

from tapaco.core.errors import OptionError
from tapaco.enrich.backends import BackendOptions
from tapaco.enrich.constraints import ConstraintOptions
from tapaco.enrich.paraphrase_score import ParaphraseScoreOptions
from tapaco.enrich.pipeline import EnrichOptions
from tapaco.enrich.scoring import OutputFilterOptions

REFUSED = [
    (EnrichOptions, {"beam_size": 0}, "--beam-size"),
    (EnrichOptions, {"beam_size": 65}, "--beam-size"),
    (EnrichOptions, {"beam_size": 2.0}, "--beam-size"),
    (EnrichOptions, {"variants": -1}, "--variants"),
    (EnrichOptions, {"variants": 17}, "--variants"),
    (EnrichOptions, {"max_batch_tokens": 0}, "--max-batch-tokens"),
    (EnrichOptions, {"max_length": 0}, "--max-decoding-length"),
    (EnrichOptions, {"max_length": 513}, "--max-decoding-length"),
    (EnrichOptions, {"window_size": 0}, "--window-size"),
    (OutputFilterOptions, {"max_length_ratio": 0.0}, "--max-length-ratio"),
    (OutputFilterOptions, {"max_length_ratio": float("inf")}, "--max-length-ratio"),
    (OutputFilterOptions, {"max_tokens": 0}, "--max-tokens"),
    (OutputFilterOptions, {"max_unigram_overlap": -0.1}, "--max-unigram-overlap"),
    (OutputFilterOptions, {"max_unigram_overlap": 1.1}, "--max-unigram-overlap"),
    (OutputFilterOptions, {"max_bleu": float("nan")}, "--max-bleu"),
    (OutputFilterOptions, {"max_bleu": 100.5}, "--max-bleu"),
    (OutputFilterOptions, {"min_logprob": 0.1}, "--min-logprob"),
    (OutputFilterOptions, {"min_logprob": float("-inf")}, "--min-logprob"),
    (ConstraintOptions, {"top_frequent": -1}, "--never-suppress-top"),
    (ConstraintOptions, {"max_df_ratio": 0.0}, "--never-suppress-df-ratio"),
    (ConstraintOptions, {"max_df_ratio": 1.5}, "--never-suppress-df-ratio"),
    (BackendOptions, {"batch_size": 0}, "--batch-size"),
    (BackendOptions, {"backend": "marian"}, "--backend"),
    (BackendOptions, {"device": "cuda:1"}, "--device"),
    (BackendOptions, {"compute_type": "int4"}, "--compute-type"),
    (ParaphraseScoreOptions, {"min_score": 0.5}, "--min-paraphrase-score"),  # no model
    (ParaphraseScoreOptions, {"model": "v.vec", "min_score": 1.01}, "--min-paraphrase-score"),
    (ParaphraseScoreOptions, {"model": "v.vec", "min_score": -1.5}, "--min-paraphrase-score"),
    (ParaphraseScoreOptions, {"model": "v.vec", "min_score": float("nan")},
     "--min-paraphrase-score"),
    (ParaphraseScoreOptions, {"model": "v.vec", "device": "tpu"}, "--device"),
]


@pytest.mark.parametrize("kind,fields,option", REFUSED,
                         ids=[f"{kind.__name__}-{fields}" for kind, fields, _ in REFUSED])
def test_out_of_range_values_are_refused_on_creation(kind, fields, option):
    with pytest.raises(OptionError) as raised:
        kind(**fields)
    assert raised.value.path == option and isinstance(raised.value, ValueError)


def test_the_bounds_themselves_are_accepted():
    EnrichOptions(beam_size=64, variants=16, max_batch_tokens=1, max_length=512, window_size=1)
    EnrichOptions(beam_size=1, variants=0, max_length=1)
    OutputFilterOptions(max_length_ratio=0.01, max_tokens=1, max_unigram_overlap=0, max_bleu=0,
                        min_logprob=0)
    OutputFilterOptions(max_unigram_overlap=1, max_bleu=100, min_logprob=-1e9)
    assert ConstraintOptions(top_frequent=0, max_df_ratio=1).top_frequent is None  # 0: off
    BackendOptions(batch_size=1)
    ParaphraseScoreOptions("v.vec", min_score=-1)
    ParaphraseScoreOptions("v.vec", min_score=1)
    assert not ParaphraseScoreOptions().enabled
