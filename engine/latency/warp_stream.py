"""The warp model's run a chunk of bursts at a time (`engine.latency.warps.bursts_between`):
the same numbers and tasks as `simulate_warps`, in memory that does not grow with the run.
`summarize` folds the chunks into the run's figures; `write_warp_tasks` writes the tasks in
`simulate_warps`' order (start, unit, worker) without building the Schedule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.analysis.writers import Write, write_tasks
from engine.latency.warps import (
    ISSUE_UNIT,
    STAGE_NAMES,
    UNIT_NAMES,
    WARP_UNIT,
    Bursts,
    WarpConfig,
    burst_count,
    bursts_between,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: Bursts per chunk: each burst is up to three tasks, so about 200,000 tasks at a time.
CHUNK = 65_536


def burst_chunks(config: WarpConfig, chunk: int = CHUNK) -> Iterator[Bursts]:
    """Every burst of the run, ``chunk`` at a time, in issue order."""
    total = burst_count(config)
    for low in range(0, total, chunk):
        yield bursts_between(config, low, min(total, low + chunk))


@dataclass(frozen=True)
class WarpSummary:
    """The run's figures, as `engine.latency.warps.WarpRun` and the generic metrics give them."""

    config: WarpConfig
    bursts: int
    loads: int
    makespan: float
    warp_busy: FloatArray  # per warp: compute plus loads
    issue_busy: float
    steady_state_utilization: float | None

    @property
    def tasks(self) -> int:
        return 2 * self.bursts + self.loads

    @property
    def utilization(self) -> float:
        """Issue-unit busy cycles / run cycles."""
        return self.issue_busy / self.config.cycles

    @property
    def stall_cycles(self) -> FloatArray:
        """Per warp: cycles it was ready but not holding the issue unit."""
        stall: FloatArray = self.config.cycles - self.warp_busy
        return stall

    def utilization_by_unit(self) -> dict[str, float]:
        """Mean busy fraction of the makespan per unit, as `engine.analysis.metrics` gives."""
        span = self.makespan
        if span <= 0:
            return {UNIT_NAMES[WARP_UNIT]: 0.0, UNIT_NAMES[ISSUE_UNIT]: 0.0}
        return {
            UNIT_NAMES[WARP_UNIT]: float((self.warp_busy / span).mean()),
            UNIT_NAMES[ISSUE_UNIT]: self.issue_busy / span,
        }


def summarize(config: WarpConfig, chunk: int = CHUNK) -> WarpSummary:
    """Fold the run's bursts into its figures, ``chunk`` bursts at a time."""
    warp_busy = np.zeros(config.warps)
    issue_busy = makespan = window_busy = 0.0
    bursts = loads = 0
    periods = (config.cycles - config.warm_up) // config.period
    low, high = config.warm_up, config.warm_up + periods * config.period
    for part in burst_chunks(config, chunk):
        busy = part.end - part.start
        np.add.at(warp_busy, part.warp, busy)
        np.add.at(warp_busy, part.load_warp, part.load_end - part.load_start)
        issue_busy += float(busy.sum())
        makespan = max(makespan, float(part.end.max()), float(part.load_end.max(initial=0.0)))
        if periods >= 1:
            inside = np.minimum(part.end, high) - np.maximum(part.start, low)
            window_busy += float(np.clip(inside, 0, None).sum())
        bursts += len(part.start)
        loads += len(part.load_start)
    warp_busy.flags.writeable = False
    steady = window_busy / (high - low) if periods >= 1 else None
    return WarpSummary(config, bursts, loads, makespan, warp_busy, issue_busy, steady)


def task_chunks(config: WarpConfig, chunk: int = CHUNK) -> Iterator[tuple[npt.NDArray[Any], ...]]:
    """The run's tasks in `simulate_warps`' order, a chunk at a time; a load starts at most
    at the next burst's start, so only loads from the next chunk's first burst on carry."""
    carry: list[npt.NDArray[Any]] | None = None
    chunks = burst_chunks(config, chunk)
    part = next(chunks, None)
    while part is not None:
        following = next(chunks, None)
        columns: list[npt.NDArray[Any]] = list(part.tasks())
        if carry is not None:
            columns = [np.concatenate([old, new]) for old, new in zip(carry, columns, strict=True)]
        order = np.lexsort((columns[3], columns[2], columns[4]))  # start, unit, worker
        columns = [column[order] for column in columns]
        if following is not None:
            now = columns[4] < following.start[0]
            carry = [column[~now] for column in columns]
            columns = [column[now] for column in columns]
        yield tuple(columns)
        part = following


def write_warp_tasks(write: Write, config: WarpConfig, indent: str, chunk: int = CHUNK) -> None:
    """The tasks as `engine.analysis.writers` writes a Schedule's: JSON objects, one a line,
    comma-separated, no brackets."""
    chunks = task_chunks(config, chunk)
    rows = (list(zip(*(column.tolist() for column in columns), strict=True)) for columns in chunks)
    write_tasks(write, rows, STAGE_NAMES, UNIT_NAMES, f"\n{indent}")
