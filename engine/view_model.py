"""Pure, derived views of Schedules that the app draws: idle intervals, the task under the
mouse, where each op's box is (and where it is gliding to), shared-memory slots, and the
stats lines with the words that say how each number is obtained.

No Qt here: the GUI renders these, tests check them without a display.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from engine.anomalies import resource_anomalies
from engine.assembly_slots import assign_slots
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
    return _motion_of_rows(op_transitions(schedule), time, travel)


def _motion_of_rows(times: FloatArray, time: float, travel: float) -> Motion:
    """`op_motion` for the ops whose transition rows are ``times`` (all ops or a few)."""
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


@lru_cache(maxsize=16)
def typical_duration(schedule: Schedule) -> float:
    """Median positive task duration (1 for an empty schedule): sets the glide length."""
    durations = schedule.duration
    positive = durations[durations > 0]
    return float(np.median(positive)) if len(positive) else 1.0


@lru_cache(maxsize=16)
def slot_assignment(schedule: Schedule) -> IntArray:
    """Per op, the shared-memory slot it holds.

    An op holds its slot from its grant (or first start) to the end of its last stage;
    a slot freed at t can be granted at t. With B slots, op i takes the slot op i − B held
    whenever that one is free in time (always so with one worker per unit: op i is granted
    when op i − B has written); otherwise, and with unlimited slots, the lowest free slot.
    The number of slots used is ``max + 1``.
    """
    first = schedule.grant if schedule.grant is not None else schedule.op_starts[:, 0]
    last = np.ascontiguousarray(schedule.op_ends[:, -1])
    plan = assign_slots(np.asarray(first, dtype=np.float64), last, schedule.buffers, 0.0)
    slots = plan.slot_of(np.arange(schedule.n_ops, dtype=np.int64))
    slots.flags.writeable = False
    return slots


# -- one animation frame, without touching every op ---------------------------------------
#
# `engine.timeline.state_at` and `op_motion` look at every op, which at 10^5 ops costs more
# than a 60 fps frame allows. The assembly line only needs, per op, the few that are in
# flight (or about to glide) plus counts and the first few on each shelf. The functions below
# find those with binary searches over per-schedule sorted arrays built once, and give
# exactly what `state_at` / `op_motion` give for the same ops (tests compare them).


def idle_time(schedule: Schedule, since: float, time: float) -> float:
    """How long a worker idle since ``since`` has been idle at ``time``, counted within
    its own run: after the Schedule's makespan the count stops (another Schedule on the
    same clock may run longer)."""
    end = min(time, schedule.makespan) if len(schedule) else time
    return max(0.0, end - (since if np.isfinite(since) else 0.0))


@dataclass(frozen=True, eq=False)
class _OpIndex:
    """Sorted views of one pipeline Schedule's op transitions, built once."""

    times: FloatArray  # op_transitions
    by_earliest: IntArray  # ops sorted by their earliest transition
    earliest: FloatArray  # those earliest transitions, sorted
    reach: FloatArray  # running max of the latest transition, in by_earliest order
    latest_sorted: FloatArray
    by_latest: IntArray
    earliest_in_op_order: bool
    latest_in_op_order: bool
    holds_from: FloatArray  # per op: when it holds its slot (grant, else first start)
    holds_to: FloatArray  # per op: end of its last stage
    holds_from_sorted: FloatArray
    holds_to_sorted: FloatArray
    holds_well_formed: bool  # every op's hold starts no later than it ends
    slot_order: IntArray  # ops sorted by (slot, holds_from, holds_to)
    slot_from: FloatArray  # holds_from in slot_order
    slot_bounds: IntArray  # slot s's ops are slot_order[slot_bounds[s]:slot_bounds[s + 1]]


