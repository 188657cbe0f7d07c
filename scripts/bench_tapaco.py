#!/usr/bin/env python3
"""Benchmark the TaPaCo build on a synthetic OPUS Tatoeba release.

Generates a release with one of three generators (``--generator``): ``tatoeba``,
``scripts/generate_tatoeba.py``, into ``<workdir>/tatoeba-<scale>/``; ``table2``, the same script
with ``--shape table2`` (calibrated to the funnel of TaPaCo's Table 2), into
``<workdir>/tatoeba-table2-<scale>/``; or ``independent``,
``scripts/generate_tatoeba_independent.py`` (a separately written shape: more languages and
alignment files, a giant component), into ``<workdir>/tatoeba-independent-<scale>/`` (or reuses
it with ``--reuse``). It runs ``python -m tapaco build`` on it as a subprocess, timed; then the
same build again with its process tree's memory sampled from /proc every 0.25 s (sampling can
slow a build, so the timed run is not sampled; ``--no-memory-run`` skips the second); then, in the
same run, measures the decompression floor: the single-core wall time of decompressing every input
file the build reads (each alignment file ``xml/<l1>-<l2>.xml.gz`` read fully with isal's
``igzip``, as the build reads it, and every member of the ``raw/<l>.zip`` document zips of the
languages the alignments name, inflated by isal through the build's own zip member reader;
read and discarded in 8 MiB blocks). It measures a second floor the same way with zlib (Python's
``gzip`` and ``zipfile``), the decompressor most tools use: 1.6x isal's time here; and a third
with the command-line tools a user decompresses with, ``gzip -dc`` over the alignment files
(1,000 a process) and ``unzip -p`` per zip, output to /dev/null: 2.5-3.5x isal's time here (the
issue's "decompressing that input takes ~9 s" matches this one). All are measured after the
build, so that the files are in the page cache for each. The report gives
the generation time, the corpus size (and, for the independent generator, its components), the
build's per-stage seconds and peak RSS (from its ``--timings`` file), its wall time and peak RSS
(``wait4`` rusage of the child), the floor and the ratio wall / floor, and throughput. It is
printed and written to ``<workdir>/bench-<scale>.json`` (``bench-table2-<scale>.json``,
``bench-independent-<scale>.json`` for the other generators).

Without ``--keep`` the build output, and the corpus unless it was reused, are deleted afterwards.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import BinaryIO

from bench_common import MemoryWatch, cleanup, disk_bytes, fmt, pump
from isal import igzip

from tapaco.core.opus import find_alignment_sources
from tapaco.core.opus.textstream import FileRef, open_binary

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
BUILD_CMD_ENV = "TAPACO_BENCH_BUILD_CMD"
READ_BLOCK = 8 << 20  # the build's read size (tapaco.core.opus.textstream.CHUNK_BYTES)
# --generator: (module in scripts/, corpus folder prefix, suffix of the output and report names,
# keyword arguments of its generate())
GENERATORS = {"tatoeba": ("generate_tatoeba", "tatoeba", "", {}),
              "independent": ("generate_tatoeba_independent", "tatoeba-independent",
                              "-independent", {}),
              "table2": ("generate_tatoeba", "tatoeba-table2", "-table2", {"shape": "table2"})}
# The target (issue 35): the build within 4x its decompression floor, peak memory at most 2 GiB.
TARGET_RATIO, TARGET_RSS_MIB = 4.0, 2048


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1, help="corpus scale (1.0: ~7.8M)")
    parser.add_argument("--generator", choices=sorted(GENERATORS), default="tatoeba",
                        help="tatoeba: scripts/generate_tatoeba.py; table2: the same "
                             "with --shape table2 (TaPaCo's Table 2 funnel); independent: "
                             "scripts/generate_tatoeba_independent.py")
    parser.add_argument("--workdir", type=Path, default=REPO / "bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the corpus and build output")
    parser.add_argument("--reuse", action="store_true", help="reuse an existing corpus")
    parser.add_argument("--build-args", default="", help="extra arguments for tapaco build")
    parser.add_argument("--no-memory-run", action="store_true",
                        help="skip the second build, which samples the process tree's memory "
                             "(the first, timed build is not sampled: sampling slows it)")
    # Hidden: a replacement build command with {opus_dir} {out} {timings} placeholders
    # (also from the TAPACO_BENCH_BUILD_CMD environment variable), to test this script.
    parser.add_argument("--build-cmd", default=os.environ.get(BUILD_CMD_ENV),
                        help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------- corpus


def count_corpus(corpus: Path) -> dict:
    """Sentences, links and files of an existing release (when its summary is missing)."""
    sentences = links = 0
    docs = sorted((corpus / "raw").glob("*.zip"))
    for path in docs:
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                sentences += zf.read(name).count(b"<s ")
    alignments = sorted((corpus / "xml").glob("*.xml.gz"))
    for path in alignments:
        with igzip.open(path, "rb") as fh:
            links += fh.read().count(b"<link ")
    intra = sum(1 for p in alignments if len(set(p.name[:-7].split("-"))) == 1)
    return {"languages": len(docs), "sentences": sentences, "links": links,
            "alignment_files": len(alignments), "intra_files": intra,
            "files": len(docs) + len(alignments)}


def generate_corpus(corpus: Path, scale: float, seed: int, generator: str = "tatoeba") -> dict:
    """Generate a fresh corpus with the chosen generator; its summary."""
    sys.path.insert(0, str(SCRIPTS))
    name, _, _, options = GENERATORS[generator]
    module = importlib.import_module(name)
    if corpus.exists():
        shutil.rmtree(corpus)
    print(f"generating {corpus} (scale {scale:g}, {generator} generator) ...", flush=True)
    summary = module.generate(corpus, scale, seed, jobs=min(2, os.cpu_count() or 1), **options)
    if hasattr(module, "summary_lines"):
        print("\n".join(module.summary_lines(summary)), flush=True)
    summary["generation_seconds"] = summary["seconds"]
    return summary


def prepare_corpus(args: argparse.Namespace, corpus: Path, summary_path: Path) -> dict:
    """Generate the corpus, or reuse it; its summary (counts, generation time). A reused
    corpus's summary is the one cached in the workdir, else the generator's
    ``generated.json``, else counted from the files."""
    if args.reuse and (corpus / "raw").is_dir() and (corpus / "xml").is_dir():
        cached = next((p for p in (summary_path, corpus / "generated.json") if p.is_file()),
                      None)
        if cached:
            summary = json.loads(cached.read_text())
            summary.setdefault("generation_seconds", summary.get("seconds"))
        else:
            summary = count_corpus(corpus)
            summary["generation_seconds"] = None
        summary["reused"] = True
    else:
        summary = generate_corpus(corpus, args.scale, args.seed, args.generator)
        summary["reused"] = False
        summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    summary["mb_on_disk"] = round(disk_bytes(corpus) / 1e6, 1)
    return summary


# ---------------------------------------------------------------------------- decompression


def floor_inputs(corpus: Path) -> tuple[list[Path], list[Path]]:
    """The files the build reads: its alignment sources (one per language pair, as the build
    finds them) and the document zips of the languages they name (``raw/`` first, as the
    build's default ``--documents raw``, else ``xml/``)."""
    sources = find_alignment_sources(corpus)
    languages = sorted({lang for source in sources for lang in source.langs})
    zips = [next((p for p in (corpus / "raw" / f"{lang}.zip", corpus / "xml" / f"{lang}.zip")
                  if p.is_file()), None) for lang in languages]
    return [source.path for source in sources], [p for p in zips if p is not None]


def read_all(stream: BinaryIO) -> int:
    """Read a stream to its end in READ_BLOCK blocks; the bytes read."""
    total = 0
    while block := stream.read(READ_BLOCK):
        total += len(block)
    return total


def decompression_floor(corpus: Path, decompressor: str = "isal") -> dict:
    """Single-core wall time of decompressing every input file of the build, read and discarded
    in 8 MiB blocks: the alignment files and every member of the document zips. `decompressor`:
    ``isal``, as the build decompresses them, or ``zlib`` (Python's gzip and zipfile)."""
    open_gzip = igzip.open if decompressor == "isal" else gzip.open
    alignments, zips = floor_inputs(corpus)
    if any(path.is_dir() for path in alignments):
        raise ValueError(f"{corpus}: alignment folders are not measured")
    raw = packed = members = 0
    started = time.perf_counter()
    for path in alignments:
        if path.name.endswith(".zip"):
            raw_zip, packed_zip, _ = read_zip(path, decompressor)
            raw, packed = raw + raw_zip, packed + packed_zip
            continue
        packed += path.stat().st_size
        with (open_gzip if path.name.endswith(".gz") else open)(path, "rb") as stream:
            raw += read_all(stream)
    for path in zips:
        raw_zip, packed_zip, count = read_zip(path, decompressor)
        raw, packed, members = raw + raw_zip, packed + packed_zip, members + count
    seconds = time.perf_counter() - started
    return {"decompressor": decompressor, "seconds": round(seconds, 2),
            "alignment_files": len(alignments),
            "document_zips": len(zips), "document_members": members,
            "compressed_bytes": packed, "bytes": raw,
            "mb_per_second": round(raw / 1e6 / seconds, 1) if seconds else None}


_FILES_PER_GZIP = 1000


def command_line_floor(corpus: Path, counted: dict) -> dict | None:
    """Wall time of decompressing the files :func:`decompression_floor` measured (`counted`: its
    report, whose counts are kept) with the command-line tools: ``gzip -dc`` over the gzipped
    alignment files, ``unzip -p`` for every zip, output to /dev/null. None where either tool is
    missing."""
    gzip_tool, unzip_tool = shutil.which("gzip"), shutil.which("unzip")
    if gzip_tool is None or unzip_tool is None:
        return None
    alignments, zips = floor_inputs(corpus)
    gzipped = [path for path in alignments if path.name.endswith(".gz")]
    zips = [path for path in alignments if path.name.endswith(".zip")] + zips
    started = time.perf_counter()
    for start in range(0, len(gzipped), _FILES_PER_GZIP):
        subprocess.run([gzip_tool, "-dc", *gzipped[start:start + _FILES_PER_GZIP]],
                       stdout=subprocess.DEVNULL, check=True)
    for path in zips:
        subprocess.run([unzip_tool, "-p", path], stdout=subprocess.DEVNULL, check=True)
    seconds = time.perf_counter() - started
    return {**counted, "decompressor": "CLI", "tools": "gzip -dc, unzip -p",
            "seconds": round(seconds, 2),
            "mb_per_second": round(counted["bytes"] / 1e6 / seconds, 1) if seconds else None}


def read_zip(path: Path, decompressor: str = "isal") -> tuple[int, int, int]:
    """Decompress every member of a zip (isal: with the build's member reader; zlib: with
    zipfile's); (bytes, compressed bytes, members)."""
    raw = packed = 0
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        for info in infos:
            with (open_binary(FileRef(path, info.filename), archive) if decompressor == "isal"
                  else archive.open(info)) as member:
                raw += read_all(member)
            packed += info.compress_size
    return raw, packed, len(infos)


# ---------------------------------------------------------------------------- build


def build_command(args: argparse.Namespace, corpus: Path, out: Path, timings: Path) -> list[str]:
    """The build command line (default: ``python -m tapaco build ...``)."""
    if args.build_cmd:
        template = shlex.split(args.build_cmd)
        places = {"opus_dir": str(corpus), "out": str(out), "timings": str(timings)}
        command = [part.format(**places) for part in template]
    else:
        command = [sys.executable, "-m", "tapaco", "build", "--opus-dir", str(corpus),
                   "--out", str(out), "--timings", str(timings)]
    return command + shlex.split(args.build_args)


def run_build(command: list[str], sample_memory: bool = False) -> dict:
    """Run the build; its exit code, wall seconds, peak RSS (MiB: the largest of its processes,
    from wait4), with `sample_memory` the process tree's peak memory sampled from /proc every
    0.25 s (summed PSS, which splits the pages the build's forked processes share, and summed
    RSS, which counts them in each), and stderr. Sampling can slow the build (reading
    smaps_rollup walks every page of a process of several GB; 0-8 % in four full-scale runs)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    print("running:", shlex.join(command), flush=True)
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    watch = MemoryWatch(proc.pid, 0, interval=0.25)
    if sample_memory:
        watch.start()
    stderr: list[str] = []
    reader = threading.Thread(target=pump, args=(proc.stderr, stderr), daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    watch.done.set()
    if sample_memory:
        watch.join()
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    memory = {"tree_peak_pss_mib": round(watch.peak_pss_mib, 1),
              "tree_peak_rss_mib": round(watch.peak_rss_mib, 1)} if sample_memory else {}
    return {"command": command, "exit_code": proc.returncode, "wall_seconds": round(wall, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), **memory,
            "stderr": "".join(stderr)}


def read_timings(path: Path) -> dict:
    """The build's timings JSON (empty stages when it wrote none)."""
    if not path.is_file():
        print(f"warning: the build wrote no timings file {path}", file=sys.stderr)
        return {"stages": [], "total_seconds": None, "peak_rss_mib": None}
    return json.loads(path.read_text())


# ---------------------------------------------------------------------------- report


def throughput(corpus: dict, wall: float) -> dict:
    """Sentences and links of the corpus per second of build wall time."""
    return {"sentences_per_second": round(corpus["sentences"] / wall) if wall else None,
            "links_per_second": round(corpus["links"] / wall) if wall else None}


def report_lines(report: dict) -> list[str]:
    """The printed report table."""
    corpus, build, timings = report["corpus"], report["build"], report["timings"]
    floor = report.get("decompression")
    gen = "reused" if corpus["reused"] else f"{fmt(corpus['generation_seconds'])} s"
    lines = [
        f"TaPaCo build benchmark, scale {report['scale']:g}, "
        f"{report.get('generator', 'tatoeba')} generator",
        f"generation    {gen}",
        f"corpus        {corpus['languages']} languages, {corpus['sentences']:,} sentences, "
        f"{corpus['links']:,} links, {corpus['files']:,} files "
        f"({corpus['alignment_files']:,} alignment, {corpus['intra_files']} intra-language), "
        f"{corpus['mb_on_disk']:,.1f} MB",
        *component_lines(corpus),
        "",
        f"{'stage':<28} {'seconds':>10} {'peak RSS MiB':>14}",
    ]
    for stage in timings.get("stages", []):
        lines.append(f"{stage['name']:<28} {fmt(stage.get('seconds'), '10.2f')} "
                     f"{fmt(stage.get('peak_rss_mib'), '14.1f')}")
    lines += [
        f"{'total (build timings)':<28} {fmt(timings.get('total_seconds'), '10.2f')} "
        f"{fmt(timings.get('peak_rss_mib'), '14.1f')}",
        f"{'wall (subprocess)':<28} {build['wall_seconds']:10.2f} {build['peak_rss_mib']:14.1f}"
        "  (largest process)",
        *tree_lines(build, timings),
        *(floor_lines(report) if floor else []),
        "",
        f"throughput    {fmt(report['throughput']['sentences_per_second'], ',')} sentences/s, "
        f"{fmt(report['throughput']['links_per_second'], ',')} links/s",
    ]
    return lines


def tree_lines(build: dict, timings: dict) -> list[str]:
    """The memory of the build's processes together, when it was sampled."""
    if "tree_peak_pss_mib" not in build:
        return []
    second = timings.get("notes", {}).get("second_process_peak_rss_mib")
    return [f"{'process tree (memory run)':<28} {build['memory_run_wall_seconds']:10.2f} "
            f"{build['tree_peak_pss_mib']:14.1f}  summed PSS (summed RSS "
            f"{build['tree_peak_rss_mib']:,.1f}; largest process "
            f"{build['memory_run_peak_rss_mib']:,.1f}; second process's own peak RSS "
            f"{fmt(second)}; sampled every 0.25 s, which slows the build)"]


def component_lines(corpus: dict) -> list[str]:
    """The link graph's components, when the generator's summary has them."""
    if "largest_components" not in corpus:
        return []
    largest = corpus["largest_components"]
    sizes = ", ".join(f"{k}: {v:,}" for k, v in corpus.get("component_sizes", {}).items())
    return [f"components    {corpus['components']:,} of 2+ sentences ({sizes}), "
            f"{corpus['unlinked_sentences']:,} unlinked sentences; largest "
            f"{', '.join(f'{s:,}' for s in largest)} (giant {corpus['giant_share']:.1%} of the "
            f"sentences)"]


def _peak_mib(build: dict) -> float:
    """The memory the target is checked against: the process tree's summed PSS where sampled
    (the build forks a second process), and never less than its largest process's peak."""
    return max(build["peak_rss_mib"], build.get("tree_peak_pss_mib", 0.0))


def floor_lines(report: dict) -> list[str]:
    """The decompression floors, the ratios wall / floor and the issue's target against each."""
    build = report["build"]
    lines = []
    for floor, ratio in ((report["decompression"], report["ratio_to_floor"]),
                         (report.get("decompression_zlib"), report.get("ratio_to_zlib_floor")),
                         (report.get("decompression_cli"), report.get("ratio_to_cli_floor"))):
        if floor is None:
            continue
        met = (ratio is not None and ratio <= TARGET_RATIO
               and _peak_mib(build) <= TARGET_RSS_MIB)
        name = floor.get("decompressor", "isal")
        lines += [
            f"{f'decompression floor, {name}':<28} {floor['seconds']:10.2f} {'':>14}  "
            f"{floor['bytes'] / 1e6:,.0f} MB from {floor['alignment_files']:,} alignment files "
            f"and {floor['document_members']:,} members of {floor['document_zips']} document "
            f"zips, 1 core, {fmt(floor['mb_per_second'])} MB/s",
            f"{f'ratio wall / {name} floor':<28} {fmt(ratio, '10.2f')} {'':>14}  target wall <= "
            f"{TARGET_RATIO:g}x floor and peak memory <= {TARGET_RSS_MIB:,} MiB: "
            f"{'met' if met else 'not met'}",
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the exit code (the build's when it fails)."""
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    tag = f"{args.scale:g}"
    _, prefix, suffix, _ = GENERATORS[args.generator]
    corpus_dir, out = workdir / f"{prefix}-{tag}", workdir / f"out{suffix}-{tag}"
    timings_path = workdir / f"timings{suffix}-{tag}.json"
    corpus = prepare_corpus(args, corpus_dir, workdir / f"{prefix}-{tag}.json")
    cleanup([out])
    timings_path.unlink(missing_ok=True)
    build = run_build(build_command(args, corpus_dir, out, timings_path))
    if build["exit_code"] == 0 and not args.no_memory_run:
        cleanup([out])
        print("memory run: the same build, its process tree sampled ...", flush=True)
        memory = run_build(build_command(args, corpus_dir, out, workdir / "timings-memory.json"),
                           sample_memory=True)
        build.update({key: memory[key] for key in ("tree_peak_pss_mib", "tree_peak_rss_mib")},
                     memory_run_exit_code=memory["exit_code"],
                     memory_run_wall_seconds=memory["wall_seconds"],
                     memory_run_peak_rss_mib=memory["peak_rss_mib"])
        (workdir / "timings-memory.json").unlink(missing_ok=True)
    if build["exit_code"] != 0:
        tail = build["stderr"].splitlines()[-40:]
        print(f"build failed with exit code {build['exit_code']}; the end of its stderr:",
              *tail, sep="\n", file=sys.stderr)
        return build["exit_code"] if build["exit_code"] > 0 else 1
    print("decompression floor: reading the build's input files ...", flush=True)
    floor = decompression_floor(corpus_dir)
    zlib_floor = decompression_floor(corpus_dir, "zlib")
    cli_floor = command_line_floor(corpus_dir, floor)
    wall = build["wall_seconds"]
    report = {"scale": args.scale, "seed": args.seed, "generator": args.generator,
              "corpus": corpus, "build": {k: v for k, v in build.items() if k != "stderr"},
              "timings": read_timings(timings_path),
              "throughput": throughput(corpus, wall),
              "decompression": floor, "floor_seconds": floor["seconds"],
              "ratio_to_floor": round(wall / floor["seconds"], 2) if floor["seconds"] else None,
              "decompression_zlib": zlib_floor,
              "ratio_to_zlib_floor": (round(wall / zlib_floor["seconds"], 2)
                                      if zlib_floor["seconds"] else None),
              "decompression_cli": cli_floor,
              "ratio_to_cli_floor": (round(wall / cli_floor["seconds"], 2)
                                     if cli_floor and cli_floor["seconds"] else None),
              "peak_rss_mib": build["peak_rss_mib"],
              "target": {"max_ratio_to_floor": TARGET_RATIO, "max_peak_rss_mib": TARGET_RSS_MIB}}
    print("\n".join(report_lines(report)))
    report_path = workdir / f"bench{suffix}-{tag}.json"
    report_path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"report: {report_path}")
    if not args.keep:
        cleanup([out] if corpus["reused"] else [corpus_dir, out])
    return 0


if __name__ == "__main__":
    sys.exit(main())
