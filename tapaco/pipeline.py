"""The TaPaCo build pipeline as a library call: read, graph, filter, export.

`build(opus_dir, out, options)` is what `python -m tapaco build` runs; it returns the statistics
it wrote to `OUT/stats.json`. The output folder is checked before anything is read: it must not
be or hold the input, and an existing one must be this command's own earlier output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tapaco import build_kernels
from tapaco.communities import Split, SplitOptions, oversized_rows, split_oversized
from tapaco.core import language_id
from tapaco.core.arrays import garbage_collector_paused, group_starts, grouped_order
from tapaco.core.compile_ahead import compiled_ahead
from tapaco.core.dataset_card import check_formats, write_parquet
from tapaco.core.errors import BadInputLog, InputError, OptionError
from tapaco.core.files import write_json
from tapaco.core.forked import (
    Forked,
    largest_child_peak_rss_mib,
    map_on_threads,
    usable_cores,
)
from tapaco.core.memory import release_freed_memory
from tapaco.core.options import check_range
from tapaco.core.opus import FOLDERS, find_alignment_sources
from tapaco.core.outputs import OutputFolder
from tapaco.core.progress import Progress
from tapaco.core.provenance import TATOEBA_EXPORT, Provenance, release_provenance
from tapaco.core.versions import library_versions, signature
from tapaco.export import (
    dataset_card,
    language_file_bytes,
    language_rows_table,
    language_table,
    parquet_path,
    stats_markdown,
)
from tapaco.filters import (
    FilterOptions,
    FilterSteps,
    Funnel,
    Rows,
    apply_filters,
    merged_steps,
    set_filter_steps,
)
from tapaco.graph import SentenceGraph, build_graph
from tapaco.marks import mark_languages, marked_share, marks_text
from tapaco.read import Corpus, read_corpus
from tapaco.sentence_ids import document_label, sentence_ids
from tapaco.tatoeba_export import read_export

COMMAND = "tapaco build"
EXACTNESS_LIBRARIES = ("sacrebleu", "regex", "unidecode", "igraph")


@dataclass(frozen=True)
class BuildOptions:
    """What decides the build. `documents`: the folder of sentence documents searched first
    where a release has both, `raw` (untokenised, as TaPaCo 1.0) or `xml` (tokenised).
    `workers` (0: every usable core) changes how fast, never what."""

    filters: FilterOptions = field(default_factory=FilterOptions)
    languages: tuple[str, ...] = ()
    skip_bad_input: bool = False
    documents: str = "raw"
    split: SplitOptions = field(default_factory=SplitOptions)
    marks: bool = False
    export_language_codes: bool = False  # Tatoeba exports: keep their ISO 639-3 codes
    workers: int = 0
    language_id: bool = False  # drop sentences in another language (tapaco.core.language_id)

    def __post_init__(self) -> None:
        if isinstance(self.languages, str) or not all(
                isinstance(lang, str) and lang.strip() for lang in self.languages):
            raise OptionError("--langs", f"expected language codes, got {self.languages!r}")
        if self.documents not in FOLDERS:
            raise OptionError("--documents", f"expected one of {', '.join(FOLDERS)}, got "
                              f"{self.documents!r}")
        check_range("--workers", self.workers, 0, 256, whole=True)

    @property
    def worker_count(self) -> int:
        """`--workers`, at most the usable cores (threads beyond them only contend)."""
        return min(self.workers, usable_cores()) if self.workers else usable_cores()


def _language_ranks(corpus: Corpus, wanted: tuple[str, ...]) -> np.ndarray:
    """Rank of each corpus language in alphabetical order; -1 for languages not output."""
    unknown = sorted(set(wanted) - set(corpus.languages))
    if unknown:
        raise InputError("--langs", f"not in the corpus: {', '.join(unknown)} (it has "
                         f"{', '.join(sorted(corpus.languages))})", kind="usage")
    ordered = sorted(corpus.languages)
    rank = {lang: ordered.index(lang) for lang in corpus.languages}
    return np.array([rank[lang] if not wanted or lang in wanted else -1
                     for lang in corpus.languages], np.int64)


def _check_languages(opus_dir: Path, wanted: tuple[str, ...]) -> None:
    """Before reading: every `--langs` language must be in an alignment file's name."""
    available = {lang for source in find_alignment_sources(opus_dir) for lang in source.langs}
    unknown = sorted(set(wanted) - available)
    if unknown:
        raise InputError("--langs", f"not in the release: {', '.join(unknown)} (its alignment "
                         f"files name {', '.join(sorted(available)) or 'no language'})",
                         kind="usage")


