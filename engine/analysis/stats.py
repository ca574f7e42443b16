"""The one stats builder: the numbers the app's stats panel (gui/stats_panel.py) and the
terminal's table (cli/table.py) show, each with the words that say how it was obtained;
times written by the formatter passed in (the app's 4 digits, the terminal's 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.analysis.metrics import (
    bottleneck,
    makespan_formula,
    speedup,
    steady_state,
    utilization_by_worker,
)
from engine.base.text import TimeText, count_words, format_time, number_text, op_list, span_text
from engine.base.tolerance import time_tolerance
from engine.model.anomalies import resource_anomalies
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.reasons.waits import DONE, IDLE_REASONS, IdleSummary, idle_spans_between

if TYPE_CHECKING:
    from engine.analysis.derived import Derived

#: A worker with at most this many idle spans has them listed; more are summed by reason.
LISTED_SPANS = 4

#: How each idle reason reads in a summary ("1 s for a slot").
REASON_WORDS = {
    "input": "for input",
    "slot": "for a slot",
    "done": "done",
    "overhead": "overhead",
}


@dataclass(frozen=True)
class StatLine:
    """One number in the stats panel: label, value text, and how it was obtained."""

    label: str
    value: str
    how: str


@dataclass(frozen=True)
class WorkerUse:
    """One utilization bar: row label, busy fraction in [0, 1], how it was obtained, and the
    row's idle time by reason in a compact form ("2–3 s slot (ops 1 and 2) · 4–6 s done")."""

    label: str
    utilization: float
    how: str
    idle: str = ""


@dataclass(frozen=True)
class ScheduleStats:
    title: str
    lines: tuple[StatLine, ...]
    workers: tuple[WorkerUse, ...]


def schedule_stats(
    derived: Derived, scenario: Scenario | None = None, time_text: TimeText = format_time
) -> ScheduleStats:
    """The stats of one Schedule (lines, and each worker's utilization with its idle
    spans); ``scenario`` (simulated runs) adds the list-scheduling anomaly check."""
    schedule = derived.schedule
    unit = schedule.time_unit
    span = schedule.makespan
    title = schedule.label or schedule.policy
    lines = [
        StatLine(
            "makespan",
            time_text(span, unit),
            f"The latest end of any task in this {schedule.source} schedule "
            f"({count_words(len(schedule), 'task')}, {count_words(schedule.n_ops, 'op')}).",
        )
    ]
    summary = derived.idle_summary if len(schedule) else None
    if len(schedule):
        lines.append(_bottleneck_line(derived, time_text))
    formula = makespan_formula(derived) if schedule.source == "simulated" else None
    if formula is not None:
        if formula.value is None:
            value = formula.text
        else:
            agrees = abs(formula.value - span) <= time_tolerance(span)
            value = f"{formula.text} {'✓ agrees' if agrees else '✗ differs'}"
        lines.append(
            StatLine(
                "formula",
                value,
                f"{formula.how} Compared with the simulated makespan, {time_text(span, unit)}.",
            )
        )
    if scenario is not None and schedule.source == "simulated" and schedule.policy == "pipelined":
        lines += [
            StatLine(
                "anomaly",
                f"fewer {anomaly.resource} is faster",
                f"A list-scheduling anomaly: with {anomaly.fewer} {anomaly.resource} "
                f"instead of {anomaly.current} this run would take "
                f"{time_text(anomaly.makespan, unit)}, not "
                f"{time_text(anomaly.actual, unit)}. Greedy earliest-ready scheduling "
                "lets a short op overtake and grab a unit first, pushing longer work to "
                "the end. It cannot happen with one worker per unit.",
            )
            for anomaly in resource_anomalies(scenario)
        ]
    # Each row's idle words once (the idle line and the row's bar both show them).
    idle_texts = [
        row_idle_text(derived, row, time_text) if summary is not None else ""
        for row in range(schedule.n_workers)
    ]
    if summary is not None:
        lines.append(_idle_line(schedule, summary, time_text, idle_texts))
    busy = derived.busy_by_worker
    use = utilization_by_worker(derived)
    workers = []
    for row in range(schedule.n_workers):
        idle = idle_texts[row]
        how = (
            f"Busy {time_text(float(busy[row]), unit)} of the "
            f"{time_text(span, unit)} makespan (overlapping tasks count once)."
        )
        if idle:
            how += f" Idle: {idle}."
        workers.append(WorkerUse(schedule.row_label(row), float(use[row]), how, idle))
    return ScheduleStats(title, tuple(lines), tuple(workers))


