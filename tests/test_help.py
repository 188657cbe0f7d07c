"""`--help` of both programs: every subcommand listed, every option explained with its default;
`--version`; an option taking values refused when given twice (argparse would keep the last)."""

from __future__ import annotations

import argparse
import importlib.metadata
import re

import pytest

import opusparcus.cli
import tapaco.cli

PROGRAMS = {"tapaco": tapaco.cli.parser, "opusparcus": opusparcus.cli.parser}


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("program", PROGRAMS)
def test_top_level_help_lists_every_subcommand(program):
    parser = PROGRAMS[program]()
    text = parser.format_help()
    for name in _subcommands(parser):
        assert f"\n    {name}" in text, name
    assert "```" not in text and "`" not in parser.description


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_option_has_help_and_shows_its_default(program):
    for name, command in _subcommands(PROGRAMS[program]()).items():
        text = " ".join(command.format_help().split())
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{program} {name} {action.option_strings} has no help"
            default = action.default
            if action.option_strings and default not in (None, False, (), ""):
                shown = ",".join(default) if isinstance(default, tuple) else str(default)
                assert f"(default: {shown})" in text or "default" in action.help, (
                    f"{program} {name} {action.option_strings[0]} hides its default")
            if action.option_strings:  # said once: by its help, or added, never both
                entry = command.formatter_class(name)._get_help_string(action)
                assert len(re.findall(r"\(default[: ]", entry.lower())) <= 1, (
                    f"{program} {name} {action.option_strings[0]}: {entry}")


def test_each_program_lists_its_commands_and_both_serve_and_score_alike():
    assert list(_subcommands(tapaco.cli.parser())) == [
        "build", "download", "enrich", "score", "explain", "pairs", "evaluate", "serve"]
    assert list(_subcommands(opusparcus.cli.parser())) == [
        "download", "rank", "score", "sample", "annotate", "serve", "combine", "cutoff", "plot",
        "export-gem", "pairs", "evaluate"]

    def options(program, command):
        return [action.option_strings for action in _subcommands(program())[command]._actions]

    for command in ("serve", "score"):
        assert options(tapaco.cli.parser, command) == options(opusparcus.cli.parser, command)


def test_annotate_help_lists_the_keys():
    text = _subcommands(opusparcus.cli.parser())["annotate"].format_help()
    for key in ("4 good", "1 bad", "t trash", "u undo", "q quit"):
        assert key in text


def _value_accepted_by(action: argparse.Action) -> str:
    """A command-line value the option's type and choices accept."""
    if action.choices:
        return str(next(iter(action.choices)))
    for value in ("1", "en", "tsv", "jsonl", "95", "8G", "picture.svg", "2,3"):
        try:
            if action.type:
                action.type(value)
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            continue
        return value
    raise AssertionError(f"no value found for {action.option_strings}")


def _options_taking_values() -> list[tuple[str, str, str, str]]:
    """(program, subcommand, option, value) for every option that stores what follows it."""
    return [(program, name, action.option_strings[-1], _value_accepted_by(action))
            for program, make in PROGRAMS.items()
            for name, command in _subcommands(make()).items()
            for action in command._actions
            if action.option_strings and isinstance(action, argparse._StoreAction)]


def test_every_option_taking_values_is_covered():
    covered = {(program, name, option) for program, name, option, _ in _options_taking_values()}
    assert {("opusparcus", "rank", "--lang"), ("opusparcus", "plot", "--ranked"),
            ("tapaco", "build", "--seed"), ("tapaco", "explain", "--draw"),
            ("tapaco", "download", "--out"), ("tapaco", "enrich", "--beam-size")} <= covered
    assert len(covered) > 80


@pytest.mark.parametrize(("program", "command", "option", "value"), _options_taking_values())
def test_an_option_taking_values_given_twice_is_refused(program, command, option, value,
                                                        capsys):
    with pytest.raises(SystemExit) as stopped:
        PROGRAMS[program]().parse_args([command, option, value, option, value])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1, error
    assert error[0].startswith(f"{program} {command}: error: argument {option}: given twice;")


def test_list_options_keep_taking_several_values():
    plot = opusparcus.cli.parser().parse_args(
        ["plot", "--ranked", "a.bz2", "b.bz2", "--label", "A", "B", "--annotations", "c.tsv",
         "--out", "p"])
    assert [str(path) for path in plot.ranked] == ["a.bz2", "b.bz2"]
    assert plot.label == ["A", "B"]
    explain = tapaco.cli.parser().parse_args(
        ["explain", "--opus-dir", "o", "--out", "b", "--lang", "fr", "--sentence", "s1",
         "--sentence", "s2"])
    assert explain.sentences == ["s1", "s2"]


def test_plot_ranked_twice_says_to_give_the_files_after_one_option(capsys):
    with pytest.raises(SystemExit):
        opusparcus.cli.parser().parse_args(["plot", "--ranked", "A", "--ranked", "B"])
    assert "give all its values after one --ranked" in capsys.readouterr().err


@pytest.mark.parametrize("program", PROGRAMS)
def test_version_names_program_package_and_version(program, capsys):
    expected = importlib.metadata.version("pivot-paraphrase-miner")
    with pytest.raises(SystemExit) as stopped:
        PROGRAMS[program]().parse_args(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"{program} (pivot-paraphrase-miner) {expected}\n"


@pytest.mark.parametrize(("program", "command"), [
    ("tapaco", "build"), ("opusparcus", "rank"), ("opusparcus", "cutoff"),
    ("opusparcus", "export-gem")])
def test_overwrite_of_a_folder_output_says_it_never_replaces_a_file_not_its_own(program,
                                                                               command):
    """These commands write a folder (:class:`tapaco.core.outputs.OutputFolder`), which keeps
    any file it did not write even with `--overwrite` (tests/core/test_outputs.py): the help
    says so, and promises no more."""
    parser = _subcommands(PROGRAMS[program]())[command]
    [text] = [action.help for action in parser._actions if "--overwrite" in action.option_strings]
    assert "a file it did not write is never replaced" in text
    assert not re.search(r"(or|and) a (--timings )?file (it|\w+) did not write", text), text


def _breaks_too_early(text: str, width: int) -> list[str]:
    """Lines of a description or epilog (the unindented text after the usage) followed by one
    whose first word would have fitted on them: a break the source text put mid-sentence."""
    lines = text.split("\n\n", 1)[1].splitlines()
    return [f"{line!r} before {after!r}" for line, after in zip(lines, lines[1:])
            if line and after[:1].strip() and len(line) + 1 + len(after.split()[0]) <= width]


@pytest.mark.parametrize("columns", [60, 80, 100, 140])
def test_help_fills_each_paragraph_to_the_width(columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(columns))
    for program, make in PROGRAMS.items():
        parser = make()
        for name, command in {"": parser, **_subcommands(parser)}.items():
            text = command.format_help()
            assert not _breaks_too_early(text, columns - 2), (program, name)