def candidate_rows(corpus: Corpus, graph: SentenceGraph, wanted: tuple[str, ...],
                   workers: int = 1) -> Rows:
    """All sentences of the output languages, sorted by (language, set, document, id): the
    rows in (document, id) order sorted by (language, set) (packed on `workers` threads)."""
    set_id = np.asarray(graph.set_id, np.int64)
    lang_rank = _language_ranks(corpus, wanted)[corpus.vertex_lang]
    return Rows(*grouped_order(graph.row_order, lang_rank, set_id, workers))


def display_ids(corpus: Corpus, vertices: np.ndarray, several_documents: bool) -> pa.StringArray:
    """The output sentence ids of vertices of one language (`<document>#<id>` where it has
    several documents), an Arrow column."""
    ids = sentence_ids(corpus.sides, vertices)
    if several_documents:
        labels = pa.array([document_label(name) for name in corpus.documents], pa.string())
        ids = pc.binary_join_element_wise(labels.take(corpus.vertex_doc[vertices]), ids, "#")
    return ids


def language_rows(corpus: Corpus, graph: SentenceGraph, rows: Rows,
                  workers: int = 1) -> dict[str, pa.Table]:
    """The output rows of every language, a table of :data:`tapaco.export.ROW_COLUMNS` each
    (rows are sorted by language), the languages on `workers` threads."""
    languages = sorted(corpus.languages)
    documents_per_rank = np.zeros(len(languages), np.int64)
    ranks = np.array([languages.index(lang) for lang in corpus.languages], np.int64)
    np.add.at(documents_per_rank, ranks[corpus.document_lang], 1)
    bounds = np.flatnonzero(group_starts(rows.lang)).tolist() + [len(rows.lang)]

    def language_table(span: tuple[int, int]) -> pa.Table:
        vertices = rows.vertex[span[0]:span[1]]
        ids = display_ids(corpus, vertices, documents_per_rank[rows.lang[span[0]]] > 1)
        return language_rows_table(
            pa.array(graph.set_id[vertices]), ids, corpus.texts.take(vertices).arrow(),
            corpus.lists.take(vertices), corpus.tags.take(vertices))

    spans = list(zip(bounds[:-1], bounds[1:]))
    tables = map_on_threads(language_table, spans, workers)
    return {languages[rows.lang[start]]: table for (start, _), table in zip(spans, tables)}


def _statistics(corpus: Corpus, graph: SentenceGraph, funnel, log: BadInputLog,
                options: BuildOptions, provenance: Provenance,
                rescued: dict | None = None, identified: dict | None = None) -> dict:
    final = funnel.steps[-1]["per_language"]
    settings = {**asdict(options.filters), "languages": list(options.languages),
                "skip_bad_input": options.skip_bad_input, "documents": options.documents}
    if options.split.splits:  # absent by default: the release-identical stats stay as they were
        settings["oversized"] = asdict(options.split)
    if options.marks:
        settings["marks"] = True
    if options.export_language_codes:
        settings["export_language_codes"] = True
    if options.language_id:
        settings["language_id"] = True
    versions = library_versions(*EXACTNESS_LIBRARIES,
                                *([language_id.IDENTIFIER] if options.language_id else []))
    return {
        "signature": signature(COMMAND, versions, settings),
        "versions": versions,
        "options": settings,
        "source": provenance.as_dict(),
        "input": {**{key: value for key, value in asdict(corpus.counts).items()
                     if value is not None}, "languages": len(corpus.languages),
                  "bad_input_skipped": log.total},
        "graph": {**graph.edge_counts, "components": graph.component_count},
        "funnel": [{k: v for k, v in step.items() if k != "per_language"}
                   for step in funnel.steps],
        "funnel_per_language": {step["step"]: step["per_language"] for step in funnel.steps},
        "languages": dict(sorted(final.items())),
        **({"oversized_split": rescued} if rescued is not None else {}),
        **({"language_id": identified} if identified is not None else {}),
        "bad_input": {**log.as_dict(), **_languages_left_empty(corpus)},
    }


