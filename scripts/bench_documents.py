#!/usr/bin/env python3
"""Benchmark reading the XML form of an OpenSubtitles-shaped release through the document store.

Generates into ``<workdir>/documents-<N>/`` (or reuses it with ``--reuse``) a release of ``en``
with pivots ``de`` and ``fr`` and ``N`` movies (documents per language): cesAlign files
``xml/de-en.xml.gz`` and ``xml/en-fr.xml.gz`` (one ``<linkGrp>`` per movie, 1:1 links),
untokenised documents ``raw/<lang>.zip`` whose ``<s>`` hold ``<time>`` elements around the text,
and tokenised documents ``xml/<lang>.zip`` (``<time>`` and ``<w>`` tokens), members
``OpenSubtitles/<raw|xml>/<lang>/<year>/<imdb>/<file>.xml`` as OPUS names them. Sentences draw
Zipf-distributed meanings, English ones one of up to three paraphrases, so pivots are shared.

Then it times (1) reading every document named by the alignments through
``tapaco.core.opus.DocumentStore``, once preferring ``raw/`` and once ``xml/`` (documents/s and
sentences/s), and (2) ``opusparcus rank`` end to end on the release (library call, ``--workers``
processes, its per-stage seconds). The report is printed and written to
``<workdir>/bench-documents-<N>.json``. Without ``--keep`` the ranking output, and the release
unless it was reused, are deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
from bench_common import cleanup, disk_bytes, fmt
from isal import igzip

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
sys.path.insert(0, str(REPO))

from opusparcus.rank import RankOptions, rank  # noqa: E402
from tapaco.core.opus import DocumentStore, find_alignment_sources, preference  # noqa: E402
from tapaco.core.progress import Progress  # noqa: E402

CORPUS = "OpenSubtitles"
TARGET, PIVOTS = "en", ("de", "fr")
MEANINGS = 20_000
RELEASE_DATE = (2018, 6, 1, 0, 0, 0)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=50_000,
                        help="movies, i.e. documents per language")
    parser.add_argument("--sentences", type=int, default=20,
                        help="mean sentences per document")
    parser.add_argument("--workdir", type=Path, default=REPO / "bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="opusparcus rank --workers")
    parser.add_argument("--no-rank", action="store_true", help="time the document store only")
    parser.add_argument("--keep", action="store_true", help="keep the release and rank output")
    parser.add_argument("--reuse", action="store_true", help="reuse an existing release")
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------- the release


def _words(lang: str, rng: np.random.Generator, count: int = 3_000) -> list[str]:
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    syllables = [c + v for c in consonants for v in vowels]
    picks = rng.integers(0, len(syllables), (count, 3))
    sizes = rng.integers(1, 4, count)
    return [lang[0] + "".join(syllables[s] for s in row[:size])
            for row, size in zip(picks.tolist(), sizes.tolist())]


def _sentences(words: list[str], rng: np.random.Generator, count: int) -> list[list[str]]:
    """`count` tokenised sentences: 1-8 words and a final `.` or `?`."""
    lengths = rng.integers(1, 9, count)
    picks = rng.zipf(1.3, lengths.sum()) % len(words)
    ends = rng.choice([".", "?"], count, p=[0.8, 0.2])
    sentences, start = [], 0
    for length, end in zip(lengths.tolist(), ends.tolist()):
        tokens = [words[i] for i in picks[start:start + length].tolist()]
        tokens[0] = tokens[0].capitalize()
        sentences.append([*tokens, end])
        start += length
    return sentences


def vocabulary(lang: str, variants: int, seed: int) -> list[list[list[str]]]:
    """Per meaning, 1 to `variants` tokenised paraphrases in `lang`."""
    rng = np.random.default_rng([seed, sum(map(ord, lang))])
    words = _words(lang, rng)
    counts = rng.integers(1, variants + 1, MEANINGS)
    flat = _sentences(words, rng, int(counts.sum()))
    bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _raw_document(sentences: list[list[str]]) -> str:
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<document>\n']
    for k, tokens in enumerate(sentences, 1):
        stamp = f"00:{k // 60 % 60:02d}:{k % 60:02d}"
        parts.append(f'  <s id="{k}">\n    <time id="T{k}S" value="{stamp},100" />\n'
                     f'{" ".join(tokens[:-1])}{tokens[-1]}\n'
                     f'    <time id="T{k}E" value="{stamp},900" />\n  </s>\n')
    parts.append("</document>\n")
    return "".join(parts)


def _tokenised_document(sentences: list[list[str]]) -> str:
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<document>\n']
    for k, tokens in enumerate(sentences, 1):
        stamp = f"00:{k // 60 % 60:02d}:{k % 60:02d}"
        words = "".join(f'    <w id="{k}.{n}">{token}</w>\n'
                        for n, token in enumerate(tokens, 1))
        parts.append(f'  <s id="{k}">\n    <time id="T{k}S" value="{stamp},100" />\n{words}'
                     f'    <time id="T{k}E" value="{stamp},900" />\n  </s>\n')
    parts.append("</document>\n")
    return "".join(parts)


def _write_member(archive: zipfile.ZipFile, name: str, text: str) -> None:
    member = zipfile.ZipInfo(name, date_time=RELEASE_DATE)
    member.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(member, text.encode("utf-8"), compresslevel=1)


def document_names(lang: str, years: np.ndarray) -> list[str]:
    return [f"{lang}/{year}/{100_000 + movie}/{movie * 3 + len(lang)}.xml.gz"
            for movie, year in enumerate(years.tolist())]


def _write_documents(release: Path, lang: str, names: list[str],
                     texts: list[list[list[str]]]) -> None:
    for folder, render in (("raw", _raw_document), ("xml", _tokenised_document)):
        (release / folder).mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(release / folder / f"{lang}.zip", "w") as archive:
            for name, sentences in zip(names, texts):
                _write_member(archive, f"{CORPUS}/{folder}/{name.removesuffix('.gz')}",
                              render(sentences))


def _write_alignment(release: Path, pivot: str, target_names: list[str],
                     pivot_names: list[str], lengths: list[int]) -> None:
    first, second = sorted((TARGET, pivot))
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<cesAlign version="1.0">\n']
    for target, other, length in zip(target_names, pivot_names, lengths):
        from_doc, to_doc = (target, other) if first == TARGET else (other, target)
        parts.append(f'<linkGrp targType="s" fromDoc="{from_doc}" toDoc="{to_doc}">\n')
        parts += [f'<link id="SL{k}" xtargets="{k};{k}" />\n' for k in range(1, length + 1)]
        parts.append("</linkGrp>\n")
    parts.append("</cesAlign>\n")
    path = release / "xml" / f"{first}-{second}.xml.gz"
    path.write_bytes(igzip.compress("".join(parts).encode("utf-8"), compresslevel=1, mtime=0))


def generate(release: Path, movies: int, mean_sentences: int, seed: int) -> dict:
    """Write the release; its summary."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.poisson(mean_sentences, movies), 1, None)
    years = rng.integers(1950, 2018, movies)
    meanings = (rng.zipf(1.2, int(lengths.sum())) - 1) % MEANINGS
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    target_names = document_names(TARGET, years)
    for lang in (TARGET, *PIVOTS):
        paraphrases = vocabulary(lang, 3 if lang == TARGET else 1, seed)
        choice = rng.integers(0, 3, len(meanings)).tolist()
        line_texts = [paraphrases[m][c % len(paraphrases[m])]
                      for m, c in zip(meanings.tolist(), choice)]
        texts = [line_texts[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        names = target_names if lang == TARGET else document_names(lang, years)
        _write_documents(release, lang, names, texts)
        if lang != TARGET:
            _write_alignment(release, lang, target_names, names, lengths.tolist())
    return {"documents_per_language": movies, "sentences_per_language": int(lengths.sum()),
            "languages": [TARGET, *PIVOTS], "bytes": disk_bytes(release),
            "seconds": round(time.perf_counter() - started, 1)}


# ---------------------------------------------------------------------------- measurements


def linked_documents(release: Path) -> tuple[list[str], float]:
    """Every document the alignments name, in reading order (once each); seconds taken."""
    started = time.perf_counter()
    names: dict[str, None] = {}
    for source in find_alignment_sources(release):
        for block in source.link_blocks():
            names[block.from_doc] = names[block.to_doc] = None
    return list(names), time.perf_counter() - started


def read_documents(release: Path, names: list[str], first: str) -> dict:
    """Read every document through one store preferring `first`: documents/s, sentences/s."""
    started = time.perf_counter()
    sentences = 0
    with DocumentStore(release, preference(first)) as store:
        for name in names:
            sentences += len(store.document(name).sentences)
    seconds = time.perf_counter() - started
    return {"documents": len(names), "sentences": sentences, "seconds": round(seconds, 2),
            "documents_per_second": round(len(names) / seconds),
            "sentences_per_second": round(sentences / seconds)}


def rank_release(release: Path, out: Path, workers: int) -> dict:
    """`opusparcus rank` of en on the release (documents from xml/, the default)."""
    progress = Progress(enabled=False)
    started = time.perf_counter()
    stats = rank(release, TARGET, out, RankOptions(workers=workers), progress)
    wall = time.perf_counter() - started
    timings = progress.timings("opusparcus rank")
    return {"wall_seconds": round(wall, 1), "workers": workers,
            "documents_per_second": round(2 * len(PIVOTS) * _documents(release) / wall),
            "links_read": stats["links_read"], "pairs_written": stats["pairs_written"],
            "stages": {stage["name"]: stage["seconds"] for stage in timings["stages"]},
            "peak_rss_mib": timings["peak_rss_mib"]}


def _documents(release: Path) -> int:
    with zipfile.ZipFile(release / "xml" / f"{TARGET}.zip") as archive:
        return len(archive.namelist())


def report_lines(report: dict) -> list[str]:
    release = report["release"]
    lines = [f"release: {release['documents_per_language']:,} documents and "
             f"{release['sentences_per_language']:,} sentences per language "
             f"({', '.join(release['languages'])}), {release['bytes'] / 1e6:,.1f} MB",
             f"alignments read in {report['alignment_seconds']:.1f} s"]
    for first, result in report["store"].items():
        lines.append(f"document store, {first}/ first: {result['documents']:,} documents in "
                     f"{result['seconds']:.1f} s = {fmt(result['documents_per_second'], ',.0f')}"
                     f" documents/s, {fmt(result['sentences_per_second'], ',.0f')} sentences/s")
    if "rank" in report:
        ranked = report["rank"]
        lines.append(f"opusparcus rank ({ranked['workers']} workers): {ranked['wall_seconds']} s "
                     f"wall, {ranked['documents_per_second']:,} documents/s (each bitext reads "
                     f"its target and pivot documents), peak {ranked['peak_rss_mib']:.0f} MiB")
        lines += [f"  {name}: {seconds:.1f} s" for name, seconds in ranked["stages"].items()]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    release = args.workdir / f"documents-{args.documents}"
    out = args.workdir / f"documents-{args.documents}-ranked"
    report: dict = {}
    if args.reuse and (release / "summary.json").is_file():
        report["release"] = json.loads((release / "summary.json").read_text())
    else:
        cleanup([release])
        report["release"] = generate(release, args.documents, args.sentences, args.seed)
        (release / "summary.json").write_text(json.dumps(report["release"]))
    names, report["alignment_seconds"] = linked_documents(release)
    report["store"] = {first: read_documents(release, names, first) for first in ("raw", "xml")}
    if not args.no_rank:
        cleanup([out])
        report["rank"] = rank_release(release, out, args.workers)
    print("\n".join(report_lines(report)))
    (args.workdir / f"bench-documents-{args.documents}.json").write_text(
        json.dumps(report, indent=2) + "\n")
    if not args.keep:
        cleanup([out] if args.reuse else [out, release])
    return 0


if __name__ == "__main__":
    sys.exit(main())