@lru_cache(maxsize=16)
def _op_index(schedule: Schedule) -> _OpIndex:
    times = op_transitions(schedule)
    earliest, latest = times.min(axis=1), times.max(axis=1)
    by_earliest = np.argsort(earliest, kind="stable").astype(np.int64)
    by_latest = np.argsort(latest, kind="stable").astype(np.int64)
    first = schedule.grant if schedule.grant is not None else schedule.op_starts[:, 0]
    last = schedule.op_ends[:, -1]
    slots = slot_assignment(schedule)
    slot_order = np.lexsort((last, first, slots)).astype(np.int64)
    slot_bounds = np.searchsorted(slots[slot_order], np.arange(int(slots.max(initial=-1)) + 2))
    return _OpIndex(
        times=times,
        by_earliest=by_earliest,
        earliest=earliest[by_earliest],
        reach=np.maximum.accumulate(latest[by_earliest]),
        latest_sorted=latest[by_latest],
        by_latest=by_latest,
        earliest_in_op_order=bool((np.diff(earliest) >= 0).all()),
        latest_in_op_order=bool((np.diff(latest) >= 0).all()),
        holds_from=np.asarray(first, dtype=np.float64),
        holds_to=last,
        holds_from_sorted=np.sort(first),
        holds_to_sorted=np.sort(last),
        holds_well_formed=bool((first <= last).all()),
        slot_order=slot_order,
        slot_from=np.asarray(first, dtype=np.float64)[slot_order],
        slot_bounds=slot_bounds.astype(np.int64),
    )


def _smallest(values: IntArray, count: int) -> IntArray:
    """The ``count`` smallest values, ascending (a partition, not a full sort)."""
    if len(values) > count > 0:
        values = np.partition(values, count - 1)[:count]
    return np.sort(values)[:count]


@dataclass(frozen=True, eq=False)
class OpsNow:
    """The ops of one pipeline Schedule at one instant, as the assembly line needs them.

    ``waiting`` / ``done``: how many ops are in the first / last place (`Place.WAITING` /
    `Place.DONE`). ``first_waiting``: the lowest op indices waiting, ascending;
    ``last_done``: the highest done, descending (at most ``shelf`` each). ``ops``
    (ascending) holds every op in between the two shelves or gliding, plus those shelf
    ops, with ``place`` / ``next_place`` / ``fraction`` exactly as `op_motion` gives them.
    ``slots_in_use``: how many ops hold a shared-memory slot.
    """

    waiting: int
    done: int
    first_waiting: IntArray
    last_done: IntArray
    ops: IntArray
    place: IntArray
    next_place: IntArray
    fraction: FloatArray
    slots_in_use: int
    last_place: int  # the place of a done op (2 · stages)

    @property
    def moving(self) -> IntArray:
        """Ops between the shelves or gliding (the boxes that are not on a shelf)."""
        inside = (self.place > 0) & (self.place < self.last_place) | (self.fraction > 0)
        return self.ops[inside]


def ops_now(schedule: Schedule, time: float, travel: float, shelf: int) -> OpsNow:
    """`op_motion` and `state_at`'s per-op counts for the ops that matter at ``time``.

    Costs O(log n + ops in flight + shelf) when ops start and finish in op order (every
    simulated pipeline); otherwise the shelves fall back to a linear partition.
    """
    index = _op_index(schedule)
    n = schedule.n_ops
    started = int(np.searchsorted(index.earliest, time, side="right"))
    soon = int(np.searchsorted(index.earliest, time + max(travel, 0.0), side="right"))
    finished_prefix = int(np.searchsorted(index.reach, time, side="right"))
    done = int(np.searchsorted(index.latest_sorted, time, side="right"))
    if index.earliest_in_op_order:
        first_waiting = np.arange(started, min(n, started + shelf), dtype=np.int64)
    else:
        first_waiting = _smallest(index.by_earliest[started:], shelf)
    if index.latest_in_op_order:
        last_done = np.arange(done - 1, max(-1, done - 1 - shelf), -1, dtype=np.int64)
    else:
        last_done = _smallest(-index.by_latest[:done], shelf) * -1
    window = index.by_earliest[finished_prefix:soon]
    ops = np.unique(np.concatenate([window, first_waiting, last_done]))
    motion = _motion_of_rows(index.times[ops], time, travel)
    if index.holds_well_formed:
        holding = int(np.searchsorted(index.holds_from_sorted, time, side="right"))
        in_use = holding - int(np.searchsorted(index.holds_to_sorted, time, side="right"))
    else:
        in_use = int(((index.holds_from <= time) & (time < index.holds_to)).sum())
    return OpsNow(
        waiting=n - started,
        done=done,
        first_waiting=first_waiting,
        last_done=last_done,
        ops=ops,
        place=motion.place,
        next_place=motion.next_place,
        fraction=motion.fraction,
        slots_in_use=in_use,
        last_place=index.times.shape[1],
    )