def _languages_left_empty(corpus: Corpus) -> dict:
    """`{"languages_left_empty": [...]}`: the linked languages of which no sentence was read
    (every one skipped as bad input); nothing when there is none."""
    counts = np.bincount(corpus.vertex_lang, minlength=len(corpus.languages))
    empty = sorted(lang for lang, count in zip(corpus.languages, counts.tolist()) if not count)
    return {"languages_left_empty": empty} if empty else {}


def build(opus_dir: Path, out: Path, options: BuildOptions | None = None,
          progress: Progress | None = None, overwrite: bool = False,
          formats: tuple[str, ...] = ("tsv",), tatoeba_export: bool = False) -> dict:
    """Build TaPaCo from the OPUS release in `opus_dir` into `out`; return the statistics.

    `tatoeba_export`: `opus_dir` is a folder of Tatoeba's own exports instead
    (:mod:`tapaco.tatoeba_export`; `options.documents` does not apply).
    `formats`: `tsv` (the released `<lang>.txt` files) and/or `parquet` (`data/<lang>.parquet`
    with the dataset card `README.md`). `overwrite` lets files of an earlier build that were
    changed since be replaced; files the build did not write are never replaced (see
    :mod:`tapaco.core.outputs`).
    """
    check_formats(formats)
    options = options or BuildOptions()
    if options.language_id:
        language_id.check_available()
    progress = progress or Progress(enabled=False)
    output = OutputFolder(out, COMMAND, (opus_dir,), overwrite, options.worker_count)
    output.check()
    log = BadInputLog(options.skip_bad_input)
    if tatoeba_export:
        read = partial(read_export, opus_dir, progress, options.export_language_codes)
        provenance = Provenance("Tatoeba", TATOEBA_EXPORT)
    else:
        provenance = release_provenance(opus_dir)
        if options.languages:
            _check_languages(opus_dir, options.languages)
        read = partial(_read_compiling_ahead, partial(
            read_corpus, opus_dir, log, progress, options.documents,
            workers=options.worker_count), options.worker_count > 1)
    with garbage_collector_paused():
        return _build(read, log, output, options, progress, formats, tatoeba_export,
                      provenance)


def _read_compiling_ahead(read: Callable[[], Corpus], parallel: bool) -> Corpus:
    """`read()`, its kernels compiled first; on a first run and `parallel`, the later stages'
    compiled by a second process meanwhile (:mod:`tapaco.core.compile_ahead`)."""
    with compiled_ahead(build_kernels.kernels(), build_kernels.FIRST, parallel):
        return read()


def command_line(options: BuildOptions, formats: tuple[str, ...],
                 tatoeba_export: bool = False) -> str:
    """The `tapaco build` command that gives this output from an input folder."""
    source = ("--tatoeba-export EXPORT_DIR" if tatoeba_export
              else f"--opus-dir OPUS_DIR --documents {options.documents}")
    words = [f"python -m tapaco build {source} --out OUT",
             f"--max-set-size {options.filters.max_set_size}",
             f"--bleu-max {options.filters.bleu_max:g}", f"--min-sets {options.filters.min_sets}",
             f"--format {','.join(formats)}"]
    if options.languages:
        words.append(f"--langs {','.join(options.languages)}")
    if options.split.splits:
        split = options.split
        words.append(f"--oversized split --leiden-objective {split.objective} "
                     f"--leiden-resolution {split.resolution:g} --seed {split.seed}")
    if options.marks:
        words.append("--marks")
    if options.export_language_codes:
        words.append("--language-codes export")
    if options.language_id:
        words.append("--language-id")
    if options.skip_bad_input:
        words.append("--skip-bad-input")
    return " ".join(words)


def split_sets(corpus: Corpus, graph: SentenceGraph, options: BuildOptions,
               rows: Rows | None = None, progress: Progress | None = None) -> Split:
    """The Leiden split of oversized sets as the build makes it (the graph must keep edges;
    `rows`: the candidate rows, when already sorted)."""
    rows = candidate_rows(corpus, graph, options.languages) if rows is None else rows
    return split_oversized(graph.set_id, graph.edges, graph.number, graph.fraction, rows.vertex,
                           rows.lang, options.filters.max_set_size, options.split, progress,
                           options.worker_count)


