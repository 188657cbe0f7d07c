"""The layer tapaco and opusparcus share; their own modules are only their pipelines.

- :mod:`tapaco.core.opus`: reading OPUS releases (alignments, Moses bitexts, documents).
- :mod:`tapaco.core.characters`: what whitespace is, and which characters are no text.
- :mod:`tapaco.core.errors`: input errors naming file and place; the exit-status wrapper.
- :mod:`tapaco.core.options`: command-line parsing that fails in one line; option checks.
- :mod:`tapaco.core.files`, :mod:`tapaco.core.outputs`: atomic writes, and where a command
  may write (never over an input or a user's files).
- :mod:`tapaco.core.progress`, :mod:`tapaco.core.arrays`, :mod:`tapaco.core.versions`.
"""
