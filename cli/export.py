"""The `export` command: the app's timeline rendered headless as a figure — PNG, SVG, PDF,
an animated GIF or WebP of the assembly line over the Gantt — or the Chrome trace JSON.

Qt loads only here, on the offscreen platform, after the arguments and the target were
checked; a bad suffix, folder, size, rows, theme, scale or time fails in a line (exit 2)
without starting Qt at all, and leaves no file.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from cli.console import Progress, counting_lines
from cli.limits import check_simulation
from cli.parser import HelpFormatter, whole
from cli.paths import check_output_path, nonempty
from cli.scenario_args import add_scenario_arguments, scenario_flags_given, scenario_from_args
from engine.analysis.writers import write_trace
from engine.base.atomic import write_text_atomic
from engine.base.errors import PipeLabError
from engine.base.validation import shown, value_text
from engine.model.schedule import Schedule
from engine.model.shape_file import simulated
from gui.export_formats import (  # the one table of formats and limits: no Qt
    BY_SUFFIX,
    DEFAULT_FPS,
    DEFAULT_SIZE,
    DEFAULT_WIDTH,
    FORMATS,
    MAX_FPS,
    MAX_SCALE,
    MAX_WIDTH,
    MIN_FPS,
    MIN_SCALE,
    MIN_WIDTH,
    ROWS,
    SIZES,
    SUFFIXES,
    THEMES,
    names,
    words_list,
)


def _scale(text: str) -> float:
    """``--scale``: a number from 1 to 4 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {shown(text)}") from None
    if not (math.isfinite(value) and MIN_SCALE <= value <= MAX_SCALE):
        raise argparse.ArgumentTypeError(
            f"must be between {MIN_SCALE:g} and {MAX_SCALE:g}, not {value_text(value)}"
        )
    return value


def _suffixes_help() -> str:
    """ ".png, .svg, … or .json (Chrome trace)": every format's suffix, the trace's named."""
    return words_list([f.suffix if f.figure else f"{f.suffix} ({f.name})" for f in FORMATS], "or")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help=f"render the timeline to {'/'.join(f.name for f in FORMATS if f.figure)}, or "
        "write a Chrome trace",
        description="Render a scenario's timeline as a figure, headless: row labels, run "
        "titles, a time axis, makespans, a legend and the headline numbers. PNG (--width "
        "px, --scale, --transparent), SVG and PDF at a physical --size, an animated GIF or "
        "WebP of the assembly line over the Gantt, or Chrome trace JSON.",
        formatter_class=HelpFormatter,
    )
    add_scenario_arguments(parser)
    parser.add_argument(
        "--profile",
        type=nonempty,
        default=None,
        metavar="FILE",
        help="draw a recorded profile instead of a scenario (Kineto/Chrome JSON, Nsight "
        "Systems SQLite or CSV, PipeLab's trace; see `pipelab import`): each device's lanes "
        "and, where it has chains, a pipeline of them beside",
    )
    parser.add_argument(
        "--device",
        type=whole(0, 2**31 - 1),
        default=None,
        metavar="N",
        help="with --profile: only device N",
    )
    parser.add_argument(
        "--out",
        required=True,
        type=nonempty,
        metavar="FILE",
        help=f"FILE{_suffixes_help()}; written atomically",
    )
    parser.add_argument(
        "--width",
        type=whole(MIN_WIDTH, MAX_WIDTH, "pixels"),
        default=None,
        metavar="PX",
        help=f"image width in pixels, PNG and animations (default: {DEFAULT_WIDTH}, or the "
        "--size at 96 px per inch)",
    )
    parser.add_argument(
        "--size",
        choices=SIZES,
        default=None,
        help=f"lay the figure out {' / '.join(f'{inches:g}' for inches in SIZES.values())} in "
        f"wide (default for {names('vector')}: {DEFAULT_SIZE})",
    )
    parser.add_argument(
        "--scale",
        type=_scale,
        default=1.0,
        help="pixels per pixel of --width for PNG and animations: 2 for a retina slide",
    )
    parser.add_argument(
        "--transparent",
        action="store_true",
        help=f"no background ({', '.join(f.name for f in FORMATS if f.transparent)})",
    )
    parser.add_argument(
        "--rows",
        choices=ROWS,
        default="workers",
        help="one row per worker, or one per op (the textbook staircase)",
    )
    parser.add_argument("--theme", choices=THEMES, default="light", help="figure colours")
    parser.add_argument(
        "--policy",
        choices=("sequential", "pipelined", "both"),
        default="both",
        help="which schedule(s) to draw",
    )
    parser.add_argument(
        "--assembly",
        action="store_true",
        help="draw the assembly line (at --time, else at 0) above the timeline; "
        "animations always have it (not in SVG)",
    )
    parser.add_argument(
        "--time",
        type=float,
        default=None,
        metavar="T",
        help="draw the cursor at time T (default: no cursor)",
    )
    parser.add_argument(
        "--no-caption",
        action="store_true",
        help="leave out the headline line (sequential 9 s → pipelined 5 s, 1.8×)",
    )
    parser.add_argument(
        "--title",
        default=None,
        metavar="TEXT",
        help="the figure's title (default: the scenario's name; '' for none)",
    )
    parser.add_argument(
        "--fps",
        type=whole(MIN_FPS, MAX_FPS, "frames"),
        default=DEFAULT_FPS,
        help=f"animation frames per second ({MIN_FPS} to {MAX_FPS})",
    )


