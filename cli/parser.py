"""argparse, made to report bad arguments as one line (PipeLabError) instead of usage."""

from __future__ import annotations

import argparse
from types import ModuleType
from typing import NoReturn

from engine.errors import PipeLabError


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise PipeLabError (one line, exit 2 in main)."""

    def error(self, message: str) -> NoReturn:
        raise PipeLabError(f"{self.prog.split()[-1]}: {message}")


def build_parser(commands: dict[str, ModuleType]) -> Parser:
    parser = Parser(
        prog="pipelab",
        description="PipeLab makes GPU pipelining visible and measurable. "
        "With no command it opens the app.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--preset", default=None, help="open the app on this preset")
    parser.add_argument("--scenario", default=None, help="open the app on this scenario file")
    subparsers = parser.add_subparsers(dest="command", title="commands", parser_class=Parser)
    for module in commands.values():
        module.add_parser(subparsers)
    return parser
