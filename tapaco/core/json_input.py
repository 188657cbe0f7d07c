"""JSON that the tool did not just make in memory (an API answer, a `manifest.json`, a
`stats.json`, a request's body), read in one place: whatever is wrong with it (not UTF-8, not
JSON, nested past any file of ours, past what Python's parser can follow) is one InputError
naming where it came from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tapaco.core.errors import InputError

# the project's own files nest 4 levels deep; this leaves room and stays far from the depth
# at which parsing, or writing the value back, would exhaust Python's recursion limit
MAX_DEPTH = 100


def parse_json(data: str | bytes, source: str | Path, kind: str = "corrupt file") -> Any:
    """The value `data` holds, read from `source` (a file, a URL); an InputError of `kind`
    naming `source` if it is not UTF-8 JSON nested at most MAX_DEPTH levels."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text)
    except RecursionError:
        raise InputError(source, f"JSON nested deeper than {MAX_DEPTH} levels",
                         kind=kind) from None
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InputError(source, f"not JSON ({error})", kind=kind) from None
    if _deeper_than(value, MAX_DEPTH):
        raise InputError(source, f"JSON nested deeper than {MAX_DEPTH} levels", kind=kind)
    return value


def read_json(path: Path, kind: str = "corrupt file") -> Any:
    """The JSON value in the file `path` (see :func:`parse_json`); an OSError is left to the
    caller, which knows what a missing file means."""
    return parse_json(Path(path).read_bytes(), path, kind)


def json_object(path: Path) -> dict:
    """The JSON object in the file `path`, or {} when there is none (missing, unreadable, not
    JSON, not an object): how a command looks at a file it may have written before."""
    try:
        value = read_json(path)
    except (OSError, InputError):
        return {}
    return value if isinstance(value, dict) else {}


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest in `value` more than `limit` levels (walked level by
    level, without recursion)."""
    level = [value]
    for _ in range(limit + 1):
        containers = [item for item in level if isinstance(item, (list, dict))]
        if not containers:
            return False
        level = [item for container in containers
                 for item in (container.values() if isinstance(container, dict) else container)]
    return True
