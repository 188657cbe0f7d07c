"""Compiled reading of a cesAlign chunk: where every link's two sides and every group's tag are.

:func:`scan_links` walks a chunk's UTF-8 once. Each `<link ...>` tag must have exactly one
`xtargets="from;to"` among attributes written `name="value"` or `name='value'`; each
`<linkGrp ...>` tag is recorded with the number of links before it (its attributes are read by
the caller). A chunk in any other form (another element whose name starts with `link`, a link
without xtargets, a value without `;`, a `<` inside a tag) is declined, for the
regular-expression reading that reports what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.opus.xml_bytes import ends_a_name, is_space
from tapaco.core.ranges import starts_with

_LT, _GT, _QUOTE, _APOSTROPHE, _SLASH, _EQUALS, _SEMICOLON = (ord(c) for c in '<>"\'/=;')
_LINK = np.frombuffer(b"<link", np.uint8)
_GROUP_REST = np.frombuffer(b"Grp", np.uint8)
_XTARGETS = np.frombuffer(b"xtargets", np.uint8)


@kernel_helper
def _link_tag(data, at, sides, link):
    """Read the attributes of the `<link` tag whose name ends at `at`, writing its xtargets
    sides into `sides[link]` (from start, `;`, to start, closing quote); after the tag, or -1."""
    size = len(data)
    found = False
    while True:
        while at < size and is_space(data[at]):
            at += 1
        if at >= size or data[at] == _LT:
            return -1
        if data[at] == _GT:
            return at + 1 if found else -1
        if data[at] == _SLASH:
            at += 1
            continue
        name = at
        while at < size and data[at] != _EQUALS and data[at] != _GT and not is_space(data[at]):
            at += 1
        if at + 1 >= size or data[at] != _EQUALS:
            return -1
        quote = data[at + 1]
        if quote != _QUOTE and quote != _APOSTROPHE:
            return -1
        value = at + 2
        end = value
        while end < size and data[end] != quote:
            if data[end] == _LT:
                return -1
            end += 1
        if end >= size:
            return -1
        if at - name == len(_XTARGETS) and starts_with(data, name, _XTARGETS):
            if found:
                return -1
            semicolon = value
            while semicolon < end and data[semicolon] != _SEMICOLON:
                semicolon += 1
            if semicolon == end:
                return -1
            sides[link, 0], sides[link, 1] = value, semicolon
            sides[link, 2], sides[link, 3] = semicolon + 1, end
            found = True
        at = end + 1


@njit(nogil=True, cache=True)
def _scan(data, sides, groups):
    """The loop of :func:`scan_links`: the counts of links and groups (-1 links: declined)."""
    links, group_count = np.int64(0), np.int64(0)
    at, size = np.int64(0), len(data)
    while at < size:
        if data[at] != _LT or not starts_with(data, at, _LINK):
            at += 1
            continue
        name_end = at + len(_LINK)
        if links == len(sides) or group_count == len(groups):
            return -1, 0  # no room left (the caller's bounds make this impossible)
        if name_end < size and ends_a_name(data[name_end]):
            at = _link_tag(data, name_end, sides, links)
            if at < 0:
                return -1, 0
            links += 1
        elif (starts_with(data, name_end, _GROUP_REST) and name_end + 3 < size
              and ends_a_name(data[name_end + 3])):
            end = name_end + 3
            while end < size and data[end] != _GT:
                if data[end] == _LT:
                    return -1, 0
                end += 1
            if end >= size:
                return -1, 0
            groups[group_count, 0], groups[group_count, 1] = name_end + 3, end
            groups[group_count, 2] = links
            group_count += 1
            at = end + 1
        else:
            return -1, 0  # another element named link...
    return links, group_count


@dataclass(frozen=True)
class ScannedLinks:
    """Per link the byte ranges of its two sides (`from_bounds`, `to_bounds`: start, end); per
    `<linkGrp>` the byte range of its attributes and how many links come before it."""

    from_bounds: np.ndarray
    to_bounds: np.ndarray
    group_attributes: np.ndarray
    group_first_link: np.ndarray


def scan_links(raw: bytes) -> ScannedLinks | None:
    """The links and groups of a cesAlign chunk in the common form, or None."""
    # room for as many links and groups as the shortest the scanner reads (<link xtargets=";">,
    # <linkGrp>) would make; only the pages they fill are ever touched
    sides = np.empty((len(raw) // 19 + 1, 4), np.int64)
    groups = np.empty((len(raw) // 9 + 1, 3), np.int64)
    links, group_count = in_background(_scan, np.frombuffer(raw, np.uint8), sides, groups,
                                       size=len(raw))
    if links < 0:
        return None
    return ScannedLinks(sides[:links, :2], sides[:links, 2:], groups[:group_count, :2],
                        groups[:group_count, 2])
