"""A stand-in NMT model for the enrich command's tests: no extra needed, output known by hand."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Output:
    text: str
    score: float


class UpperCaser:
    """Translates by upper-casing the source; honours suppressed words; can fail after N calls."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.fail_after = fail_after
        self.calls = 0

    def translate(self, texts, beam_size=4, num_hypotheses=1, suppressed_words=None,
                  max_length=256):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt
        self.calls += 1
        outputs = []
        for i, text in enumerate(texts):
            banned = set(suppressed_words[i]) if suppressed_words else set()
            words = [w for w in text.upper().split() if w.lower() not in banned]
            outputs.append([Output(" ".join(words), -0.5)])
        return outputs


def use_fake_model(monkeypatch: pytest.MonkeyPatch, folder: Path,
                   translator: UpperCaser | None = None) -> Path:
    """Make `folder` a model folder that `tapaco enrich` "loads" as `translator`."""
    from tapaco.enrich import command

    folder.mkdir(exist_ok=True)
    monkeypatch.setattr(command, "check_model", lambda model_dir, options: "ctranslate2")
    monkeypatch.setattr(command, "load_translator",
                        lambda model_dir, options: translator or UpperCaser())
    return folder


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under `root` with its bytes (None for folders)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}
