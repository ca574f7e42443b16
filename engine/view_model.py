"""Pure, derived views of Schedules that the app draws: idle intervals, the task under the
mouse, where each op's box is (and where it is gliding to), shared-memory slots, and the
stats lines with the words that say how each number is obtained (built by `engine.stats`,
the one stats builder, and re-exported here).

No Qt here: the GUI renders these, tests check them without a display.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.assembly_slots import assign_slots
from engine.metrics import typical_task_duration
from engine.schedule import Schedule, cached_per_schedule
from engine.stats import ScheduleStats as ScheduleStats
from engine.stats import StatLine as StatLine
from engine.stats import WorkerUse as WorkerUse
from engine.stats import comparison as comparison
from engine.stats import schedule_stats as schedule_stats
from engine.text import elided
from engine.text import format_time as format_time
from engine.wait_index import wait_index

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: A task's own name (an imported kernel's) is cut to this many characters on hover:
#: C++ kernel names run to hundreds.
NAME_CHARS = 120

# -- the timeline ---------------------------------------------------------------------------


def idle_intervals(schedule: Schedule) -> tuple[IntArray, FloatArray, FloatArray]:
    """Every idle interval in [0, makespan] of every row: (row, start, end) arrays, sorted
    by (row, start); overlapping tasks count once (`engine.metrics.idle_gaps` per row).

    The wait reasons' own gaps (`engine.wait_index.WaitIndex.gaps`): one set of arrays
    per Schedule, read-only."""
    rows, starts, ends = wait_index(schedule).gaps
    for column in (rows, starts, ends):
        column.flags.writeable = False
    return rows, starts, ends


def task_at(schedule: Schedule, row: int, time: float) -> int:
    """Index of the task running on timeline row ``row`` at ``time``, or -1.

    Where measured tasks overlap, the one started last wins (it is drawn on top).
    """
    if row < 0 or row >= schedule.n_workers or not len(schedule):
        return -1
    order, bounds = schedule.by_row
    lo, hi = int(bounds[row]), int(bounds[row + 1])
    starts = schedule.row_starts[lo:hi]  # (the row's starts in that order: no copy)
    k = int(np.searchsorted(starts, time, side="right")) - 1
    # Scan back over the few tasks that started earlier and may still run (overlaps).
    for j in range(k, max(-1, k - 64), -1):
        task = int(order[lo + j])
        if schedule.start[task] <= time < schedule.end[task]:
            return task
    return -1


def describe_task(schedule: Schedule, task: int) -> str:
    """Tooltip text of one task: op and stage (a task with a name of its own, an imported
    kernel or copy: that name), worker, start, end, duration."""
    unit = schedule.time_unit
    start, end = float(schedule.start[task]), float(schedule.end[task])
    title = schedule.label or schedule.policy
    own = schedule.task_title(task)
    what = (
        elided(own, NAME_CHARS)
        if own is not None
        else f"op {int(schedule.op[task]) + 1} · {schedule.stage_names[schedule.stage[task]]}"
    )
    return (
        f"{what}\n"
        f"{schedule.row_label(int(schedule.rows_of(task)))} ({title}, {schedule.source})\n"
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


@cached_per_schedule
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


@cached_per_schedule
def typical_duration(schedule: Schedule) -> float:
    """Median positive task duration (1 for an empty schedule): sets the glide length."""
    known = typical_task_duration(schedule)  # a pipeline's: measured with its stage stats
    if known is not None:
        return known
    durations = schedule.duration
    positive = durations if bool((durations > 0).all()) else durations[durations > 0]
    # (np.median partitions a copy; this array is ours: partition it in place)
    return float(np.median(positive, overwrite_input=True)) if len(positive) else 1.0


@cached_per_schedule
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


@cached_per_schedule
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
