"""`opusparcus pairs`: training rows (`anchor`, `positive`, hard negatives) from a ranked
training file.

Positives are the file's pairs. A hard negative of an anchor is another sentence of the file
that shares words with it and never shares a pivot translation with it in the bitexts: no link
of any pivot bitext (any split) joins both to one sentence of the pivot language. The bitexts
are those the ranking read, named in the `stats.json` of the `opusparcus rank` folder the file
belongs to (`OUT/<lang>/`, the file in it or in its `train/`); they are read again as `rank`
reads them (:func:`opusparcus.rank.read_bitexts`), and the file's sentences are found in the
ranking's vocabulary. The rest is :mod:`tapaco.core.pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from opusparcus import rank_kernels
from opusparcus.rank import kernels_ahead, pivot_links, pivot_sources, read_bitexts, vocabularies
from opusparcus.rank_inputs import RankOptions, pivot_of
from opusparcus.rank_outputs import COMMAND as RANK_COMMAND
from tapaco.core.errors import InputError, usage_error
from tapaco.core.forked import usable_cores
from tapaco.core.json_input import json_object, read_json
from tapaco.core.outputs import OutputFolder, read_manifest
from tapaco.core.pairs.output import pairs_card, write_card_and_stats, write_rows
from tapaco.core.pairs.overlap import OverlapTally
from tapaco.core.pairs.positives import oriented_pairs
from tapaco.core.pairs.rows import (
    PairsOptions,
    Relation,
    language_rows,
    pairs_stats,
    score_embedder,
)
from tapaco.core.progress import Progress
from tapaco.core.provenance import Provenance
from tapaco.core.text_column import TextColumn

COMMAND = "opusparcus pairs"
RULE = ("A hard negative is another sentence of the file that shares words with the anchor "
        "(found by word postings, rarest words first, weighted by inverse document frequency) "
        "and never shares a pivot translation with it: no link of the bitexts the ranking read "
        "aligns both to one sentence of a pivot language.")


@dataclass(frozen=True)
class Ranking:
    """The `opusparcus rank` output a ranked file belongs to: its folder and statistics."""

    folder: Path
    stats: dict

    @classmethod
    def of(cls, ranked: Path) -> Ranking:
        ranked = Path(ranked).resolve()
        for folder in (ranked.parent, ranked.parent.parent):
            manifest = read_manifest(folder)
            if manifest and manifest.get("written_by") == RANK_COMMAND and \
                    ranked.relative_to(folder).as_posix() in manifest["files"]:
                stats = json_object(folder / "stats.json")
                if {"language", "bitexts", "options"} <= set(stats):
                    return cls(folder, stats)
                break
        raise usage_error(ranked, f"is not a file of an '{RANK_COMMAND}' output folder (no "
                                  "manifest.json and stats.json of it beside the file or one "
                                  "folder up): the bitexts to check pivots in are unknown")

    @property
    def lang(self) -> str:
        return str(self.stats["language"])

    def release(self) -> Path:
        """The release folder whose bitexts the ranking read (as its stats.json names them)."""
        named = {pivot: Path(record["source"]) for pivot, record in self.stats["bitexts"].items()}
        if not named:
            raise usage_error(self.folder / "stats.json", "names no bitext")
        first = next(iter(named.values()))
        for root in list(first.parents)[:3]:
            try:
                found = {pivot_of(s, self.lang): s.path for s in
                         pivot_sources(root, self.lang, tuple(named))}
            except (InputError, OSError):
                continue
            if found == named:
                return root
        raise usage_error(first, f"cannot be found as the ranking's bitext for pivot "
                                 f"{next(iter(named))} (named in {self.folder / 'stats.json'}); "
                                 "was the release moved?")

    def options(self) -> RankOptions:
        recorded = self.stats["options"]
        return RankOptions(pivots=tuple(self.stats["bitexts"]), workers=1,
                           skip_bad_input=bool(recorded.get("skip_bad_input", False)),
                           documents=recorded.get("documents", "xml"),
                           max_sentence_length=recorded.get("max_sentence_length"))


def read_pairs(ranked: Path) -> tuple[pa.Array, pa.Array]:
    """The two sentences of every row of a ranked file (TSV, plain or `.bz2`, or Parquet)."""
    names = [f"f{k}" for k in range(7)]
    try:
        with open(ranked, "rb") as file:
            if file.read(4) == b"PAR1":
                table = pq.read_table(ranked, columns=["sent1", "sent2"])
                return (table.column(0).cast(pa.large_string()).combine_chunks(),
                        table.column(1).cast(pa.large_string()).combine_chunks())
        table = pa_csv.read_csv(
            ranked, read_options=pa_csv.ReadOptions(column_names=names),
            parse_options=pa_csv.ParseOptions(delimiter="\t", quote_char=False,
                                              escape_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types={"f1": pa.large_string(), "f2": pa.large_string()},
                include_columns=["f1", "f2"]))
    except (OSError, pa.ArrowException) as error:
        raise usage_error(ranked, f"cannot be read as a ranked file ({str(error).splitlines()[0]})"
                          ) from None
    return table.column(0).combine_chunks(), table.column(1).combine_chunks()


def pivot_lists(links: list, pool: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each sentence of `pool` (vocabulary codes, sorted), its distinct pivot sentences as
    sorted keys (code * pivots + pivot number), in CSR form."""
    position = np.full(size, -1, np.int64)
    position[pool] = np.arange(len(pool))
    owners, keys = [], []
    for number, bitext in enumerate(links):
        at = position[bitext.target]
        kept = at >= 0
        owners.append(at[kept])
        keys.append(bitext.pivot_codes[kept].astype(np.int64) * len(links) + number)
    owner, key = np.concatenate(owners or [[]]).astype(np.int64), np.concatenate(keys or [[]])
    order = np.lexsort((key, owner))
    owner, key = owner[order], key[order].astype(np.int64)
    distinct = np.r_[True, (owner[1:] != owner[:-1]) | (key[1:] != key[:-1])] if len(owner) \
        else np.zeros(0, bool)
    owner, key = owner[distinct], key[distinct]
    offsets = np.zeros(len(pool) + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=len(pool)), out=offsets[1:])
    return offsets, key


