"""Pure functions of a Schedule: busy and idle time, utilization, gaps, speedup, bottleneck."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.scenario import Scenario
from engine.schedule import Schedule

FloatArray = npt.NDArray[np.float64]


def busy_by_worker(schedule: Schedule) -> FloatArray:
    """Busy time of every worker (one entry per timeline row), overlaps counted once.

    Simulated workers never overlap themselves; measured rows may (several streams' kernels
    on the SMs), so the union of intervals is measured rather than the sum of durations.
    """
    order, bounds = schedule.by_row
    starts, ends = schedule.start[order], schedule.end[order]
    # Running maximum of ends within each row turns overlaps into a union: a task adds only
    # what reaches past everything before it.
    busy = np.zeros(schedule.n_workers)
    for row in range(schedule.n_workers):
        lo, hi = bounds[row], bounds[row + 1]
        if lo == hi:
            continue
        s, e = starts[lo:hi], ends[lo:hi]
        reach = np.maximum.accumulate(e)
        previous = np.concatenate([[s[0]], reach[:-1]])
        busy[row] = float(np.clip(e - np.maximum(s, previous), 0, None).sum())
    return busy


def utilization_by_worker(schedule: Schedule) -> FloatArray:
    """Busy time / makespan per worker, in [0, 1] (0 for an empty schedule)."""
    span = schedule.makespan
    return busy_by_worker(schedule) / span if span > 0 else np.zeros(schedule.n_workers)


def idle_by_worker(schedule: Schedule) -> FloatArray:
    return schedule.makespan - busy_by_worker(schedule)


def utilization_by_unit(schedule: Schedule) -> dict[str, float]:
    """Mean utilization of each unit's workers, keyed by unit name."""
    per_worker = utilization_by_worker(schedule)
    offsets = schedule.worker_offsets
    return {
        name: float(per_worker[offsets[u] : offsets[u] + schedule.workers[u]].mean())
        for u, name in enumerate(schedule.unit_names)
    }


def idle_gaps(schedule: Schedule, row: int) -> list[tuple[float, float]]:
    """The (start, end) intervals in [0, makespan] when timeline row ``row`` is idle."""
    order, bounds = schedule.by_row
    idx = order[bounds[row] : bounds[row + 1]]
    gaps: list[tuple[float, float]] = []
    reached = 0.0
    for s, e in zip(schedule.start[idx].tolist(), schedule.end[idx].tolist(), strict=True):
        if s > reached:
            gaps.append((reached, s))
        reached = max(reached, e)
    if schedule.makespan > reached:
        gaps.append((reached, schedule.makespan))
    return gaps


def speedup(baseline: Schedule, improved: Schedule) -> float:
    """How many times faster ``improved`` finishes than ``baseline``."""
    if improved.makespan <= 0:
        return float("inf") if baseline.makespan > 0 else 1.0
    return baseline.makespan / improved.makespan


def work_by_stage(schedule: Schedule) -> FloatArray:
    """Total duration of each stage's tasks."""
    counts = np.bincount(
        schedule.stage, weights=schedule.duration, minlength=len(schedule.stage_names)
    )
    return counts.astype(np.float64)


@dataclass(frozen=True)
class Bottleneck:
    """The stage whose unit has the most work per worker: a lower bound on any makespan."""

    stage: str
    unit: str
    work_per_worker: float
    share: float  # work_per_worker / makespan: 1.0 means that unit never rests
    tied: tuple[str, ...] = ()  # every stage with that much work per worker (balanced if > 1)
    unit_title: str = ""  # how people call the unit: "load unit", "copy-in", "SMs"

    @property
    def summary(self) -> str:
        """e.g. "read (load unit)", or "none: read = compute = write" when balanced."""
        if len(self.tied) > 1:
            return "none: " + " = ".join(self.tied) + " (balanced)"
        return f"{self.stage} ({self.unit_title or self.unit + ' unit'})"


def bottleneck(schedule: Schedule) -> Bottleneck:
    per_unit = np.zeros(schedule.n_units)
    np.add.at(per_unit, schedule.unit, schedule.duration)
    load = per_unit / np.asarray(schedule.workers, dtype=float)
    unit = int(np.argmax(load))
    span = schedule.makespan

    def main_stage(u: int) -> str:
        tasks = schedule.stage[schedule.unit == u]
        return schedule.stage_names[int(np.bincount(tasks).argmax()) if len(tasks) else 0]

    tolerance = 1e-9 * max(1.0, float(load[unit]))
    tied = tuple(main_stage(int(u)) for u in np.flatnonzero(load >= load[unit] - tolerance))
    return Bottleneck(
        stage=main_stage(unit),
        unit=schedule.unit_names[unit],
        unit_title=schedule.unit_title(unit),
        work_per_worker=float(load[unit]),
        share=float(load[unit] / span) if span > 0 else 0.0,
        tied=tied,
    )


def lower_bound(scenario: Scenario) -> float:
    """No schedule can beat max(per-unit work / workers, the longest op)."""
    durations = scenario.durations
    per_unit = durations.sum(axis=0) / np.asarray(scenario.workers, dtype=float)
    return float(max(per_unit.max(), durations.sum(axis=1).max()))


def closed_form_makespan(scenario: Scenario, policy: str | None = None) -> float | None:
    """The textbook formula where it applies, else None.

    Identical ops, one worker per unit: pipelined with unlimited slots (or at least as many
    slots as ops, or as the 3 stages need) gives (r + c + w) + (N − 1)·max(r, c, w); with one
    slot (sequential) every op runs alone: N·(r + c + w).
    """
    policy = policy or scenario.policy
    if scenario.workers != (1, 1, 1) or not scenario.uniform:
        return None
    n = scenario.n_ops
    r, c, w = (float(getattr(scenario, s)[0]) for s in ("read", "compute", "write"))
    if policy == "sequential" or scenario.buffers == 1:
        return n * (r + c + w)
    if scenario.buffers == 0 or scenario.buffers >= min(n, 3):
        return (r + c + w) + (n - 1) * max(r, c, w)
    return None
