"""sacrebleu's 13a (or zh) tokenizer on many texts at once, through its compiled kernel
(:mod:`tapaco.core.tokenize_13a_kernels`): the tokens of each text as ids into a table of the
distinct tokens, without a Python object per token. TaPaCo's BLEU filter and the paraphrase
score read their tokens from here; sacrebleu's `Tokenizer13a` and `TokenizerZh` are the
references they equal."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tapaco.core.arrays import code_points
from tapaco.core.interruptible import in_background
from tapaco.core.tokenize_13a_kernels import TOKENIZERS, tokenize_13a


@dataclass(frozen=True)
class TokenIds:
    """The tokens of some texts: text k's token ids are `ids[offsets[k]:offsets[k + 1]]`, ids
    0, 1, ... in order of first occurrence; the distinct tokens' code points are
    `pool[pool_offsets[i]:pool_offsets[i + 1]]` for id i."""

    ids: np.ndarray
    offsets: np.ndarray
    pool: np.ndarray
    pool_offsets: np.ndarray

    def tokens(self) -> list[str]:
        """The distinct tokens, by id."""
        joined = self.pool.astype("<i4").tobytes().decode("utf-32-le", "surrogatepass")
        bounds = self.pool_offsets.tolist()
        return [joined[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def token_ids(texts: Sequence[str], tokenizer: str = "13a") -> TokenIds:
    """The tokens of every text by sacrebleu's `tokenizer` (13a or zh), right-stripped first as
    sacrebleu's BLEU does."""
    codes, offsets = code_points(texts)
    return TokenIds(*in_background(tokenize_13a, codes, offsets, TOKENIZERS[tokenizer],
                                   size=len(codes)))
