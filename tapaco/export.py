"""Write the corpus: `OUT/<lang>.txt` in TaPaCo's released format, `stats.json` and `stats.md`;
with Parquet, `OUT/data/<lang>.parquet` and the dataset card `OUT/README.md`.

Each language file is UTF-8, tab-separated, no header, five fields per row: set id, sentence id,
text, lists, tags. A language's rows arrive as an Arrow table of those five columns
(:data:`ROW_COLUMNS`); both files are made from it by Arrow's compiled string operations. The
Parquet files hold the same rows in the columns of the Hugging Face
`tapaco` dataset (`paraphrase_set_id`, `sentence_id`, `paraphrase`, `lists`, `tags`,
`language`; lists and tags split on `;` as its loader did, so an empty field is `[""]`). The
folder itself is written atomically by :mod:`tapaco.core.outputs`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from tapaco.core.dataset_card import Card, Config
from tapaco.core.language_id import card_note
from tapaco.core.provenance import Provenance
from tapaco.core.text_column import TextColumn

ROW_COLUMNS = ("set_id", "sentence_id", "text", "lists", "tags")
SCHEMA = pa.schema([("paraphrase_set_id", pa.string()), ("sentence_id", pa.string()),
                    ("paraphrase", pa.string()), ("lists", pa.list_(pa.string())),
                    ("tags", pa.list_(pa.string())), ("language", pa.string())])
CITATION = """@inproceedings{scherrer-2020-tapaco,
  title = "{T}a{P}a{C}o: A Corpus of Sentential Paraphrases for 73 Languages",
  author = "Scherrer, Yves",
  booktitle = "Proceedings of the 12th Language Resources and Evaluation Conference",
  year = "2020",
  publisher = "European Language Resources Association",
  pages = "6868--6873",
  url = "https://aclanthology.org/2020.lrec-1.848"
}"""


def language_rows_table(set_ids: pa.Array, sentence_ids: pa.StringArray, texts: pa.Array,
                        lists: Sequence[str], tags: Sequence[str]) -> pa.Table:
    """A language's rows as the table of :data:`ROW_COLUMNS` the writers take (`lists`, `tags`:
    strings, or :class:`TextColumn`)."""
    return pa.table([set_ids, sentence_ids, texts,
                     *(values.arrow().cast(pa.string()) if isinstance(values, TextColumn)
                       else pa.array(values, pa.string())
                       for values in (lists, tags))], names=list(ROW_COLUMNS))


def language_file_bytes(table: pa.Table) -> bytes:
    """The released layout: one `set<TAB>id<TAB>text<TAB>lists<TAB>tags` line per row."""
    fields = [pc.cast(table[name], pa.large_string()) for name in ROW_COLUMNS]
    empty, tab, newline = (pa.scalar(text, pa.large_string()) for text in ("", "\t", "\n"))
    lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*fields, tab), empty, newline)
    column = TextColumn.of_arrow(lines.combine_chunks())
    return column.data[column.offsets[0]:column.offsets[-1]].tobytes()


def language_table(lang: str, table: pa.Table) -> pa.Table:
    """The rows of one language in the columns of the Hugging Face `tapaco` dataset."""
    lists, tags = (pc.split_pattern(table[name], ";") for name in ("lists", "tags"))
    return pa.table([pc.cast(table["set_id"], pa.string()), table["sentence_id"],
                     pc.cast(table["text"], pa.string()), lists, tags,
                     pa.array([lang] * len(table), pa.string())], schema=SCHEMA)


def parquet_path(lang: str) -> str:
    return f"data/{lang}.parquet"


def dataset_card(stats: dict, command: str, formats: tuple[str, ...]) -> Card:
    """The card of a build's Parquet files: one config per language, `all_languages` first; it
    names the `<lang>.txt` files only when they were written (`tsv` in `formats`)."""
    languages = list(stats["languages"])
    source = Provenance.recorded(stats)
    configs = [Config("all_languages", {"train": "data/*.parquet"}, default=True)]
    configs += [Config(lang, {"train": parquet_path(lang)}) for lang in languages]
    sizes = ", ".join(f"{lang} {v['sentences']:,}" for lang, v in stats["languages"].items())
    summary = (f"Paraphrase sets rebuilt from {source.described()} the way TaPaCo (Scherrer "
               f"2020) was built: {sum(v['sentences'] for v in stats['languages'].values()):,} "
               f"sentences in {sum(v['sets'] for v in stats['languages'].values()):,} sets over "
               f"{len(languages)} languages ({sizes}). Sentences linked by translations form a "
               "graph; its connected components, split by language and filtered, are the sets."
               + (" Each language is also in the TaPaCo 1.0 text layout as `<lang>.txt`."
                  if "tsv" in formats else ""))
    fields = {"paraphrase_set_id": "the set (component) number; sentences of one set are "
                                   "paraphrases of each other",
              "sentence_id": "the Tatoeba sentence id" if source.corpus == "Tatoeba" else
                             "the sentence's id in its document, without OPUS's leading `s` "
                             "(`<document>#<id>` where a language has several documents)",
              "paraphrase": "the sentence",
              "lists": "Tatoeba lists holding the sentence (`;`-split; `[\"\"]` when none)",
              "tags": "Tatoeba tags of the sentence (`;`-split; `[\"\"]` when none)",
              "language": "the language code"}
    licence, licence_note = source.licence()
    return Card("TaPaCo (rebuilt)", licence, summary, configs, languages, command,
                stats["versions"], fields, CITATION,
                notes=f"Options: `{stats['signature']}`. Input: "
                      + ", ".join(f"{key.replace('_', ' ')} {value:,}"
                                  for key, value in stats["input"].items()) + "."
                      + (" " + card_note(stats["language_id"]) if "language_id" in stats
                         else ""),
                licence_note=licence_note)


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def stats_markdown(stats: dict) -> str:
    """`stats.json` as Markdown: the source, the paper's Tables 1-3 (graph sizes, filter funnel,
    per-language sizes), the Leiden split and its rounds, marks, and the input counts."""
    graph = stats["graph"]
    lines = ["# TaPaCo build statistics", "",
             f"Built from {Provenance.recorded(stats).described()}.", "", "## Graph (Table 1)", ""]
    lines += _table(["item", "count"], [[key.replace("_", " "), value]
                                        for key, value in graph.items()])
    lines += ["", "## Filter funnel (Table 2)", ""]
    lines += _table(["step", "sentences removed", "sets dissolved", "sets left",
                     "sentences left"],
                    [[s["step"], s["sentences_removed"], s["sets_dissolved"], s["sets"],
                      s["sentences"]] for s in stats["funnel"]])
    lines += ["", "## Languages (Table 3)", ""]
    lines += _table(["language", "sets", "sentences"],
                    [[lang, v["sets"], v["sentences"]] for lang, v in stats["languages"].items()])
    if "oversized_split" in stats:
        split = stats["oversized_split"]
        lines += ["", "## Oversized sets split into Leiden communities", "",
                  f"{split['sentences_rescued']} of the {split['sentences_in_oversized_sets']} "
                  f"sentences of oversized sets are in {split['sets_rescued']} output sets.", ""]
        lines += _table(["language", "sets rescued", "sentences rescued"],
                        [[lang, v["sets"], v["sentences"]]
                         for lang, v in split["per_language"].items()])
        lines += ["", "Leiden rounds (each round splits the communities still oversized):", ""]
        lines += _table(["round", "graphs", "vertices", "most iterations", "converged",
                         "lowest quality"],
                        [[number, r["graphs"], r["vertices"], r["iterations"], r["converged"],
                          "none" if r["lowest_quality"] is None else r["lowest_quality"]]
                         for number, r in enumerate(split["leiden_rounds"], 1)])
    if "language_id" in stats:
        identified = stats["language_id"]
        lines += ["", "## Sentences in another language (--language-id)", "",
                  card_note(identified), ""]
        lines += _table(["language", "judged", "dropped"],
                        [[lang, v["judged"], v["dropped"]]
                         for lang, v in identified["per_language"].items()])
    if "marks" in stats:
        lines += ["", "## Marked pairs (--marks)", ""]
        lines += _table(["language", "pairs in sets", "trivial", "neutralisation", "marked share"],
                        [[lang, v["pairs"], v["trivial"], sum(v["neutralisation"].values()),
                          f"{v['marked_share']:.1%}"] for lang, v in stats["marks"].items()])
    lines += ["", "## Input", ""]
    lines += _table(["item", "count"], [[key.replace("_", " "), value]
                                        for key, value in stats["input"].items()])
    return "\n".join(lines) + "\n"
