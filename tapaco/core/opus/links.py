"""The units alignment readers emit: a block of links between two documents, with sides as
strings or as keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def language_of(document: str, fallback: str) -> str:
    """The language of an OPUS document path (`de/1994/1/2.xml.gz` -> `de`)."""
    head, sep, _ = document.partition("/")
    return head if sep and head else fallback


@dataclass
class LinkBlock:
    """Links between one source document and one target document.

    A side is the space-separated OPUS sentence ids of one end of a link (possibly empty).
    Moses bitexts also carry the text of each side.
    """

    source: str
    from_lang: str
    from_doc: str
    to_lang: str
    to_doc: str
    from_sides: list[str]
    to_sides: list[str]
    from_texts: list[str] | None = None
    to_texts: list[str] | None = None

    def __len__(self) -> int:
        return len(self.from_sides)


@dataclass
class KeyedLinks:
    """Links between one source document and one target document, each side a key of a
    :class:`~tapaco.core.opus.sidekeys.SideTable`; Moses bitexts also carry the side texts."""

    from_lang: str
    from_doc: str
    to_lang: str
    to_doc: str
    from_keys: np.ndarray
    to_keys: np.ndarray
    from_texts: list[str] | None = None
    to_texts: list[str] | None = None

    def __len__(self) -> int:
        return len(self.from_keys)
