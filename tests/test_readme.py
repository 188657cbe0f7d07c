"""The README's own code: its Python blocks run, and its quick-start commands work as written."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT, SAMPLE

README = (PROJECT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def _sample_project(tmp_path: Path) -> Path:
    """A folder shaped like the project for the commands' relative paths (the sample only)."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root / "tapaco" / "sample" / "tatoeba-v2")
    return root


def test_python_blocks_run(tmp_path, monkeypatch):
    blocks = _blocks("python")
    assert blocks, "the README shows the library API"
    monkeypatch.chdir(tmp_path)
    datasets = pytest.importorskip("datasets", reason="a README example loads Parquet output "
                                   "with the datasets library (test extra)")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf")
    shutil.copytree(SAMPLE, tmp_path / "tatoeba")
    root = _sample_project(tmp_path)
    _run(_quick_start_commands()[0], root)  # the blocks may read what the quick start made
    shutil.copytree(root / "out", tmp_path / "out")
    with open(tmp_path / "out" / "fr.txt", "a", encoding="utf-8") as french_file:
        french_file.write('99\t7\t"Quoi ?" dit-il.\t\tNA\n')  # quotes and "NA" are text
    namespaces = []
    for block in blocks:
        namespaces.append({"__name__": "readme"})
        exec(compile(block, "README.md", "exec"), namespaces[-1])
    assert (tmp_path / "tapaco-out" / "stats.json").is_file()
    assert (tmp_path / "out-parquet" / "data" / "fr.parquet").is_file()
    french = next(space["french"] for space in namespaces if "pd" in space)
    lines = (tmp_path / "out" / "fr.txt").read_text(encoding="utf-8").splitlines()
    assert french.values.tolist() == [line.split("\t") for line in lines]


def _quick_start_commands() -> list[list[str]]:
    """The `python -m ...` commands of the quick start (everything before its first `##`)."""
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", quick_start, re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part)
                if words[:2] == ["python", "-m"] and "pytest" not in words:
                    commands.append(words)
    return commands


def _run(words: list[str], root: Path, answers: str = "") -> None:
    result = subprocess.run([sys.executable, *words[1:]], cwd=root, capture_output=True,
                            text=True, timeout=300, input=answers)
    assert result.returncode == 0, (words, result.stderr)


def test_quick_start_commands_work(tmp_path):
    commands = _quick_start_commands()
    assert [words[2] for words in commands] == ["tapaco", "opusparcus"]
    root = _sample_project(tmp_path)
    for words in commands:
        _run(words, root)
    assert (root / "out" / "fr.txt").is_file()
    assert (root / "out-opusparcus" / "fr" / "train" / "fr-train.txt.bz2").is_file()


def _annotation_commands() -> list[list[str]]:
    section = README.split("## Annotation and quality cut-offs", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_annotation_example_runs_on_the_quick_start_output(tmp_path):
    """Two people's answers typed into `annotate`: the first likes the top of the ranking."""
    root = _sample_project(tmp_path)
    for words in _quick_start_commands():
        _run(words, root)
    answers = {"1": "4\n" * 15 + "2\n" * 5, "2": "4\n" * 10 + "3\n" * 5 + "1\n" * 5}
    commands = _annotation_commands()
    assert [words[3] for words in commands] == ["sample", "annotate", "annotate", "combine",
                                                "cutoff", "plot"]
    for words in commands:
        annotator = words[words.index("--annotator") + 1] if "--annotator" in words else ""
        _run(words, root, answers.get(annotator, ""))
    combined = (root / "fr-combined.tsv").read_text().splitlines()
    scores = [line.split("\t")[-1] for line in combined[1:]]
    assert sorted(scores) == ["1.5"] * 5 + ["3.5"] * 5 + ["4.0"] * 10  # (2, 1) is adjacent
    assert (root / "fr-cuts" / "cutoffs.json").is_file()
    assert (root / "fr-figure.png").is_file()


def _readme_command_lines() -> list[list[str]]:
    """Every `python -m tapaco|opusparcus ...` command of the README's shell blocks."""
    commands = []
    for block in _blocks("sh"):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:2] == ["python", "-m"] and words[2] in ("tapaco", "opusparcus"):
                    commands.append(words)
    return commands


def test_every_command_the_readme_shows_parses():
    import opusparcus.cli
    import tapaco.cli

    parsers = {"tapaco": tapaco.cli.parser(), "opusparcus": opusparcus.cli.parser()}
    commands = _readme_command_lines()
    assert len(commands) > 20 and {words[3] for words in commands} >= {
        "build", "download", "explain", "serve", "enrich", "rank", "sample", "combine"}
    for words in commands:
        try:
            parsers[words[2]].parse_args(words[3:])
        except SystemExit:
            pytest.fail(f"the README shows a command its parser refuses: {shlex.join(words)}")


def test_readme_and_docs_cite_what_users_have():
    """Users have the papers, OPUS and the project's docs, not the maintainers' contract."""
    for page in [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]:
        assert not re.search(r"\bSPEC\b", page.read_text(encoding="utf-8")), page.name


def test_the_test_command_enters_the_quick_starts_venv():
    """Run in a new shell, the test command must still use the quick start's environment."""
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    test_command = next(line for block in re.findall(r"```sh\n(.*?)```", quick_start, re.S)
                        for line in block.splitlines() if "pytest" in line)
    assert test_command.startswith(". .venv/bin/activate && ")
