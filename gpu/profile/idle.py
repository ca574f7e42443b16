"""Why a lane of an imported run waits — saying only what the trace shows.

A trace records when each kernel and copy ran, not what each waited for. So a stream's idle
time is split by what the rest of the device did meanwhile:

* ``input`` — a compute stream idle while a copy into the device (load) runs on another
  stream: it is waiting for data (the span names that copy);
* ``host`` — the device runs nothing at all: the GPU had no work (launch latency,
  synchronization, the CPU);
* ``other`` — other streams run other work; the trace records no dependency that says why
  this one waits;
* ``done`` — after the stream's last task.

Streams of a unit idle while another stream of the same unit runs are not the device's idle
time: the device's figures come from the unions (`gpu.profile.figures`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from engine.analysis.timeline import NARRATED_NAME
from engine.base.text import elided
from engine.model.schedule import UNITS, Schedule
from gpu.profile.figures import DeviceFigures, Union, device_figures, union_of, unit_unions
from gpu.profile.lanes import DeviceRun

IMPORTED_REASONS = ("input", "host", "other", "done")
INPUT, HOST, OTHER, DONE = range(len(IMPORTED_REASONS))

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


#: What each reason says on hover (the copy's name follows ``input``).
_HOST_CAUSES = "launch latency, synchronization, the CPU"
REASON_WORDS = (
    "waiting for data: a copy in runs on another stream",
    f"the GPU runs nothing: no work from the host ({_HOST_CAUSES})",
    "other streams run other work; the trace does not say why this one waits",
    "no work left on this stream",
)


@dataclass(frozen=True, eq=False)
class ImportedIdle:
    """Every lane's idle spans: row (the Schedule's), start, end, reason (an index into
    `IMPORTED_REASONS`) and, for ``input``, the copy awaited (a task; -1 otherwise)."""

    schedule: Schedule
    row: IntArray
    start: FloatArray
    end: FloatArray
    reason: IntArray
    task: IntArray

    def __len__(self) -> int:
        return len(self.row)

    def total(self, reason: str) -> float:
        picked = self.reason == IMPORTED_REASONS.index(reason)
        return float((self.end[picked] - self.start[picked]).sum())

    @cached_property
    def _row_bounds(self) -> IntArray:
        """Where each row's spans begin in the columns (rows in order, then time)."""
        return np.searchsorted(self.row, np.arange(self.schedule.n_workers + 1))

    def reason_at(self, row: int, time: float) -> tuple[int, int] | None:
        """(reason, awaited copy or -1) of ``row``'s idle span holding ``time``, in
        O(log n); None where it has none there (a stream that ran nothing)."""
        lo, hi = (int(bound) for bound in self._row_bounds[row : row + 2])
        k = lo + int(np.searchsorted(self.start[lo:hi], time, "right")) - 1
        if k < lo or self.end[k] <= time:
            return None
        return int(self.reason[k]), int(self.task[k])

    def said(self, reason: int, task: int, plural: bool) -> str:
        """What an idle stream (``plural``: streams) does, after its name, for the
        narration: "waits for data: Memcpy HtoD (Pinned -> Device) runs on another
        stream"."""
        verb = "wait" if plural else "waits"
        if reason == INPUT:
            name = self.schedule.task_title(task) if task >= 0 else None
            copy = "a copy in" if name is None else elided(name, NARRATED_NAME)
            return f"{verb} for data: {copy} runs on another stream"
        if reason == HOST:
            return f"{verb} for the host: the GPU runs nothing ({_HOST_CAUSES})"
        if reason == OTHER:
            return f"{verb} while other streams run other work (the trace does not say why)"
        return f"{'have' if plural else 'has'} no work left"

    def describe(self, i: int) -> str:
        """One line for people: "waiting for data: Memcpy HtoD (Pinned -> Device) runs on
        another stream"."""
        reason, task = int(self.reason[i]), int(self.task[i])
        if reason == INPUT and task >= 0:
            name = self.schedule.task_title(task) or "a copy in"
            return f"waiting for data: {name} runs on another stream"
        return REASON_WORDS[reason]


