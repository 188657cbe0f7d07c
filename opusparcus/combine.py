"""Combine two annotators' file (paper section 2.2) into scored pairs, with the agreement table
and Cohen's kappa (computed by :func:`tapaco.core.annotation.pairs.combine_annotations`).

:func:`combine_file` is what `python -m opusparcus combine` runs: annotations of training pairs
(ids `<lang>-N<n>`) become `rank id sentence1 sentence2 score` with a header, the input of
`cutoff`; dev/test annotations (`-D`, `-T`) become the release's 4-field lines. It never writes
over its input or over a file holding labels.
"""

from __future__ import annotations

import math
from pathlib import Path

from tapaco.core.annotation.pairs import (
    COLUMNS,
    Annotation,
    Combined,
    combine_annotations,
    labels_held,
    malformed,
    read_annotations,
)
from tapaco.core.errors import usage_error
from tapaco.core.outputs import OutputFile

COMMAND = "opusparcus combine"
TRAINING_HEADER = "rank\tid\tsentence1\tsentence2\tscore"


def release_lines(combined: Combined) -> str:
    """The release's 4-field dev/test lines: id, sentence 1, sentence 2, mean score."""
    return "".join(f"{a.id}\t{a.sentence1}\t{a.sentence2}\t{score:.1f}\n"
                   for a, score in zip(combined.annotations, combined.scores))


def combined_lines(combined: Combined) -> str:
    """Combined training annotations with their ranks: rank, id, sentence 1, sentence 2, score."""
    return TRAINING_HEADER + "\n" + "".join(
        f"{a.rank}\t{a.id}\t{a.sentence1}\t{a.sentence2}\t{score:.1f}\n"
        for a, score in zip(combined.annotations, combined.scores))


def is_training(annotations: list[Annotation], path: Path) -> bool:
    """Whether the pairs are training pairs (`-N` ids) rather than dev/test (`-D`, `-T`)."""
    training = {"-N" in a.id for a in annotations}
    if len(training) > 1:
        raise malformed(path, "mixes training pairs (-N ids) with dev/test pairs; combine "
                        "each kind on its own")
    return training == {True}


def _is_combined_training_file(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline(len(TRAINING_HEADER) + 2).rstrip("\n") == TRAINING_HEADER
    except (OSError, UnicodeDecodeError):
        return False


def combine_file(annotations_path: Path, out: Path, overwrite: bool = False) -> Combined:
    """Combine an annotation file into `out`; refuse when no pair has both labels yet."""
    output = OutputFile(out, COMMAND, (annotations_path,), overwrite,
                        _is_combined_training_file, protected=labels_held)
    output.check()
    annotations = read_annotations(annotations_path)
    combined = combine_annotations(annotations)
    if combined.unfinished == len(annotations):
        first, second = (len(annotations) - missing for missing in combined.missing)
        raise usage_error(annotations_path, f"no pair is labelled by both annotators yet "
                          f"(annotator 1 labelled {first}, annotator 2 {second} of "
                          f"{len(annotations)}); nothing to combine")
    training = is_training(annotations, annotations_path)
    output.write(combined_lines(combined) if training else release_lines(combined))
    return combined


def agreement_report(combined: Combined) -> str:
    """The agreement table, kappa, and what was left out."""
    header = "  ".join(f"{column:>8}" for column in COLUMNS)
    counts = "  ".join(f"{combined.agreement[column]:>8}" for column in COLUMNS)
    kappa = (f"Cohen's kappa {combined.kappa:.3f}" if not math.isnan(combined.kappa) else
             "no Cohen's kappa (it needs at least two pairs labelled by both annotators)")
    lines = [header, counts, f"kept {len(combined.scores)} pairs, {kappa}"]
    if combined.unfinished:
        first, second = combined.missing
        lines.append(f"left out {combined.unfinished} pairs not labelled by both annotators "
                     f"(annotator 1 has {first} to do, annotator 2 {second})")
    return "\n".join(lines)
