#!/usr/bin/env python3
"""Benchmark the Opusparcus ranking on a synthetic OPUS OpenSubtitles release.

Generates a release with one of two generators (``--generator``): ``project``,
``scripts/generate_opensubtitles.py``, into ``<workdir>/opensubtitles-<links>/``, or
``independent``, ``scripts/generate_opensubtitles_independent.py`` (a separately written shape),
into ``<workdir>/independent-<links>/`` (or reuses it with ``--reuse``). Just before the ranking
it measures the decompression floor: the single-core wall time of decompressing every member of
the Moses zips the ranking reads (read and discarded in 8 MiB blocks, stdlib ``zipfile``). It
then runs ``python -m opusparcus rank`` on the release as a subprocess, and reports the
generation time, the corpus size, the ranking's per-stage seconds and peak RSS (from its
``--timings`` file), its wall time and its ratio to the floor, its peak RSS
(``wait4`` rusage: the largest single process), the peak memory of its whole process tree
(sampled from /proc, workers included: summed PSS, and summed RSS, which counts pages shared by
forked workers once per process) and throughput. The report is printed and written to
``<workdir>/bench-opusparcus-<links>.json`` (``bench-opusparcus-independent-<links>.json`` for
the independent generator). With ``--sizes`` several sizes run in a row and a growth table
(links, wall, floor, ratio, memory) ends the output (also
``bench-opusparcus[-independent]-growth.json``). ``--engines local,spark,cluster`` compares the
engines on one corpus: ``spark`` is Spark ``local[2]``, ``cluster`` a standalone cluster of two
one-core workers on 127.0.0.1 started for the run (``scripts/spark_cluster.py``); the table
adds the ranking process's own peak PSS (on Spark, the driver's Python; the tree minus it is
the driver's JVM) and the cluster workers' (executors included).

The floor (issue 35) is that decompression plus compressing the text the ranking writes as
bz2 (its ``.bz2`` files, decompressed again untimed) at level 9 in the 900 kB line blocks the
ranking cuts, timed on one core and divided by the machine's cores (an ideal split), measured
right after the ranking; the decompression floor alone is reported as information.

The ranking is killed when its process tree exceeds ``--max-rss-gib``. Without ``--keep`` the
ranking output, and the corpus unless it was reused, are deleted afterwards.
"""

from __future__ import annotations

import argparse
import bz2
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
from collections.abc import Iterator
from pathlib import Path

from bench_common import MemoryWatch, cleanup, disk_bytes, fmt, group_memory_mib, pump