def build_options(settings: dict) -> BuildOptions:
    """The options a build recorded in `stats.json` (`options`), as :class:`BuildOptions`."""
    return BuildOptions(
        FilterOptions(settings["max_set_size"], settings["bleu_max"], settings["min_sets"]),
        tuple(settings["languages"]), settings["skip_bad_input"], settings["documents"],
        SplitOptions(**settings.get("oversized", {})), bool(settings.get("marks", False)),
        bool(settings.get("export_language_codes", False)),
        language_id=bool(settings.get("language_id", False)))


def _leiden_split(corpus: Corpus, graph: SentenceGraph, options: BuildOptions,
                  rows: Rows) -> tuple[np.ndarray, Split]:
    """:func:`split_sets` as the second process sends it back: the new set ids of the moved
    vertices (`rescued_vertices`), and the split without its per-vertex arrays (the build
    reads no community id; `tapaco explain` makes its own split; the moved vertices are those
    of the rows the build finds oversized itself)."""
    split = split_sets(corpus, graph, options, rows)
    return split.set_id[split.rescued_vertices], replace(split, set_id=None, community_id=None,
                                                         rescued_vertices=None)


def _split_beside_filters(corpus: Corpus, graph: SentenceGraph, rows: Rows, funnel: Funnel,
                          options: BuildOptions, progress: Progress,
                          identify: Callable[[Rows], np.ndarray] | None
                          ) -> tuple[Rows, FilterSteps, Split, dict]:
    """Replace oversized sets by their Leiden communities (graph.set_id changes). Leiden runs
    in a second process while this one runs filters (a)-(d) on the rows that keep their sets:
    those filters decide within a set, so these rows need not wait for the split (and with
    `--marks`, when Leiden is still running, nor their marks). Then the same filters on the
    moved rows; returns the rows sorted again, the filter steps of both parts merged in that
    order, the split and the marks found (`mark_languages`'s `first_marked`)."""
    filter_steps = partial(set_filter_steps, texts=corpus.texts,
                           languages=sorted(corpus.languages), options=options.filters,
                           workers=options.worker_count, language_id=identify)
    moving = oversized_rows(graph.set_id, rows.vertex, rows.lang, options.filters.max_set_size)
    with Forked(_leiden_split, corpus, graph, options, rows, parallel=options.worker_count > 1,
                forks=True) as leiden:  # the later rounds' pool
        if leiden.parallel:  # the second process has what only Leiden reads
            graph.edges = graph.number = graph.fraction = None
        with progress.stage("filters (sets not split)"):
            staying = rows.take(~moving)
            staying_steps = filter_steps(staying, workers=_beside_leiden_workers(
                options.worker_count, leiden.parallel, int(np.count_nonzero(moving)),
                len(staying.vertex)))
        marked = {}
        if options.marks and leiden.parallel and not leiden.ready():
            with progress.stage("marks (sets not split)"):
                marked = _first_marks(corpus, graph, _rows_left(staying, staying_steps))
        with progress.stage("split oversized sets (Leiden)"):
            moved_order, moved_lang = _moved_order(rows, moving, graph)
            moved_set_ids, split = leiden.result()
            rescued = rows.vertex[moving]
            graph.set_id = graph.set_id.copy()
            graph.set_id[rescued] = moved_set_ids
            split = replace(split, set_id=graph.set_id, rescued_vertices=rescued)
            moved = Rows(*grouped_order(moved_order, moved_lang,
                                        np.asarray(graph.set_id, np.int64)))
            rows, at = _merged_rows(staying, moved, graph.set_id)
    funnel.record(f"(b) sets over {options.filters.max_set_size} split into Leiden "
                  "communities", rows, 0, 0)
    funnel.steps[-1]["components_split"] = split.components
    funnel.steps[-1]["communities"] = split.communities
    with progress.stage("filters (split sets)"):
        moved_steps = filter_steps(moved)
    return rows, merged_steps(staying_steps, moved_steps, at), split, marked


def _rows_left(rows: Rows, steps: FilterSteps) -> Rows:
    """The rows that `steps` (of `rows`) leave."""
    for _, kept in steps:
        rows = rows.take(kept)
    return rows


