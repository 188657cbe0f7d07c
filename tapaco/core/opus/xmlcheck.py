"""Locate the first XML well-formedness error of a file, for precise error messages.

The readers scan XML with fast regular expressions; when a scan finds something it does not
expect, this slower expat pass tells the line and column of the actual error.
"""

from __future__ import annotations

from xml.parsers import expat

from tapaco.core.errors import InputError
from tapaco.core.opus.textstream import FileRef, open_binary


def first_xml_error(ref: FileRef) -> tuple[str, str] | None:
    """Return (position, message) of the first XML error in `ref`, or None if it parses."""
    parser = expat.ParserCreate()
    try:
        with open_binary(ref) as stream:
            while block := stream.read(1 << 20):
                parser.Parse(block, False)
            parser.Parse(b"", True)
    except expat.ExpatError as error:
        message = expat.ErrorString(error.code)
        return f"line {error.lineno}, column {error.offset + 1}", message
    except (OSError, EOFError, InputError):
        return None
    return None


def malformed(ref: FileRef, fallback_position: str, fallback_message: str) -> InputError:
    """An error for a malformed file, at expat's position when expat finds an error."""
    found = first_xml_error(ref)
    if found is None:
        return InputError(ref, fallback_message, fallback_position, kind="malformed XML")
    position, parser_message = found
    return InputError(ref, f"{fallback_message} (XML parser: {parser_message})", position,
                      kind="malformed XML")
