"""`tapaco pairs`: training rows (`anchor`, `positive`, hard negatives) from a build's sets.

Positives are two members of one set. A hard negative of an anchor is a sentence of its
language that shares words with it and lies in another component of the build's translation
graph (alignment and surface-similarity links), so that no translation path links the two. The
build records each kept sentence's component: its set id is the number of its component in
that graph (sets are components split by language; ids are not renumbered by the filters). With
`--oversized split` the sets of an oversized component got new ids from `graph.components` on,
whose component is not recorded: two such sentences are never taken as each other's negative.
The rest is :mod:`tapaco.core.pairs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from tapaco.core.arrays import group_offsets
from tapaco.core.errors import InputError, OptionError, usage_error
from tapaco.core.json_input import read_json
from tapaco.core.outputs import OutputFolder, read_manifest
from tapaco.core.pairs.output import pairs_card, write_card_and_stats, write_rows
from tapaco.core.pairs.overlap import OverlapTally
from tapaco.core.pairs.rows import PairsOptions, Relation, group_rows, pairs_stats, score_embedder
from tapaco.core.progress import Progress
from tapaco.core.provenance import Provenance
from tapaco.core.text_column import TextColumn
from tapaco.pipeline import COMMAND as BUILD_COMMAND

COMMAND = "tapaco pairs"
RULE = ("A hard negative is a sentence of the anchor's language that shares words with it "
        "(found by word postings, rarest words first, weighted by inverse document frequency) "
        "and lies in another connected component of the build's translation graph (alignment "
        "and surface-similarity links): no translation path links it to the anchor.")


@dataclass(frozen=True)
class Build:
    """A `tapaco build` output folder: its statistics and its language files."""

    path: Path
    stats: dict
    files: dict[str, str]

    @classmethod
    def open(cls, path: Path) -> Build:
        path = Path(path)
        manifest = read_manifest(path) if path.is_dir() else None
        if manifest is None or manifest.get("written_by") != BUILD_COMMAND:
            raise usage_error(path, f"is not a '{BUILD_COMMAND}' output folder (no manifest.json "
                                    f"written by {BUILD_COMMAND})")
        try:
            stats = read_json(path / "stats.json")
            components = int(stats["graph"]["components"])
            languages = list(stats["languages"])
        except (OSError, KeyError, TypeError, ValueError, InputError):
            raise usage_error(path / "stats.json", f"is missing or not the statistics of "
                                                   f"'{BUILD_COMMAND}'") from None
        if components < 0:
            raise usage_error(path / "stats.json", "records a negative number of components")
        listed = manifest["files"]
        files = {}
        for lang in languages:
            found = [name for name in (f"{lang}.txt", f"data/{lang}.parquet") if name in listed]
            if found:
                files[lang] = found[-1]
        return cls(path, stats, files)

    @property
    def component_count(self) -> int:
        return int(self.stats["graph"]["components"])

    def rows(self, lang: str) -> tuple[np.ndarray, TextColumn]:
        """The set ids and texts of a language file, in its order (sorted by set id)."""
        path = self.path / self.files[lang]
        try:
            if path.suffix == ".parquet":
                table = pq.read_table(path, columns=["paraphrase_set_id", "paraphrase"])
                set_ids, texts = table.column(0).cast(pa.int64()), table.column(1)
            else:
                table = _read_language_file(path)
                set_ids, texts = table.column(0), table.column(1)
        except (OSError, pa.ArrowException) as error:
            raise usage_error(path, f"cannot be read as a '{BUILD_COMMAND}' language file "
                                    f"({str(error).splitlines()[0]})") from None
        set_ids = set_ids.to_numpy()
        if len(set_ids) and (np.diff(set_ids) < 0).any():
            raise usage_error(path, "is not sorted by set id: not a language file of "
                                    f"'{BUILD_COMMAND}'")
        return set_ids, TextColumn.of_arrow(texts.combine_chunks())


def _read_language_file(path: Path) -> pa.Table:
    names = ["set_id", "sentence_id", "text", "lists", "tags"]
    return pa_csv.read_csv(
        path, read_options=pa_csv.ReadOptions(column_names=names),
        parse_options=pa_csv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False),
        convert_options=pa_csv.ConvertOptions(
            column_types={"set_id": pa.int64(), "text": pa.large_string()},
            include_columns=["set_id", "text"]))


def relation_of(set_ids: np.ndarray, component_count: int) -> Relation:
    """Each row's component: its set id, or -1 for a community of `--oversized split`."""
    return Relation(np.where(set_ids < component_count, set_ids, -1).astype(np.int64))


def chosen_languages(build: Build, languages: Sequence[str] | None) -> list[str]:
    if not languages:
        return list(build.files)
    unknown = [lang for lang in languages if lang not in build.files]
    if unknown:
        raise OptionError("--langs", f"{unknown[0]} is not a language of {build.path} (it has "
                                     f"{', '.join(build.files) or 'none'})")
    return list(languages)


def command_line(options: PairsOptions, languages: Sequence[str] | None) -> str:
    words = ["python -m tapaco pairs --build OUT --out DIR"]
    if languages:
        words.append(f"--langs {','.join(languages)}")
    words += options.command_words(f"--max-pairs-per-set {options.max_pairs_per_group}")
    return " ".join(words)


def make_pairs(build_path: Path, out: Path, options: PairsOptions,
               languages: Sequence[str] | None = None, overwrite: bool = False,
               progress: Progress | None = None) -> dict:
    """Write the rows of `build_path`'s sets into the folder `out`; returns its statistics."""
    build = Build.open(build_path)
    chosen = chosen_languages(build, languages)
    folder = OutputFolder(Path(out), COMMAND, inputs=[build.path], overwrite=overwrite)
    folder.check()
    embedder = score_embedder(options)
    progress = progress or Progress(enabled=False)
    tally, per_language = OverlapTally(), {}

    def fill(target: Path) -> None:
        for lang in chosen:
            with progress.stage(f"pairs {lang}"):
                set_ids, texts = build.rows(lang)
                made = group_rows(texts, group_offsets(set_ids),
                                     relation_of(set_ids, build.component_count), options,
                                     tally, embedder)
                write_rows(target, lang, made.table, options.formats)
                per_language[lang] = made.stats
        stats = _stats(build, options, per_language, tally, embedder)
        card = pairs_card("TaPaCo training pairs (rebuilt)",
                          Provenance.recorded(build.stats).licence(), _summary(build, stats),
                          {lang: s["rows"] for lang, s in per_language.items()},
                          options.negatives, f"{RULE} Seed {options.seed}.",
                          command_line(options, languages), stats["versions"])
        write_card_and_stats(target, card, stats)
        result.update(stats)

    result: dict = {}
    folder.write(fill)
    return result


def _stats(build: Build, options: PairsOptions, per_language: dict, tally: OverlapTally,
           embedder) -> dict:  # noqa: ANN001
    return pairs_stats(COMMAND, options, per_language, tally, embedder, RULE,
                       build={"signature": build.stats.get("signature")},
                       source=build.stats.get("source"))


def _summary(build: Build, stats: dict) -> str:
    source = Provenance.recorded(build.stats)
    return (f"Training rows for sentence-embedding models from a TaPaCo build of "
            f"{source.described()}: {stats['rows']:,} rows over {len(stats['languages'])} "
            "languages. `anchor` and `positive` are two sentences of one paraphrase set "
            "(sentences linked by translations); the columns are in the order "
            "sentence-transformers takes them.")
