"""Command-line parsing shared by `tapaco` and `opusparcus`: one-line errors, help with
defaults, argument types that check ranges before any work starts, single-value options
refused when given twice (argparse keeps the last) or without the option they depend on
(`only_with=("--oversized", "split")`), `--version`, and the :class:`Command` each program
lists its subcommands as.

Options that the library API takes too are checked once, by the options dataclasses
(`__post_init__` raising :class:`~tapaco.core.errors.OptionError`), so the command line and
the library agree; the types here are for what only the command line has.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NoReturn

from tapaco.core.errors import OptionError, exit_status, usage_error_line
from tapaco.core.memory import parse_size
from tapaco.core.versions import PACKAGE, package_version


class HelpFormatter(argparse.HelpFormatter):
    """Fills descriptions to the terminal's width paragraph by paragraph (a blank line starts
    a new one; a line break inside a paragraph is a space, so no sentence breaks where the
    source text did) and appends '(default: X)' where an option has one and its help does not
    name it."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(textwrap.fill(" ".join(paragraph.splitlines()), width,
                                         initial_indent=indent, subsequent_indent=indent)
                           for paragraph in text.strip("\n").split("\n\n"))

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        says_default = "%(default)" in text or "default" in text.lower()
        if (says_default or default in (None, False, "", (), argparse.SUPPRESS)
                or not action.option_strings):
            return text
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        return f"{text} (default: {shown})"


class StoreOnce(argparse._StoreAction):
    """argparse's `store` (every option taking a value, or one list of values) that refuses
    a second occurrence, and an option given without the value of another it depends on
    (`only_with`: that option's name and value)."""

    def __init__(self, *args, only_with: tuple[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.only_with = only_with

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if option_string is not None:
            if self.dest in parser.options_given:
                several = self.nargs in ("+", "*")
                parser.error(f"argument {option_string}: given twice; "
                             + (f"give all its values after one {option_string}" if several
                                else "it takes one value"))
            parser.options_given[self.dest] = option_string
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (`prog: error: ...; see --help`), exit 2,
    whose single-value options are :class:`StoreOnce`."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)
        self.options_given: dict[str, str] = {}  # this parse's StoreOnce options: dest -> name

    def parse_known_args(self, args=None, namespace=None):
        self.options_given = {}
        parsed, rest = super().parse_known_args(args, namespace)
        self._check_dependencies(parsed)
        return parsed, rest

    def _check_dependencies(self, parsed: argparse.Namespace) -> None:
        for action in self._actions:
            if getattr(action, "only_with", None) and action.dest in self.options_given:
                option, value = action.only_with
                needed = self._option_string_actions[option]
                if getattr(parsed, needed.dest) != value:
                    self.error(f"argument {self.options_given[action.dest]}: only applies "
                               f"with {option} {value}")

    def parse_args(self, args=None, namespace=None):
        parsed, rest = self.parse_known_args(args, namespace)
        if rest:  # said by the command they were given to, as its other option errors are
            command = next((action for action in self._actions
                            if isinstance(action, argparse._SubParsersAction)), None)
            chosen = command.choices.get(getattr(parsed, command.dest, None)) if command else None
            (chosen or self).error(f"unrecognized arguments: {' '.join(rest)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        print(usage_error_line(self.prog, message), file=sys.stderr)
        sys.exit(2)


def subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    """Subcommands that are Parsers too (so their errors are one line as well)."""
    return parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                 parser_class=Parser)


@dataclass(frozen=True)
class Command:
    """A subcommand: `add_parser` adds it, with its options, to a program's subcommands and
    returns its parser; `run` does its work with the parsed options."""

    add_parser: Callable[[argparse._SubParsersAction], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], None]


def program_parser(prog: str, description: str, commands: Iterable[Command]) -> Parser:
    """A program's parser: `--version` and its commands; the parsed options of a command hold
    what runs it (`arguments.run_command(arguments)`)."""
    main = Parser(prog=prog, description=description)
    main.add_argument("--version", action="version",
                      version=f"{prog} ({PACKAGE}) {package_version()}",
                      help="print the program's version and exit")
    subparsers = subcommands(main)
    for command in commands:
        command.add_parser(subparsers).set_defaults(run_command=command.run)
    return main


def run_parsed(program: str, arguments: argparse.Namespace) -> int:
    """Run the command `arguments` were parsed for (by :func:`program_parser`), as every command
    of both programs runs: saying so when a first run compiles the kernels (not with the
    command's `--quiet`), then its exit status as :func:`~tapaco.core.errors.exit_status` gives
    it."""
    from tapaco.core.compile_notice import say_when_kernels_compile

    if not getattr(arguments, "quiet", False):
        say_when_kernels_compile()
    return exit_status(program, lambda: arguments.run_command(arguments), arguments.command)


def languages(value: str) -> tuple[str, ...]:
    """`en,fr, de` -> ('en', 'fr', 'de'): at least one, in the order given, no repeats."""
    chosen = tuple(dict.fromkeys(lang.strip() for lang in value.split(",") if lang.strip()))
    if not chosen:
        raise argparse.ArgumentTypeError(f"expected comma-separated language codes, got "
                                         f"{value!r}")
    return chosen


def output_formats(value: str, allowed: tuple[str, ...] = ("tsv", "parquet")) -> tuple[str, ...]:
    """`--format tsv,parquet`: known names, at least one."""
    from tapaco.core.dataset_card import parse_formats

    try:
        return parse_formats(value, allowed)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argument type: a whole number from `low` to `high` (inclusive; None: no bound)."""
    return _ranged(int, "a whole number", low, high)


def number(low: float, high: float | None = None) -> Callable[[str], float]:
    """An argument type: a finite number from `low` to `high` (inclusive; None: no bound)."""
    return _ranged(float, "a number", low, high)


def size(value: str) -> int:
    """An argument type: a memory size such as 8G, 512M or 1.5GiB, in bytes."""
    try:
        return parse_size(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _ranged(convert: Callable[[str], float], what: str, low: float,
            high: float | None) -> Callable[[str], float]:
    def parse(value: str) -> float:
        try:
            result = convert(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {value!r}") from None
        problem = in_range(result, low, high)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return result

    return parse


def in_range(value: float, low: float, high: float | None) -> str:
    """'' when `value` is a finite number in [low, high], else what is wrong with it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return f"expected a finite number, got {value!r}"
    if high is None and value < low:
        return f"must be at least {low:g}, got {value:g}"
    if high is not None and not low <= value <= high:
        return f"must be from {low:g} to {high:g}, got {value:g}"
    return ""


def check_range(option: str, value: float, low: float, high: float | None = None,
                whole: bool = False) -> None:
    """Raise an OptionError unless `value` is a finite number (an int when `whole`) in range."""
    problem = in_range(value, low, high)
    if not problem and whole and not isinstance(value, int):
        problem = f"expected a whole number, got {value!r}"
    if problem:
        raise OptionError(option, problem)
