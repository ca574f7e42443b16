"""argparse, made to report bad arguments as one line (PipeLabError) instead of usage."""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from cli.paths import nonempty
from cli.stdout import stdout_writer, write_stdout
from engine.base.atomic import write_text_atomic
from engine.base.errors import PipeLabError
from engine.base.resources import model_doc, version
from engine.base.validation import whole_number_text

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


def model_doc_epilog() -> str:
    """Where every help text sends people for what the numbers mean: the page in the
    source and where an installed PipeLab keeps it, and the app's menu."""
    return (
        "What ops, stages, units, workers and buffer slots are, how they are scheduled and "
        f"what the limits are: the model, docs/model.md in the source ({model_doc()} here), "
        "or Help → The model in the app."
    )


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Appends "(default: …)" to a flag's help unless the help already says its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "default" in text or action.default in (None, argparse.SUPPRESS, False):
            return text
        return super()._get_help_string(action)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        # Paragraphs (the description, the epilog) break at spaces only: a path such as
        # /home/me/my-venv/…/model.md stays whole, for copying.
        words = " ".join(text.split())
        return textwrap.fill(
            words,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=False,
        )


_DIGITS = r"\d(?:_?\d)*"
#: What argparse takes for a negative number (a value), not an option: every form float()
#: and int() read. argparse's own pattern misses exponents, so ``--read -1e-7`` said
#: "expected one argument" where ``--read=-1e-7`` names the value and the limit.
NEGATIVE_NUMBER = re.compile(
    rf"^-(?:(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][-+]?{_DIGITS})?"
    r"|inf|infinity|nan)$",
    re.IGNORECASE,
)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise PipeLabError (one line, exit 2 in main); every
    command's help ends by pointing to docs/model.md; every negative number, exponents
    included, is a value (`NEGATIVE_NUMBER`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("epilog", model_doc_epilog())
        super().__init__(*args, **kwargs)
        # A private attribute, read by argparse on every Python PipeLab supports (3.11+);
        # each subparser is a Parser too, so every command gets it.
        self._negative_number_matcher = NEGATIVE_NUMBER

    def error(self, message: str) -> NoReturn:
        # main() prefixes "pipelab: "; a subcommand adds its own name ("simulate: …").
        command = self.prog.split()[1:]
        raise PipeLabError(f"{command[-1]}: {message}" if command else message)

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse's own print (--help, --version) drops OSErrors and exits 0: a help
        # written to a full disk would pass for success.
        if message and (file is None or file is sys.stdout):
            write_stdout(message)
        else:
            super()._print_message(message, file)


class AppParser(Parser):
    """The top-level parser: ``--preset``, ``--scenario`` and ``--profile`` before any
    command are the app's, and, as under every command, one of them. Given with a command they would
    be silently replaced by the command's own (``pipelab --preset many-ops simulate`` ran
    the book example): refused instead."""

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        preset, scenario = parsed.__dict__.pop("app_preset"), parsed.__dict__.pop("app_scenario")
        profile = parsed.__dict__.pop("app_profile")
        if parsed.command is None:
            parsed.preset, parsed.scenario, parsed.profile = preset, scenario, profile
        elif preset is not None or scenario is not None or profile is not None:
            flag = "--preset" if preset is not None else "--scenario" if scenario else "--profile"
            self.error(
                f"{flag} before a command is the app's; give it after the command "
                f"(pipelab {parsed.command} {flag} …)"
            )
        return parsed, extras


def build_parser(commands: dict[str, ModuleType]) -> Parser:
    parser = AppParser(
        prog="pipelab",
        description="PipeLab makes GPU pipelining visible and measurable. "
        "With no command it opens the app.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "-V",
        "--version",
        action="version",
        version=f"pipelab {version()}",
        help="print PipeLab's version and exit",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--preset",
        dest="app_preset",
        type=nonempty,
        default=None,
        metavar="PRESET",
        help="open the app on this preset",
    )
    source.add_argument(
        "--scenario",
        dest="app_scenario",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="open the app on this scenario file",
    )
    source.add_argument(
        "--profile",
        dest="app_profile",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="open the app on a recorded GPU profile (Kineto/Chrome JSON, Nsight Systems "
        "SQLite or CSV; .gz too): its lanes, figures and what-if",
    )
    subparsers = parser.add_subparsers(dest="command", title="commands", parser_class=Parser)
    for module in commands.values():
        module.add_parser(subparsers)
    return parser


def add_output_arguments(parser: argparse.ArgumentParser, drawing: str) -> None:
    """``--out FILE`` and ``--width COLUMNS`` for commands that print text."""
    parser.add_argument(
        "--out",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="write to FILE (atomically) instead of standard output ('-': standard output)",
    )
    parser.add_argument(
        "--width",
        type=columns,
        default=None,
        metavar="COLUMNS",
        help=f"width of the {drawing}, 1 to {MAX_COLUMNS:,} (default: the terminal's)",
    )


#: Widest text drawing a command makes (a wider one only costs memory: rows × columns).
MAX_COLUMNS = 10_000


def whole(low: int, high: int, unit: str = "") -> Callable[[str], int]:
    """argparse type for a flag that takes a whole number in [low, high]: the rule files
    follow (`engine.base.validation.whole_number`: 3.0 and 1e3 are whole, 3.5 is not), with its
    words ("argument --ops: must be a whole number, not 3.5")."""

    def parse(text: str) -> int:
        try:
            return whole_number_text(text, "", low, high, unit)
        except PipeLabError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


#: ``--width``: a whole number of columns in [1, MAX_COLUMNS] (argparse type).
columns = whole(1, MAX_COLUMNS, "columns")


def emit(text: str, out: str | Path | None) -> None:
    """Print ``text``, or write it to ``out`` atomically (never a half-written file)."""
    emit_stream(lambda write: write(text + "\n"), out)


def emit_stream(produce: Callable[[Callable[[str], Any]], None], out: str | Path | None) -> None:
    """Hand ``produce`` a ``write`` for standard output, or for ``out`` (atomically).
    Either way a failed write is one line (`cli.stdout`, `engine.base.atomic`)."""
    if out is not None:
        write_text_atomic(out, produce)
    else:
        with stdout_writer() as write:
            produce(write)
