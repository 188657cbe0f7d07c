"""Parquet copies of what `rank` and `export-gem` write, each folder with its dataset card.

`rank --format parquet`: the rows of the release's text files (numbers as printed) in
`OUT/<lang>/data/{train,dev_candidates,test_candidates}.parquet`, with the ranked fields `id`,
`sent1`, `sent2`, `summed_pmi`, `expected_count`, `pivots`, `edit_distance` (and `score` under
another `--score`). The local engine writes them from the rows it renders (:class:`RankedParquet`),
the Spark engine converts the text files it wrote, streamed through Arrow's CSV reader with
quoting off; both give the same file (row groups where the CSV reader cuts the text). The card
has one config, the language. With `--scores`, every file also has `paraphrase_score` last (see
:mod:`opusparcus.paraphrase_scores`), added to each batch of rows, and the card names the model.

`export-gem --format parquet`: the GEM records (`lang`, `sent1`, `sent2`, `annot_score`,
`gem_id`) in `OUT/<lang>/data/<split>.parquet`; the training files of each quality level also
carry the ranked fields and `quality`, the highest level whose cut holds the pair. Configs are
the GEM card's `<lang>.<level>`, each with the splits train, validation, test, validation.full
and test.full. With `--scores`, every record has `paraphrase_score` last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from sacremoses import MosesDetokenizer

from opusparcus.paraphrase_scores import CITATION as SCORE_CITATION
from opusparcus.paraphrase_scores import (
    MEANING,
    SCORE_FIELD,
    ScoredFile,
    ScoreTable,
    card_note,
    read_tables,
)
from tapaco.core.dataset_card import Card, Config, write_parquet
from tapaco.core.language_id import card_note as language_id_note
from tapaco.core.provenance import Provenance
from tapaco.core.versions import library_versions

RANKED = pa.schema([("id", pa.string()), ("sent1", pa.string()), ("sent2", pa.string()),
                    ("summed_pmi", pa.float64()), ("expected_count", pa.float64()),
                    ("pivots", pa.int32()), ("edit_distance", pa.int32())])
SCHEME_SCORE = pa.field("score", pa.float64())
GEM = pa.schema([("lang", pa.string()), ("sent1", pa.string()), ("sent2", pa.string()),
                 ("annot_score", pa.float64()), ("gem_id", pa.string())])
GEM_TRAIN = pa.schema([*GEM, *list(RANKED)[3:], pa.field("quality", pa.int32())])
# what the Hub's GEM/opusparcus loads today: detokenised text as input and target
GEM_HUB = pa.schema([("lang", pa.string()), ("input", pa.string()), ("target", pa.string()),
                     ("annot_score", pa.float64()), ("gem_id", pa.string())])
GEM_SCHEMAS = ("hub", "card")
EMPTY_SPLITS = ("A split without rows has its (empty) Parquet file but is left out of the "
                "configs, as `datasets` refuses empty splits.")
NO_PAIRS = ("This language has no pairs, so there is nothing to load: the card lists no "
            "configuration (`datasets` loads no empty split), and its Parquet files are empty.")
RANK_SPLITS = {"train": "train", "dev": "dev_candidates", "test": "test_candidates"}
# bytes of text Arrow's CSV reader takes at a time; each block's rows are one row group
TEXT_BLOCK_BYTES = 1 << 24
LICENSE = "cc-by-nc-4.0"
CITATION = """@inproceedings{creutz-2018-open,
  title = "Open Subtitles Paraphrase Corpus for Six Languages",
  author = "Creutz, Mathias",
  booktitle = "Proceedings of the Eleventh International Conference on Language Resources and
               Evaluation ({LREC} 2018)",
  year = "2018",
  publisher = "European Language Resources Association (ELRA)",
  url = "https://aclanthology.org/L18-1218"
}"""
RANKED_FIELDS = {
    "id": "`<lang>-N<n>` (train), `-D<n>` (dev), `-T<n>` (test), in rank order",
    "sent1, sent2": "the two sentences, sent1 < sent2 by code point",
    "summed_pmi": "PMI summed over the pivot languages (the ranking score)",
    "expected_count": "expected co-alignment count",
    "pivots": "number of pivot languages with a shared translation",
    "edit_distance": "adjusted edit distance (tails of the longer sentence free)",
}


def _scored(schema: pa.Schema, scored: bool) -> pa.Schema:
    """`schema`, with `paraphrase_score` last when `scored`."""
    return schema.append(SCORE_FIELD) if scored else schema


def schema_of_ranked(scheme_score: bool, scored: bool = False) -> pa.Schema:
    return _scored(RANKED.append(SCHEME_SCORE) if scheme_score else RANKED, scored)


def ranked_text_to_parquet(text: Path, target: Path, scheme_score: bool = False,
                           scores: ScoreTable | None = None) -> int:
    """Convert a ranked release file (bz2 or plain) to Parquet, with the `paraphrase_score` of
    `scores` when given; the rows converted."""
    schema = schema_of_ranked(scheme_score)
    compression = "bz2" if text.suffix == ".bz2" else None
    target.parent.mkdir(parents=True, exist_ok=True)
    rows = 0
    with pq.ParquetWriter(target, _scored(schema, scores is not None),
                          compression="zstd") as writer:
        if _has_rows(text, compression):
            with pa.input_stream(str(text), compression=compression) as stream:
                for batch in pacsv.open_csv(stream, *_tsv_options(schema)):
                    writer.write_batch(batch if scores is None else scores.add_to(batch))
                    rows += batch.num_rows
    return rows


def _has_rows(text: Path, compression: str | None) -> bool:
    with pa.input_stream(str(text), compression=compression) as stream:
        return bool(stream.read(1))


def _tsv_options(schema: pa.Schema) -> tuple:
    read = pacsv.ReadOptions(column_names=schema.names, block_size=TEXT_BLOCK_BYTES)
    parse = pacsv.ParseOptions(delimiter="\t", quote_char=False, double_quote=False,
                               escape_char=False, newlines_in_values=False)
    convert = pacsv.ConvertOptions(column_types={field.name: field.type for field in schema},
                                   strings_can_be_null=False, quoted_strings_can_be_null=False)
    return read, parse, convert


def ranked_batch(ids: list[str], first: pa.Array, second: pa.Array, summed_pmi: pa.Array,
                 expected: pa.Array, pivots: np.ndarray, edit: np.ndarray,
                 scheme_score: pa.Array | None) -> pa.RecordBatch:
    """Ranked rows as the text file's conversion gives them: the numbers from their printed
    text (Arrow strings, parsed as Arrow's CSV reader does)."""
    numbers = [summed_pmi.cast(pa.float64()), expected.cast(pa.float64()),
               pa.array(pivots, pa.int32()), pa.array(edit, pa.int32())]
    if scheme_score is not None:
        numbers.append(scheme_score.cast(pa.float64()))
    return pa.RecordBatch.from_arrays(
        [pa.array(ids, pa.string()), first.cast(pa.string()), second.cast(pa.string()),
         *numbers], schema=schema_of_ranked(scheme_score is not None))


class RankedParquet:
    """A ranked split's Parquet file written chunk by chunk as the rows are rendered, with the
    row groups of :func:`ranked_text_to_parquet`: the rows whose line ends in the same block of
    `TEXT_BLOCK_BYTES` of the text (the CSV reader cuts its blocks at the last line end).
    `scores`: adds each row's `paraphrase_score`."""

    def __init__(self, target: Path, scheme_score: bool, scores: ScoreTable | None = None) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        self.writer = pq.ParquetWriter(
            target, schema_of_ranked(scheme_score, scores is not None), compression="zstd")
        self.scores = scores
        self.text_bytes, self.block, self.held = 0, 0, []

    def __enter__(self) -> RankedParquet:
        return self

    def __exit__(self, *error: object) -> None:
        self._write_held()
        self.writer.close()

    def add(self, text: bytes, rows: pa.RecordBatch) -> None:
        """The rows of the next chunk and their text (one line each)."""
        line_ends = np.flatnonzero(np.frombuffer(text, np.uint8) == ord("\n")) + 1
        if self.scores is not None:
            rows = self.scores.add_to(rows)
        blocks = (self.text_bytes + line_ends - 1) // TEXT_BLOCK_BYTES
        self.text_bytes += len(text)
        start = 0
        for block, count in zip(*np.unique(blocks, return_counts=True)):
            if block != self.block:
                self._write_held()
                self.block = block
            self.held.append(rows.slice(start, int(count)))
            start += int(count)

    def _write_held(self) -> None:
        if self.held:
            self.writer.write_table(pa.Table.from_batches(self.held).combine_chunks())
            self.held = []


def rank_parquet_name(split: str) -> str:
    """Where a split's Parquet file goes in OUT/<lang>/."""
    return f"data/{RANK_SPLITS[split]}.parquet"


def write_rank_parquet(folder: Path, lang: str, release: dict[str, str], stats: dict,
                       command: str, formats: Sequence[str],
                       scored: Mapping[str, ScoredFile] | None = None) -> None:
    """`folder/data/*.parquet` converted from the release files `release` (split -> name), and
    the card; `scored`: the scored file of some splits, when `--scores` was given."""
    scheme = stats["options"]["score"] != "summed-pmi"
    tables = None if scored is None else read_tables(scored, stats["pairs_written"], release)
    for split, name in release.items():
        ranked_text_to_parquet(folder / name, folder / rank_parquet_name(split), scheme,
                               None if tables is None else tables[split])
    write_rank_card(folder, lang, stats, command, formats, scored)


def write_rank_card(folder: Path, lang: str, stats: dict, command: str,
                    formats: Sequence[str], scored: Mapping[str, ScoredFile] | None = None
                    ) -> None:
    """The dataset card of `folder/data/*.parquet` (which says whether the text files stay:
    `tsv` in `formats`); `scored`: the scored file of some splits, when `--scores` was
    given."""
    written = stats["pairs_written"]
    splits = {RANK_SPLITS[split]: rank_parquet_name(split) for split in RANK_SPLITS
              if written[split]}
    source = Provenance.recorded(stats)
    summary = (f"{lang} sentence pairs that share pivot translations in {source.described()}, "
               f"ranked as Opusparcus (Creutz 2018) ranks them: {written['train']:,} training "
               f"pairs, best first, and {written['dev']:,} dev and {written['test']:,} test "
               "candidates, which become the dev and test sets once people annotate them "
               "(`opusparcus sample`, `annotate`, `combine`, `export-gem`). The Parquet files "
               "hold the rows of the release's text files"
               + (", which are beside this card." if "tsv" in formats else "."))
    fields = dict(RANKED_FIELDS)
    if stats["options"]["score"] != "summed-pmi":
        fields["score"] = f"the `{stats['options']['score']}` score the rows are ordered by"
    configs = [Config(lang, splits, default=True)] if splits else []
    notes = EMPTY_SPLITS if splits else NO_PAIRS
    scores = ""
    if scored is not None:
        fields["paraphrase_score"] = MEANING
        scores = "\n\n" + card_note({name: scored.get(split) for split, name in RANK_SPLITS.items()
                                     if written[split]})
    licence, licence_note = source.licence()
    card = Card(f"Opusparcus {lang} (rebuilt, ranked)", licence, summary, configs, [lang],
                command, stats["versions"], fields,
                CITATION if scored is None else f"{CITATION}\n\n{SCORE_CITATION}",
                notes=f"{notes} Options: `{stats['signature']}`.{scores}"
                      + (" " + language_id_note(stats["language_id"])
                         if "language_id" in stats else ""),
                licence_note=licence_note)
    (folder / "README.md").write_text(card.text(), encoding="utf-8")


def gem_train_table(records: Sequence[dict], ranked_rows: Sequence[Sequence[str]],
                    quality: Sequence[int], scored: bool = False) -> pa.Table:
    """GEM training records with the ranked fields of their rows and their quality level (and
    last, when `scored`, their `paraphrase_score`)."""
    columns = pa.Table.from_pylist(list(records), schema=GEM).columns
    numbers = [[float(row[3]) for row in ranked_rows], [float(row[4]) for row in ranked_rows],
               [int(row[5]) for row in ranked_rows], [int(row[6]) for row in ranked_rows],
               list(quality)]
    if scored:
        numbers.append([item[SCORE_FIELD.name] for item in records])
    return pa.table([*columns, *numbers], schema=_scored(GEM_TRAIN, scored))


def hub_records(records: Sequence[dict], lang: str) -> list[dict]:
    """GEM records in the Hub's schema: `input` and `target` are `sent1` and `sent2` Moses-
    detokenised (sacremoses, the language's rules: "Ich sah die Leichen ." -> "Ich sah die
    Leichen."); a pair's `gem_id` names its split as the Hub does, `.full` or not
    ("gem-opusparcus-test-1")."""
    detokenize = MosesDetokenizer(lang=lang).detokenize
    score = SCORE_FIELD.name
    return [{"lang": item["lang"], "input": detokenize(item["sent1"].split()),
             "target": detokenize(item["sent2"].split()), "annot_score": item["annot_score"],
             "gem_id": item["gem_id"].replace(".full-", "-"),
             **({score: item[score]} if score in item else {})} for item in records]


def write_gem_parquet(folder: Path, lang: str, cuts: dict[int, int],
                      train: Sequence[dict], ranked_rows: Sequence[Sequence[str]],
                      annotated: dict[str, list[dict]], schema: str = "hub",
                      scored: Mapping[str, ScoredFile] | None = None) -> list[str]:
    """`folder/data/` with one training file per level and the four annotated splits, and the
    card; the names written. `schema`: `hub` (the Hub's GEM/opusparcus fields, detokenised) or
    `card` (the GEM data card's `sent1`, `sent2`, tokenised, training rows with the ranked
    fields). `scored` (`--scores`: the scored file of some of the splits train, dev, test):
    the records carry `paraphrase_score`, and the card says what scored them."""
    hub, has_scores = schema == "hub", scored is not None
    records_schema = _scored(GEM_HUB if hub else GEM, has_scores)
    if hub:
        train = hub_records(train, lang)
        annotated = {split: hub_records(records, lang) for split, records in annotated.items()}
    quality = [max((level for level, cut in cuts.items() if index < cut), default=0)
               for index in range(len(train))]
    names = []
    for level, cut in cuts.items():
        name = f"data/train.{level}.parquet"
        write_parquet(folder / name, pa.Table.from_pylist(train[:cut], schema=records_schema)
                      if hub else gem_train_table(train[:cut], ranked_rows[:cut], quality[:cut],
                                                  has_scores))
        names.append(name)
    for split, records in annotated.items():
        name = f"data/{split}.parquet"
        write_parquet(folder / name, pa.Table.from_pylist(records, schema=records_schema))
        names.append(name)
    shared = {split: f"data/{split}.parquet" for split, records in annotated.items() if records}
    levels = [level for level, cut in sorted(cuts.items()) if cut or shared]
    configs = [Config(f"{lang}.{level}",
                      ({"train": f"data/train.{level}.parquet"} if cuts[level] else {}) | shared,
                      default=level == levels[0]) for level in levels]
    summary = (f"The {lang} part of Opusparcus in the layout of the GEM/opusparcus dataset: "
               "training pairs cut at quality levels estimated from annotated samples (a "
               "config per level; higher levels are prefixes of lower ones), and the "
               "annotated dev and test pairs (`validation`, `test`: scored 3.0 or more; "
               f"`.full`: every annotated pair). {EMPTY_SPLITS}")
    common = {"annot_score": "mean annotation (1.0-4.0); 0.0 for training pairs",
              "gem_id": "`gem-opusparcus-<split>-<n>`, n the Opusparcus pair number"}
    fields = ({"lang": "language", "input, target": "the two sentences, Moses-detokenised "
               "(the Hub's GEM/opusparcus schema)", **common} if hub else
              {"lang": "language", "sent1, sent2": "the two sentences, tokenised (the GEM "
               "data card's schema)", **common,
               **{name: meaning for name, meaning in RANKED_FIELDS.items()
                  if name not in ("id", "sent1, sent2")},
               "quality": "(train) the highest quality level whose cut holds the pair"})
    notes = ""
    if scored is not None:
        fields["paraphrase_score"] = MEANING
        notes = card_note({"train": scored.get("train"), "validation": scored.get("dev"),
                           "test": scored.get("test")})
    card = Card(f"Opusparcus {lang} (rebuilt, GEM layout)", LICENSE, summary, configs, [lang],
                "python -m opusparcus export-gem --ranked RANKED --annotations COMBINED --dev "
                f"DEV --test TEST --out OUT --format jsonl,parquet --parquet-schema {schema}"
                + (" --scores SCORED..." if has_scores else ""),
                library_versions(), fields,
                CITATION if scored is None else f"{CITATION}\n\n{SCORE_CITATION}", notes)
    (folder / "README.md").write_text(card.text(), encoding="utf-8")
    return names
