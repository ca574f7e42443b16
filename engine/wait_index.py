"""The index behind the wait reasons (engine/waits.py): sorted views of one Schedule built
once, lazily, and kept on the Schedule; interval stabbing and vectorized cutting of spans."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from engine.schedule import Schedule, cached_on

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_BLOCK = 64

T = TypeVar("T")


# -- building blocks ---------------------------------------------------------------------


class Intervals:
    """Half-open intervals [lo, hi) with lo ≤ hi: how many and which contain a time, in
    O(log n + answer) when they nest little (slot holds), O(n / 64) at worst."""

    def __init__(self, lo: FloatArray, hi: FloatArray) -> None:
        self.order = np.argsort(lo, kind="stable").astype(np.int64)
        self.lo, self.hi = lo[self.order], hi[self.order]
        self.hi_sorted = np.sort(hi)
        self.reach = np.maximum.accumulate(self.hi) if len(lo) else np.zeros(0)
        blocks = -(-len(lo) // _BLOCK)
        padded = np.full(blocks * _BLOCK, -np.inf)
        padded[: len(lo)] = self.hi
        self.block_max = padded.reshape(blocks, _BLOCK).max(axis=1)

    def count(self, times: FloatArray) -> IntArray:
        inside = np.searchsorted(self.lo, times, "right") - np.searchsorted(
            self.hi_sorted, times, "right"
        )
        return inside.astype(np.int64)

    def at(self, time: float) -> IntArray:
        """Indices (ascending) of the intervals containing ``time``."""
        k = int(np.searchsorted(self.lo, time, "right"))
        first = int(np.searchsorted(self.reach[:k], time, "right"))
        if k - first <= 4 * _BLOCK:
            positions = first + np.flatnonzero(self.hi[first:k] > time)
        else:
            b0, b1 = first // _BLOCK, (k - 1) // _BLOCK + 1
            blocks = b0 + np.flatnonzero(self.block_max[b0:b1] > time)
            candidates = (blocks[:, None] * _BLOCK + np.arange(_BLOCK)).reshape(-1)
            candidates = candidates[(candidates >= first) & (candidates < k)]
            positions = candidates[self.hi[candidates] > time]
        return np.sort(self.order[positions])

    def pairs(self, times: FloatArray) -> tuple[IntArray, IntArray]:
        """Every (query, interval) with the query time inside the interval, sorted by
        query then interval: O(n log q + answer) without a Python loop."""
        if not len(times) or not len(self.lo):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        q_order = np.argsort(times, kind="stable")
        qs = times[q_order]
        k = int(np.searchsorted(self.lo, qs[-1], "right"))
        first = int(np.searchsorted(self.reach[:k], qs[0], "right"))
        lo, hi = self.lo[first:k], self.hi[first:k]
        a = np.searchsorted(qs, lo, "left")
        counts = np.maximum(np.searchsorted(qs, hi, "left") - a, 0)
        interval = np.repeat(np.arange(first, k), counts)
        step = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        query = q_order[np.repeat(a, counts) + step]
        ops = self.order[interval]
        key = np.lexsort((ops, query))
        return query[key].astype(np.int64), ops[key].astype(np.int64)


def cut_at_points(
    lo: FloatArray, hi: FloatArray, points: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Cut each [lo, hi) at the sorted ``points`` strictly inside it: (parent, lo, hi) of
    the pieces, in order."""
    a = np.searchsorted(points, lo, "right")
    counts = np.maximum(np.searchsorted(points, hi, "left") - a, 0)
    pieces = counts + 1
    parent = np.repeat(np.arange(len(lo)), pieces)
    step = np.arange(int(pieces.sum())) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    index = np.repeat(a, pieces) + step
    inner = np.clip(index, 1, max(len(points), 1)) - 1
    points_or_zero = points if len(points) else np.zeros(1)
    starts = np.where(step == 0, lo[parent], points_or_zero[inner])
    last = step == counts[parent]
    ends = np.where(last, hi[parent], points_or_zero[np.minimum(index, max(len(points) - 1, 0))])
    return parent, starts, ends


def cut_count(lo: FloatArray, hi: FloatArray, points: FloatArray) -> int:
    """How many pieces `cut_at_points` would add."""
    a = np.searchsorted(points, lo, "right")
    return int(np.maximum(np.searchsorted(points, hi, "left") - a, 0).sum())


@dataclass(frozen=True, eq=False)
class UnitTasks:
    """One unit's tasks sorted by (start, op)."""

    tasks: IntArray
    starts: FloatArray
    ops: IntArray
    points: FloatArray  # unique starts

    @property
    def last_start(self) -> float:
        return float(self.starts[-1]) if len(self.starts) else -np.inf


