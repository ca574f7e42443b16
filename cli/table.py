"""The terminal's view of a Schedule: a compact text Gantt and its metrics."""

from __future__ import annotations

import math

import numpy as np

from engine.anomalies import resource_anomalies
from engine.metrics import bottleneck, closed_form_makespan, utilization_by_worker
from engine.scenario import Scenario
from engine.schedule import Schedule

IDLE = "·"


def seconds(value: float, unit: str = "s") -> str:
    """A time for people: 5 s, 1.5 s, 1201.8 s (12 significant digits at most)."""
    return f"{float(f'{value:.12g}'):.6g} {unit}"


def _row_cells(schedule: Schedule, row: int, width: int, scale: float) -> str:
    cells = [IDLE] * width
    owner = np.full(width, -1)
    order, bounds = schedule.by_row
    for task in order[bounds[row] : bounds[row + 1]].tolist():
        start, end = float(schedule.start[task]), float(schedule.end[task])
        if end <= start:
            continue
        lo = min(width - 1, round(start * scale))
        hi = max(lo + 1, min(width, round(end * scale)))
        label = str(int(schedule.op[task]) + 1)
        taken = owner[lo:hi] >= 0
        owner[lo:hi] = task
        if taken.any():
            cells[lo:hi] = ["█"] * (hi - lo)  # several ops share these cells
            continue
        span = hi - lo
        if span >= len(label) + 2:
            text = "[" + label.center(span - 2) + "]"
        elif span >= len(label):
            text = label.center(span, "=")
        else:
            text = "█" * span
        cells[lo:hi] = list(text)
    return "".join(cells)


def text_gantt(schedule: Schedule, width: int = 80) -> str:
    """One line per worker with op numbers in their cells, scaled to ``width`` columns."""
    labels = [schedule.row_label(row) for row in range(schedule.n_workers)]
    margin = max(len(label) for label in labels) + 2
    cells = max(10, width - margin)
    span = schedule.makespan
    scale = cells / span if span > 0 else 0.0
    end_label = seconds(span, schedule.time_unit)
    axis = "0".ljust(cells - len(end_label)) + end_label
    lines = [" " * margin + axis]
    lines += [
        label.ljust(margin) + _row_cells(schedule, row, cells, scale)
        for row, label in enumerate(labels)
    ]
    return "\n".join(lines)


def describe(scenario: Scenario) -> str:
    workers = ", ".join(
        f"{k} {unit}"
        for unit, k in zip(("load", "compute", "store"), scenario.workers, strict=True)
    )
    slots = "unlimited" if scenario.buffers == 0 else str(scenario.buffers)
    return f"{scenario.name}: {scenario.n_ops} ops, workers {workers}, buffer slots {slots}"


def metrics_lines(schedule: Schedule, scenario: Scenario) -> list[str]:
    unit = schedule.time_unit
    util = utilization_by_worker(schedule)
    rows = "  ".join(
        f"{schedule.row_label(row)} {util[row]:.0%}" for row in range(schedule.n_workers)
    )
    neck = bottleneck(schedule)
    lines = [
        f"makespan     {seconds(schedule.makespan, unit)}",
        f"utilization  {rows}",
        f"bottleneck   {neck.summary}: {seconds(neck.work_per_worker, unit)} of work per "
        f"worker, {neck.share:.0%} of the makespan",
    ]
    formula = closed_form_makespan(scenario, schedule.policy)
    if formula is not None:
        agrees = math.isclose(formula, schedule.makespan, rel_tol=1e-9, abs_tol=1e-9)
        lines.append(
            f"formula      {seconds(formula, unit)} "
            f"({'agrees' if agrees else 'DISAGREES'} with the simulation)"
        )
    if schedule.policy == "pipelined":
        lines += [f"note         {a.sentence()}" for a in resource_anomalies(scenario)]
    return lines


def policy_block(schedule: Schedule, scenario: Scenario, width: int) -> str:
    slots = "unlimited" if schedule.buffers == 0 else schedule.buffers
    title = f"{schedule.policy} (buffer slots: {slots})"
    return "\n".join([title, text_gantt(schedule, width), *metrics_lines(schedule, scenario)])
