#!/usr/bin/env python3
"""Benchmark `tapaco build --tatoeba-export` on a synthetic Tatoeba export of real size.

Writes ``sentences.csv``, ``links.csv`` (every link in both directions, as Tatoeba does),
``tags.csv`` and ``sentences_in_lists.csv`` shaped like the weekly export: ``--sentences``
sentences (12M is today's Tatoeba) in Zipf-sized languages, grouped into translation
"meanings" of 1-12 sentences linked within the meaning (about 1.1 links a sentence), some
sentences without a language (``\\N``), ~15 % of sentences in lists and ~5 % tagged. Then runs
the build as a subprocess and reports its stages and peak memory, and the time to merely read
the four files.

    python scripts/bench_tatoeba_export.py --sentences 12000000 --workdir /work/bench
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
WORDS = ("time year people way day man thing woman life child world school state family "
         "student group country problem hand part place case week company system program "
         "question work government number night point home water room mother area money "
         "story fact month lot right study book eye job word business issue side kind head "
         "house service friend father power hour game line end member law car city").split()


def generate(folder: Path, sentences: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    ids = np.cumsum(rng.integers(1, 3, sentences))
    languages = np.array([f"l{n:03d}" for n in range(300)] + ["\\N"], dtype=object)
    weights = 1 / np.arange(1, 301) ** 1.1
    lang = rng.choice(300, sentences, p=weights / weights.sum())
    lang[rng.random(sentences) < 0.002] = 300
    words = np.array(WORDS, dtype=object)
    lengths = rng.integers(3, 12, sentences)
    picks = rng.integers(0, len(words), lengths.sum())
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    texts = [" ".join(words[picks[a:a + n]]).capitalize() + "." for a, n in
             zip(starts.tolist(), lengths.tolist())]
    with open(folder / "sentences.csv", "w", encoding="utf-8") as out:
        out.writelines(f"{i}\t{lang_}\t{t}\n" for i, lang_, t in
                       zip(ids.tolist(), languages[lang].tolist(), texts))
    meaning_sizes = rng.integers(1, 13, sentences // 4)
    meaning_sizes = meaning_sizes[np.cumsum(meaning_sizes) <= sentences]
    order = rng.permutation(sentences)[: meaning_sizes.sum()]
    firsts = np.repeat(np.concatenate([[0], np.cumsum(meaning_sizes)[:-1]]), meaning_sizes)
    members = np.arange(len(order))
    linked = members != firsts
    a, b = ids[order[firsts[linked]]], ids[order[members[linked]]]
    both = np.concatenate([np.column_stack([a, b]), np.column_stack([b, a])])
    np.savetxt(folder / "links.csv", both, fmt="%d", delimiter="\t")
    listed = rng.choice(sentences, sentences * 15 // 100, replace=False)
    lists = np.column_stack([rng.integers(1, 20000, len(listed)), ids[listed]])
    np.savetxt(folder / "sentences_in_lists.csv", lists, fmt="%d", delimiter="\t")
    tagged = rng.choice(sentences, sentences // 20, replace=False)
    with open(folder / "tags.csv", "w", encoding="utf-8") as out:
        out.writelines(f"{i}\t{tag}\n" for i, tag in zip(
            ids[tagged].tolist(), rng.choice(["OK", "idiom", "proverb", "colloquial"],
                                             len(tagged)).tolist()))
    return {"sentences": sentences, "links": len(both), "list_memberships": len(lists),
            "tags": len(tagged),
            "bytes": sum(path.stat().st_size for path in folder.glob("*.csv"))}


def seconds_to_read(folder: Path) -> float:
    start = time.perf_counter()
    for path in sorted(folder.glob("*.csv")):
        with open(path, "rb") as handle:
            while handle.read(1 << 24):
                pass
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=REPO / "bench")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reuse", action="store_true")
    arguments = parser.parse_args()
    folder = arguments.workdir / f"tatoeba-export-{arguments.sentences}"
    info_path = folder / "generated.json"
    if arguments.reuse and info_path.is_file():
        info = json.loads(info_path.read_text())
    else:
        start = time.perf_counter()
        info = generate(folder, arguments.sentences, arguments.seed)
        info["generation_seconds"] = round(time.perf_counter() - start, 1)
        info_path.write_text(json.dumps(info, indent=2))
    reading = seconds_to_read(folder)
    out = arguments.workdir / f"tapaco-export-out-{arguments.sentences}"
    timings = arguments.workdir / f"tapaco-export-timings-{arguments.sentences}.json"
    command = [sys.executable, "-m", "tapaco", "build", "--tatoeba-export", str(folder),
               "--out", str(out), "--timings", str(timings), "--quiet", "--overwrite"]
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO)
    wall = time.perf_counter() - start
    report = json.loads(timings.read_text())
    print(f"export: {info['sentences']:,} sentences, {info['links']:,} link rows, "
          f"{info['bytes'] / 1e6:,.0f} MB")
    for stage in report["stages"]:
        print(f"  {stage['name']:<24} {stage['seconds']:8.1f} s  {stage['peak_rss_mib']:8.0f} MiB")
    print(f"  {'whole build (wall)':<24} {wall:8.1f} s  {report['peak_rss_mib']:8.0f} MiB")
    print(f"  reading the four files from the page cache: {reading:.1f} s")


if __name__ == "__main__":
    main()
