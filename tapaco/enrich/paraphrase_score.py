"""ParaNMT's paraphrase score in enrich's output (`--score-model`, `--min-paraphrase-score`).

With a score model, every row enrich writes gets a last column, `paraphrase_score`: the cosine
of the reference's and the paraphrase's vectors (as written, tabs made spaces), by the library
of :mod:`tapaco.core.score` (a word-vector file: the mean vector of the lowercased 13a tokens the
file knows; a sentence-transformers model folder: the model's embedding), 6 decimals, empty
where a side has no vector. The model is loaded once; each window's written rows are scored in
one call. `--min-paraphrase-score X` drops the outputs the other filters kept whose score, as
written, is below X or missing: their `dropped_by` is `paraphrase_score`, counted as
`dropped_paraphrase_score`. The score model, its backend and the lowest score kept are options
of the rows (a resume with another model is refused); the stats name the model that scored.

Without a score model nothing here is imported beyond this module, and the output is what it
was before the score existed. The score library (pandas, numba kernels; sentence-transformers
and torch for a model folder) is imported only when a score model is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tapaco.core.errors import OptionError
from tapaco.core.options import check_range

COLUMN = "paraphrase_score"  # tapaco.core.score.scoring.SCORE_COLUMN, without importing it
DROPPED = COLUMN  # the `dropped_by` of an output scoring below --min-paraphrase-score
_CLEAN = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


@dataclass(frozen=True)
class ParaphraseScoreOptions:
    """The paraphrase score of enrich's rows: `model` (None: no score; the backend is the one
    it calls for), the device of a sentence-transformers model, and `min_score`, the lowest
    score kept (None: no such filter). Checked on creation, with the command line's option
    names."""

    model: Path | None = None
    min_score: float | None = None
    device: str = "auto"

    def __post_init__(self) -> None:
        if self.min_score is not None:
            if self.model is None:
                raise OptionError("--min-paraphrase-score", "needs --score-model (the model "
                                  "that scores the outputs)")
            check_range("--min-paraphrase-score", self.min_score, -1.0, 1.0)
        if self.model is None:
            return
        from tapaco.core.score.embedders import DEVICES

        if self.device not in DEVICES:
            raise OptionError("--device", f"{self.device}: choose one of {', '.join(DEVICES)}")

    @property
    def enabled(self) -> bool:
        return self.model is not None

    def settings(self) -> dict:
        """What decides the column (recorded for a resume): the model's resolved path, its
        backend and the lowest score kept. Raises an InputError when the model is missing or a
        folder without modules.json."""
        from tapaco.core.score.embedders import backend_of

        model = Path(self.model)
        return {"model": str(model.resolve()), "backend": backend_of(model),
                "min_score": self.min_score}


def settings_of(options: ParaphraseScoreOptions) -> dict:
    """The entry of enrich's recorded options: none without a score model."""
    return {COLUMN: options.settings()} if options.enabled else {}


def new_counts(settings: dict) -> dict[str, int]:
    """The count enrich's stats add for a score model (`settings`: its recorded options)."""
    return {f"dropped_{DROPPED}": 0} if COLUMN in settings else {}


def open_scorer(options: ParaphraseScoreOptions) -> Any:
    """The model of `options`, loaded (a `tapaco.core.score.embedders.Embedder`)."""
    from tapaco.core.score.embedders import open_embedder

    return open_embedder(Path(options.model), device=options.device)


def scorer_of(options: ParaphraseScoreOptions, loaded: Any = None) -> Any:
    """The scorer a run uses: None without a score model, else `loaded` or the model loaded."""
    if not options.enabled:
        return None
    return loaded if loaded is not None else open_scorer(options)


def add_scores(done: list[tuple[Any, str, dict]], options: ParaphraseScoreOptions,
               write_dropped: bool, scorer: Any) -> None:
    """Score the outputs of a window that will be written (`done`: job, output, scores; all of
    them with `write_dropped`, else those no filter dropped) in one call: each one's scores get
    `paraphrase_score` (the field as written); an output the other filters kept that scores
    below `options.min_score` (or has no score) is dropped by `paraphrase_score`."""
    import numpy as np

    from tapaco.core.score.scoring import format_score

    chosen = [item for item in done if write_dropped or not item[2]["dropped_by"]]
    if not chosen:
        return
    values = scorer.pair_scores([job.reference.translate(_CLEAN) for job, _, _ in chosen],
                                [text.translate(_CLEAN) for _, text, _ in chosen])
    written = [format_score(value) for value in values.tolist()]
    if options.min_score is None:
        low = [False] * len(chosen)
    else:
        low = (np.round(np.nan_to_num(values, nan=-2.0), 6) < options.min_score).tolist()
    for (_, _, scores), field, too_low in zip(chosen, written, low):
        scores[COLUMN] = field
        if too_low and not scores["dropped_by"]:
            scores["dropped_by"] = DROPPED


def summary_note(stats: dict) -> str:
    """The end of enrich's summary line when the rows were scored: by which model."""
    model = stats.get("score_model")
    if not model:
        return ""
    below = stats.get(f"dropped_{DROPPED}", 0)
    dropped = f", {below} below --min-paraphrase-score" if below else ""
    return f"; {COLUMN} by {model['backend']} {Path(model['model']).name}{dropped}"