def _bottleneck_line(derived: Derived, time_text: TimeText) -> StatLine:
    """What binds the steady state, with its numbers on screen (the value is the sentence)."""
    schedule = derived.schedule
    unit = schedule.time_unit
    state = steady_state(derived)
    terms = {
        "load": "read / load workers",
        "compute": "compute / compute workers",
        "store": "write / store workers",
        "slots": "(read + compute + write) / slots",
    }
    listed = ", ".join(
        f"{terms.get(name, name)} = {time_text(period, unit)}" for name, period in state.periods
    )
    how = ""
    if listed and state.identical:
        how = (
            f"Once the pipeline is full each resource allows one op every: {listed}. "
            "The largest is the steady-state period; its resource binds"
            f"{'' if schedule.buffers else ' (unlimited slots add no term)'}. "
        )
    elif listed:
        how = (
            "Ops differ, so no one period holds. On average each resource allows one op "
            f"every: {listed} (totals over all ops, per op). What binds most of the time "
            "paces most of the critical path: the chain of waits from the last stage back "
            "to 0, each stretch charged to the unit that ran it, or to the slots where a "
            "read waited for one. "
        )
    neck = bottleneck(derived)
    if neck.work_per_worker > 0 and len(neck.tied) > 1:
        stages = ", ".join(neck.tied[:-1]) + " and " + neck.tied[-1]
        how += (
            f"In all, {stages} each have {time_text(neck.work_per_worker, unit)} per worker = "
            f"{neck.share:.0%} of the {time_text(schedule.makespan, unit)} makespan; no "
            "schedule finishes before each of those units has done its work."
        )
    elif neck.work_per_worker > 0:
        how += (
            f"The busiest unit has {time_text(neck.work_per_worker, unit)} of {neck.stage} "
            f"per worker = {neck.share:.0%} of the {time_text(schedule.makespan, unit)} "
            "makespan; no schedule finishes before that unit has done its work."
        )
    return StatLine("bottleneck", state.why, how.strip())


def _idle_line(
    schedule: Schedule, summary: IdleSummary, time_text: TimeText, idle_texts: list[str]
) -> StatLine:
    """All workers' idle time by reason ("1 s for a slot · 5 s for input · 5 s done")."""
    unit = schedule.time_unit
    totals = summary.totals.sum(axis=0)
    parts = [
        f"{time_text(float(totals[r]), unit)} {REASON_WORDS.get(name, name)}"
        for r, name in enumerate(IDLE_REASONS)
        if totals[r] > 0
    ]
    per_row = "; ".join(
        f"{schedule.row_label(row)}: {idle_texts[row]}" for row in range(schedule.n_workers)
    )
    return StatLine(
        "idle",
        " · ".join(parts) if parts else "none",
        "Why the workers sit idle, summed over all workers: input = the next stage's previous "
        "stage has not ended; slot = the next read waits for a shared-memory slot; done = no "
        "work left; overhead = ready work not started (measured runs). "
        f"Per worker: {per_row}.",
    )


def row_idle_text(derived: Derived, row: int, time_text: TimeText = format_time) -> str:
    """One worker's idle spans, compact: "2–3 s slot (ops 1 and 2) · 4–6 s done", or with
    more than `LISTED_SPANS` spans the time per reason ("399.6 s input in 999 spans": from
    `Derived.idle_summary`, the spans themselves are not needed)."""
    schedule = derived.schedule
    if not len(schedule):
        return ""
    unit = schedule.time_unit
    summary = derived.idle_summary
    counts = summary.counts[row]
    n = int(counts.sum())
    if n == 0:
        return "never idle"
    if n <= LISTED_SPANS:
        spans = idle_spans_between(derived, -np.inf, np.inf, [row])
        items = []
        for i in range(len(spans)):
            text = f"{span_text(float(spans.start[i]), float(spans.end[i]), unit, time_text)} "
            text += spans.reason_name(i)
            if spans.reason[i] != DONE:
                text += f" ({op_list(spans.ops(i))})"
            items.append(text)
        return " · ".join(items)
    items = []
    for r, name in enumerate(IDLE_REASONS):
        count = int(counts[r])
        if count:
            total = time_text(float(summary.totals[row, r]), unit)
            items.append(f"{total} {name}" + (f" in {count:,} spans" if count > 1 else ""))
    return " · ".join(items)


def comparison(schedules: list[Schedule]) -> StatLine | None:
    """The headline for two or more Schedules: a measured run against the model's the
    overlap efficiency, else the speedup of the last over the first. None for one Schedule
    and between imported traces' lanes (two devices are not a before and after)."""
    if len(schedules) < 2:
        return None
    first, last = schedules[0], schedules[-1]
    if sum(s.task_name is not None for s in schedules) > 1:
        return None  # several recorded traces' lanes (devices): side by side, not in turn
    if first.source == "measured" and last.source == "simulated" and first.makespan > 0:
        share = last.makespan / first.makespan
        return StatLine(
            "model ÷ measured",
            f"{share:.0%}",
            f"Overlap efficiency: the model's makespan "
            f"({format_time(last.makespan, last.time_unit)}) divided by the measured one "
            f"({format_time(first.makespan, first.time_unit)}). "
            "100% means the hardware overlapped its stages as well as the model predicts from "
            "the sequential run's stage times; less means time lost the model does not see.",
        )
    factor = speedup(first, last)
    a, b = first.label or first.policy, last.label or last.policy
    return StatLine(
        "speedup",
        f"{number_text(factor)}×",
        f"Makespan of {a} ({format_time(first.makespan, first.time_unit)}) divided by the "
        f"makespan of {b} ({format_time(last.makespan, last.time_unit)}).",
    )
