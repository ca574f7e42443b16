"""Pure, derived views of Schedules that the app draws: idle intervals, the task under the
mouse, where each op's box is (and where it is gliding to), shared-memory slots, and the
stats lines with the words that say how each number is obtained.

No Qt here: the GUI renders these, tests check them without a display.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from engine.metrics import (
    bottleneck,
    busy_by_worker,
    closed_form_makespan,
    speedup,
    utilization_by_worker,
)
from engine.scenario import Scenario
from engine.schedule import Schedule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def format_time(value: float, unit: str = "s") -> str:
    """A time for people: "5 s", "2.5 s", "0.0123 ms" (at most 4 significant digits)."""
    return f"{float(f'{value:.12g}'):.4g} {unit}"


# -- the timeline ---------------------------------------------------------------------------


def idle_intervals(schedule: Schedule) -> tuple[IntArray, FloatArray, FloatArray]:
    """Every idle interval in [0, makespan] of every row: (row, start, end) arrays.

    Vectorized twin of `engine.metrics.idle_gaps` (overlapping tasks count once).
    """
    order, bounds = schedule.by_row
    reach, _ = schedule.row_reach
    rows_out: list[IntArray] = []
    starts_out: list[FloatArray] = []
    ends_out: list[FloatArray] = []
    span = schedule.makespan
    starts = schedule.start[order]
    for row in range(schedule.n_workers):
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        if lo == hi:
            if span > 0:
                rows_out.append(np.array([row]))
                starts_out.append(np.array([0.0]))
                ends_out.append(np.array([span]))
            continue
        before = np.concatenate([[0.0], reach[lo : hi - 1]])
        after = np.concatenate([starts[lo:hi], [span]])
        before = np.concatenate([before, [reach[hi - 1]]])
        gap = after > before
        rows_out.append(np.full(int(gap.sum()), row, dtype=np.int64))
        starts_out.append(before[gap])
        ends_out.append(after[gap])
    if not rows_out:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0)
    return (
        np.concatenate(rows_out).astype(np.int64),
        np.concatenate(starts_out),
        np.concatenate(ends_out),
    )


def task_at(schedule: Schedule, row: int, time: float) -> int:
    """Index of the task running on timeline row ``row`` at ``time``, or -1.

    Where measured tasks overlap, the one started last wins (it is drawn on top).
    """
    if row < 0 or row >= schedule.n_workers or not len(schedule):
        return -1
    order, bounds = schedule.by_row
    lo, hi = int(bounds[row]), int(bounds[row + 1])
    starts = schedule.start[order[lo:hi]]
    k = int(np.searchsorted(starts, time, side="right")) - 1
    # Scan back over the few tasks that started earlier and may still run (overlaps).
    for j in range(k, max(-1, k - 64), -1):
        task = int(order[lo + j])
        if schedule.start[task] <= time < schedule.end[task]:
            return task
    return -1


def describe_task(schedule: Schedule, task: int) -> str:
    """Tooltip text of one task: op, stage, worker, start, end, duration."""
    unit = schedule.time_unit
    start, end = float(schedule.start[task]), float(schedule.end[task])
    title = schedule.label or schedule.policy
    return (
        f"op {int(schedule.op[task]) + 1} · {schedule.stage_names[schedule.stage[task]]}\n"
        f"{schedule.row_label(int(schedule.row[task]))} ({title}, {schedule.source})\n"
        f"start {format_time(start, unit)} · end {format_time(end, unit)}\n"
        f"duration {format_time(end - start, unit)}"
    )


# -- the assembly line --------------------------------------------------------------------


def stage_units(schedule: Schedule) -> tuple[int, ...]:
    """The unit that runs each stage (the unit of the stage's first task; else same index)."""
    units = []
    for stage in range(len(schedule.stage_names)):
        hits = np.flatnonzero(schedule.stage == stage)
        units.append(int(schedule.unit[hits[0]]) if len(hits) else min(stage, schedule.n_units - 1))
    return tuple(units)


@lru_cache(maxsize=16)
def op_transitions(schedule: Schedule) -> FloatArray:
    """Shape (n_ops, 2·stages): start and end of every stage of every op, interleaved.

    An op's place at time t (see `engine.timeline.Place`) is how many of these are ≤ t.
    """
    starts, ends = schedule.op_starts, schedule.op_ends
    times = np.empty((schedule.n_ops, 2 * starts.shape[1]))
    times[:, 0::2] = starts
    times[:, 1::2] = ends
    times.flags.writeable = False
    return times


@dataclass(frozen=True, eq=False)
class Motion:
    """Per op: the place it is in now, the place it moves to next and how far along the
    glide it is (0 = still at ``place``, 1 = arrived at ``next_place``).

    Ops glide in the short interval *before* a transition, so that at every event time the
    picture shows exactly the state the engine reports (stepping lands on still frames).
    """

    place: IntArray
    next_place: IntArray
    fraction: FloatArray


def op_motion(schedule: Schedule, time: float, travel: float) -> Motion:
    """Where each op's box is at ``time``, gliding over at most ``travel`` time units (and
    at most half the time since its previous transition) into each new place."""
    times = op_transitions(schedule)
    n, width = times.shape
    place = (times <= time).sum(axis=1).astype(np.int64)
    index = np.minimum(place, width - 1)
    rows = np.arange(n)
    upcoming = np.where(place < width, times[rows, index], np.inf)
    previous = np.where(place > 0, times[rows, np.maximum(place - 1, 0)], min(0.0, time))
    next_place = np.where(place < width, (times <= upcoming[:, None]).sum(axis=1), place).astype(
        np.int64
    )
    window = np.minimum(travel, 0.5 * (upcoming - previous))
    remaining = upcoming - time
    moving = np.isfinite(upcoming) & (window > 0) & (remaining < window)
    fraction = np.zeros(n)
    fraction[moving] = 1.0 - remaining[moving] / window[moving]
    return Motion(place, next_place, fraction)


def typical_duration(schedule: Schedule) -> float:
    """Median positive task duration (1 for an empty schedule): sets the glide length."""
    durations = schedule.duration
    positive = durations[durations > 0]
    return float(np.median(positive)) if len(positive) else 1.0


@lru_cache(maxsize=16)
def slot_assignment(schedule: Schedule) -> IntArray:
    """Per op, the shared-memory slot it holds (lowest free slot when granted).

    An op holds its slot from its grant (or first start) to the end of its last stage;
    a slot freed at t can be granted at t. The number of slots used is ``max + 1``.
    """
    first = schedule.grant if schedule.grant is not None else schedule.op_starts[:, 0]
    last = schedule.op_ends[:, -1]
    order = np.lexsort((np.arange(schedule.n_ops), first))
    slots = np.zeros(schedule.n_ops, dtype=np.int64)
    free: list[int] = []
    busy: list[tuple[float, int]] = []
    used = 0
    for op in order.tolist():
        now = float(first[op])
        while busy and busy[0][0] <= now:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            slot = heapq.heappop(free)
        else:
            slot, used = used, used + 1
        slots[op] = slot
        heapq.heappush(busy, (float(last[op]), slot))
    slots.flags.writeable = False
    return slots


# -- the stats ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StatLine:
    """One number in the stats panel: label, value text, and how it was obtained."""

    label: str
    value: str
    how: str


@dataclass(frozen=True)
class WorkerUse:
    """One utilization bar: row label, busy fraction in [0, 1], and how it was obtained."""

    label: str
    utilization: float
    how: str


@dataclass(frozen=True)
class ScheduleStats:
    title: str
    lines: tuple[StatLine, ...]
    workers: tuple[WorkerUse, ...]


def schedule_stats(schedule: Schedule, scenario: Scenario | None = None) -> ScheduleStats:
    """The stats of one Schedule, each with the sentence that explains it."""
    unit = schedule.time_unit
    span = schedule.makespan
    title = schedule.label or schedule.policy
    lines = [
        StatLine(
            "makespan",
            format_time(span, unit),
            f"The latest end of any task in this {schedule.source} schedule "
            f"({len(schedule):,} tasks, {schedule.n_ops:,} ops).",
        )
    ]
    if len(schedule):
        neck = bottleneck(schedule)
        lines.append(
            StatLine(
                "bottleneck",
                f"{neck.stage} ({neck.unit} unit, {neck.share:.0%} busy)",
                f"The unit with the most work per worker: {format_time(neck.work_per_worker, unit)}"
                f" of {neck.stage} per worker = {neck.share:.0%} of the makespan. No schedule "
                "can finish before that unit has done its work.",
            )
        )
    if scenario is not None and schedule.source == "simulated":
        formula = closed_form_makespan(scenario, schedule.policy)
        if formula is not None:
            agrees = abs(formula - span) <= 1e-9 * max(1.0, span)
            shape = (
                "N·(r + c + w)"
                if schedule.policy == "sequential" or scenario.buffers == 1
                else "(r + c + w) + (N − 1)·max(r, c, w)"
            )
            lines.append(
                StatLine(
                    "formula",
                    f"{format_time(formula, unit)} {'✓ agrees' if agrees else '✗ differs'}",
                    f"The textbook closed form {shape} with N = {scenario.n_ops} identical ops "
                    "and one worker per unit, compared with the simulated makespan.",
                )
            )
    busy = busy_by_worker(schedule)
    use = utilization_by_worker(schedule)
    workers = tuple(
        WorkerUse(
            schedule.row_label(row),
            float(use[row]),
            f"Busy {format_time(float(busy[row]), unit)} of the "
            f"{format_time(span, unit)} makespan (overlapping tasks count once).",
        )
        for row in range(schedule.n_workers)
    )
    return ScheduleStats(title, tuple(lines), workers)


def comparison(schedules: list[Schedule]) -> StatLine | None:
    """Speedup of the last schedule over the first (sequential → pipelined), if two or more."""
    if len(schedules) < 2:
        return None
    first, last = schedules[0], schedules[-1]
    factor = speedup(first, last)
    a, b = first.label or first.policy, last.label or last.policy
    return StatLine(
        "speedup",
        f"{factor:.3g}×",
        f"Makespan of {a} ({format_time(first.makespan, first.time_unit)}) divided by the "
        f"makespan of {b} ({format_time(last.makespan, last.time_unit)}).",
    )