# A moved row's share of Leiden's first round costs about as much CPU as the filters of this
# many staying rows (measured on a giant component and on Table 2's filters, see
# docs/performance.md)
LEIDEN_COST_IN_FILTERED_ROWS = 6


def _beside_leiden_workers(workers: int, parallel: bool, moved: int, staying: int) -> int:
    """Threads for the filters of the staying rows while Leiden runs in the second process:
    one fewer when Leiden's first round would still be the longest path with the filters on
    one thread fewer (Leiden then has a core of its own), else all of them."""
    if parallel and workers > 1 and moved * LEIDEN_COST_IN_FILTERED_ROWS * (workers - 1) >= staying:
        return workers - 1
    return workers


def _first_marks(corpus: Corpus, graph: SentenceGraph, rows: Rows) -> dict[str, tuple[int, list]]:
    """Per language, the rows kept of the sets that are not split (the first rows of its file,
    if filter (e) keeps it) and their marks, found in this process alone: the other core is
    Leiden's."""
    files = language_rows(corpus, graph, rows)
    marks = mark_languages(files, parallel=False)
    return {lang: (len(table), marks[lang]) for lang, table in files.items()}


def _moved_order(rows: Rows, moving: np.ndarray,
                 graph: SentenceGraph) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of the `moving` rows (those of oversized sets) in the graph's row order,
    and each vertex's language among them (-1 for the others): once the vertices have their
    communities' set ids, :func:`grouped_order` of the two sorts the moved rows as
    :func:`candidate_rows` sorts rows (found while Leiden runs)."""
    is_moved = np.zeros(len(graph.set_id), bool)
    is_moved[rows.vertex[moving]] = True
    moved_lang = np.full(len(graph.set_id), -1, np.int64)
    moved_lang[rows.vertex[moving]] = rows.lang[moving]
    return graph.row_order[is_moved[graph.row_order]], moved_lang


def _merged_rows(staying: Rows, moved: Rows, set_id: np.ndarray) -> tuple[Rows, np.ndarray]:
    """The rows that kept their sets and the moved rows (sorted among themselves, see
    :func:`_moved_order`) in one, sorted as :func:`candidate_rows` sorts them (groups numbered
    again), and where in the staying rows each moved row went: the communities' ids are above
    all others, so after the rest of its language's rows."""
    at = np.searchsorted(staying.lang, moved.lang, "right")
    vertex = np.insert(staying.vertex, at, moved.vertex)
    lang = np.insert(staying.lang, at, moved.lang)
    return Rows(vertex, lang, np.cumsum(group_starts(lang, set_id[vertex])) - 1), at


def _rescued(rows: Rows, split: Split, funnel: Funnel) -> dict:
    """Sentences and sets of oversized sets that are in the output, per language; how the
    rounds of Leiden runs ended."""
    rescued_vertices = split.rescued_vertices
    kept = np.isin(rows.vertex, rescued_vertices)
    languages = funnel.languages
    sentences = np.bincount(rows.lang[kept], minlength=len(languages))
    firsts = kept & group_starts(rows.group)
    sets = np.bincount(rows.lang[firsts], minlength=len(languages))
    return {"sentences_in_oversized_sets": int(len(rescued_vertices)),
            "sentences_rescued": int(sentences.sum()), "sets_rescued": int(sets.sum()),
            "per_language": {lang: {"sets": int(s), "sentences": int(n)}
                             for lang, s, n in zip(languages, sets, sentences) if n},
            "leiden_rounds": split.leiden_rounds}


def _language_id_filter(corpus: Corpus, languages: list[str]
                        ) -> tuple[Callable[[Rows], np.ndarray], language_id.LanguageIdCounts]:
    """The rows written in another language (the filter step of `--language-id`, rows sorted
    by language), and the counts it fills in."""
    counts = language_id.LanguageIdCounts({}, {}, {})

    def foreign(rows: Rows) -> np.ndarray:
        result = np.zeros(len(rows.vertex), bool)
        bounds = np.flatnonzero(group_starts(rows.lang)).tolist() + [len(rows.lang)]
        for start, end in zip(bounds[:-1], bounds[1:]):
            lang = languages[rows.lang[start]]
            if not language_id.judged(lang):  # the rows may come in parts: counts add up
                counts.not_judged[lang] = counts.not_judged.get(lang, 0) + end - start
                continue
            for first in range(start, end, language_id.BATCH):
                last = min(first + language_id.BATCH, end)
                texts = corpus.texts.take(rows.vertex[first:last]).arrow().to_pylist()
                result[first:last] = language_id.foreign(texts, lang)
            counts.judged[lang] = counts.judged.get(lang, 0) + end - start
            counts.dropped[lang] = counts.dropped.get(lang, 0) + int(result[start:end].sum())
        return result

    return foreign, counts


