"""Reading OPUS releases: alignments (cesAlign, Moses) and sentence documents.

Shared by :mod:`tapaco` and :mod:`opusparcus`.
"""

from tapaco.core.opus.documents import Sentences, read_sentences
from tapaco.core.opus.links import LinkBlock
from tapaco.core.opus.sources import AlignmentSource, DocumentLocator, find_alignment_sources
from tapaco.core.opus.textstream import FileRef

__all__ = [
    "AlignmentSource",
    "DocumentLocator",
    "FileRef",
    "LinkBlock",
    "Sentences",
    "find_alignment_sources",
    "read_sentences",
]
