"""TaPaCo: paraphrase sets from the translation graph of an OPUS Tatoeba release.

Pipeline, one module per step: :mod:`tapaco.read` (link sides and texts, through the shared OPUS
reader :mod:`tapaco.core.opus`), :mod:`tapaco.graph` (edges, components), :mod:`tapaco.filters`
(with :mod:`tapaco.normalize` and :mod:`tapaco.bleu`), :mod:`tapaco.export`;
:mod:`tapaco.pipeline` runs them and :mod:`tapaco.cli` is the command line. :mod:`tapaco.core`
is the layer shared with :mod:`opusparcus`. `from tapaco import build` is the library entry; it
is imported on first use, so that importing `tapaco.core` stays light.
"""

from importlib import import_module

__all__ = ["BuildOptions", "FilterOptions", "build"]

_PUBLIC = {"BuildOptions": "tapaco.pipeline", "build": "tapaco.pipeline",
           "FilterOptions": "tapaco.filters"}


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'tapaco' has no attribute {name!r}")
