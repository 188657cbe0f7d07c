"""TaPaCo: paraphrase sets from the translation graph of an OPUS Tatoeba release.

Pipeline, one module per step: :mod:`tapaco.opus` (reading OPUS), :mod:`tapaco.read` (link sides
and texts), :mod:`tapaco.graph` (edges, components), :mod:`tapaco.filters` (with
:mod:`tapaco.normalize` and :mod:`tapaco.bleu`), :mod:`tapaco.export`; :mod:`tapaco.build` runs
them and :mod:`tapaco.cli` is the command line. `from tapaco import build` is the library entry;
it is imported lazily so that `tapaco.opus` (shared with opusparcus) stays light.
"""

__all__ = ["BuildOptions", "FilterOptions", "build"]


def __getattr__(name: str):
    if name in ("BuildOptions", "build"):
        from tapaco import build as build_module

        return getattr(build_module, name)
    if name == "FilterOptions":
        from tapaco.filters import FilterOptions

        return FilterOptions
    raise AttributeError(name)