def rows_of_level(cutoffs: Path, level: float, total_rows: int) -> int:
    """The rows `opusparcus cutoff` kept at `level` (a share), from its `cutoffs.json`, which
    must be of a ranked file of `total_rows` rows."""
    try:
        recorded = read_json(cutoffs)
        cuts = {round(cut["level"], 6): int(cut["rows"]) for cut in recorded["cuts"]}
        recorded_total = int(recorded["total_rows"])
    except (OSError, InputError, KeyError, TypeError, ValueError):
        raise usage_error(cutoffs, "is not the cutoffs.json of 'opusparcus cutoff'") from None
    if recorded_total != total_rows:
        raise usage_error(cutoffs, f"cuts a ranked file of {recorded_total:,} rows, not --ranked "
                                   f"({total_rows:,} rows)")
    if round(level, 6) not in cuts:
        raise usage_error("--level", f"{level * 100:g} is not a level of {cutoffs} (it has "
                                     f"{', '.join(f'{key * 100:g}' for key in cuts)})")
    return cuts[round(level, 6)]


def make_pairs(ranked: Path, out: Path, options: PairsOptions, overwrite: bool = False,
               progress: Progress | None = None, level: float | None = None,
               cutoffs: Path | None = None) -> dict:
    """Write the rows of the ranked file (down to the cut of `level` in `cutoffs`, if given)
    into the folder `out`; returns its statistics."""
    ranking = Ranking.of(ranked)
    inputs = [Path(ranked), *([Path(cutoffs)] if cutoffs else [])]
    folder = OutputFolder(Path(out), COMMAND, inputs=inputs, overwrite=overwrite)
    folder.check()
    first, second = read_pairs(Path(ranked))
    if level is not None:
        kept = rows_of_level(Path(cutoffs), level, len(first))
        first, second = first[:kept], second[:kept]
    release = ranking.release()
    progress = progress or Progress(enabled=False)
    sources = pivot_sources(release, ranking.lang, tuple(ranking.stats["bitexts"]))
    kernels = rank_kernels.pairing(options.negatives > 0)
    with progress.stage("read bitexts"), kernels_ahead(release, sources, ranking.options(),
                                                       kernels, usable_cores() > 1):
        read = read_bitexts(release, sources, ranking.options(),
                            pivot_only=set(ranking.stats["bitexts"]))
        vocabulary = vocabularies(read, {ranking.lang})
        links = [pivot_links(s, ranking.lang, read, vocabulary) for s in sources]
    sentences = vocabulary[ranking.lang].sentences
    codes = pc.index_in(pa.concat_arrays([first, second]), value_set=sentences)
    if codes.null_count:
        raise usage_error(ranked, "holds sentences the ranking's bitexts do not "
                                  f"({codes.null_count} sides): not ranked from them")
    codes = codes.to_numpy().astype(np.int64)
    pool = np.unique(codes)
    texts = TextColumn.of_arrow(sentences.take(pa.array(pool)))
    at = np.searchsorted(pool, codes)
    anchors, positives = oriented_pairs(at[:len(first)], at[len(first):], options.seed)
    pivot_offsets, pivots = pivot_lists(links, pool, len(sentences))
    tally, embedder = OverlapTally(), score_embedder(options)
    made = language_rows(texts, anchors, positives,
                         Relation(np.arange(len(pool), dtype=np.int64), pivot_offsets, pivots),
                         options, tally, embedder)
    lang = ranking.lang
    stats = pairs_stats(COMMAND, options, {lang: made.stats}, tally, embedder, RULE,
                        level=level, ranking={"signature": ranking.stats.get("signature")},
                        source=ranking.stats.get("source"))

    def fill(target: Path) -> None:
        write_rows(target, lang, made.table, options.formats)
        card = pairs_card(f"Opusparcus {lang} training pairs (rebuilt)",
                          Provenance.recorded(ranking.stats).licence(), _summary(lang, stats),
                          {lang: made.stats["rows"]}, options.negatives,
                          f"{RULE} Seed {options.seed}.", command_line(options),
                          stats["versions"])
        write_card_and_stats(target, card, stats)

    folder.write(fill)
    return stats


def command_line(options: PairsOptions) -> str:
    return " ".join(["python -m opusparcus pairs --ranked FILE --out DIR",
                     *options.command_words()])


def _summary(lang: str, stats: dict) -> str:
    return (f"Training rows for sentence-embedding models from an Opusparcus ranking ({lang}): "
            f"{stats['rows']:,} rows. `anchor` and `positive` are a ranked paraphrase pair "
            "(sentences sharing pivot translations); the columns are in the order "
            "sentence-transformers takes them.")
