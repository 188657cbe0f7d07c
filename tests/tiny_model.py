"""Build a tiny, randomly initialised MarianMT model (and its CTranslate2 conversion) offline.

Used by the enrichment tests and the backend benchmark: no download, a few seconds on CPU.
The sentencepiece vocabulary is trained on the sentences of the bundled Tatoeba sample.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

from tapaco.core.opus import FileRef, read_sentences

SAMPLE_XML = Path(__file__).resolve().parents[1] / "tapaco" / "sample" / "tatoeba-v2" / "xml"


def sample_sentences(languages: tuple[str, ...] = ("en", "fr", "de", "es")) -> list[str]:
    """Sentences of the bundled Tatoeba sample, tokens joined by spaces."""
    sentences: list[str] = []
    for lang in languages:
        path = SAMPLE_XML / f"{lang}.zip"
        if path.is_file():
            sentences.extend(_zip_sentences(path))
    return sentences


def _zip_sentences(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        members = archive.namelist()
    return [text for member in members
            for text in read_sentences(FileRef(path, member)).texts if text]


def train_spm(sentences: list[str], prefix: Path, vocab_size: int = 300) -> Path:
    """Train a unigram sentencepiece model; returns the .model path."""
    import sentencepiece as spm

    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_prefix=str(prefix), vocab_size=vocab_size,
        model_type="unigram", character_coverage=1.0, hard_vocab_limit=False,
        unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1, num_threads=1, minloglevel=2,
    )
    return prefix.with_suffix(".model")


def marian_vocab(spm_model: Path) -> dict[str, int]:
    """Marian-style vocabulary: </s>=0, <unk>=1, the sentencepiece pieces, <pad> last."""
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(spm_model))
    vocab = {"</s>": 0, "<unk>": 1}
    for piece_id in range(processor.get_piece_size()):
        piece = processor.id_to_piece(piece_id)
        if piece not in vocab:
            vocab[piece] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab


def build_marian(out_dir: Path, seed: int = 0, vocab_size: int = 300,
                 eos_bias: float = 4.0) -> Path:
    """Write a tiny random MarianMT checkpoint + tokenizer files into `out_dir`."""
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    out_dir.mkdir(parents=True, exist_ok=True)
    work = out_dir / "_spm"
    work.mkdir(exist_ok=True)
    model_file = train_spm(sample_sentences(), work / "spm", vocab_size)
    vocab = marian_vocab(model_file)
    (work / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = MarianTokenizer(str(model_file), str(model_file), str(work / "vocab.json"))
    config = _tiny_config(MarianConfig, len(vocab))
    torch.manual_seed(seed)
    model = MarianMTModel(config).eval()
    _shape_output_layer(model, vocab, eos_bias)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    shutil.rmtree(work)
    return out_dir


def _tiny_config(config_class: type, vocab_size: int) -> object:
    pad = vocab_size - 1
    return config_class(
        vocab_size=vocab_size, d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
        decoder_ffn_dim=64, max_position_embeddings=512, init_std=0.3, scale_embedding=True,
        pad_token_id=pad, decoder_start_token_id=pad, eos_token_id=0, forced_eos_token_id=0,
        bad_words_ids=[[pad]], num_beams=4, max_length=256, dropout=0.0,
    )


def _shape_output_layer(model: object, vocab: dict[str, int], eos_bias: float) -> None:
    """Favour </s> (short outputs) and make <pad> unreachable, as in real Opus-MT models."""
    import torch

    with torch.no_grad():
        bias = model.final_logits_bias
        bias.zero_()
        bias[0, vocab["</s>"]] = eos_bias
        bias[0, vocab["<pad>"]] = -1e4


def convert_ct2(marian_dir: Path, out_dir: Path, quantization: str | None = None) -> Path:
    """Convert a MarianMT folder with CTranslate2 and copy the sentencepiece files beside it."""
    from ctranslate2.converters import TransformersConverter

    TransformersConverter(str(marian_dir)).convert(str(out_dir), quantization=quantization,
                                                   force=True)
    for name in ("source.spm", "target.spm"):
        shutil.copy(marian_dir / name, out_dir / name)
    return out_dir


def build_tiny_models(root: Path, seed: int = 0) -> tuple[Path, Path]:
    """Build `root/marian` and its float32 CTranslate2 conversion `root/ct2`."""
    marian_dir = build_marian(root / "marian", seed=seed)
    return marian_dir, convert_ct2(marian_dir, root / "ct2")
