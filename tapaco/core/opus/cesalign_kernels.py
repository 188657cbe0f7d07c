"""Compiled reading of a cesAlign chunk: where every link's two sides and every group's tag are.

:func:`scan_links` walks a chunk's UTF-8 once. Each `<link ...>` tag must have exactly one
`xtargets="from;to"` among attributes written `name="value"` or `name='value'`, whose sides
become integer keys where they are plain ids (the others' byte ranges are kept); each
`<linkGrp ...>` tag is recorded with the number of links before it (its attributes are read by
the caller). A chunk in any other form (another element whose name starts with `link`, a link
without xtargets, a value without `;`, a `<` inside a tag) is declined, for the
regular-expression reading that reports what is wrong.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from tapaco.core.interruptible import in_background
from tapaco.core.kernel_helper import kernel_helper
from tapaco.core.opus.sidekeys import plain_id_key
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


@kernel_helper
def _keyed_sides(data, bounds, link, from_keys, to_keys, others, other_count):
    """The keys of a link's two sides (`bounds[0]`: from start, `;`, to start, end) written
    at `link`; a side that is no plain id (key 0) also into `others` (link * 2 + side, start,
    end). The new count of `others`."""
    for side in range(2):
        start, end = bounds[0, 2 * side], bounds[0, 2 * side + 1]
        key, plain = plain_id_key(data, start, end)
        if side == 0:
            from_keys[link] = key
        else:
            to_keys[link] = key
        if not plain:
            others[other_count, 0] = link * 2 + side
            others[other_count, 1], others[other_count, 2] = start, end
            other_count += 1
    return other_count


@njit(nogil=True, cache=True)
def _scan(data, from_keys, to_keys, others, groups):
    """The loop of :func:`scan_links`: the counts of links, sides in `others` and groups (-1
    links: declined)."""
    links, other_count, group_count = np.int64(0), np.int64(0), np.int64(0)
    bounds = np.empty((1, 4), np.int64)
    at, size = np.int64(0), len(data)
    while at < size:
        if data[at] != _LT or not starts_with(data, at, _LINK):
            at += 1
            continue
        name_end = at + len(_LINK)
        if links == len(from_keys) or group_count == len(groups):
            return -1, 0, 0  # no room left (the caller's bounds make this impossible)
        if name_end < size and ends_a_name(data[name_end]):
            at = _link_tag(data, name_end, bounds, 0)
            if at < 0:
                return -1, 0, 0
            other_count = _keyed_sides(data, bounds, links, from_keys, to_keys, others,
                                       other_count)
            links += 1
        elif (starts_with(data, name_end, _GROUP_REST) and name_end + 3 < size
              and ends_a_name(data[name_end + 3])):
            end = name_end + 3
            while end < size and data[end] != _GT:
                if data[end] == _LT:
                    return -1, 0, 0
                end += 1
            if end >= size:
                return -1, 0, 0
            groups[group_count, 0], groups[group_count, 1] = name_end + 3, end
            groups[group_count, 2] = links
            group_count += 1
            at = end + 1
        else:
            return -1, 0, 0  # another element named link...
    return links, other_count, group_count


@dataclass(frozen=True)
class ScannedLinks:
    """Per link the keys of its two sides (:mod:`tapaco.core.opus.sidekeys`: `from_keys`,
    `to_keys`), 0 for a side that is no plain id, whose byte range is in `other_sides` (link
    * 2 + side: 0 from, 1 to; start; end); per `<linkGrp>` the byte range of its attributes
    and how many links come before it."""

    from_keys: np.ndarray
    to_keys: np.ndarray
    other_sides: np.ndarray
    group_attributes: np.ndarray
    group_first_link: np.ndarray


_ROOM = threading.local()


def _room(size: int) -> tuple[np.ndarray, ...]:
    """This thread's arrays for the scanner, with room for as many links and groups as the
    shortest it reads (<link xtargets=";">, <linkGrp>) would make in `size` bytes; only the
    pages they fill are ever touched, and they serve the thread's next chunks."""
    links, groups = size // 19 + 1, size // 9 + 1
    room = getattr(_ROOM, "arrays", None)
    if room is None or len(room[0]) < links:
        room = _ROOM.arrays = (np.empty(links, np.uint64), np.empty(links, np.uint64),
                               np.empty((2 * links, 3), np.int64), np.empty((groups, 3), np.int64))
    return room


def scan_links(raw: bytes) -> ScannedLinks | None:
    """The links and groups of a cesAlign chunk in the common form, or None."""
    from_keys, to_keys, others, groups = _room(len(raw))
    links, other_count, group_count = in_background(
        _scan, np.frombuffer(raw, np.uint8), from_keys, to_keys, others, groups, size=len(raw))
    if links < 0:
        return None
    return ScannedLinks(from_keys[:links].copy(), to_keys[:links].copy(),
                        others[:other_count].copy(), groups[:group_count, :2].copy(),
                        groups[:group_count, 2].copy())
