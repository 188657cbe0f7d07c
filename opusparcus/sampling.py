"""Draw pairs uniformly at random (seeded) from a ranked file, for annotation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from opusparcus.annotations import Annotation, write_annotations
from opusparcus.ranked_file import read_ranked
from tapaco.core.errors import InputError


def sample_pairs(ranked: Path, count: int | None, seed: int, out: Path) -> list[Annotation]:
    """Write an annotation file of `count` random pairs (all pairs if None), in rank order."""
    rows = read_ranked(ranked)
    if count is not None and count > len(rows):
        raise InputError(ranked, f"cannot sample {count} pairs from {len(rows)}", kind="usage")
    chosen = (np.arange(len(rows)) if count is None else
              np.sort(np.random.default_rng(seed).choice(len(rows), count, replace=False)))
    annotations = [Annotation(int(i) + 1, rows[i][0], rows[i][1], rows[i][2], [None, None], 0)
                   for i in chosen.tolist()]
    write_annotations(out, annotations)
    return annotations
