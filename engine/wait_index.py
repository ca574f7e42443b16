"""The index behind the wait reasons (engine/waits.py): sorted views of one Schedule built
once, lazily, and kept on the Schedule; interval stabbing and vectorized cutting of spans."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from engine.schedule import Schedule, cached_on, op_column

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_BLOCK = 64

T = TypeVar("T")
T_co = TypeVar("T_co", bound=np.generic)


# -- building blocks ---------------------------------------------------------------------


class Intervals:
    """Half-open intervals [lo, hi) with lo ≤ hi: how many and which contain a time, in
    O(log n + answer) when they nest little (slot holds), O(n / 64) at worst.

    Intervals given in order of lo (slot holds granted in op order) are indexed without a
    sort or a copy: ``order`` is then None (position = interval)."""

    def __init__(self, lo: FloatArray, hi: FloatArray) -> None:
        in_order = _nondecreasing(lo)
        self.order: IntArray | None = (
            None if in_order else np.argsort(lo, kind="stable").astype(np.int64)
        )
        if self.order is None:
            self.lo, self.hi = lo, hi
        else:
            self.lo, self.hi = lo[self.order], hi[self.order]
        hi_in_order = _nondecreasing(self.hi)
        self.hi_sorted = self.hi if hi_in_order else np.sort(hi)
        if hi_in_order or not len(lo):
            self.reach = self.hi
        else:
            self.reach = np.maximum.accumulate(self.hi)
        blocks = -(-len(lo) // _BLOCK)
        padded = np.full(blocks * _BLOCK, -np.inf)
        padded[: len(lo)] = self.hi
        self.block_max = padded.reshape(blocks, _BLOCK).max(axis=1)

    def _intervals(self, positions: IntArray) -> IntArray:
        """The intervals at these positions of the sorted order."""
        return positions if self.order is None else self.order[positions]

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
        return np.sort(self._intervals(positions))

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
        ops = self._intervals(interval)
        key = np.lexsort((ops, query))
        return query[key].astype(np.int64), ops[key].astype(np.int64)


def _nondecreasing(values: FloatArray) -> bool:
    return len(values) < 2 or bool((values[1:] >= values[:-1]).all())


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


def cut_at_starts(
    lo: FloatArray, hi: FloatArray, unit: UnitTasks, budget: int
) -> tuple[IntArray, FloatArray, FloatArray, IntArray] | None:
    """`cut_at_points` at the unit's distinct starts, and for each piece the rank of the
    first of the unit's tasks starting after the piece's start (as
    ``searchsorted(unit.starts, piece start, "right")`` gives it: no search per piece).
    None when that would make more than ``budget`` cuts."""
    points = unit.points
    a = np.searchsorted(points, lo, "right")
    counts = np.maximum(np.searchsorted(points, hi, "left") - a, 0)
    if int(counts.sum()) > budget:
        return None
    pieces = counts + 1
    parent = np.repeat(np.arange(len(lo)), pieces)
    step = np.arange(len(parent)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    index = np.repeat(a, pieces) + step
    inner = np.clip(index, 1, max(len(points), 1)) - 1
    points_or_zero = points if len(points) else np.zeros(1)
    starts = np.where(step == 0, lo[parent], points_or_zero[inner])
    last = step == counts[parent]
    ends = np.where(last, hi[parent], points_or_zero[np.minimum(index, max(len(points) - 1, 0))])
    # A piece starts at lo (after the first `a` distinct starts) or at distinct start
    # `index - 1`: either way the tasks starting by then are those of the first `index`
    # distinct starts.
    if points is unit.starts:
        ranks = index
    else:
        first = np.flatnonzero(np.concatenate([[True], unit.starts[1:] > unit.starts[:-1]]))
        ranks = np.append(first, len(unit.starts))[index]
    return parent, starts, ends, ranks.astype(np.int64, copy=False)


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


def _unit(tasks: IntArray, starts: FloatArray, ops: IntArray) -> UnitTasks:
    """A unit's tasks with their starts and ops; ``points``: the distinct starts (the
    starts themselves when no two are equal)."""
    if _increasing(starts):
        return UnitTasks(tasks, starts, ops, starts)
    keep = np.ones(len(starts), dtype=bool)
    keep[1:] = np.diff(starts) > 0
    return UnitTasks(tasks, starts, ops, starts[keep])


def _increasing(values: FloatArray) -> bool:
    return len(values) < 2 or bool((values[1:] > values[:-1]).all())


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
        return [self._unit_tasks(u) for u in range(s.n_units)]

    def _unit_tasks(self, unit: int) -> UnitTasks:
        """One unit's tasks sorted by (start, op). A pipeline's unit that runs one stage in
        op order (every one-worker simulation, and every load unit) needs no sort, and
        with one worker it shares the row's arrays (`Schedule.by_row`)."""
        s = self.schedule
        stages = len(s.stage_names)
        if self.pipeline and s.op_major and s.unit is s.stage and unit < stages:
            starts = self._row_segment(unit, s.row_starts)
            if starts is not None:
                order, _ = s.by_row
                tasks = self._row_segment(unit, order)
                assert tasks is not None
                return _unit(tasks, starts, self._op_numbers)
            column = s.start[unit::stages]
            if _nondecreasing(column):
                tasks = np.arange(unit, len(s), stages, dtype=np.int64)
                return _unit(tasks, np.ascontiguousarray(column), self._op_numbers)
            by_start = np.argsort(column, kind="stable").astype(np.int64)  # ties: op order
            return _unit(unit + stages * by_start, column[by_start], by_start)
        tasks = np.flatnonzero(s.unit == unit)
        tasks = tasks[np.lexsort((s.op[tasks], s.start[tasks]))].astype(np.int64)
        return _unit(tasks, s.start[tasks], s.op[tasks])

    def _row_segment(self, unit: int, column: npt.NDArray[T_co]) -> npt.NDArray[T_co] | None:
        """The part of a `by_row`-ordered column that is the tasks of ``unit`` in op order,
        when the unit has one worker whose row is in op order (None otherwise)."""
        s = self.schedule
        if s.workers[unit] != 1:
            return None
        _, bounds = s.by_row  # (sets the two flags read here)
        row = int(s.worker_offsets[unit])
        if not s.__dict__["_rows_in_op_order"] or row in s.__dict__["_rows_resorted"]:
            return None
        return column[int(bounds[row]) : int(bounds[row + 1])]

    @cached_property
    def _op_numbers(self) -> IntArray:
        """0 .. n_ops - 1: the op of each task of a stage in op order (shared by units)."""
        ops = np.arange(self.schedule.n_ops, dtype=np.int64)
        ops.flags.writeable = False
        return ops

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
        first = s.grant if s.grant is not None else op_column(s, "start", 0)
        last = op_column(s, "end", -1)
        return Intervals(first if bool((first <= last).all()) else np.minimum(first, last), last)

    def ready_of(self, op: int, stage: int) -> float:
        """When stage ``stage`` of op ``op`` could start (one entry of `ready`)."""
        if stage == 0:
            return float(self.grant[op])
        return float(self.schedule.op_ends[op, stage - 1])

    @cached_property
    def gaps(self) -> tuple[IntArray, FloatArray, FloatArray]:
        """Every row's idle intervals in [0, makespan] (overlapping tasks count once),
        sorted by (row, start)."""
        rows, lo, hi, _ = self._gap_parts
        return rows, lo, hi

    @property
    def gap_next(self) -> IntArray:
        """Per gap (see `gaps`): the position in `Schedule.by_row` order of the task that
        ends it, or -1 for a gap that runs to the makespan."""
        return self._gap_parts[3]

    @cached_property
    def _gap_parts(self) -> tuple[IntArray, FloatArray, FloatArray, IntArray]:
        """`gaps`, and for each gap the position in `Schedule.by_row` order of the task
        that ends it (-1: the gap runs to the makespan). One pass over the rows' tasks."""
        s = self.schedule
        _, bounds = s.by_row
        starts, (reach, _) = s.row_starts, s.row_reach
        n_rows = s.n_workers
        sizes = np.diff(bounds)
        nonempty = sizes > 0
        firsts = bounds[:-1][nonempty]
        # A task opens a gap when it starts after everything before it on its row ended
        # (the row's first task: after 0).
        opens = np.empty(len(starts), dtype=bool)
        np.greater(starts[1:], reach[:-1], out=opens[1:])
        opens[firsts] = starts[firsts] > 0.0
        position = np.flatnonzero(opens)
        inner_hi = starts[position]
        inner_lo = reach[np.maximum(position - 1, 0)]
        first_of_row = np.zeros(len(starts), dtype=bool)
        first_of_row[firsts] = True
        inner_lo[first_of_row[position]] = 0.0
        del opens, first_of_row
        tail_from = np.zeros(n_rows)
        tail_from[nonempty] = reach[bounds[1:][nonempty] - 1]
        tail = self.span > tail_from
        # Each row's gaps in time order: its inner gaps, then its tail.
        per_row = np.diff(np.searchsorted(position, bounds))
        counts = per_row + tail
        ends = np.cumsum(counts)
        total = int(ends[-1]) if n_rows else 0
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), counts)
        lo, hi = np.empty(total), np.empty(total)
        after = np.empty(total, dtype=np.int64)
        tail_at = (ends - 1)[tail]
        inner_at = np.ones(total, dtype=bool)
        inner_at[tail_at] = False
        lo[inner_at], hi[inner_at], after[inner_at] = inner_lo, inner_hi, position
        lo[tail_at], hi[tail_at], after[tail_at] = tail_from[tail], self.span, -1
        return rows, lo, hi, after

    @cached_property
    def columns(self) -> tuple[list[FloatArray], list[FloatArray], list[bool]]:
        """Per stage: ready times sorted, starts sorted, and whether both already run in op
        order (then the ops waiting at any time are one contiguous range)."""
        s = self.schedule
        ready_sorted, start_sorted, in_order = [], [], []
        for stage in range(len(s.stage_names)):
            ready = self.grant if stage == 0 else op_column(s, "end", stage - 1)
            start = op_column(s, "start", stage)
            ready_in_order, start_in_order = _nondecreasing(ready), _nondecreasing(start)
            in_order.append(ready_in_order and start_in_order)
            ready_sorted.append(ready if ready_in_order else np.sort(ready))
            start_sorted.append(start if start_in_order else np.sort(start))
        return ready_sorted, start_sorted, in_order


def wait_index(schedule: Schedule) -> WaitIndex:
    return cached_on(schedule, "_waits_index", lambda: WaitIndex(schedule))
