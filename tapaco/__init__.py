"""TaPaCo: paraphrase sets from the translation graph of an OPUS Tatoeba release.

Pipeline, one module per step: :mod:`tapaco.opus` (reading OPUS), :mod:`tapaco.read` (link sides
and texts), :mod:`tapaco.graph` (edges, components), :mod:`tapaco.filters` (with
:mod:`tapaco.normalize` and :mod:`tapaco.bleu`), :mod:`tapaco.export`; :mod:`tapaco.build` runs
them and :mod:`tapaco.cli` is the command line.
"""

from tapaco.build import BuildOptions, build
from tapaco.filters import FilterOptions

__all__ = ["BuildOptions", "FilterOptions", "build"]
