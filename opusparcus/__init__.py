"""Opusparcus: rank same-language sentence pairs that share pivot translations (not built yet).

It reuses the OPUS reader of :mod:`tapaco.opus`.
"""