def lane_idle(schedule: Schedule) -> ImportedIdle:
    """`imported_idle` of an imported device's lanes, from their unions."""
    return imported_idle(schedule, unit_unions(schedule))


def imported_idle(schedule: Schedule, unions: dict[str, Union]) -> ImportedIdle:
    """The idle spans of every lane that ran something, in row order, then time."""
    first = float(schedule.start.min())
    compute = UNITS.index("compute")
    parts = []
    rows = schedule.row
    for row in range(schedule.n_workers):
        tasks = np.flatnonzero(rows == row)
        if not len(tasks):
            continue
        unit = int(schedule.unit[tasks[0]])
        busy = union_of(schedule.start, schedule.end, tasks)
        gaps_start = np.concatenate([[first], busy.end[:-1]])
        gaps_end = busy.start
        waiting = _classified(gaps_start, gaps_end, unions, feeds=unit == compute)
        done_at = float(busy.end[-1])
        done = (
            np.array([done_at]), np.array([schedule.makespan]), np.array([DONE]), np.array([-1])
        )  # fmt: skip
        spans = [np.concatenate([w, d]) for w, d in zip(waiting, done, strict=True)]
        keep = spans[1] > spans[0]
        parts.append((np.full(int(keep.sum()), row), *(column[keep] for column in spans)))
    if not parts:
        empty = np.zeros(0)
        nothing = empty.astype(np.int64)
        return ImportedIdle(schedule, nothing, empty, empty, nothing, nothing)
    columns = [np.concatenate(column) for column in zip(*parts, strict=True)]
    return ImportedIdle(
        schedule, columns[0].astype(np.int64), columns[1], columns[2],
        columns[3].astype(np.int64), columns[4].astype(np.int64),
    )  # fmt: skip


def _classified(
    start: FloatArray, end: FloatArray, unions: dict[str, Union], feeds: bool
) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
    """The gaps [start, end) cut where the device's activity (and, for a lane that
    ``feeds`` on loads, the loads) starts or stops; each piece given its reason; pieces
    next to each other with one reason (and one awaited copy) joined."""
    gaps = start < end
    start, end = start[gaps], end[gaps]
    if not len(start):
        nothing = np.zeros(0)
        return nothing, nothing, nothing.astype(np.int64), nothing.astype(np.int64)
    every, loads = unions["any"], unions["load"]
    bounds = [start, end, every.start, every.end]
    feeds = feeds and len(loads.start) > 0
    if feeds:
        bounds += [loads.start, loads.end]
    cuts = np.unique(np.concatenate(bounds))
    cuts = cuts[(cuts >= start[0]) & (cuts <= end[-1])]
    lo, hi = cuts[:-1], cuts[1:]
    middle = (lo + hi) / 2
    gap = np.searchsorted(start, middle, side="right") - 1
    inside = (gap >= 0) & (middle < end[np.maximum(gap, 0)])
    lo, hi, middle = lo[inside], hi[inside], middle[inside]
    reason = np.where(every.holding(middle) < 0, HOST, OTHER)
    awaited = np.full(len(middle), -1, dtype=np.int64)
    if feeds:
        loading = loads.holding(middle)
        reason = np.where(loading >= 0, INPUT, reason)
        awaited = np.where(loading >= 0, loads.first[np.maximum(loading, 0)], -1)
    return _joined(lo, hi, reason.astype(np.int64), awaited)


def _joined(
    lo: FloatArray, hi: FloatArray, reason: IntArray, awaited: IntArray
) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
    """Neighbouring pieces with the same reason and copy as one."""
    if not len(lo):
        return lo, hi, reason, awaited
    opens = np.concatenate(
        [[True], (lo[1:] != hi[:-1]) | (reason[1:] != reason[:-1]) | (awaited[1:] != awaited[:-1])]
    )
    closes = np.concatenate([opens[1:], [True]])
    return lo[opens], hi[closes], reason[opens], awaited[opens]


def analysed(run: DeviceRun) -> tuple[DeviceFigures, ImportedIdle]:
    """A device's figures and its lanes' idle spans (from one set of unions)."""
    unions = unit_unions(run.schedule)
    return device_figures(run.schedule, unions), imported_idle(run.schedule, unions)
