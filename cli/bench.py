"""The `bench` command (not written yet)."""

from __future__ import annotations

import argparse

from engine.errors import PipeLabError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    subparsers.add_parser("bench", help="(not available yet)")


def run(args: argparse.Namespace) -> int:
    raise PipeLabError("the bench command is not available yet")
