#!/usr/bin/env python3
"""Benchmark the TaPaCo build on a synthetic OPUS Tatoeba release.

Generates a release with ``scripts/generate_tatoeba.py`` into ``<workdir>/tatoeba-<scale>/``
(or reuses it with ``--reuse``), runs ``python -m tapaco build`` on it as a subprocess, and
reports the generation time, the corpus size, the build's per-stage seconds and peak RSS (from
its ``--timings`` file), its wall time and peak RSS (``wait4`` rusage of the child), and
throughput. The report is printed and written to ``<workdir>/bench-<scale>.json``.

Without ``--keep`` the build output, and the corpus unless it was reused, are deleted afterwards.
"""

from __future__ import annotations

import argparse
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

from bench_common import cleanup, disk_bytes, fmt, pump
from isal import igzip

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
BUILD_CMD_ENV = "TAPACO_BENCH_BUILD_CMD"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1, help="corpus scale (1.0: ~7.8M)")
    parser.add_argument("--workdir", type=Path, default=REPO / "bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the corpus and build output")
    parser.add_argument("--reuse", action="store_true", help="reuse an existing corpus")
    parser.add_argument("--build-args", default="", help="extra arguments for tapaco build")
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


def generate_corpus(corpus: Path, scale: float, seed: int) -> dict:
    """Generate a fresh corpus with scripts/generate_tatoeba.py; its summary."""
    sys.path.insert(0, str(SCRIPTS))
    import generate_tatoeba

    if corpus.exists():
        shutil.rmtree(corpus)
    print(f"generating {corpus} (scale {scale:g}) ...", flush=True)
    summary = generate_tatoeba.generate(corpus, scale, seed, jobs=min(2, os.cpu_count() or 1))
    summary["generation_seconds"] = summary["seconds"]
    return summary


def prepare_corpus(args: argparse.Namespace, corpus: Path, summary_path: Path) -> dict:
    """Generate the corpus, or reuse it; its summary (counts, generation time)."""
    if args.reuse and (corpus / "raw").is_dir() and (corpus / "xml").is_dir():
        if summary_path.is_file():
            summary = json.loads(summary_path.read_text())
        else:
            summary = count_corpus(corpus)
            summary["generation_seconds"] = None
        summary["reused"] = True
    else:
        summary = generate_corpus(corpus, args.scale, args.seed)
        summary["reused"] = False
        summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    summary["mb_on_disk"] = round(disk_bytes(corpus) / 1e6, 1)
    return summary


# ---------------------------------------------------------------------------- build


def build_command(args: argparse.Namespace, corpus: Path, out: Path, timings: Path) -> list[str]:
    """The build command line (default: ``python -m tapaco build ...``)."""
    if args.build_cmd:
        template = shlex.split(args.build_cmd)
        places = {"opus_dir": str(corpus), "out": str(out), "timings": str(timings)}
        command = [part.format(**places) for part in template]
    else:
        command = [sys.executable, "-m", "tapaco", "build", "--opus-dir", str(corpus),
                   "--out", str(out), "--timings", str(timings), "--min-sets", "100"]
    return command + shlex.split(args.build_args)


def run_build(command: list[str]) -> dict:
    """Run the build; its exit code, wall seconds, peak RSS (MiB) and stderr."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    print("running:", shlex.join(command), flush=True)
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    stderr: list[str] = []
    reader = threading.Thread(target=pump, args=(proc.stderr, stderr), daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"command": command, "exit_code": proc.returncode, "wall_seconds": round(wall, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "stderr": "".join(stderr)}


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
    gen = "reused" if corpus["reused"] else f"{fmt(corpus['generation_seconds'])} s"
    lines = [
        f"TaPaCo build benchmark, scale {report['scale']:g}",
        f"generation    {gen}",
        f"corpus        {corpus['languages']} languages, {corpus['sentences']:,} sentences, "
        f"{corpus['links']:,} links, {corpus['files']:,} files "
        f"({corpus['alignment_files']:,} alignment, {corpus['intra_files']} intra-language), "
        f"{corpus['mb_on_disk']:,.1f} MB",
        "",
        f"{'stage':<28} {'seconds':>10} {'peak RSS MiB':>14}",
    ]
    for stage in timings.get("stages", []):
        lines.append(f"{stage['name']:<28} {fmt(stage.get('seconds'), '10.2f')} "
                     f"{fmt(stage.get('peak_rss_mib'), '14.1f')}")
    lines += [
        f"{'total (build timings)':<28} {fmt(timings.get('total_seconds'), '10.2f')} "
        f"{fmt(timings.get('peak_rss_mib'), '14.1f')}",
        f"{'wall (subprocess)':<28} {build['wall_seconds']:10.2f} {build['peak_rss_mib']:14.1f}",
        "",
        f"throughput    {fmt(report['throughput']['sentences_per_second'], ',')} sentences/s, "
        f"{fmt(report['throughput']['links_per_second'], ',')} links/s",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the exit code (the build's when it fails)."""
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    tag = f"{args.scale:g}"
    corpus_dir, out = workdir / f"tatoeba-{tag}", workdir / f"out-{tag}"
    timings_path = workdir / f"timings-{tag}.json"
    corpus = prepare_corpus(args, corpus_dir, workdir / f"tatoeba-{tag}.json")
    cleanup([out])
    timings_path.unlink(missing_ok=True)
    build = run_build(build_command(args, corpus_dir, out, timings_path))
    if build["exit_code"] != 0:
        tail = build["stderr"].splitlines()[-40:]
        print(f"build failed with exit code {build['exit_code']}; the end of its stderr:",
              *tail, sep="\n", file=sys.stderr)
        return build["exit_code"] if build["exit_code"] > 0 else 1
    report = {"scale": args.scale, "seed": args.seed, "corpus": corpus,
              "build": {k: v for k, v in build.items() if k != "stderr"},
              "timings": read_timings(timings_path),
              "throughput": throughput(corpus, build["wall_seconds"])}
    print("\n".join(report_lines(report)))
    report_path = workdir / f"bench-{tag}.json"
    report_path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"report: {report_path}")
    if not args.keep:
        cleanup([out] if corpus["reused"] else [corpus_dir, out])
    return 0


if __name__ == "__main__":
    sys.exit(main())
