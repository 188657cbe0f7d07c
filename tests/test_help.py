"""`--help` of both programs: every subcommand listed, every option explained with its default."""

from __future__ import annotations

import argparse

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


def test_annotate_help_lists_the_keys():
    text = _subcommands(opusparcus.cli.parser())["annotate"].format_help()
    for key in ("4 good", "1 bad", "t trash", "u undo", "q quit"):
        assert key in text
