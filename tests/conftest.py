"""Shared test helpers: where the real data lives, and a writer of small OPUS release folders."""

from __future__ import annotations

import gzip
import os
import signal
import tempfile
import zipfile
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest

PROJECT = Path(__file__).resolve().parents[1]
SHARED_DATA = PROJECT.parent / "shared" / "data"
SAMPLE = PROJECT / "tapaco" / "sample" / "tatoeba-v2"



def keep_bounds_checked_code_apart(environment: MutableMapping[str, str]) -> None:
    """numba's cache keys compiled code on the signature and the source, not on bounds checking:
    a bounds-checked run (NUMBA_BOUNDSCHECK=1, as CI runs the suite once) would load the
    unchecked code of earlier runs, and leave checked code for later ones. In `environment`, it
    gets a cache of its own."""
    if environment.get("NUMBA_BOUNDSCHECK", "0").strip() not in ("", "0"):
        environment["NUMBA_CACHE_DIR"] = os.path.join(
            environment.get("NUMBA_CACHE_DIR") or tempfile.gettempdir(), "numba-boundscheck")


def without_compile_notice(printed: str) -> str:
    """What a command wrote on stderr, less the line a first run writes when numba compiles a
    kernel: whether a test's command meets a cold cache depends on the tests run before it (and
    `opusparcus rank` compiles ahead while it reads, so even one failing on its input may say
    it). The notice itself is tested in tests/core/test_compile_notice.py."""
    from tapaco.core.compile_notice import NOTICE  # numba reads NUMBA_CACHE_DIR on import
    return "".join(line for line in printed.splitlines(keepends=True)
                   if line.rstrip("\n") != NOTICE)


keep_bounds_checked_code_apart(os.environ)  # here and in every command the tests start

# A shell starts a background job (`pytest &`, nohup) with SIGINT ignored, and an ignored signal
# stays ignored in every program started from it: the commands the tests interrupt would never
# see their Ctrl-C. The default handler here gives them the default disposition.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data not found: real-data tests need the shared folder beside "
                    "the project")
    return SHARED_DATA


@dataclass
class Sentence:
    id: str
    text: str
    lists: str = ""
    tags: str = ""


@dataclass
class OpusFolder:
    """Builds a small OPUS release: documents and cesAlign files, written by `write()`."""

    root: Path
    documents: dict[str, list[Sentence]] = field(default_factory=dict)
    alignments: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = field(
        default_factory=dict)

    def sentences(self, document: str, *sentences: Sentence) -> None:
        self.documents.setdefault(document, []).extend(sentences)

    def links(self, name: str, from_doc: str, to_doc: str, links: list[tuple[str, str]]) -> None:
        self.alignments.setdefault(name, []).append((from_doc, to_doc, links))

    def write(self, kind: str = "raw", zipped: bool = True) -> Path:
        for name, groups in self.alignments.items():
            write_cesalign(self.root / "xml" / f"{name}.xml.gz", groups)
        by_lang: dict[str, dict[str, str]] = {}
        for document, sentences in self.documents.items():
            lang = document.split("/")[0]
            by_lang.setdefault(lang, {})[document] = document_xml(document, sentences, kind)
        for lang, documents in by_lang.items():
            if zipped:
                path = self.root / kind / f"{lang}.zip"
                path.parent.mkdir(parents=True, exist_ok=True)
                with zipfile.ZipFile(path, "w") as archive:
                    for document, text in documents.items():
                        member = f"Test/{kind}/{document.removesuffix('.gz')}"
                        archive.writestr(member, text)
            else:
                for document, text in documents.items():
                    path = self.root / kind / document
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(gzip.compress(text.encode()))
        return self.root


def document_xml(document: str, sentences: list[Sentence], kind: str) -> str:
    lines = ['<?xml version="1.0" encoding="utf-8"?>', f'<document id="{document}">']
    for sentence in sentences:
        attributes = f'id="{sentence.id}"'
        if sentence.lists:
            attributes += f" lists={quoteattr(sentence.lists)}"
        if sentence.tags:
            attributes += f" tags={quoteattr(sentence.tags)}"
        if kind == "raw":
            lines.append(f"<s {attributes}>{escape(sentence.text)}</s>")
        else:
            tokens = "".join(f'\n  <w id="w{sentence.id}.{n}">{escape(token)}</w>'
                             for n, token in enumerate(sentence.text.split(), 1))
            lines.append(f"<s {attributes}>{tokens}\n</s>")
    lines.append("</document>")
    return "\n".join(lines) + "\n"


