"""The `export` command: the app's own timeline (and assembly line) rendered headless to
PNG, SVG, PDF or an animated GIF, or the Chrome trace JSON.

Qt loads only here, on the offscreen platform, after the arguments and the target were
checked; a bad suffix or folder fails in a line without starting Qt at all.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from cli.limits import check_simulation
from cli.parser import HelpFormatter
from cli.paths import check_output_path
from cli.scenario_args import add_scenario_arguments, scenario_from_args
from engine.errors import PipeLabError
from engine.scheduler import simulate

SUFFIXES = (".png", ".svg", ".pdf", ".gif", ".json")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="render the timeline to PNG/SVG/PDF/GIF, or write a Chrome trace",
        description="Render the app's timeline of a scenario headless: PNG (--width px), "
        "SVG, PDF, an animated GIF of the assembly line, or Chrome trace JSON.",
        formatter_class=HelpFormatter,
    )
    add_scenario_arguments(parser)
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="FILE.png, .svg, .pdf, .gif or .json (Chrome trace); written atomically",
    )
    parser.add_argument("--width", type=int, default=1600, metavar="PX", help="image width")
    parser.add_argument(
        "--policy",
        choices=("sequential", "pipelined", "both"),
        default="both",
        help="which schedule(s) to draw",
    )
    parser.add_argument(
        "--assembly",
        action="store_true",
        help="draw the assembly line at --time above the timeline (GIFs always have it)",
    )
    parser.add_argument(
        "--time", type=float, default=0.0, metavar="T", help="cursor time for the picture"
    )
    parser.add_argument("--fps", type=int, default=10, help="GIF frames per second")


def check_suffix(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise PipeLabError(
            f"{path}: unknown export format {suffix or '(no suffix)'!r} "
            f"(use one of {', '.join(SUFFIXES)})"
        )
    return suffix


def run(args: argparse.Namespace) -> int:
    check_output_path(args.out, SUFFIXES)
    suffix = check_suffix(args.out)
    if not math.isfinite(args.time):
        raise PipeLabError(f"--time must be a finite number, not {args.time}")
    folder = Path(args.out).parent
    if str(folder) and not folder.is_dir():
        raise PipeLabError(f"{args.out}: folder {folder} does not exist")
    scenario = scenario_from_args(args)
    policies = ["sequential", "pipelined"] if args.policy == "both" else [args.policy]
    check_simulation(scenario, len(policies), "trace-export" if suffix == ".json" else "image")
    schedules = [simulate(scenario, p) for p in policies]
    if suffix == ".json":
        from engine.atomic import write_atomic
        from engine.writers import to_trace

        write_atomic(args.out, to_trace(schedules).encode("utf-8"))
        return 0
    if "PySide6.QtWidgets" not in sys.modules:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads: no display needed
    from PySide6.QtWidgets import QApplication

    from gui.export import export

    app = QApplication.instance() or QApplication(["pipelab-export"])
    export(
        schedules,
        args.out,
        width=args.width,
        time=args.time,
        with_assembly=args.assembly,
        title=scenario.name,
        fps=args.fps,
    )
    del app
    return 0
