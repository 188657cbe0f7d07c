"""Reading OPUS releases: alignments (cesAlign, Moses) and sentence documents.

Shared by :mod:`tapaco` and :mod:`opusparcus`.
"""

from tapaco.opus.documents import Sentences, read_sentences
from tapaco.opus.links import LinkBlock
from tapaco.opus.sources import AlignmentSource, DocumentLocator, find_alignment_sources
from tapaco.opus.textstream import FileRef

__all__ = [
    "AlignmentSource",
    "DocumentLocator",
    "FileRef",
    "LinkBlock",
    "Sentences",
    "find_alignment_sources",
    "read_sentences",
]