from tapaco.core.bz2_blocks import BLOCK_BYTES, LEVEL, line_blocks
from tapaco.core.memory import parse_size

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
RANK_CMD_ENV = "OPUSPARCUS_BENCH_RANK_CMD"
READ_BLOCK = 8 << 20
# --generator: (module in scripts/, corpus folder prefix, suffix of the output and report names)
GENERATORS = {"project": ("generate_opensubtitles", "opensubtitles", ""),
              "independent": ("generate_opensubtitles_independent", "independent",
                              "-independent")}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--links-per-pivot", type=int, default=400_000)
    parser.add_argument("--sizes", help="several links-per-pivot values, comma-separated, run "
                                        "in a row with a growth table")
    parser.add_argument("--generator", choices=sorted(GENERATORS), default="project",
                        help="project: scripts/generate_opensubtitles.py; independent: "
                             "scripts/generate_opensubtitles_independent.py")
    parser.add_argument("--lang", default="en", help="target language")
    parser.add_argument("--pivots", default="de,fi,fr,ru,sv", help="comma-separated")
    parser.add_argument("--workdir", type=Path, default=REPO / "bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the corpus and rank output")
    parser.add_argument("--reuse", action="store_true", help="reuse an existing corpus")
    parser.add_argument("--rank-args", default="",
                        help="extra arguments for opusparcus rank (with --langs, --lang is "
                             "not passed)")
    parser.add_argument("--engines", default="local",
                        help="comma-separated: local, spark (Spark local[2]), cluster (a Spark "
                             "standalone cluster of two one-core workers on 127.0.0.1, started "
                             "for the run); several run on the same corpus and are compared "
                             "(wall, overhead, memory, same output)")
    parser.add_argument("--memory-limit", metavar="SIZE",
                        help="rank --memory-limit (e.g. 8G); the report sets peak RSS against it")
    parser.add_argument("--max-rss-gib", type=float, default=16.0,
                        help="kill the ranking above this process-tree memory, summed PSS "
                             "(0: no limit)")
    # Hidden: a replacement rank command with {opus_dir} {out} {timings} {lang} placeholders
    # (also from the OPUSPARCUS_BENCH_RANK_CMD environment variable), to test this script.
    parser.add_argument("--rank-cmd", default=os.environ.get(RANK_CMD_ENV),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = args.sizes.split(",") if args.sizes else [str(args.links_per_pivot)]
    args.sizes = [int(s.replace("_", "")) for s in sizes if s.strip()]
    args.engines = [e for e in dict.fromkeys(args.engines.split(",")) if e]
    if not set(args.engines) <= {"local", "spark", "cluster"}:
        parser.error(f"--engines: expected local, spark or cluster, got {args.engines}")
    args.memory_limit_bytes = parse_size(args.memory_limit) if args.memory_limit else None
    return args


# ---------------------------------------------------------------------------- corpus


def count_corpus(corpus: Path, lang: str) -> dict:
    """Links, 1:1 links and bitexts of an existing Moses release (when its summary is missing)."""
    bitexts = {}
    for path in sorted((corpus / "moses").glob("*.txt.zip")):
        links = one_to_one = 0
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".ids"))
            with archive.open(name) as lines:
                for line in lines:
                    fields = line.rstrip(b"\n").split(b"\t")
                    links += 1
                    one_to_one += all(f and b" " not in f for f in fields[2:4])
        bitexts[path.name.removesuffix(".txt.zip")] = {"links": links, "one_to_one": one_to_one}
    return {"lang": lang, "bitexts": bitexts, "links": sum(b["links"] for b in bitexts.values()),
            "one_to_one_links": sum(b["one_to_one"] for b in bitexts.values()),
            "movies": None, "target_lines": None, "distinct_target_sentences": None}


def generate_corpus(corpus: Path, args: argparse.Namespace, links: int) -> dict:
    """Generate a fresh corpus with the chosen generator; its summary."""
    sys.path.insert(0, str(SCRIPTS))
    generator = importlib.import_module(GENERATORS[args.generator][0])
    if corpus.exists():
        shutil.rmtree(corpus)
    print(f"generating {corpus} ({links:,} links per pivot) ...", flush=True)
    pivots = [p for p in dict.fromkeys(args.pivots.split(",")) if p and p != args.lang]
    jobs = min(2, os.cpu_count() or 1)
    if args.generator == "project":
        summary = generator.generate(corpus, args.lang, pivots, links, args.seed, {"moses"},
                                     jobs=jobs)
    else:
        summary = generator.generate(corpus, args.lang, pivots, links, args.seed, jobs=jobs)
    print("\n".join(generator.summary_lines(summary)), flush=True)
    summary["generation_seconds"] = summary["seconds"]
    return summary


def prepare_corpus(args: argparse.Namespace, corpus: Path, summary_path: Path,
                   links: int) -> dict:
    """Generate the corpus, or reuse it; its summary (counts, generation time). A reused
    corpus's summary is the one cached in the workdir, else the generator's
    ``generated.json``, else counted from the zips."""
    if args.reuse and ((corpus / "moses").is_dir() or (corpus / "xml").is_dir()):
        cached = next((p for p in (summary_path, corpus / "generated.json") if p.is_file()),
                      None)
        if cached:
            summary = json.loads(cached.read_text())
            summary.setdefault("generation_seconds", summary.get("seconds"))
        else:
            summary = count_corpus(corpus, args.lang)
            summary["generation_seconds"] = None
        summary["reused"] = True
    else:
        summary = generate_corpus(corpus, args, links)
        summary["reused"] = False
        summary_path.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    summary["mb_on_disk"] = round(disk_bytes(corpus) / 1e6, 1)
    return summary


