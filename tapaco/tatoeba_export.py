"""Read Tatoeba's own weekly exports (https://tatoeba.org/downloads), fresher than any OPUS
release, as a TaPaCo corpus. Files, tab-separated without quoting, each as it is or as Tatoeba
publishes it (`sentences.tar.bz2` holding `sentences.csv`, ...):

    sentences.csv            sentence id, language (`\\N` when unknown), text
    links.csv                sentence id, translation id (each link in both directions)
    tags.csv                 sentence id, tag name                      (optional)
    sentences_in_lists.csv   list id, sentence id                       (optional)

They give the corpus the OPUS form gives (:func:`tapaco.read.read_corpus`): a vertex per
linked sentence, its id `s<id>` so the output ids are Tatoeba's own, one document per language,
an edge per linked pair (in either direction, once; same-language links are intra-lingual), the
text as written (untokenised, as OPUS's raw documents), languages named as OPUS names them
(`eng` -> `en`; :mod:`tapaco.core.language_codes`), lists joined by `;` in ascending list
id and tags in file order. Sentences whose language is unknown are counted
(`sentences_of_unknown_language`) and left out; links to them or to sentences the export does
not hold are counted (`links_to_unknown_sentences`) and left out, as the OPUS form leaves out
links to unknown sentences; a link of a sentence to itself is dropped.

A row ends at a newline: a carriage return that ends none (a lone one, which Arrow's reader
would take for a row's end) is part of the text, read as a space, as no output field may hold
one. A sentence without text (empty or whitespace only) is no sentence: links to it are
counted (`links_with_empty_text`) and left out, as in the OPUS form.

Read as columns: ids are int arrays found through a table by id; the texts stay in one UTF-8
buffer until the linked ones' strings and surface hashes are made, a chunk at a time on threads.
"""

from __future__ import annotations

import io
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from tapaco.core.arrays import group_offsets, lexicographic_order, sorted_distinct
from tapaco.core.characters import WHITESPACE_RE2
from tapaco.core.errors import InputError
from tapaco.core.language_codes import opus_codes
from tapaco.core.memory import release_freed_memory
from tapaco.core.opus.sidekeys import SideColumn, SideTable
from tapaco.core.progress import Progress
from tapaco.core.text_column import TextColumn
from tapaco.read import INTER, INTRA, Corpus, ReadCounts

FILES = {"sentences": ("sentences.csv", [("id", pa.int64()), ("lang", pa.string()),
                                         ("text", pa.large_string())]),
         "links": ("links.csv", [("first", pa.int64()), ("second", pa.int64())]),
         "tags": ("tags.csv", [("id", pa.int64()), ("tag", pa.string())]),
         "lists": ("sentences_in_lists.csv", [("list", pa.int64()), ("id", pa.int64())])}
UNKNOWN_LANGUAGE = "\\N"
_WHOLE_NUMBER = re.compile(rb"[+-]?[0-9]+")
_LONE_RETURN = re.compile(rb"\r(?!\n)")


def _read(folder: Path, kind: str, required: bool = True) -> pa.Table:
    """The table of a file of the export (`required`, else an empty table when missing)."""
    name, columns = FILES[kind]
    path, archive = folder / name, folder / name.replace(".csv", ".tar.bz2")
    if not path.is_file() and not archive.is_file():
        if required:
            raise InputError(path, f"not found: a Tatoeba export holds {name} (or "
                             f"{archive.name}, as Tatoeba publishes it)", kind="missing file")
        return pa.schema(columns).empty_table()
    where = path if path.is_file() else archive
    try:
        with _open_member(where, name) as stream:
            return _parse(stream, columns)
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        if "utf8" in str(error).lower() or isinstance(error, UnicodeDecodeError):
            raise _encoding_error(where, name) from None
        row_error = _row_error(where, name, columns)
        raise row_error or InputError(where, f"not a Tatoeba {name} ({_fields(columns)}): "
                                      f"{error}", kind="malformed export") from None
    except (tarfile.TarError, OSError, EOFError) as error:
        raise InputError(where, f"cannot be read: {error}", kind="malformed export") from None


