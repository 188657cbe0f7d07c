"""Read an OPUS release into link-side vertices, alignment edges and sentence texts.

Every link side (language, document, OPUS ids) becomes one vertex; its text is the document
sentences of those ids joined by a space, or, for a side whose document no file holds (a Moses
bitext without documents), the Moses line that linked it. Sides are integer keys
(:mod:`tapaco.core.opus.sidekeys`); vertices are numbered per document in order of first
appearance (:func:`tapaco.core.hashing.first_occurrences` of the document's side keys), then
laid out document after document, so ids are compact int32 arrays.

The alignment files, then the documents, are read by threads (the compiled scanners and the
decompression run without the GIL), each taking the next item left. Results are merged in list
order alone, so the corpus, the errors raised and the skipped-input log are the same whoever
read what.
"""

from tapaco.read.corpus import Corpus, read_corpus
from tapaco.read.links import INTER, INTRA, ReadCounts
from tapaco.read.texts import SentenceIndex

__all__ = ["INTER", "INTRA", "Corpus", "ReadCounts", "SentenceIndex", "read_corpus"]
