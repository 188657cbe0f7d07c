"""XML's markup other than elements, resolved in a document's chunks before they are read.

Comments and processing instructions are dropped (a `</s>` inside one ends nothing; the XML
declaration goes too), CDATA sections become their text, escaped (`a<![CDATA[<b>]]>c` reads
`a<b>c`); a document type declaration is left as it is. The chunks are cut again after a `</s>`
outside such markup, and lines keep their numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import MAX_UNBROKEN_BYTES, ByteChunk, FileRef, newline_count

_COMMENT, _CDATA, _INSTRUCTION = (b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>")


def markup_resolved(chunks: Iterator[ByteChunk], ref: FileRef) -> Iterator[ByteChunk]:
    """The chunks with comments and processing instructions dropped (see :func:`_line_keeper`)
    and CDATA sections as escaped text, cut again after a `</s>`; chunks without any pass as
    they are."""
    inside: tuple[bytes, bytes] | None = None
    carry, first_line = b"", 1
    for chunk in chunks:
        starts = chunk.markup_starts()
        if inside is None and not carry and not len(starts):
            yield chunk
            continue
        resolved, inside = _resolve_markup(chunk.data, inside, starts)
        data = carry + resolved
        if carry == b"":
            first_line = chunk.first_line
        end = data.rfind(b"</s>")
        cut = 0 if end < 0 else end + len(b"</s>")
        carry = data[cut:]
        if len(carry) > MAX_UNBROKEN_BYTES:
            raise InputError(ref, f"over {MAX_UNBROKEN_BYTES >> 20} MiB without </s> outside "
                             "comments: no sentence is that long", f"line {first_line}",
                             kind="too long")
        if cut:
            yield ByteChunk(data[:cut], first_line)
            first_line += newline_count(memoryview(data)[:cut])
    if carry:
        yield ByteChunk(carry, first_line)


def _line_keeper(newlines: int) -> bytes:
    """What a comment or processing instruction of that many newlines becomes: nothing, or an
    empty processing instruction holding them (read as nothing, and the lines after it keep
    their numbers)."""
    return b"<?" + b"\n" * newlines + b"?>" if newlines else b""


def _resolve_markup(data: bytes, inside: tuple[bytes, bytes] | None, starts: np.ndarray
                    ) -> tuple[bytes, tuple[bytes, bytes] | None]:
    """`data` with comments, processing instructions and CDATA resolved (see
    :func:`markup_resolved`), starting inside the section `inside` if any; also the section it
    ends inside. `starts`: the offsets of every `<!` and `<?` of `data`."""
    out, position, view = [], 0, memoryview(data)
    while position < len(data):
        if inside is None:
            following = starts[np.searchsorted(starts, position):]
            if not len(following):
                out.append(view[position:])
                break
            start = int(following[0])
            out.append(view[position:start])
            inside = next((section for section in (_COMMENT, _CDATA, _INSTRUCTION)
                           if data.startswith(section[0], start)), None)
            if inside is None:  # a declaration (<!DOCTYPE ...>): left as it is
                out.append(b"<!")
                position = start + 2
            else:
                position = start + len(inside[0])
            continue
        end = data.find(inside[1], position)
        content = data[position:len(data) if end < 0 else end]
        out.append(content.replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;")
                   if inside is _CDATA else _line_keeper(content.count(b"\n")))
        if end < 0:
            break
        position, inside = end + len(inside[1]), None
    return b"".join(out), inside
