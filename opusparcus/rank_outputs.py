"""What a ranking writes beside its release files, the same for both engines: `stats.json`
(:func:`statistics`), the command line that remakes it, and the Parquet copies and dataset
card converted from the release files (:func:`formats_from_text`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from opusparcus.bitexts import SPLITS, BitextCounts
from opusparcus.export import release_files
from opusparcus.paraphrase_scores import ScoredFile, scored_files
from opusparcus.parquet_release import write_rank_parquet
from opusparcus.rank_inputs import RankOptions
from tapaco.core import language_id
from tapaco.core.provenance import Provenance
from tapaco.core.versions import library_versions, signature

COMMAND = "opusparcus rank"
EXACTNESS_LIBRARIES = ("sacremoses", "numba", "numpy")


@dataclass
class BitextRecord:
    """What the statistics say of one bitext of a target language: its pivot, its file, its
    counts and bad-input log, and how many of its links had no year on the target's side."""

    pivot: str
    source: str
    counts: BitextCounts
    log: dict
    without_year: int


def command_line(lang: str, options: RankOptions) -> str:
    """The `rank` command that gives this language's output from an input folder."""
    words = [f"python -m opusparcus rank --opus-dir OPUS_DIR --lang {lang} --out OUT"]
    for key, value in options.decisive().items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            words += [flag] if value else []
        elif isinstance(value, tuple):
            words += [f"{flag} {','.join(value)}"] if value else []
        else:
            words.append(f"{flag} {'none' if value is None else value}")
    scores = [" ".join(["--scores", *(Path(path).name for path in options.scores)])]
    return " ".join(words + [f"--format {','.join(options.formats)}"]
                    + (scores if options.scores else []))


def scored_of(lang: str, options: RankOptions) -> dict[str, ScoredFile] | None:
    """The scored file of each split `--scores` gives (None without `--scores`)."""
    return scored_files(options.scores).get(lang, {}) if options.scores else None


def formats_from_text(folder: Path, lang: str, stats: dict, options: RankOptions) -> None:
    """Parquet copies converted from the release files, which stay only when asked for."""
    release = {SPLITS[split]: name for split, (name, _) in release_files(lang).items()}
    if "parquet" in options.formats:
        write_rank_parquet(folder, lang, release, stats, command_line(lang, options),
                           options.formats, scored_of(lang, options))
    if "tsv" not in options.formats:
        for name in release.values():
            (folder / name).unlink()
            (folder / name).parent.rmdir()


def statistics(lang: str, bitexts: list[BitextRecord], split_stats: dict,
               pairs_written: dict[str, int], options: RankOptions,
               provenance: Provenance) -> dict:
    """The `stats.json` of a ranked language; `provenance`: what the release is."""
    skipped: dict[str, int] = {}
    for bitext in bitexts:
        for kind, count in bitext.log["skipped"].items():
            skipped[kind] = skipped.get(kind, 0) + count
    versions = library_versions(*EXACTNESS_LIBRARIES,
                                *([language_id.IDENTIFIER] if options.language_id else []))
    return {
        "language": lang,
        "signature": signature(COMMAND, versions, {"lang": lang, **options.decisive()}),
        "versions": versions,
        "options": options.decisive(),
        "source": provenance.as_dict(),
        "bitexts": {b.pivot: {"source": b.source, **asdict(b.counts),
                              "links_without_year": b.without_year} for b in bitexts},
        "links_read": sum(b.counts.links for b in bitexts),
        "one_to_one_links": sum(b.counts.one_to_one for b in bitexts),
        "links_without_year": sum(b.without_year for b in bitexts),
        "splits": split_stats,
        "pairs_written": pairs_written,
        "bad_input": {"skipped": dict(sorted(skipped.items())),
                      "examples": [e for b in bitexts for e in b.log["examples"]][:20]},
    }