def cesalign_xml(groups: list[tuple[str, str, list[tuple[str, str]]]]) -> str:
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             '<!DOCTYPE cesAlign PUBLIC "-//CES//DTD XML cesAlign//EN" "">',
             '<cesAlign version="1.0">']
    for from_doc, to_doc, links in groups:
        lines.append(f'<linkGrp targType="s" fromDoc="{from_doc}" toDoc="{to_doc}" >')
        lines += [f'<link id="SL{n}" xtargets="{a};{b}" overlap="0.9" />'
                  for n, (a, b) in enumerate(links, 1)]
        lines.append("</linkGrp>")
    lines.append("</cesAlign>")
    return "\n".join(lines) + "\n"


def write_cesalign(path: Path, groups) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = cesalign_xml(groups).encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


@pytest.fixture
def opus(tmp_path: Path) -> OpusFolder:
    return OpusFolder(tmp_path / "opus")


def write_moses(root: Path, pair: str, rows: list[tuple[str, str, str, str, str, str]],
                corpus: str = "Test", zipped: bool = False) -> Path:
    """A Moses bitext `moses/<pair>/` (or `moses/<pair>.txt.zip`) with `.ids`.

    Rows are (doc1, doc2, ids1, ids2, text1, text2).
    """
    first, second = pair.split("-")
    columns = list(zip(*rows)) if rows else [()] * 6
    files = {
        f"{corpus}.{pair}.ids": "".join(f"{a}\t{b}\t{c}\t{d}\n" for a, b, c, d, _, _ in rows),
        f"{corpus}.{pair}.{first}": "".join(text + "\n" for text in columns[4]),
        f"{corpus}.{pair}.{second}": "".join(text + "\n" for text in columns[5]),
    }
    if zipped:
        (root / "moses").mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(root / "moses" / f"{pair}.txt.zip", "w") as archive:
            for name, text in files.items():
                archive.writestr(f"{corpus}/{name}", text)
        return root
    folder = root / "moses" / pair
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return root


def subtitle_xml(sentences: list[tuple[str, str]]) -> str:
    """A raw OpenSubtitles document: each `<s>` holds its text between `<time>` elements, as in
    OPUS's `raw/<lang>.zip`; an empty text gives an `<s>` holding only the two times."""
    lines = ['<?xml version="1.0" encoding="utf-8"?>', '<document id="1">']
    for number, (sentence_id, text) in enumerate(sentences, 1):
        lines += [f'  <s id="{sentence_id}">',
                  f'    <time id="T{number}S" value="00:00:{number:02d},100" />']
        lines += [escape(text)] if text else []
        lines += [f'    <time id="T{number}E" value="00:00:{number:02d},900" />', "  </s>"]
    return "\n".join([*lines, "</document>"]) + "\n"


def write_document_zip(root: Path, folder: str, lang: str, documents: dict[str, str],
                       corpus: str = "OpenSubtitles") -> None:
    """`root/<folder>/<lang>.zip` holding each document (name `<lang>/.../x.xml.gz`) as
    `<corpus>/<folder>/<name without .gz>`."""
    (root / folder).mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(root / folder / f"{lang}.zip", "w") as archive:
        for name, text in documents.items():
            archive.writestr(f"{corpus}/{folder}/{name.removesuffix('.gz')}", text)


NMT_MODULES = ("torch", "transformers", "ctranslate2", "sentencepiece")


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tiny random MarianMT model and its CTranslate2 conversion, built once per session.

    Needs the 'enrich' extra; the tests that use it skip with a reason without it.
    """
    for module in NMT_MODULES:
        pytest.importorskip(module, reason=f"NMT enrichment tests need {module} "
                                           "(the 'enrich' extra)")
    from tiny_model import build_tiny_models

    return build_tiny_models(tmp_path_factory.mktemp("tiny_nmt"))


@pytest.fixture(scope="session")
def marian_dir(tiny_models: tuple[Path, Path]) -> Path:
    return tiny_models[0]


@pytest.fixture(scope="session")
def ct2_dir(tiny_models: tuple[Path, Path]) -> Path:
    return tiny_models[1]


def ranked_english(tmp_path: Path, links: int = 400, english: int = 40, french: int = 13) -> Path:
    """A ranked en training file from an en-fr Moses bitext of `links` links: en phrase
    n % `english` aligned to fr phrase n % `french`, so en phrases share French pivots."""
    from opusparcus.cli import main

    rows = [(f"en/2000/1/{n}.xml.gz", f"fr/2000/1/{n}.xml.gz", "1", "1",
             f"Phrase {n % english} .", f"Phrase {n % french} .") for n in range(links)]
    root = write_moses(tmp_path / "opus", "en-fr", rows)
    assert main(["rank", "--opus-dir", str(root), "--lang", "en", "--out",
                 str(tmp_path / "ranked"), "--workers", "1", "--quiet"]) == 0
    return tmp_path / "ranked" / "en" / "train" / "en-train.txt.bz2"
