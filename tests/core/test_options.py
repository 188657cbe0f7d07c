"""Option parsing: one-line errors, range checks shared by CLI and library, help defaults."""

from __future__ import annotations

import argparse

import pytest

from tapaco.core.errors import OptionError
from tapaco.core.options import Parser, check_range, integer, languages, number


@pytest.mark.parametrize("parse, text, expected", [
    (integer(1), "3", 3), (integer(0, 5), "0", 0), (number(0, 100), "50", 50.0),
    (languages, " en, fr,en ", ("en", "fr"))])
def test_valid_values(parse, text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("parse, text", [
    (integer(1), "0"), (integer(1), "-5"), (integer(1), "2.5"), (integer(1, 64), "100000"),
    (number(0, 100), "nan"), (number(0, 100), "inf"), (number(0, 100), "-5"),
    (number(0, 1), "1e300"), (languages, ""), (languages, " , ")])
def test_values_out_of_range_are_refused(parse, text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse(text)


def test_library_checks_raise_option_errors_that_are_value_errors():
    check_range("--x", 3, 1, 5, whole=True)
    for value in (0, 6, 2.5, float("nan"), True):
        with pytest.raises(OptionError) as raised:
            check_range("--x", value, 1, 5, whole=True)
        assert isinstance(raised.value, ValueError) and str(raised.value).startswith("--x: ")


def test_parser_errors_are_one_line_and_help_shows_defaults(capsys):
    parser = Parser(prog="tool")
    parser.add_argument("--size", type=integer(1), default=7, help="how many")
    parser.add_argument("--flag", action="store_true", help="a switch")
    assert "how many (default: 7)" in " ".join(parser.format_help().split())
    assert "a switch (default" not in parser.format_help()
    with pytest.raises(SystemExit) as stopped:
        parser.parse_args(["--size", "0"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error == ["tool: error: argument --size: must be at least 1, got 0; see tool --help"]