def _encoding_error(where: Path, name: str) -> InputError:
    """The error naming the line and column of the first byte of `name` that is not UTF-8
    (Arrow's own error names neither), the file read again a line at a time."""
    with _open_member(where, name) as stream:
        for number, line in enumerate(_lines(stream), 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as error:
                return InputError(where, f"invalid UTF-8 byte 0x{line[error.start]:02x} in "
                                  f"{name}", f"line {number}, column {error.start + 1}",
                                  kind="encoding")
    return InputError(where, f"invalid UTF-8 in {name}", kind="encoding")


def _fields(columns: list[tuple[str, pa.DataType]]) -> str:
    return f"{len(columns)} tab-separated fields: {', '.join(c for c, _ in columns)}"


def _row_error(where: Path, name: str, columns: list[tuple[str, pa.DataType]]
               ) -> InputError | None:
    """The error naming the first line of `name` that is not a row of `columns` (Arrow's own
    error names none), the file read again a line at a time; None if every line is one."""
    with _open_member(where, name) as stream:
        for number, line in enumerate(_lines(stream), 1):
            fields = line.removesuffix(b"\r").split(b"\t")
            if len(fields) != len(columns):
                return InputError(where, f"not a Tatoeba {name} ({_fields(columns)}): this line "
                                  f"has {len(fields)}", f"line {number}", kind="malformed export")
            for (column, kind), field in zip(columns, fields):
                if kind == pa.int64() and not _WHOLE_NUMBER.fullmatch(field):
                    return InputError(where, f"not a Tatoeba {name} ({_fields(columns)}): its "
                                      f"{column} is not a whole number: "
                                      f"{field.decode(errors='replace')!r}", f"line {number}",
                                      kind="malformed export")
    return None


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """The lines of a stream, without their newlines."""
    for line in stream:
        yield line.removesuffix(b"\n")


class _LoneReturnsAsSpaces(io.RawIOBase):
    """A stream of an export read with every carriage return that ends no line (no newline
    after it) as a space: the export's rows end at a newline, so a lone return is part of a
    sentence's text, where Arrow's CSV reader would end the row (and no output field may
    hold one)."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__()
        self.stream = stream
        self.ahead = b""  # the byte after those returned, read to see what follows a return

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        wanted = -1 if size < 0 else size + 1
        data = self.ahead
        while wanted < 0 or len(data) < wanted:
            more = self.stream.read(-1 if wanted < 0 else wanted - len(data))
            if not more:
                break
            data += more
        data, self.ahead = (data[:size], data[size:]) if 0 <= size < len(data) else (data, b"")
        if b"\r" in data:
            data = _LONE_RETURN.sub(b" ", data + self.ahead)[:len(data)]
        return data


def _open_member(where: Path, name: str):  # noqa: ANN202 - a binary stream
    if where.name.endswith(".tar.bz2"):
        tar = tarfile.open(where, "r:bz2")
        member = next((m for m in tar if m.isfile() and Path(m.name).name == name), None)
        if member is None:
            raise InputError(where, f"holds no {name}", kind="malformed export")
        return tar.extractfile(member)
    return open(where, "rb")


def _parse(source: BinaryIO, columns: list[tuple[str, pa.DataType]]) -> pa.Table:
    return pacsv.read_csv(_LoneReturnsAsSpaces(source),
                          pacsv.ReadOptions(column_names=[c for c, _ in columns],
                                            block_size=1 << 24),
                          pacsv.ParseOptions(delimiter="\t", quote_char=False,
                                             double_quote=False, escape_char=False),
                          pacsv.ConvertOptions(column_types=dict(columns),
                                               strings_can_be_null=False))


def read_export(folder: Path, progress: Progress, export_codes: bool = False) -> Corpus:
    """The corpus of the Tatoeba export in `folder`, its languages named as OPUS names them
    (`eng` -> `en`) unless `export_codes`."""
    if not folder.is_dir():
        raise InputError(folder, "Tatoeba export folder not found", kind="missing file")
    with progress.stage("read alignments"):
        texts, rows, ids, lang_of_id, languages, unknown = _sentences(folder, export_codes)
        index = _IdIndex(ids)
        blank = pc.match_substring_regex(texts, f"^[{WHITESPACE_RE2}]*$")  # or empty
        pairs, counts = _linked_pairs(index, blank.to_numpy(zero_copy_only=False)[rows],
                                      _read(folder, "links"))
        counts.sentences_of_unknown_language = unknown
    with progress.stage("read documents"):
        corpus, vertices = _corpus(folder, index, lang_of_id, languages, pairs, counts)
        vertex_rows = rows[vertices]
        del rows, ids, index, lang_of_id, pairs, vertices  # the strings need the room
        release_freed_memory()
        corpus.texts = TextColumn.of_arrow(texts.take(pa.array(vertex_rows)))  # no `str` made
        del texts
        release_freed_memory()
    return corpus


def _sentences(folder: Path, export_codes: bool) -> tuple:
    """The texts of sentences.csv; the rows of those of a known language in ascending id, with
    their ids and languages; the languages; how many sentences are of unknown language. The
    texts are made one array first and the table let go, so that its chunks and their copy do
    not outlive each other while the ids are sorted."""
    sentences = _read(folder, "sentences")
    texts = sentences["text"].combine_chunks()
    all_ids, lang_column = sentences["id"].to_numpy(), sentences["lang"]
    del sentences
    languages, lang_of_row = _languages(lang_column, None if export_codes else
                                        folder / FILES["sentences"][0])
    del lang_column
    release_freed_memory()
    known_rows = np.flatnonzero(lang_of_row >= 0)
    rows = known_rows[lexicographic_order(all_ids[known_rows])]
    ids = all_ids[rows]
    repeated = np.flatnonzero(np.diff(ids) == 0)
    if len(repeated):
        raise InputError(folder / "sentences.csv", f"sentence id {ids[repeated[0]]} "
                         "appears twice", kind="malformed export")
    return texts, rows, ids, lang_of_row[rows], languages, len(lang_of_row) - len(rows)


def _languages(column: pa.ChunkedArray, renamed_in: Path | None
               ) -> tuple[list[str], np.ndarray]:
    """The languages in name order, and each row's language number (-1: unknown), without a
    Python string per row; the export's codes renamed as OPUS names them unless `renamed_in`
    (the file they come from) is None."""
    encoded = column.combine_chunks().dictionary_encode()
    codes = encoded.dictionary.to_pylist()
    known = [code for code in codes if code != UNKNOWN_LANGUAGE]
    names = dict(zip(known, known if renamed_in is None else opus_codes(known,
                                                                         str(renamed_in))))
    languages = sorted(names.values())
    number = np.array([languages.index(names[code]) if code != UNKNOWN_LANGUAGE else -1
                       for code in codes], np.int32)
    return languages, number[encoded.indices.to_numpy(zero_copy_only=False)]


class _IdIndex:
    """Where each sentence id is among `ids` (ascending, distinct): a table indexed by id where
    the ids are dense enough (Tatoeba's are, below ~2 per sentence), else a binary search."""

    def __init__(self, ids: np.ndarray) -> None:
        self.ids = ids
        self.table = None
        largest = int(ids[-1]) if len(ids) else -1
        if largest < 4 * len(ids) + (1 << 20) and not (len(ids) and ids[0] < 0):
            self.table = np.full(largest + 1, -1, np.int32)
            self.table[ids] = np.arange(len(ids), dtype=np.int32)

    def find(self, wanted: np.ndarray) -> np.ndarray:
        """The position of each id in `ids` (int32), -1 where it is not there."""
        if self.table is not None:
            inside = (wanted >= 0) & (wanted < len(self.table))
            found = np.full(len(wanted), -1, np.int32)
            found[inside] = self.table[wanted[inside]]
            return found
        position = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        return np.where(self.ids[position] == wanted, position, -1).astype(np.int32)


def _linked_pairs(index: _IdIndex, blank: np.ndarray,
                  links: pa.Table) -> tuple[np.ndarray, ReadCounts]:
    """Positions (in the index's ids) of each linked pair, once, the smaller first; links to a
    sentence without text (`blank` by position: empty or whitespace only) are left out and
    counted, as links to unknown sentences are."""
    a, b = (index.find(links[column].to_numpy()) for column in ("first", "second"))
    del links
    release_freed_memory()
    known = (a >= 0) & (b >= 0)
    usable = known.copy()
    usable[known] = ~blank[a[known]] & ~blank[b[known]]
    counts = ReadCounts(alignment_sources=1, links=len(a),
                        links_to_unknown_sentences=int((~known).sum()),
                        links_with_empty_text=int((known & ~usable).sum()))
    a, b = a[usable], b[usable]
    keys = sorted_distinct((np.minimum(a, b).astype(np.uint64) << np.uint64(32))
                           | np.maximum(a, b).astype(np.uint64))
    del a, b
    keys = keys[(keys >> np.uint64(32)) != (keys & np.uint64(0xFFFFFFFF))]
    pairs = np.empty((len(keys), 2), np.int32)
    pairs[:, 0], pairs[:, 1] = keys >> np.uint64(32), keys & np.uint64(0xFFFFFFFF)
    return pairs, counts


def _joined_once(values: list[str]) -> str:
    """The values joined by `;` in order, each once; empty ones left out."""
    joined = ""
    for value in values:
        if value and value not in joined.split(";"):
            joined = f"{joined};{value}" if joined else value
    return joined


def _joined_per_row(rows: np.ndarray, values: pa.Array, count: int) -> TextColumn:
    """For each of `count` rows, its `values` (strings) joined by :func:`_joined_once` (`rows`
    ascending, a row's values in order), as a column: a Python call only for a row of several
    values."""
    offsets = group_offsets(rows)
    several = np.flatnonzero(np.diff(offsets) > 1).tolist()
    joined = TextColumn.of_arrow(values.take(pa.array(offsets[:-1]))).with_rows(
        several, [_joined_once(values.slice(offsets[run], offsets[run + 1] - offsets[run])
                               .to_pylist()) for run in several])
    run_of_row = np.full(count, -1, np.int64)
    run_of_row[rows[offsets[:-1]]] = np.arange(len(offsets) - 1)
    return joined.take(run_of_row)


def _attributes(folder: Path, index: _IdIndex,
                vertex_of: np.ndarray) -> tuple[TextColumn, TextColumn]:
    """Lists (ascending list id) and tags (file order) of the vertices (`vertex_of`: the
    vertex of each position in the index's ids, -1 for none)."""
    count = int(vertex_of.max(initial=-1)) + 1
    result = []
    for kind, value_column, sort in (("lists", "list", True), ("tags", "tag", False)):
        table = _read(folder, kind, required=False)
        found = index.find(table["id"].to_numpy())
        found[found >= 0] = vertex_of[found[found >= 0]]
        picked = np.flatnonzero(found >= 0)
        rows = found[picked]
        order = (lexicographic_order(rows, table[value_column].to_numpy()[picked]) if sort
                 else lexicographic_order(rows))
        values = table[value_column].take(pa.array(picked[order])).combine_chunks()
        result.append(_joined_per_row(rows[order], values.cast(pa.large_string()), count))
    return result[0], result[1]


def _corpus(folder: Path, index: _IdIndex, lang_of_id: np.ndarray, all_languages: list[str],
            pairs: np.ndarray, counts: ReadCounts) -> tuple[Corpus, np.ndarray]:
    """The corpus of the linked pairs (positions in the index's ids, of languages
    `lang_of_id`) without its texts, and the position of each vertex's id."""
    linked = np.flatnonzero(np.bincount(pairs.ravel(), minlength=len(lang_of_id)))
    present = np.flatnonzero(np.bincount(lang_of_id[linked], minlength=len(all_languages)))
    languages = [all_languages[number] for number in present.tolist()]
    renumber = np.full(len(all_languages), -1, np.int32)
    renumber[present] = np.arange(len(present), dtype=np.int32)
    vertex_lang = renumber[lang_of_id[linked]]
    order = lexicographic_order(vertex_lang)  # linked ascend by id: by language, then id
    vertices = linked[order]
    vertex_lang = vertex_lang[order]
    vertex_of = np.full(len(lang_of_id), -1, np.int32)
    vertex_of[vertices] = np.arange(len(vertices))
    edges = vertex_of[pairs]
    edge_kind = np.where(vertex_lang[edges[:, 0]] == vertex_lang[edges[:, 1]], INTRA,
                         INTER).astype(np.int8)
    lists, tags = _attributes(folder, index, vertex_of)
    counts.intra_lingual_sources = int((edge_kind == INTRA).any())
    counts.documents = len(languages)
    counts.document_sentences = len(lang_of_id)
    return Corpus(
        languages=languages, documents=[f"{lang}/tatoeba" for lang in languages],
        document_lang=np.arange(len(languages), dtype=np.int32), vertex_lang=vertex_lang,
        vertex_doc=vertex_lang, sides=_sides(index.ids[vertices]),
        texts=[],  # made by the caller once the arrays it was made from are freed
        lists=lists, tags=tags, edges=edges, edge_kind=edge_kind, counts=counts), vertices


def _sides(ids: np.ndarray) -> SideColumn:
    """The link sides `s<id>` of the ids, as keys (a plain id's key is the id itself)."""
    table = SideTable()
    keys = ids.astype(np.uint64)
    other = np.flatnonzero((ids < 0) | (ids >= 10**18))  # not a plain id's 1 to 18 digits
    keys[other] = table.keys([f"s{value}" for value in ids[other].tolist()])
    return SideColumn(keys, table)