# ---------------------------------------------------------------------------- decompression


def rank_languages(args: argparse.Namespace) -> tuple[set[str], set[str] | None]:
    """The ranking's target languages (``--lang``, or ``--langs`` in ``--rank-args``) and its
    pivots (``--pivots`` in ``--rank-args``; None: every language with a bitext)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--langs")
    parser.add_argument("--pivots")
    known, _ = parser.parse_known_args(shlex.split(args.rank_args))
    targets = set(known.langs.split(",")) if known.langs else {args.lang}
    return targets, set(known.pivots.split(",")) if known.pivots else None


def ranked_bitexts(corpus: Path, args: argparse.Namespace) -> list[Path]:
    """The Moses zips (``moses/<l1>-<l2>.txt.zip``) the ranking reads."""
    targets, pivots = rank_languages(args)
    chosen = []
    for path in sorted((corpus / "moses").glob("*.txt.zip")):
        pair = path.name.removesuffix(".txt.zip").split("-")
        if len(pair) == 2 and any(
                lang in pair and (pivots is None or pair[pair[0] == lang] in pivots)
                for lang in targets):
            chosen.append(path)
    return chosen


def decompression_floor(zips: list[Path]) -> dict:
    """Single-core wall time of decompressing every member of ``zips`` (read and discarded
    in 8 MiB blocks, each member with its own compression)."""
    raw = packed = members = 0
    started = time.perf_counter()
    for path in zips:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    while block := member.read(READ_BLOCK):
                        raw += len(block)
                members += 1
                packed += info.compress_size
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 2), "bitexts": [p.name for p in zips],
            "members": members, "compressed_bytes": packed, "bytes": raw,
            "mb_per_second": round(raw / 1e6 / seconds, 1) if seconds else None}


def decompressed_pieces(path: Path) -> Iterator[bytes]:
    """The text of a (multi-stream) bz2 file, in 8 MiB pieces."""
    with bz2.open(path, "rb") as text:
        while piece := text.read(READ_BLOCK):
            yield piece


def compression_floor(out: Path) -> dict:
    """Single-core time of compressing, at bz2 level 9 in the ranking's 900 kB line blocks,
    the text of every ``.bz2`` file under ``out`` (decompressing it again is not timed), and
    that time split ideally over the machine's cores."""
    seconds, raw, blocks = 0.0, 0, 0
    files = sorted(out.rglob("*.bz2"))
    for path in files:
        for block in line_blocks(decompressed_pieces(path), BLOCK_BYTES):
            started = time.perf_counter()
            bz2.compress(block, LEVEL)
            seconds += time.perf_counter() - started
            raw += len(block)
            blocks += 1
    cores = os.cpu_count() or 1
    return {"one_core_seconds": round(seconds, 2), "cores": cores,
            "seconds": round(seconds / cores, 2), "files": [p.name for p in files],
            "bytes": raw, "blocks": blocks}


# ---------------------------------------------------------------------------- ranking


def rank_command(args: argparse.Namespace, corpus: Path, out: Path, timings: Path) -> list[str]:
    """The ranking command line (default: ``python -m opusparcus rank ...``; ``--lang`` is left
    out when ``--rank-args`` gives ``--langs``)."""
    extra = shlex.split(args.rank_args)
    if args.rank_cmd:
        places = {"opus_dir": str(corpus), "out": str(out), "timings": str(timings),
                  "lang": args.lang}
        command = [part.format(**places) for part in shlex.split(args.rank_cmd)]
    else:
        target = [] if any(a.split("=")[0] == "--langs" for a in extra) else ["--lang",
                                                                              args.lang]
        command = [sys.executable, "-m", "opusparcus", "rank", "--opus-dir", str(corpus),
                   *target, "--out", str(out), "--timings", str(timings)]
    limit = ["--memory-limit", args.memory_limit] if args.memory_limit else []
    return command + extra + limit


