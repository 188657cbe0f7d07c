"""Reading OPUS releases: alignments (cesAlign, Moses) and sentence documents.

Shared by :mod:`tapaco` and :mod:`opusparcus`; every reader takes document texts from one
:class:`DocumentStore`.
"""

from tapaco.core.opus.documents import Sentences, read_sentences
from tapaco.core.opus.links import LinkBlock
from tapaco.core.opus.sources import AlignmentSource, find_alignment_sources
from tapaco.core.opus.store import FOLDERS, RAW, TOKENISED, Document, DocumentStore, preference
from tapaco.core.opus.textstream import FileRef

__all__ = [
    "FOLDERS",
    "RAW",
    "TOKENISED",
    "AlignmentSource",
    "Document",
    "DocumentStore",
    "FileRef",
    "LinkBlock",
    "Sentences",
    "find_alignment_sources",
    "preference",
    "read_sentences",
]
