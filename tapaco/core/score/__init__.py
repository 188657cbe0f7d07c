"""ParaNMT's paraphrase score (Wieting & Gimpel 2018, section 3): the cosine of two sentences'
vectors, for pairs (the project's files of pairs, any TSV) and for the members of TaPaCo sets.

Modules, in the order a run uses them: :mod:`~tapaco.core.score.pair_formats` (the project's
files of pairs recognised), :mod:`~tapaco.core.score.word_vectors` (a word-vector file into
arrays, with :mod:`~tapaco.core.score.growing_matrix` and the converted copies of
:mod:`~tapaco.core.score.vectors_cache`), :mod:`~tapaco.core.score.embedders` (the vectors and
sentence-transformers backends), :mod:`~tapaco.core.score.inputs` (the rows and columns of
what is scored), :mod:`~tapaco.core.score.similarity` (cosines of pairs and of set members),
:mod:`~tapaco.core.score.scoring` (the library API: score a file, write it with its stats) and
:mod:`~tapaco.core.score.command` (the `score` command of both programs).
"""
