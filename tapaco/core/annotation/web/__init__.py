"""The web annotation page (`serve` of `python -m tapaco` and `python -m opusparcus`), in the
optional `web` extra.

Modules: :mod:`tasks` (pairs and TaPaCo sets, read and saved through the same locked, atomic
file updates as the terminal annotator), :mod:`desk` (tokens, navigation, undo, agreement),
:mod:`app` (the Starlette application and its request checks), :mod:`serve` (what the command runs);
`static/` holds the page, plain HTML, CSS and JavaScript with nothing loaded from elsewhere.
"""

from __future__ import annotations

from tapaco.core.errors import MissingDependency

INSTALL = "pip install 'pivot-paraphrase-miner[web]'"


def require_web_extra() -> None:
    """Raise MissingDependency, saying how to install it, when the web extra is missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        raise MissingDependency(f"the annotation page needs the 'web' extra ({error.name} is "
                                f"not installed): {INSTALL}") from error