def _without_graph_inputs(corpus: Corpus) -> Corpus:
    """The corpus without what only the graph step reads (edges: ~60 MB at full scale), so
    that the process that runs the filters holds less."""
    return replace(corpus, edges=np.zeros((0, 2), np.int32), edge_kind=np.zeros(0, np.int8))


def _without_sort_keys(graph: SentenceGraph) -> SentenceGraph:
    """The graph without what only sorting the rows and splitting sets read (numeric keys, row
    ranks and merged edges: ~150 MB at full scale), so that the process that runs the filters
    holds less."""
    return replace(graph, number=np.zeros(0, np.int64), fraction=np.zeros(0, np.int64),
                   row_order=np.zeros(0, np.int64), edges=None)


def _build(read: Callable[[], Corpus], log: BadInputLog, output: OutputFolder,
           options: BuildOptions, progress: Progress, formats: tuple[str, ...],
           tatoeba_export: bool, provenance: Provenance) -> dict:
    corpus = read()
    release_freed_memory()  # else the documents' pieces, freed once joined, stay held
    with progress.stage("graph and components"):
        graph = build_graph(corpus, keep_edges=options.split.splits,
                            workers=options.worker_count)
        corpus = _without_graph_inputs(corpus)
    with progress.stage("sets by language"):
        rows = candidate_rows(corpus, graph, options.languages, options.worker_count)
        funnel = Funnel(sorted(corpus.languages))
        funnel.record("components split by language", rows, 0, 0)
    identify, identified = (_language_id_filter(corpus, sorted(corpus.languages))
                            if options.language_id else (None, None))
    split = steps = None
    marked: dict[str, tuple[int, list]] = {}
    if options.split.splits:
        rows, steps, split, marked = _split_beside_filters(corpus, graph, rows, funnel, options,
                                                           progress, identify)
    graph = _without_sort_keys(graph)
    with progress.stage("filters"):
        rows, funnel = apply_filters(rows, corpus.texts, sorted(corpus.languages),
                                     options.filters, funnel, options.worker_count, identify,
                                     steps)
    with progress.stage("output rows"):
        rescued = None if split is None else _rescued(rows, split, funnel)
        stats = _statistics(corpus, graph, funnel, log, options, provenance, rescued,
                            None if identified is None else identified.as_dict())
        files = language_rows(corpus, graph, rows, options.worker_count)
        del corpus, graph, rows  # the files are all the writing needs: its memory is theirs
        release_freed_memory()
    marks = {}
    if options.marks:
        with progress.stage("marks"):
            marks = mark_languages(files, options.worker_count > 1, marked)
            stats["marks"] = {lang: marked_share(marks[lang], files[lang]["set_id"].to_numpy())
                              for lang in marks}
    with progress.stage("write output"):

        def write(folder: Path) -> None:
            def write_language(item: tuple[str, pa.Table]) -> None:
                lang, language = item
                if "tsv" in formats:
                    (folder / f"{lang}.txt").write_bytes(language_file_bytes(language))
                if "parquet" in formats:
                    write_parquet(folder / parquet_path(lang), language_table(lang, language))

            map_on_threads(write_language, list(files.items()), options.worker_count)
            if "parquet" in formats:
                card = dataset_card(stats, command_line(options, formats, tatoeba_export),
                                    formats)
                (folder / "README.md").write_text(card.text(), encoding="utf-8")
            if marks:
                (folder / "marks").mkdir()
            for lang, found in marks.items():
                (folder / "marks" / f"{lang}.tsv").write_text(marks_text(found),
                                                             encoding="utf-8")
            write_json(folder / "stats.json", stats)
            (folder / "stats.md").write_text(stats_markdown(stats), encoding="utf-8")

        output.write(write)
    if largest_child_peak_rss_mib():
        progress.note("second_process_peak_rss_mib", round(largest_child_peak_rss_mib(), 1))
    return stats
