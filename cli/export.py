"""The `export` command (not written yet)."""

from __future__ import annotations

import argparse

from engine.errors import PipeLabError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    subparsers.add_parser("export", help="(not available yet)")


def run(args: argparse.Namespace) -> int:
    raise PipeLabError("the export command is not available yet")
