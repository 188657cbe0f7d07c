"""Marks on the paraphrase pairs of a TaPaCo language file that a user should trust less.

Scherrer (2020, sections 5-6) judged pairs by hand and found most of those that are not plain
good paraphrases either correct but trivial or "morphological neutralisation" (sentences that
"would be paraphrases of each other if one or more morphological features were considered to be
irrelevant": Geh! / Gehen Sie!, He is tired. / She is tired.), and left marking them
automatically to future work. This module marks them, for every pair inside each set of one
language file (`OUT/<lang>.txt`):

- ``trivial``: the two sentences differ only in case, punctuation, spacing, contractions
  (I'm / I am) or digits vs number words (3 / three).
- ``neutralisation:<feature>``: they differ only in words of the classes of one feature,
  ``gender`` (he/she, er/sie, il/elle...), ``politeness`` (du/Sie, tu/vous, ты/вы...) or
  ``number`` (I/we, est/sont...), plus trivial differences. When no single feature is enough
  but a combination is (Es-tu sûre ? / Êtes-vous sûrs ?: ``gender+number``), the smallest
  combination is named, features joined by ``+`` in the order gender, politeness, number;
  among equally small ones the first in that order.

Unmarked pairs are the ones to trust most. Each mark carries evidence: the differing words
(``he/she``, ``I'm/I am``, ``3/three``), then ``case``, ``punctuation``, ``spacing`` or
``Unicode forms`` for differences outside them.

A set is never compared pair by pair. Each sentence gets a *trivial key* (NFKC, casefold, its
words joined without spaces: punctuation dropped, symbols kept, Unicode digits as ASCII,
contractions expanded, number words as digits) and, for each combination of features, a
*neutralised key* (the same words, every word of a feature class replaced by its class). Only
sentences of one set sharing a key are paired: equal trivial keys make ``trivial``, else the
first combination whose keys are equal makes ``neutralisation``.

The words are data, one table per language, ``tapaco/mark_rules/<lang>.tsv`` (languages in
:data:`RULE_LANGUAGES`; others get the language-independent part of ``trivial``). A table is
UTF-8 TSV with the header ``kind form variants``; lines starting with ``#`` are comments and
each other row is one of:

- ``contraction``: a contraction and its expansion(s), ``|``-separated when ambiguous
  (``*'d`` → ``* would|* had``); a form starting with ``*`` is a suffix rule, ``*`` standing
  for the word the ending is attached to (``*n't`` → ``* not``; ``*'s`` → ``* is|* has``).
  Exact forms win over suffix rules (``can't`` → ``can not``, not ``ca not``).
- ``numeral``: a number word or phrase and its value in digits (``twenty`` 20, ``soixante
  dix`` 70). A run of number words is read as one number: a smaller value after a round larger
  one adds to it (twenty one → 21, hundred five → 105), 100, 1,000, 10**6 and 10**9 multiply
  what precedes them (two hundred → 200); anything else starts a new number.
- ``numeral_joiner``: a word allowed inside a number when it adds to it (``and`` in a hundred
  and five, ``y`` in treinta y dos); no variants.
- a feature (``gender``, ``politeness``, ``number``, or several comma-separated for a row
  that is all of them): forms that differ only in that feature, ``|``-separated (``geh`` /
  ``gehen Sie``). Forms of one feature linked through shared forms are one class (``him|her``
  and ``his|her``: him, his, her). A form written with a capital (``Sie``, ``Ihnen``) matches
  only a capitalised word. Where forms overlap, each reading gives a key (``Gehen Sie`` is the
  imperative of ``geh``, or ``gehen`` + ``Sie`` as in Gehst du? / Gehen Sie?).

Forms are matched as words (``\\w+``, so ``Gehen Sie!`` is gehen + sie and ``twenty-one`` is
twenty + one); in contractions an apostrophe before a word counts, with or without spaces
around it (OPUS writes ``can 't``, ``Qu' est``).

Limits. The marks are only as complete as the tables: verbs, adjectives and nouns are marked
only in the forms listed (frequent ones; plurals of nouns only for the French and Spanish
nouns with a feminine), and English ``number`` leaves out he/she/they (he|they would put he
and she in one number class). Compound numbers are read as far as the tables list their parts
(German up to 99 and the hundreds; not zweihundertfünfzig), digits followed by number words
(3 million) are not, and words for "one" that are also articles or inflect for gender (un,
une, uno, ein, один) are no numerals: un/une is gender. Ambiguous contractions give
both readings (He's: is or has; Tom's, even possessive, reads as Tom is / Tom has), at most
eight per sentence. Punctuation is dropped from the keys, so the imperative Geh nach Hause!
and the question Gehen Sie nach Hause? count as politeness. Spellings (ё / е, colour / color)
are not unified.
"""

from tapaco.marks.marking import (
    CHUNK_SENTENCES,
    HEADER,
    Mark,
    mark_language,
    mark_languages,
    marked_share,
    marks_text,
)
from tapaco.marks.rules import FEATURES, NEUTRALISATION, RULE_LANGUAGES, TABLE_HEADER, TRIVIAL

__all__ = ["CHUNK_SENTENCES", "FEATURES", "HEADER", "NEUTRALISATION", "RULE_LANGUAGES",
           "TABLE_HEADER", "TRIVIAL", "Mark", "mark_language", "mark_languages", "marked_share",
           "marks_text"]
