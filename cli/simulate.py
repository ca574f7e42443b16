"""The `simulate` command: schedule a scenario and print or write the result."""

from __future__ import annotations

import argparse
import shutil

from cli.console import Progress, counting_lines
from cli.limits import check_simulation
from cli.parser import HelpFormatter, add_output_arguments, emit, emit_stream
from cli.paths import text_output
from cli.scenario_args import add_scenario_arguments, scenario_from_args
from cli.table import describe, policy_block, seconds
from engine.analysis.metrics import speedup
from engine.analysis.writers import Write, write_both_json, write_json, write_trace
from engine.base.text import number_text
from engine.model.schedule import Schedule
from engine.model.shape_file import simulated


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="schedule a scenario and print a text Gantt, JSON or a Perfetto trace",
        description="Schedule a scenario (a preset or a TOML file, with overrides) "
        "sequentially, pipelined, or both, and print the result.",
        formatter_class=HelpFormatter,
    )
    add_scenario_arguments(parser)
    parser.add_argument(
        "--policy",
        choices=("sequential", "pipelined", "both"),
        default=None,
        help="which schedule(s) to compute (default: the scenario's policy)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json", "trace"),
        default="table",
        help="text Gantt and metrics, the JSON contract, or Chrome Trace "
        "Event JSON (opens in Perfetto)",
    )
    add_output_arguments(parser, "text Gantt")


def run(args: argparse.Namespace) -> int:
    out = text_output(args.out)
    scenario = scenario_from_args(args)
    policy = args.policy or scenario.policy
    policies = ["sequential", "pipelined"] if policy == "both" else [policy]
    check_simulation(scenario, len(policies), args.format)
    with Progress(streaming_to_stdout=out is None and args.format != "table") as progress:
        schedules = {}
        for p in policies:
            progress.phase(f"simulating {scenario.n_ops:,} ops, {p}")
            schedules[p] = simulated(scenario, p)

        if args.format != "table":  # JSON and traces stream: 10^6 ops would not fit in memory
            tasks = sum(len(s) for s in schedules.values())
            progress.phase(f"writing {tasks:,} tasks", tasks)
            emit_stream(
                lambda write: _write_machine_format(
                    counting_lines(write, progress), args.format, schedules
                ),
                out,
            )
            return 0
        progress.phase("drawing the timeline")
        width = args.width or shutil.get_terminal_size((100, 24)).columns
        blocks = [describe(scenario, width)]
        blocks += [policy_block(s, scenario, width) for s in schedules.values()]
        if policy == "both":
            seq, pipe = schedules["sequential"], schedules["pipelined"]
            blocks.append(
                f"speedup      {number_text(speedup(seq, pipe))}× (sequential "
                f"{seconds(seq.makespan)} → pipelined {seconds(pipe.makespan)})"
            )
        text = "\n\n".join(blocks)
    emit(text, out)
    return 0


def _write_machine_format(write: Write, format: str, schedules: dict[str, Schedule]) -> None:
    if format == "trace":
        write_trace(write, list(schedules.values()))
    elif len(schedules) == 2:
        write_both_json(write, schedules["sequential"], schedules["pipelined"])
    else:
        (schedule,) = schedules.values()
        write_json(write, schedule)
    write("\n")
