"""The `import` command: a profile recorded elsewhere (PyTorch/Kineto or Chrome trace JSON,
Nsight Systems SQLite or ``cuda_gpu_trace`` CSV, PipeLab's own trace; ``.gz`` too) as
load, compute and store lanes per device, with how much of the copying is hidden and why
the GPU waits (`gpu.profile`)."""

from __future__ import annotations

import argparse

from cli.parser import HelpFormatter, add_output_arguments, emit, emit_stream, whole
from cli.paths import nonempty, text_output
from engine.analysis.writers import write_trace
from gpu.profile import Profile, load_profile
from gpu.profile.report import profile_table, write_profile_json


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="read a GPU profile (Kineto/Chrome JSON, Nsight Systems SQLite or CSV) and say "
        "how much of its copying is hidden",
        description="Read a profile someone recorded and show each device's activity as "
        "load, compute and store lanes: how long each unit was busy (the union over its "
        "streams), how the time splits into compute, overlap, copies and idle, and what "
        "perfect overlap could save. The format is told by the content; .gz is read too.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("profile", type=nonempty, metavar="FILE", help="the profile to read")
    parser.add_argument(
        "--format",
        choices=("table", "json", "trace"),
        default="table",
        help="a table per device, the figures as JSON, or PipeLab's lanes as Chrome Trace "
        "Event JSON (opens in Perfetto)",
    )
    parser.add_argument(
        "--device",
        type=whole(0, 2**31 - 1),
        default=None,
        metavar="N",
        help="only device N (default: every device, in order)",
    )
    add_output_arguments(parser, "table")


def run(args: argparse.Namespace) -> int:
    out = text_output(args.out)
    profile = load_profile(args.profile)
    if args.device is not None:
        profile = Profile(profile.format, (profile.device(args.device),), profile.left_out)
    if args.format == "json":
        emit_stream(lambda write: write_profile_json(write, profile), out)
    elif args.format == "trace":
        emit_stream(
            lambda write: write_trace(write, [run.schedule for run in profile.devices]), out
        )
    else:
        emit(profile_table(profile), out)
    return 0
