"""Time travel over a Schedule: the state of every worker and op at any instant, and one
line of narration for what changes at each event time."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import numpy.typing as npt

from engine.schedule import Schedule

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class Place(IntEnum):
    """Where an op is in a three-stage pipeline. The value counts stage starts and ends
    passed (each start and each end moves an op one place on)."""

    WAITING = 0  # not started reading yet (may or may not hold a slot)
    READING = 1
    READ = 2  # read done, waiting for the compute unit
    COMPUTING = 3
    COMPUTED = 4  # compute done, waiting for the store unit
    WRITING = 5
    DONE = 6


PLACE_WORDS = {
    Place.WAITING: "waiting",
    Place.READING: "reading",
    Place.READ: "in shared memory, waiting for the compute unit",
    Place.COMPUTING: "computing",
    Place.COMPUTED: "computed, waiting for the store unit",
    Place.WRITING: "writing",
    Place.DONE: "done",
}


@dataclass(frozen=True, eq=False)
class State:
    """Everything at one instant ``time``. Arrays are per timeline row (worker) or per op.

    ``worker_task``: the task index a worker is running, or -1 when idle.
    ``worker_op`` / ``worker_stage``: that task's op and stage (-1 when idle).
    ``worker_fraction``: how much of that task is done, in [0, 1].
    ``worker_idle_since``: when an idle worker last finished (0 if never worked), NaN if busy.
    ``op_place``: per op, a `Place` value (pipelines only; empty otherwise).
    ``op_holds_slot``: per op, whether it holds a shared-memory slot now.
    """

    time: float
    worker_task: IntArray
    worker_op: IntArray
    worker_stage: IntArray
    worker_fraction: FloatArray
    worker_idle_since: FloatArray
    op_place: IntArray
    op_holds_slot: npt.NDArray[np.bool_]

    @property
    def slots_in_use(self) -> int:
        return int(self.op_holds_slot.sum())

    def place_counts(self) -> dict[Place, int]:
        counts = np.bincount(self.op_place, minlength=len(Place))
        return {place: int(counts[place]) for place in Place}


@dataclass(frozen=True, eq=False)
class WorkersNow:
    """Per timeline row at one instant: the task it runs
    (-1 idle), that task's op and stage (-1 idle), the fraction done, and when an idle row
    last finished (0 if never, NaN while busy)."""

    task: IntArray
    op: IntArray
    stage: IntArray
    fraction: FloatArray
    idle_since: FloatArray


def workers_at(schedule: Schedule, time: float) -> WorkersNow:
    """Every worker's task at ``time`` (or idle, and since when), in O(rows · log n).

    A task runs on [start, end): at its end instant the worker is already free. The row is
    busy if anything started so far reaches past ``time`` (measured rows may overlap)."""
    _, bounds = schedule.by_row
    starts = schedule.row_starts
    reach, reach_task = schedule.row_reach
    rows = schedule.n_workers
    task = np.full(rows, -1, dtype=np.int64)
    idle_since = np.zeros(rows)
    for row in range(rows):
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        if lo == hi:
            continue
        k = lo + int(np.searchsorted(starts[lo:hi], time, side="right")) - 1
        if k < lo:
            continue
        if reach[k] > time:
            task[row] = reach_task[k]
            idle_since[row] = np.nan
        else:
            idle_since[row] = reach[k]
    busy = task >= 0
    safe = np.maximum(task, 0)
    op = np.where(busy, schedule.op[safe], -1).astype(np.int64)
    stage = np.where(busy, schedule.stage[safe], -1).astype(np.int64)
    fraction = np.zeros(rows)
    if busy.any():
        t = task[busy]
        span = schedule.end[t] - schedule.start[t]
        fraction[busy] = np.clip((time - schedule.start[t]) / np.where(span > 0, span, 1), 0, 1)
    return WorkersNow(task, op, stage, fraction, idle_since)


def state_at(schedule: Schedule, time: float) -> State:
    """The state of every worker and op at ``time``.

    A task is running on [start, end): at its end instant the worker is already free, the
    op already in its next place. Zero-length tasks never show as running.
    """
    workers = workers_at(schedule, time)
    if schedule.is_pipeline:
        place = (schedule.op_starts <= time).sum(axis=1) + (schedule.op_ends <= time).sum(axis=1)
        place = place.astype(np.int64)
        last_end = schedule.op_ends[:, -1]
        first = schedule.grant if schedule.grant is not None else schedule.op_starts[:, 0]
        holds = (first <= time) & (time < last_end)
    else:
        place = np.zeros(0, dtype=np.int64)
        holds = np.zeros(0, dtype=bool)
    return State(
        time,
        workers.task,
        workers.op,
        workers.stage,
        workers.fraction,
        workers.idle_since,
        place,
        holds,
    )


def _seconds(value: float, unit: str) -> str:
    return f"{float(f'{value:.12g}'):.6g} {unit}"


_STARTS = {"read": "starts reading", "compute": "starts computing", "write": "starts writing"}
_ONGOING = {"read": "is reading", "compute": "is computing", "write": "is writing"}


def _phrases(
    schedule: Schedule, tasks: npt.NDArray[np.int64], verbs: dict[str, str], limit: int
) -> list[str]:
    ordered = tasks[np.argsort(schedule.row[tasks], kind="stable")]
    phrases = []
    for task in ordered[:limit].tolist():
        stage = schedule.stage_names[schedule.stage[task]]
        verb = verbs.get(stage, f"works on {stage} of")
        who = schedule.row_label(int(schedule.row[task]))
        phrases.append(f"the {who} {verb} op {int(schedule.op[task]) + 1}")
    if len(ordered) > limit:
        phrases.append(f"{len(ordered) - limit} more")
    return phrases


def _join(phrases: list[str]) -> str:
    if len(phrases) <= 2:
        return " and ".join(phrases)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


def narrate(schedule: Schedule, time: float) -> str:
    """One line saying what changes at ``time`` (an event time) and what keeps going.

    e.g. "t = 1 s: the load unit starts reading op 2 while the compute unit starts
    computing op 1". Ops are numbered from 1 for people.
    """
    tolerance = 1e-9 * max(1.0, schedule.makespan)
    head = f"t = {_seconds(time, schedule.time_unit)}: "
    real = schedule.end > schedule.start
    starting = np.flatnonzero(real & (np.abs(schedule.start - time) <= tolerance))
    ongoing = np.flatnonzero(
        (schedule.start < time - tolerance) & (schedule.end > time + tolerance)
    )
    if len(starting):
        news = _phrases(schedule, starting, _STARTS, 3)
        text = news[0]
        if len(news) > 1:
            text += " while " + _join(news[1:])
        elsewhere = _phrases(schedule, ongoing, _ONGOING, 2)
        if elsewhere:
            text += "; " + _join(elsewhere)
        return head + text
    if len(schedule) and time >= schedule.makespan - tolerance:
        span = _seconds(schedule.makespan, schedule.time_unit)
        return head + f"all {schedule.n_ops} ops are done; the run took {span}"
    if len(ongoing):
        return head + _join(_phrases(schedule, ongoing, _ONGOING, 3))
    return head + ("nothing has started yet" if time <= tolerance else "every worker is idle")


def event_index_at(schedule: Schedule, time: float) -> int:
    """Index of the last event time at or before ``time``."""
    times = schedule.event_times
    tolerance = 1e-9 * max(1.0, float(times[-1]))
    return max(0, int(np.searchsorted(times, time + tolerance, side="right")) - 1)
