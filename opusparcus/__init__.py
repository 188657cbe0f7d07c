"""Opusparcus: rank same-language sentence pairs that share pivot translations (Creutz 2018).

Pipeline, one module per step: :mod:`opusparcus.bitexts` (1:1 links of each target-pivot
bitext, read with the shared :mod:`tapaco.core.opus` reader; splits by year),
:mod:`opusparcus.normalize` (the release's sentence identity), :mod:`opusparcus.counting`
(c(t,f), c(t), c(f), N and pairs sharing a pivot), :mod:`opusparcus.scores` (the five schemes),
:mod:`opusparcus.edit_distance`, :mod:`opusparcus.export`; :mod:`opusparcus.rank` runs them and
:mod:`opusparcus.cli` is the command line. :mod:`opusparcus.paraphrase_scores` adds the paraphrase
score that `score` wrote to the Parquet and GEM outputs (`--scores`).
"""
