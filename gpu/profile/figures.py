"""The figures of an imported device: how long each unit was busy, how much of the copying
ran under compute, and what perfect overlap could save at most.

All from the union of intervals — a unit's busy time is the length of the union of its
tasks over every stream, never a sum over streams (two streams copying at once are busy
once). Times are seconds from the device's first activity (`gpu.profile.lanes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.base.text import time_text
from engine.model.schedule import UNITS, Schedule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The parts of the makespan, in the contract's order.
PARTS = ("compute_only", "overlapped", "copy_only", "idle")


@dataclass(frozen=True)
class Union:
    """Disjoint intervals, sorted, that cover what a set of tasks covers; ``first`` is the
    task that opens each (the earliest to start)."""

    start: FloatArray
    end: FloatArray
    first: IntArray

    @property
    def length(self) -> float:
        return float((self.end - self.start).sum())

    def holding(self, times: FloatArray) -> IntArray:
        """For each time, the interval that holds it (start ≤ t < end), or -1."""
        at = np.searchsorted(self.start, times, side="right") - 1
        if not len(self.start):
            return at
        inside = (at >= 0) & (times < self.end[np.maximum(at, 0)])
        return np.where(inside, at, -1)


def union_of(start: FloatArray, end: FloatArray, tasks: IntArray | None = None) -> Union:
    """The union of the intervals [start, end) (of ``tasks``, all by default); touching
    intervals join."""
    tasks = np.arange(len(start), dtype=np.int64) if tasks is None else tasks
    order = tasks[np.argsort(start[tasks], kind="stable")]
    starts, reach = start[order], np.maximum.accumulate(end[order]) if len(order) else end[order]
    opens = np.concatenate([[True], starts[1:] > reach[:-1]]) if len(order) else order.astype(bool)
    closes = np.concatenate([opens[1:], [True]]) if len(order) else opens
    return Union(starts[opens], reach[closes], order[opens])


@dataclass(frozen=True)
class Bottleneck:
    """The busiest unit and how busy it was."""

    resource: str
    busy: float
    why: str


@dataclass(frozen=True)
class DeviceFigures:
    """One device's figures, the contract's words (seconds)."""

    makespan: float
    busy: dict[str, float]
    breakdown: dict[str, float]
    headroom: float
    bottleneck: Bottleneck

    @property
    def copies_hidden(self) -> float:
        """The share of copying that ran while compute ran (1 when there was no copying)."""
        copying = self.breakdown["overlapped"] + self.breakdown["copy_only"]
        return self.breakdown["overlapped"] / copying if copying > 0 else 1.0


def unit_unions(schedule: Schedule) -> dict[str, Union]:
    """The union of each unit's tasks (load, compute, store), of the copies (load and
    store) and of everything ("any")."""
    unit = schedule.unit
    tasks = {name: np.flatnonzero(unit == UNITS.index(name)) for name in UNITS}
    tasks["copies"] = np.flatnonzero(unit != UNITS.index("compute"))
    tasks["any"] = np.arange(len(schedule), dtype=np.int64)
    return {name: union_of(schedule.start, schedule.end, which) for name, which in tasks.items()}


def device_figures(schedule: Schedule, unions: dict[str, Union] | None = None) -> DeviceFigures:
    """The figures of a device's Schedule (units load, compute, store; time 0 its first
    activity)."""
    unions = unit_unions(schedule) if unions is None else unions
    makespan = schedule.makespan - float(schedule.start.min()) if len(schedule) else 0.0
    busy = {name: unions[name].length for name in (*UNITS, "any")}
    compute, copies = busy["compute"], unions["copies"].length
    overlapped = max(0.0, compute + copies - busy["any"])
    breakdown = {
        "compute_only": compute - overlapped,
        "overlapped": overlapped,
        "copy_only": copies - overlapped,
        "idle": max(0.0, makespan - busy["any"]),
    }
    busiest = max(UNITS, key=lambda name: busy[name])
    share = busy[busiest] / makespan if makespan > 0 else 0.0
    why = (
        f"the {busiest} unit is busy {time_text(busy[busiest], schedule.time_unit)} of "
        f"{time_text(makespan, schedule.time_unit)} ({share:.0%}): however this work "
        f"overlaps, it takes at least {time_text(busy[busiest], schedule.time_unit)}"
    )
    return DeviceFigures(
        makespan=makespan,
        busy=busy,
        breakdown=breakdown,
        headroom=max(0.0, makespan - busy[busiest]),
        bottleneck=Bottleneck(busiest, busy[busiest], why),
    )
