"""An explanation as text (what `tapaco explain` prints) or as JSON data (`--json`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tapaco.core.progress import plural
from tapaco.explain.results import KINDS, PairExplanation, SentencePath, SetExplanation


def as_dict(result: SetExplanation | PairExplanation) -> dict:
    """The result as JSON data (what `--json` prints): dicts, lists, strings, numbers."""
    data = _lists(asdict(result))
    if isinstance(result, PairExplanation):
        data["connected"] = result.connected
    return {"explains": "set" if isinstance(result, SetExplanation) else "sentences", **data}


def _lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(item) for item in value]
    return value


def _path_lines(path: SentencePath, indent: str) -> list[str]:
    width = max(len(hop.sentence.lang) + 1 + len(hop.sentence.id) for hop in path.hops)
    lines = []
    for hop in path.hops:
        if hop.kinds:
            lines.append(f"{indent}    | {' + '.join(hop.kinds)}")
        sentence = hop.sentence
        mark = "*" if sentence.in_output else " "
        lines.append(f"{indent}  {mark} {f'{sentence.lang} {sentence.id}':<{width}}  "
                     f"{sentence.text}")
    return lines


def _path_title(path: SentencePath) -> str:
    through = f", through {', '.join(path.pivot_languages)}" if path.pivot_languages else ""
    return f"{plural(path.length, 'link')}{through}"


def text(result: SetExplanation | PairExplanation, out: str = "OUT") -> str:
    """The readable explanation `tapaco explain` prints; `out` names the build folder."""
    if isinstance(result, PairExplanation):
        return _pair_text(result, out)
    return _set_text(result, out)


def _set_text(result: SetExplanation, out: str) -> str:
    links = result.links
    languages = result.languages
    lines = [f"set {result.set_id}: a component of {plural(result.sentences, 'sentence')} in "
             f"{plural(len(languages), 'language')}, joined by "
             + ", ".join(f"{links[kind]} {kind}" for kind in KINDS) + " links",
             f"  language  sentences  in set {result.set_id}"]
    for size in languages:
        kept = "-  (no file)" if size.in_output is None else str(size.in_output)
        lines.append(f"  {size.lang:<8}  {size.sentences:>9}  {kept}")
    lines.append(f"(* marks a row of set {result.set_id} in {out}/<lang>.txt; the other "
                 "sentences are only in the component)")
    for language in result.explained:
        pivots = ", ".join(f"{pivot.lang} ({pivot.paths} of {language.pairs})"
                           for pivot in language.pivot_languages) or "none"
        lines += ["", f"{language.lang}: {plural(len(language.sentences), 'sentence')} in set "
                      f"{result.set_id}, {plural(language.pairs, 'pair')}; pivot languages "
                      f"(paths through them): {pivots}"]
        for number, path in enumerate(language.paths, 1):
            lines.append(f"  [{number}/{language.pairs}] {path.source.lang} {path.source.id} "
                         f"-> {path.target.lang} {path.target.id}: {_path_title(path)}")
            lines += _path_lines(path, "  ")
        hidden = language.pairs - len(language.paths)
        if hidden:
            lines.append(f"  ... {plural(hidden, 'more pair')} not shown (--max-pairs 0 shows "
                         "all)")
    return "\n".join(lines) + "\n"


def _pair_text(result: PairExplanation, out: str) -> str:
    first, second = result.first, result.second
    names = f"{result.lang} {first.id} and {result.lang} {second.id}"
    if result.path is None:
        return (f"{names} are not connected: {first.id} is in set {result.sets[0]}, "
                f"{second.id} in set {result.sets[1]} (set ids name components)\n")
    kept = first.in_output and second.in_output
    status = (f"both rows of set {result.sets[0]} in {out}/{result.lang}.txt" if kept else
              f"* marks rows of set {result.sets[0]} in {out}/<lang>.txt")
    lines = [f"{names}: set {result.sets[0]}, {_path_title(result.path)} ({status})"]
    return "\n".join(lines + _path_lines(result.path, "")) + "\n"

