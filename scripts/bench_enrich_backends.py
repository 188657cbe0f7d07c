"""Benchmark the two NMT backends on a tiny random MarianMT model: sentences/s, batched vs single.

Usage: python scripts/bench_enrich_backends.py [--sentences 2000] [--batch-size 64]
GPU figures are added when torch / CTranslate2 see a CUDA device.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tapaco.enrich.backends import CTranslate2Translator, TransformersTranslator, Translator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from tiny_model import build_tiny_models, sample_sentences  # noqa: E402  (a test fixture)


def rate(translator: Translator, sentences: list[str], batch: int, beam: int,
         max_length: int) -> float:
    """Sentences per second, translating `batch` sentences per call."""
    start = time.perf_counter()
    for i in range(0, len(sentences), batch):
        translator.translate(sentences[i:i + batch], beam_size=beam, max_length=max_length)
    return len(sentences) / (time.perf_counter() - start)


def translators(marian: Path, ct2: Path, batch: int) -> dict[str, Translator]:
    import ctranslate2
    import torch

    found: dict[str, Translator] = {
        "transformers/cpu/float32": TransformersTranslator(marian, "cpu", batch_size=batch),
        "ctranslate2/cpu/float32": CTranslate2Translator(ct2, "cpu", "float32", batch),
        "ctranslate2/cpu/int8": CTranslate2Translator(ct2, "cpu", "int8", batch)}
    if torch.cuda.is_available():
        found["transformers/cuda/float32"] = TransformersTranslator(marian, "cuda",
                                                                    batch_size=batch)
    if ctranslate2.get_cuda_device_count() > 0:
        found["ctranslate2/cuda/float16"] = CTranslate2Translator(ct2, "cuda", "float16", batch)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--single", type=int, default=200,
                        help="sentences translated one at a time (a subset, it is slow)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--max-length", type=int, default=64)
    args = parser.parse_args()
    pool = sample_sentences()
    sentences = [pool[i % len(pool)] for i in range(args.sentences)]
    with tempfile.TemporaryDirectory() as tmp:
        marian, ct2 = build_tiny_models(Path(tmp))
        print(f"{args.sentences} sentences, beam {args.beam}, max_length {args.max_length}")
        for name, translator in translators(marian, ct2, args.batch_size).items():
            batched = rate(translator, sentences, args.batch_size, args.beam, args.max_length)
            single = rate(translator, sentences[:args.single], 1, args.beam, args.max_length)
            print(f"{name:28s} batch {args.batch_size}: {batched:8.1f} sent/s   "
                  f"one at a time: {single:8.1f} sent/s")


if __name__ == "__main__":
    main()