class WaitIndex:
    """Everything the reasons need, built once per Schedule (lazily, part by part)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.span = schedule.makespan
        self.tol = 1e-9 * max(1.0, self.span)
        self.pipeline = schedule.n_ops > 0 and len(schedule) > 0 and schedule.is_pipeline
        self.measured = self.pipeline and schedule.source == "measured"
        self._narration_ready = False
        rows = np.arange(schedule.n_workers)
        self.unit_of_row = (np.searchsorted(schedule.worker_offsets, rows, "right") - 1).astype(
            np.int64
        )

    @cached_property
    def units(self) -> list[UnitTasks]:
        s = self.schedule
        counts = np.bincount(s.unit, minlength=s.n_units)
        result = []
        for u in range(s.n_units):
            tasks = self._stage_column(u, int(counts[u]))
            if tasks is None:
                tasks = np.flatnonzero(s.unit == u)
                tasks = tasks[np.lexsort((s.op[tasks], s.start[tasks]))].astype(np.int64)
            starts = s.start[tasks]
            keep = np.ones(len(starts), dtype=bool)
            keep[1:] = np.diff(starts) > 0
            result.append(UnitTasks(tasks, starts, s.op[tasks], starts[keep]))
        return result

    def _stage_column(self, unit: int, count: int) -> IntArray | None:
        """A pipeline's tasks of stage ``unit`` in op order, when they are all of the unit's
        tasks and already sorted by start (every one-worker simulation): no sort needed."""
        s = self.schedule
        if not self.pipeline or unit >= s.op_task_index.shape[1] or count != s.n_ops:
            return None
        column = np.ascontiguousarray(s.op_task_index[:, unit])
        if not (s.unit[column] == unit).all() or (np.diff(s.start[column]) < 0).any():
            return None
        return column

    def prepare_narration(self) -> None:
        """Build, once, every sorted view narration searches (so no later call pays)."""
        if self._narration_ready:
            return
        _ = self.units
        if self.pipeline:
            _ = self.columns
            if self.slots > 0:
                _ = self.holds
        _ = self.schedule.row_reach
        self._narration_ready = True

    @cached_property
    def load_unit(self) -> int:
        """The unit of the read stage (its reads wait for slots), -1 off pipelines."""
        if not self.pipeline:
            return -1
        return int(self.schedule.unit[self.schedule.op_task_index[0, 0]])

    @property
    def slots(self) -> int:
        return self.schedule.buffers if self.pipeline else 0

    @cached_property
    def grant(self) -> FloatArray:
        """Per op, when it got its slot: the Schedule's grant times, else (measured) when
        the op B places before it had written (slots in op order), at most its read start."""
        s = self.schedule
        if s.grant is not None:
            return s.grant
        grant = np.zeros(s.n_ops)
        b = self.slots
        if 0 < b < s.n_ops:
            grant[b:] = np.maximum.accumulate(s.op_ends[: s.n_ops - b, -1])
        return np.minimum(grant, s.op_starts[:, 0])

    @cached_property
    def grant_order(self) -> IntArray:
        """Ops sorted by grant time (ties: op order)."""
        return np.argsort(self.grant, kind="stable").astype(np.int64)

    @cached_property
    def ready(self) -> FloatArray:
        """(n_ops, stages): when each stage could start (read: the grant)."""
        s = self.schedule
        ready = np.empty_like(s.op_starts)
        ready[:, 0] = self.grant
        ready[:, 1:] = s.op_ends[:, :-1]
        return ready

    @cached_property
    def holds(self) -> Intervals:
        """Slot holds: [grant (measured: read start), write end) per op."""
        s = self.schedule
        first = s.grant if s.grant is not None else s.op_starts[:, 0]
        return Intervals(np.minimum(first, s.op_ends[:, -1]), s.op_ends[:, -1])

    @cached_property
    def gaps(self) -> tuple[IntArray, FloatArray, FloatArray]:
        """Every row's idle intervals in [0, makespan] (overlapping tasks count once),
        sorted by (row, start)."""
        parts = [self._unit_gaps(u) for u in range(self.schedule.n_units)]
        rows, lo, hi = (np.concatenate(column) for column in zip(*parts, strict=True))
        return rows.astype(np.int64), lo, hi

    def _unit_gaps(self, unit: int) -> tuple[IntArray, FloatArray, FloatArray]:
        """The idle intervals of one unit's rows. A one-worker unit reads its tasks from
        `units` (sorted already); several workers use the Schedule's per-row order."""
        s = self.schedule
        first_row, k = int(s.worker_offsets[unit]), s.workers[unit]
        if k == 1:
            tasks = self.units[unit]
            starts, ends = tasks.starts, s.end[tasks.tasks]
            bounds = np.array([0, len(starts)])
            reach = np.maximum.accumulate(ends) if len(ends) else ends
        else:
            _, all_bounds = s.by_row
            lo, hi = int(all_bounds[first_row]), int(all_bounds[first_row + k])
            starts, reach = s.row_starts[lo:hi], s.row_reach[0][lo:hi]
            bounds = all_bounds[first_row : first_row + k + 1] - lo
        sizes = np.diff(bounds)
        row_of = np.repeat(np.arange(first_row, first_row + k), sizes)
        previous = np.empty(len(starts))
        previous[1:] = reach[:-1]
        nonempty = sizes > 0
        previous[bounds[:-1][nonempty]] = 0.0
        inner = starts > previous
        tail_from = np.zeros(k)
        tail_from[nonempty] = reach[bounds[1:][nonempty] - 1]
        tail = self.span > tail_from
        rows = np.concatenate([row_of[inner], first_row + np.flatnonzero(tail)])
        gap_lo = np.concatenate([previous[inner], tail_from[tail]])
        gap_hi = np.concatenate([starts[inner], np.full(int(tail.sum()), self.span)])
        if k == 1:
            return rows, gap_lo, gap_hi
        key = np.argsort(rows, kind="stable")  # each row's inner gaps, then its tail
        return rows[key], gap_lo[key], gap_hi[key]

    @cached_property
    def columns(self) -> tuple[list[FloatArray], list[FloatArray], list[bool]]:
        """Per stage: ready times sorted, starts sorted, and whether both already run in op
        order (then the ops waiting at any time are one contiguous range)."""
        ready_sorted, start_sorted, in_order = [], [], []
        for stage in range(self.ready.shape[1]):
            ready = self.ready[:, stage]
            start = self.schedule.op_starts[:, stage]
            in_order.append(bool((np.diff(ready) >= 0).all() and (np.diff(start) >= 0).all()))
            ready_sorted.append(np.sort(ready))
            start_sorted.append(np.sort(start))
        return ready_sorted, start_sorted, in_order


def wait_index(schedule: Schedule) -> WaitIndex:
    return cached_on(schedule, "_waits_index", lambda: WaitIndex(schedule))