class GroupsWatch(threading.Thread):
    """Samples the summed PSS of several process groups (a cluster's workers, their executors
    and Python workers) and keeps its peak; and the PSS of one process alone (the ranking's
    own, the driver's Python)."""

    def __init__(self, groups: list[int], process: int, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.groups, self.process, self.interval = groups, process, interval
        self.peak_pss_mib = self.process_peak_pss_mib = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            pss = sum(group_memory_mib(group)[1] for group in self.groups)
            self.peak_pss_mib = max(self.peak_pss_mib, pss)
            self.process_peak_pss_mib = max(self.process_peak_pss_mib,
                                            process_pss_mib(self.process))


def process_pss_mib(pid: int) -> float:
    """One process's PSS now (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            return next(int(line.split()[1]) for line in rollup
                        if line.startswith(b"Pss:")) / 1024
    except (OSError, StopIteration):
        return 0.0


def run_rank(command: list[str], limit_gib: float, cluster_groups: list[int] = ()) -> dict:
    """Run the ranking; its exit code, wall seconds, peak RSS (MiB) and stderr; with
    `cluster_groups`, the peak summed PSS of the cluster workers' process groups."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    print("running:", shlex.join(command), flush=True)
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    watch = MemoryWatch(proc.pid, limit_gib * 1024)
    watch.start()
    workers = GroupsWatch(list(cluster_groups), proc.pid)
    workers.start()
    stderr: list[str] = []
    reader = threading.Thread(target=pump, args=(proc.stderr, stderr), daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    for watcher in (watch, workers):
        watcher.done.set()
        watcher.join()
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"command": command, "exit_code": proc.returncode, "wall_seconds": round(wall, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "tree_peak_rss_mib": round(watch.peak_rss_mib, 1),
            "tree_peak_pss_mib": round(watch.peak_pss_mib, 1), "killed_for_memory": watch.killed,
            "cluster_peak_pss_mib": round(workers.peak_pss_mib, 1) if cluster_groups else None,
            "own_peak_pss_mib": round(workers.process_peak_pss_mib, 1),
            "stderr": "".join(stderr)}


def read_json(path: Path, default: dict) -> dict:
    """A JSON file written by the ranking, or ``default`` when it wrote none."""
    if not path.is_file():
        print(f"warning: the ranking wrote no {path}", file=sys.stderr)
        return default
    return json.loads(path.read_text())


def rank_result(stats: dict) -> dict:
    """The ranking's output counts from its stats.json."""
    if not stats:
        return {}
    splits = stats.get("splits", {})
    return {"pairs_written": stats.get("pairs_written"),
            "candidate_pairs": {s: v.get("candidate_pairs") for s, v in splits.items()},
            "fanout_skips": {s: v.get("fanout_skips") for s, v in splits.items()}}


# ---------------------------------------------------------------------------- report


def corpus_line(corpus: dict) -> str:
    """One line describing the corpus."""
    share = 100 * corpus["one_to_one_links"] / corpus["links"] if corpus["links"] else 0.0
    return (f"corpus        {corpus['links']:,} links ({share:.2f} % 1:1) in "
            f"{len(corpus['bitexts'])} bitexts, {fmt(corpus.get('movies'), ',')} movies, "
            f"{fmt(corpus.get('target_lines'), ',')} {corpus['lang']} lines, "
            f"{fmt(corpus.get('distinct_target_sentences'), ',')} distinct {corpus['lang']} "
            f"sentences, {corpus['mb_on_disk']:,.1f} MB")


def result_line(result: dict) -> str:
    """One line with the pairs written and the fan-out cap's skips."""
    written = result.get("pairs_written") or {}
    skips = (result.get("fanout_skips") or {}).get("train") or {}
    return (f"pairs         train {fmt(written.get('train'), ',')}, dev "
            f"{fmt(written.get('dev'), ',')}, test {fmt(written.get('test'), ',')}; fan-out cap "
            f"skipped {fmt(skips.get('pivots'), ',')} train pivot sentences "
            f"({fmt(skips.get('pairs'), ',')} pairs)")


def report_lines(report: dict) -> list[str]:
    """The printed report table of one size."""
    corpus, rank, timings = report["corpus"], report["rank"], report["timings"]
    floor, compression = report["decompression"], report["compression"]
    gen = "reused" if corpus["reused"] else f"{fmt(corpus['generation_seconds'])} s"
    lines = [
        f"Opusparcus ranking benchmark, {report['links_per_pivot']:,} links per pivot, "
        f"{report['generator']} generator, {report.get('engine', 'local')} engine"
        + (f", --memory-limit {report['memory_limit_mib']:,.0f} MiB"
           if report.get("memory_limit_mib") else ""),
        f"generation    {gen}", corpus_line(corpus), result_line(report["result"]), "",
        f"{'stage':<30} {'seconds':>10} {'peak RSS MiB':>14}",
    ]
    for stage in timings.get("stages", []):
        lines.append(f"{stage['name']:<30} {fmt(stage.get('seconds'), '10.2f')} "
                     f"{fmt(stage.get('peak_rss_mib'), '14.1f')}")
    lines += [
        f"{'total (rank timings)':<30} {fmt(timings.get('total_seconds'), '10.2f')} "
        f"{fmt(timings.get('peak_rss_mib'), '14.1f')}",
        f"{'wall (subprocess, wait4)':<30} {rank['wall_seconds']:10.2f} "
        f"{rank['peak_rss_mib']:14.1f}",
        f"{'decompression floor (1 core)':<30} {floor['seconds']:10.2f} {'':>14}  "
        f"{floor['bytes'] / 1e6:,.0f} MB from {floor['members']} members of "
        f"{len(floor['bitexts'])} bitexts, {fmt(floor['mb_per_second'])} MB/s",
        f"{'ratio wall / decompression':<30} {fmt(report['ratio_to_decompression'], '10.2f')}",
        f"{'bz2 of the output, 1 core':<30} {compression['one_core_seconds']:10.2f} {'':>14}  "
        f"{compression['bytes'] / 1e6:,.0f} MB in {compression['blocks']:,} blocks; / "
        f"{compression['cores']} cores: {compression['seconds']:.2f} s",
        f"{'floor (decompress + bz2 / cores)':<30} {report['floor_seconds']:10.2f}",
        f"{'ratio wall / floor':<30} {fmt(report['ratio_to_floor'], '10.2f')}",
        *([f"{'--memory-limit':<30} {'':>10} {report['memory_limit_mib']:14.1f}  peak RSS "
           f"{rank['peak_rss_mib'] / report['memory_limit_mib']:.0%} of it, tree PSS "
           f"{rank['tree_peak_pss_mib'] / report['memory_limit_mib']:.0%}"]
          if report.get("memory_limit_mib") else []),
        f"{'process tree PSS (sampled)':<30} {'':>10} {rank['tree_peak_pss_mib']:14.1f}",
        f"{'process tree RSS sum (sampled)':<30} {'':>10} {rank['tree_peak_rss_mib']:14.1f}", "",
        f"throughput    {fmt(report['throughput']['links_per_second'], ',')} links/s, "
        f"{fmt(report['throughput']['one_to_one_links_per_second'], ',')} 1:1 links/s",
    ]
    return lines


def growth_lines(reports: list[dict]) -> list[str]:
    """How wall time and memory grow with the corpus, relative to the first size."""
    first = reports[0]
    lines = [f"{'links/pivot':>12} {'links':>12} {'gen s':>8} {'wall s':>9} {'x wall':>7} "
             f"{'floor s':>8} {'ratio':>6} {'RSS MiB':>9} {'tree RSS':>9} {'tree PSS':>9} "
             f"{'x PSS':>7} {'links/s':>10}"]
    for r in reports:
        rank = r["rank"]
        lines.append(
            f"{r['links_per_pivot']:>12,} {r['corpus']['links']:>12,} "
            f"{fmt(r['corpus']['generation_seconds'], '8.1f')} {rank['wall_seconds']:>9.1f} "
            f"{rank['wall_seconds'] / first['rank']['wall_seconds']:>7.2f} "
            f"{r['floor_seconds']:>8.1f} {fmt(r['ratio_to_floor'], '6.1f')} "
            f"{rank['peak_rss_mib']:>9,.0f} {rank['tree_peak_rss_mib']:>9,.0f} "
            f"{rank['tree_peak_pss_mib']:>9,.0f} "
            f"{rank['tree_peak_pss_mib'] / max(first['rank']['tree_peak_pss_mib'], 1):>7.2f} "
            f"{fmt(r['throughput']['links_per_second'], '10,')}")
    return lines


def failure(rank: dict) -> int:
    """Report a failed or killed ranking; the exit code to return."""
    tail = rank["stderr"].splitlines()[-40:]
    why = ("killed above the memory limit" if rank["killed_for_memory"]
           else f"failed with exit code {rank['exit_code']}")
    print(f"ranking {why} after {rank['wall_seconds']:.1f} s (process tree peak PSS "
          f"{rank['tree_peak_pss_mib']:,.0f} MiB); the end of its stderr:", *tail, sep="\n",
          file=sys.stderr)
    return rank["exit_code"] if rank["exit_code"] > 0 else 1


def engine_args(engine: str, master: str | None = None) -> list[str]:
    """The rank options of an engine: Spark runs on ``local[2]`` (the machine's two cores) or
    on the cluster's `master`."""
    if engine == "local":
        return []
    return ["--engine", "spark", "--spark-master", master or "local[2]"]


def run_engine(args: argparse.Namespace, engine: str, command: list[str],
               workdir: Path) -> dict:
    """The ranking on one engine; for `cluster`, on a standalone cluster of two one-core
    workers started for it (the workers' Python is this one)."""
    if engine != "cluster":
        return run_rank(command + engine_args(engine), args.max_rss_gib)
    from spark_cluster import standalone_cluster

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with standalone_cluster(workdir / "spark-cluster", workers=2, cores=1,
                            memory="4g") as cluster:
        groups = [process.pid for process in cluster.processes[1:]]
        return run_rank(command + engine_args(engine, cluster.master)
                        + ["--temp-dir", str(workdir)], args.max_rss_gib, groups)


def same_outputs(first: Path, second: Path) -> bool:
    """Whether two rank output folders hold the same files with the same bytes."""
    def files(folder: Path) -> dict[str, bytes]:
        return {p.relative_to(folder).as_posix(): p.read_bytes()
                for p in sorted(folder.rglob("*")) if p.is_file()}
    return files(first) == files(second)


def bench_size(args: argparse.Namespace, workdir: Path, links: int) -> tuple[int, dict | None]:
    """Benchmark one size with every engine; (exit code, report of the first engine)."""
    _, prefix, suffix = GENERATORS[args.generator]
    corpus_dir = workdir / f"{prefix}-{links}"
    corpus = prepare_corpus(args, corpus_dir, workdir / f"{prefix}-{links}.json", links)
    zips = ranked_bitexts(corpus_dir, args)
    print(f"decompression floor: reading {len(zips)} bitexts ...", flush=True)
    floor = decompression_floor(zips)
    reports, outs = {}, {}
    for engine in args.engines:
        label = "" if engine == "local" else f"-{engine}"
        out = workdir / f"opusparcus-out{suffix}{label}-{links}"
        timings_path = workdir / f"opusparcus-timings{suffix}{label}-{links}.json"
        cleanup([out])
        timings_path.unlink(missing_ok=True)
        rank = run_engine(args, engine, rank_command(args, corpus_dir, out, timings_path),
                          workdir)
        if rank["exit_code"] != 0:
            return failure(rank), None
        print("compression floor: compressing the ranking's bz2 text ...", flush=True)
        report = size_report(args, links, engine, corpus, floor, compression_floor(out), rank,
                             timings_path, out)
        print("\n".join(report_lines(report)))
        report_path = workdir / f"bench-opusparcus{suffix}{label}-{links}.json"
        report_path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        print(f"report: {report_path}", flush=True)
        reports[engine], outs[engine] = report, out
    if len(reports) > 1:
        print("\n".join(engine_lines(reports, outs, args.lang)), flush=True)
    if not args.keep:
        cleanup(list(outs.values()) + ([] if corpus["reused"] else [corpus_dir]))
    return 0, reports[args.engines[0]]


def size_report(args: argparse.Namespace, links: int, engine: str, corpus: dict, floor: dict,
                compression: dict, rank: dict, timings_path: Path, out: Path) -> dict:
    """The report of one engine's run on one size."""
    wall = rank["wall_seconds"]
    limit = args.memory_limit_bytes
    whole_floor = floor["seconds"] + compression["seconds"]
    return {
        "links_per_pivot": links, "generator": args.generator, "engine": engine,
        "lang": args.lang, "seed": args.seed, "corpus": corpus, "decompression": floor,
        "ratio_to_decompression": round(wall / floor["seconds"], 2) if floor["seconds"]
        else None,
        "compression": compression, "floor_seconds": round(whole_floor, 2),
        "ratio_to_floor": round(wall / whole_floor, 2) if whole_floor else None,
        "memory_limit_mib": round(limit / 2**20, 1) if limit else None,
        "rank": {k: v for k, v in rank.items() if k != "stderr"},
        "timings": read_json(timings_path, {"stages": [], "total_seconds": None,
                                            "peak_rss_mib": None}),
        "result": rank_result(read_json(out / args.lang / "stats.json", {})),
        "throughput": {
            "links_per_second": round(corpus["links"] / wall) if wall else None,
            "one_to_one_links_per_second": round(corpus["one_to_one_links"] / wall)
            if wall else None},
    }


def engine_lines(reports: dict[str, dict], outs: dict[str, Path], lang: str) -> list[str]:
    """The engines side by side: wall, ratio to the floor, overhead, same output."""
    first = next(iter(reports))
    lines = ["", f"{'engine':<8} {'wall s':>9} {'ratio':>7} {'x ' + first:>9} "
                 f"{'tree PSS MiB':>13} {'own PSS MiB':>12} {'cluster MiB':>12} "
                 f"{'same output':>12}"]
    for engine, report in reports.items():
        rank = report["rank"]
        wall = rank["wall_seconds"]
        same = same_outputs(outs[first] / lang, outs[engine] / lang)
        lines.append(f"{engine:<8} {wall:>9.1f} {fmt(report['ratio_to_floor'], '7.1f')} "
                     f"{wall / reports[first]['rank']['wall_seconds']:>9.2f} "
                     f"{rank['tree_peak_pss_mib']:>13,.0f} "
                     f"{fmt(rank.get('own_peak_pss_mib'), '12,.0f')} "
                     f"{fmt(rank.get('cluster_peak_pss_mib'), '12,.0f')} {str(same):>12}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for every size; the exit code (the ranking's when it fails)."""
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    reports, code = [], 0
    for links in args.sizes:
        code, report = bench_size(args, workdir, links)
        if report is None:
            break
        reports.append(report)
    if len(args.sizes) > 1 and reports:
        print("\ngrowth (x: relative to the first size)", *growth_lines(reports), sep="\n")
        growth = [{"links_per_pivot": r["links_per_pivot"], "generator": r["generator"],
                   "links": r["corpus"]["links"],
                   "generation_seconds": r["corpus"]["generation_seconds"],
                   "decompression_seconds": r["decompression"]["seconds"],
                   "ratio_to_decompression": r["ratio_to_decompression"],
                   "floor_seconds": r["floor_seconds"], "ratio_to_floor": r["ratio_to_floor"],
                   **r["rank"],
                   "throughput": r["throughput"]} for r in reports]
        suffix = GENERATORS[args.generator][2]
        (workdir / f"bench-opusparcus{suffix}-growth.json").write_text(
            json.dumps(growth, indent=1) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
