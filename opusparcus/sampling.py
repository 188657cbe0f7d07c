"""Draw pairs uniformly at random (seeded) from a ranked file, for annotation.

The annotation file is the one output: an existing file is replaced only when it is an
annotation file nobody has labelled yet (or, with `overwrite`, any other file); a file holding
labels is never replaced, and the ranked file never.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from opusparcus.ranked_file import read_ranked
from tapaco.core.annotation.pairs import (
    Annotation,
    annotations_text,
    is_unlabelled_annotation_file,
    labels_held,
)
from tapaco.core.errors import usage_error
from tapaco.core.options import check_range
from tapaco.core.outputs import OutputFile

COMMAND = "opusparcus sample"


def sample_pairs(ranked: Path, count: int | None, seed: int, out: Path,
                 overwrite: bool = False) -> list[Annotation]:
    """Write an annotation file of `count` random pairs (all pairs if None), in rank order."""
    if count is not None:
        check_range("--n", count, 1, whole=True)
    output = OutputFile(out, COMMAND, (ranked,), overwrite, is_unlabelled_annotation_file,
                        protected=labels_held)
    output.check()
    rows = read_ranked(ranked)
    if count is not None and count > len(rows):
        raise usage_error(ranked, f"cannot sample {count} pairs from {len(rows)}")
    chosen = (np.arange(len(rows)) if count is None else
              np.sort(np.random.default_rng(seed).choice(len(rows), count, replace=False)))
    annotations = [Annotation(int(i) + 1, rows[i][0], rows[i][1], rows[i][2], [None, None], 0)
                   for i in chosen.tolist()]
    output.write(annotations_text(annotations))
    return annotations
