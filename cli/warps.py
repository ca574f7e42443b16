"""The `warps` command: simulate one SM hiding memory latency with W warps, and print the
timeline and the issue unit's utilization next to the model's min(1, W·C / (C + L))."""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

import numpy as np

from cli.parser import HelpFormatter, add_output_arguments, emit
from engine.warps import (
    COMPUTE,
    ISSUE_UNIT,
    MAX_BURSTS,
    MAX_CYCLES,
    MAX_WARPS,
    MEMORY,
    WarpConfig,
    WarpRun,
    simulate_warps,
)
from engine.writers import schedule_to_dict

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
        type=int,
        default=defaults.warps,
        metavar="W",
        help=f"warps resident on the SM (1 to {MAX_WARPS:,})",
    )
    parser.add_argument(
        "--latency",
        type=int,
        default=defaults.latency,
        metavar="L",
        help="memory load latency in cycles (0 or more)",
    )
    parser.add_argument(
        "--compute",
        type=int,
        default=defaults.compute,
        metavar="C",
        help="cycles of compute per burst between loads (1 or more)",
    )
    parser.add_argument(
        "--cycles",
        type=int,
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


def run_to_dict(run: WarpRun) -> dict[str, Any]:
    """The contract's JSON object for the run's Schedule, plus the model's numbers."""
    config = run.config
    data = schedule_to_dict(run.schedule)
    data.update(
        {
            "warps": config.warps,
            "compute": config.compute,
            "latency": config.latency,
            "cycles": config.cycles,
            "issue_utilization": _number(run.utilization),
            "steady_state_utilization": _number(run.steady_state_utilization),
            "analytic_utilization": _number(config.analytic_utilization),
            "knee_warps": _number(config.knee),
            "stall_cycles": [_number(v) for v in run.stall_cycles.tolist()],
        }
    )
    return data


_MARKS = {COMPUTE: "█", MEMORY: "░"}
_READY = "·"
_WARP_NAMES = "123456789ABCDEFGHIJKLMNOPQRSTUVW"


def text_lanes(run: WarpRun, width: int) -> str:
    """One text lane per warp (█ computing, ░ waiting for memory, · ready but not picked)
    and the issue unit's lane (which warp holds it; blank when it idles)."""
    schedule = run.schedule
    warps = run.config.warps
    labels = [f"warp {k + 1}" for k in range(warps)] + ["issue unit"]
    margin = max(len(label) for label in labels) + 2
    cells = max(10, width - margin)
    scale = cells / run.config.cycles
    lanes = np.full((warps + 1, cells), _READY, dtype="<U1")
    lanes[warps] = " "
    lo = np.minimum(cells - 1, np.floor(schedule.start * scale).astype(np.int64))
    hi = np.maximum(lo + 1, np.ceil(schedule.end * scale).astype(np.int64))
    # Loads first, then bursts, so a burst shorter than a cell still shows.
    for task in np.argsort(schedule.stage == COMPUTE, kind="stable").tolist():
        if schedule.unit[task] == ISSUE_UNIT:
            lanes[warps, lo[task] : hi[task]] = _WARP_NAMES[int(schedule.op[task]) % 32]
        else:
            row = int(schedule.worker[task])
            lanes[row, lo[task] : hi[task]] = _MARKS[int(schedule.stage[task])]
    end = f"{run.config.cycles:,} cycles"
    lines = [" " * margin + "0".ljust(cells - len(end)) + end]
    lines += [
        label.ljust(margin) + "".join(lane) for label, lane in zip(labels, lanes, strict=True)
    ]
    lines.append(" " * margin + "█ computing  ░ waiting for memory  · ready, not picked")
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "n/a (the run ends within the warm-up)" if value is None else f"{value:.1%}"


def run_to_table(run: WarpRun, width: int) -> str:
    config = run.config
    lines = [
        f"One SM, {_plural(config.warps, 'warp')}: {_plural(config.compute, 'cycle')} of "
        f"compute per burst, memory latency {_plural(config.latency, 'cycle')}, "
        f"{_plural(config.cycles, 'cycle')} simulated",
    ]
    if config.warps <= _GANTT_WARPS:
        lines.append(text_lanes(run, width))
    else:
        lines.append(f"(timeline not drawn for more than {_GANTT_WARPS} warps)")
    knee = config.knee
    side = "at or above" if config.warps >= knee else "below"
    lines += [
        f"issue unit   {_percent(run.utilization)} busy over the run, "
        f"{_percent(run.steady_state_utilization)} in steady state",
        f"model        min(1, W·C / (C + L)) = {config.analytic_utilization:.1%}",
        f"knee         W = (C + L) / C = {knee:.4g} warps hide the latency; "
        f"{config.warps} is {side} the knee",
    ]
    stalls = run.stall_cycles
    if config.warps <= _LISTED_WARPS:
        listed = ", ".join(f"{k + 1}: {v:g}" for k, v in enumerate(stalls.tolist()))
        lines.append(f"stalls       cycles ready but not picked, per warp: {listed}")
    lines.append(
        f"             mean {stalls.mean():.4g} cycles per warp "
        f"({stalls.mean() / config.cycles:.1%} of the run), most {stalls.max():g}"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    config = WarpConfig(
        warps=args.warps, compute=args.compute, latency=args.latency, cycles=args.cycles
    )
    result = simulate_warps(config)
    if args.format == "json":
        text = json.dumps(run_to_dict(result), indent=1)
    else:
        width = args.width or shutil.get_terminal_size((100, 24)).columns
        text = run_to_table(result, width)
    emit(text, args.out)
    return 0


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")