def check_flags(args: argparse.Namespace, suffix: str) -> None:
    """Flags that do not fit the format: one line each, before anything is simulated."""
    if args.time is not None and not math.isfinite(args.time):
        raise PipeLabError(f"--time must be a finite number, not {args.time}")
    form = BY_SUFFIX[suffix]
    if form.vector and args.width is not None:
        raise PipeLabError(f"--width is for PNG and animations; give {suffix} a --size")
    if form.vector and args.scale != 1.0:
        raise PipeLabError(f"--scale is for PNG and animations; {suffix} is drawn in points")
    if args.assembly and form.figure and not form.assembly:
        raise PipeLabError(
            f"{form.name} cannot hold the assembly line as shapes and text (it draws pictures "
            "of its workers): export it to PDF or PNG, or leave out --assembly"
        )
    if args.transparent and form.figure and not form.transparent:
        raise PipeLabError(f"--transparent is for {names('transparent')}, not animations")


def run(args: argparse.Namespace) -> int:
    out = check_output_path(args.out, SUFFIXES)  # the one check: name, suffix, folder
    suffix = out.suffix.lower()
    check_flags(args, suffix)
    with Progress() as progress:
        if args.profile is not None:
            progress.phase("reading the profile")
            schedules, name = _profile_runs(args)
        else:
            schedules, name = _scenario_runs(args, suffix, progress)
        end = max(s.makespan for s in schedules)
        if args.time is not None and not 0 <= args.time <= end:
            # Both ends exact: "--time 9.0000001 … from 0 to 9 s", never "--time 9 … to 9 s".
            raise PipeLabError(
                f"--time {value_text(args.time)} is outside the run: give a time from 0 to "
                f"{value_text(end)} {schedules[0].time_unit}"
            )
        if not BY_SUFFIX[suffix].figure:
            tasks = sum(len(s) for s in schedules)
            progress.phase(f"writing {tasks:,} tasks", tasks)
            # Streamed as `simulate --format trace` writes it: never the whole text in memory.
            write_text_atomic(
                out, lambda write: write_trace(counting_lines(write, progress), schedules)
            )
            return 0
        progress.phase(f"drawing the {suffix[1:].upper()} (the app's renderer)")
        _render(args, out, schedules, name)
    return 0


def _scenario_runs(
    args: argparse.Namespace, suffix: str, progress: Progress
) -> tuple[list[Schedule], str]:
    """The scenario's runs under ``--policy``, and its name."""
    if args.device is not None:
        raise PipeLabError("--device is for --profile: a scenario has no devices")
    scenario = scenario_from_args(args)
    policies = ["sequential", "pipelined"] if args.policy == "both" else [args.policy]
    check_simulation(scenario, len(policies), "trace-export" if suffix == ".json" else "image")
    schedules = []
    for policy in policies:
        progress.phase(f"simulating {scenario.n_ops:,} ops, {policy}")
        schedules.append(simulated(scenario, policy))
    return schedules, scenario.name


def _profile_runs(args: argparse.Namespace) -> tuple[list[Schedule], str]:
    """The profile's devices, each with its what-if beside, and the file's name."""
    given = scenario_flags_given(args)
    if given:
        raise PipeLabError(
            f"--profile draws the profile as it was recorded; leave out {', '.join(given)}"
        )
    from gpu.profile import load_profile
    from gpu.profile.chains import profile_runs

    profile = load_profile(args.profile)
    runs = profile.devices if args.device is None else (profile.device(args.device),)
    return profile_runs(runs), Path(args.profile).name


def _render(args: argparse.Namespace, out: Path, schedules: list[Schedule], name: str) -> None:
    """Draw ``schedules`` with the app's own renderer, headless (Qt loads only here)."""
    if "PySide6.QtWidgets" not in sys.modules:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads: no display needed
    from PySide6.QtWidgets import QApplication

    from gui.export import export

    app = QApplication.instance() or QApplication(["pipelab-export"])
    export(
        schedules,
        out,
        width=args.width,
        size=args.size,
        scale=args.scale,
        transparent=args.transparent,
        rows=args.rows,
        theme=args.theme,
        time=args.time,
        with_assembly=args.assembly,
        title=name if args.title is None else args.title,
        caption=not args.no_caption,
        fps=args.fps,
    )
    del app