def slot_holders(schedule: Schedule, time: float, count: int) -> IntArray:
    """For shared-memory slots 0 .. count-1: the op holding it at ``time``, or -1.

    An op holds its slot (see `slot_assignment`) on [grant, end of its last stage), as
    `engine.timeline.State.op_holds_slot` says.
    """
    index = _op_index(schedule)
    holders = np.full(count, -1, dtype=np.int64)
    for slot in range(min(count, len(index.slot_bounds) - 1)):
        lo, hi = int(index.slot_bounds[slot]), int(index.slot_bounds[slot + 1])
        # A slot's holds never overlap: the one that started last by `time` is the only
        # candidate (ties on the start: the longer hold sorts last).
        k = lo + int(np.searchsorted(index.slot_from[lo:hi], time, side="right")) - 1
        if k >= lo and index.holds_to[index.slot_order[k]] > time:
            holders[slot] = index.slot_order[k]
    return holders


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
        work = format_time(neck.work_per_worker, unit)
        if len(neck.tied) > 1:
            stages = ", ".join(neck.tied[:-1]) + " and " + neck.tied[-1]
            lines.append(
                StatLine(
                    "bottleneck",
                    neck.summary,
                    f"No single unit has the most work per worker: {stages} each have {work} "
                    f"per worker = {neck.share:.0%} of the makespan. Speeding up one of them "
                    "alone cannot shorten the run much; no schedule can finish before each "
                    "of those units has done its work.",
                )
            )
        else:
            lines.append(
                StatLine(
                    "bottleneck",
                    f"{neck.stage} ({neck.unit_title}, {neck.share:.0%} busy)",
                    f"The unit with the most work per worker: {work} of {neck.stage} per "
                    f"worker = {neck.share:.0%} of the makespan. No schedule can finish "
                    "before that unit has done its work.",
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
    if scenario is not None and schedule.source == "simulated" and schedule.policy == "pipelined":
        for anomaly in resource_anomalies(scenario):
            lines.append(
                StatLine(
                    "anomaly",
                    f"fewer {anomaly.resource} is faster",
                    f"A list-scheduling anomaly: with {anomaly.fewer} {anomaly.resource} "
                    f"instead of {anomaly.current} this run would take "
                    f"{format_time(anomaly.makespan, unit)}, not "
                    f"{format_time(anomaly.actual, unit)}. Greedy earliest-ready scheduling "
                    "lets a short op overtake and grab a unit first, pushing longer work to "
                    "the end. It cannot happen with one worker per unit.",
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
    """The headline for two or more Schedules: a measured run against the model's
    prediction gives the overlap efficiency; otherwise the speedup of the last over the first
    (sequential → pipelined)."""
    if len(schedules) < 2:
        return None
    first, last = schedules[0], schedules[-1]
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
        f"{factor:.3g}×",
        f"Makespan of {a} ({format_time(first.makespan, first.time_unit)}) divided by the "
        f"makespan of {b} ({format_time(last.makespan, last.time_unit)}).",
    )
