"""The `warps` command: simulate one SM hiding memory latency with W warps, and print the
timeline and the issue unit's utilization next to the model's min(1, W·C / (C + L))."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from typing import Any

import numpy as np

from cli.console import Progress, counting_lines
from cli.parser import HelpFormatter, add_output_arguments, emit, emit_stream, whole
from cli.paths import text_output
from engine.analysis.writers import Write
from engine.base.text import count_words, number_text
from engine.latency.warp_stream import WarpSummary, burst_chunks, summarize, write_warp_tasks
from engine.latency.warps import (
    COMPUTE,
    MAX_BURSTS,
    MAX_COMPUTE,
    MAX_CYCLES,
    MAX_LATENCY,
    MAX_WARPS,
    MEMORY,
    UNIT_NAMES,
    WarpConfig,
    WarpRun,
)

#: Above this many warps the text Gantt and the per-warp stall list are summarized.
_GANTT_WARPS = 32
_LISTED_WARPS = 16


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    defaults = WarpConfig()
    parser = subparsers.add_parser(
        "warps",
        help="simulate warp latency hiding on one SM (issue-unit utilization vs warps)",
        description="One SM, W warps, one issue unit. Each warp computes C cycles (holding "
        "the issue unit), then waits L cycles for a memory load; the free issue unit goes "
        "to the warp that became ready first. Prints the timeline and the issue unit's "
        "utilization next to the model's min(1, W·C / (C + L)).",
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--warps",
        type=whole(1, MAX_WARPS, "warps"),
        default=defaults.warps,
        metavar="W",
        help=f"warps resident on the SM (1 to {MAX_WARPS:,})",
    )
    parser.add_argument(
        "--latency",
        type=whole(0, MAX_LATENCY, "cycles"),
        default=defaults.latency,
        metavar="L",
        help=f"memory load latency in cycles (0 to {MAX_LATENCY:,})",
    )
    parser.add_argument(
        "--compute",
        type=whole(1, MAX_COMPUTE, "cycles"),
        default=defaults.compute,
        metavar="C",
        help=f"cycles of compute per burst between loads (1 to {MAX_COMPUTE:,})",
    )
    parser.add_argument(
        "--cycles",
        type=whole(1, MAX_CYCLES, "cycles"),
        default=defaults.cycles,
        metavar="T",
        help=f"length of the run in cycles (1 to {MAX_CYCLES:,}; at most "
        f"{MAX_BURSTS:,} bursts, i.e. T / C)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="text timeline and metrics, or JSON (the contract's tasks and utilization, "
        "plus the model's value)",
    )
    add_output_arguments(parser, "text timeline")


def _number(value: float | None) -> float | int | None:
    if value is None:
        return None
    rounded = float(f"{value:.12g}")
    return int(rounded) if rounded.is_integer() else rounded


def _fields(values: dict[str, Any], indent: str) -> str:
    return ",\n".join(f"{indent}{json.dumps(k)}: {json.dumps(v)}" for k, v in values.items())


def write_run_json(write: Write, summary: WarpSummary, progress: Progress | None = None) -> None:
    """The contract's JSON object for the run (tasks one per line) plus the model's
    numbers, streamed: the tasks are written a chunk at a time, never all in memory."""
    config = summary.config
    head = {
        "policy": "oldest ready first",
        "source": "simulated",
        "time_unit": "cycles",
        "makespan": _number(summary.makespan),
        "ops": config.warps,
        "buffers": 0,
        "workers": {UNIT_NAMES[0]: config.warps, UNIT_NAMES[1]: 1},
    }
    tail = {
        "utilization": {k: _number(v) for k, v in summary.utilization_by_unit().items()},
        "warps": config.warps,
        "compute": config.compute,
        "latency": config.latency,
        "cycles": config.cycles,
        "issue_utilization": _number(summary.utilization),
        "steady_state_utilization": _number(summary.steady_state_utilization),
        "analytic_utilization": _number(config.analytic_utilization),
        "knee_warps": _number(config.knee),
        "stall_cycles": [_number(v) for v in summary.stall_cycles.tolist()],
    }
    write("{\n" + _fields(head, " ") + ',\n "tasks": [')
    if progress is not None:
        progress.phase(f"writing {summary.tasks:,} tasks", summary.tasks)
        write = counting_lines(write, progress)
    write_warp_tasks(write, config, "  ")
    write("\n ],\n" + _fields(tail, " ") + "\n}\n")


def run_to_dict(run: WarpRun) -> dict[str, Any]:
    """The JSON object as a dict, from a simulated `WarpRun` (for callers with one)."""
    buffer = io.StringIO()
    write_run_json(buffer.write, summarize(run.config))
    data: dict[str, Any] = json.loads(buffer.getvalue())
    return data


_MARKS = {COMPUTE: "█", MEMORY: "░"}
_READY = "·"
_WARP_NAMES = "123456789ABCDEFGHIJKLMNOPQRSTUVW"


def text_lanes(config: WarpConfig, width: int) -> str:
    """One text lane per warp (█ computing, ░ waiting for memory, · ready but not picked)
    and the issue unit's lane (which warp holds it; blank when it idles). Drawn from the
    run's bursts a chunk at a time: loads first, then bursts, so a burst shorter than a
    cell still shows."""
    warps = config.warps
    labels = [f"warp {k + 1}" for k in range(warps)] + ["issue unit"]
    margin = max(len(label) for label in labels) + 2
    cells = max(10, width - margin)
    scale = cells / config.cycles
    lanes = np.full((warps + 1, cells), _READY, dtype="<U1")
    lanes[warps] = " "

    def span(start: np.ndarray, end: np.ndarray) -> tuple[list[int], list[int]]:
        lo = np.minimum(cells - 1, np.floor(start * scale).astype(np.int64))
        hi = np.maximum(lo + 1, np.ceil(end * scale).astype(np.int64))
        return lo.tolist(), hi.tolist()

    for part in burst_chunks(config):
        for warp, a, b in zip(
            part.load_warp.tolist(), *span(part.load_start, part.load_end), strict=True
        ):
            lanes[warp, a:b] = _MARKS[MEMORY]
    for part in burst_chunks(config):
        for warp, a, b in zip(part.warp.tolist(), *span(part.start, part.end), strict=True):
            lanes[warp, a:b] = _MARKS[COMPUTE]
            lanes[warps, a:b] = _WARP_NAMES[warp % 32]
    end = f"{config.cycles:,} cycles"
    lines = [" " * margin + "0".ljust(cells - len(end)) + end]
    lines += [
        label.ljust(margin) + "".join(lane) for label, lane in zip(labels, lanes, strict=True)
    ]
    lines.append(" " * margin + "█ computing  ░ waiting for memory  · ready, not picked")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "n/a (the run ends within the warm-up)" if value is None else f"{value:.1%}"


def run_to_table(summary: WarpSummary, width: int) -> str:
    config = summary.config
    lines = [
        f"One SM, {count_words(config.warps, 'warp')}: {count_words(config.compute, 'cycle')} of "
        f"compute per burst, memory latency {count_words(config.latency, 'cycle')}, "
        f"{count_words(config.cycles, 'cycle')} simulated",
    ]
    if config.warps <= _GANTT_WARPS:
        lines.append(text_lanes(config, width))
    else:
        lines.append(f"(timeline not drawn for more than {_GANTT_WARPS} warps)")
    knee = config.knee
    side = "at or above" if config.warps >= knee else "below"
    lines += [
        f"issue unit   {_percent(summary.utilization)} busy over the run, "
        f"{_percent(summary.steady_state_utilization)} in steady state",
        f"model        min(1, W·C / (C + L)) = {config.analytic_utilization:.1%}",
        f"knee         W = (C + L) / C = {number_text(knee)} warps hide the latency; "
        f"{config.warps} is {side} the knee",
    ]
    stalls = summary.stall_cycles
    if config.warps <= _LISTED_WARPS:
        listed = ", ".join(f"{k + 1}: {v:,.0f}" for k, v in enumerate(stalls.tolist()))
        lines.append(f"stalls       cycles ready but not picked, per warp: {listed}")
    lines.append(
        f"             mean {number_text(stalls.mean())} cycles per warp "
        f"({stalls.mean() / config.cycles:.1%} of the run), most {stalls.max():,.0f}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    out = text_output(args.out)
    config = WarpConfig(
        warps=args.warps, compute=args.compute, latency=args.latency, cycles=args.cycles
    )
    with Progress(streaming_to_stdout=out is None and args.format == "json") as progress:
        progress.phase(f"simulating {config.warps:,} warps for {config.cycles:,} cycles")
        summary = summarize(config)
        if args.format == "json":
            emit_stream(lambda write: write_run_json(write, summary, progress), out)
            return 0
        width = args.width or shutil.get_terminal_size((100, 24)).columns
        progress.phase("drawing the timeline")
        text = run_to_table(summary, width)
    emit(text, out)
    return 0
