"""The per-Schedule indexes as they were built before their fast paths (commit 6123af0):
plain sorts and per-row loops. The oracle `test_fast_paths` holds the fast paths to, bit
for bit. Not used by the app."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.model.schedule import Schedule
from engine.reasons.waits import _CUTS_PER_TASK, DONE, INPUT, OVERHEAD, SLOT, _split_at

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def cut_at_points(
    lo: FloatArray, hi: FloatArray, points: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Cut each [lo, hi) at the sorted ``points`` strictly inside it: (parent, lo, hi)."""
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


def by_row(s: Schedule) -> tuple[IntArray, IntArray]:
    rows = s.worker_offsets[s.unit] + s.worker
    order = np.lexsort((s.end, s.start, rows)).astype(np.int64)
    bounds = np.searchsorted(rows[order], np.arange(s.n_workers + 1)).astype(np.int64)
    return order, bounds


def row_reach(s: Schedule) -> tuple[FloatArray, IntArray]:
    """Task by task along each row: the latest end so far, and the last task to reach it."""
    order, bounds = by_row(s)
    reach = np.empty(len(order))
    task = np.empty(len(order), dtype=np.int64)
    for row in range(s.n_workers):
        latest, holder = -np.inf, -1
        for k in range(int(bounds[row]), int(bounds[row + 1])):
            if s.end[order[k]] >= latest:
                latest, holder = float(s.end[order[k]]), int(order[k])
            reach[k], task[k] = latest, holder
    return reach, task


def event_times(s: Schedule) -> FloatArray:
    times = np.unique(np.concatenate([[0.0], s.start, s.end]))
    if len(times) > 1:
        tolerance = 1e-9 * max(1.0, float(times[-1]))
        keep = np.concatenate([[True], np.diff(times) > tolerance])
        times = times[keep]
    return times


def op_matrices(s: Schedule) -> tuple[FloatArray, FloatArray, IntArray]:
    stages = len(s.stage_names)
    order = np.argsort(s.op * stages + s.stage, kind="stable").astype(np.int64)
    shape = (s.n_ops, stages)
    return s.start[order].reshape(shape), s.end[order].reshape(shape), order.reshape(shape)


@dataclass
class Unit:
    tasks: IntArray
    starts: FloatArray
    ops: IntArray
    points: FloatArray


def units(s: Schedule, pipeline: bool) -> list[Unit]:
    counts = np.bincount(s.unit, minlength=s.n_units)
    result = []
    for u in range(s.n_units):
        tasks = None
        if pipeline and u < len(s.stage_names) and counts[u] == s.n_ops:
            column = op_matrices(s)[2][:, u]
            if (s.unit[column] == u).all() and not (np.diff(s.start[column]) < 0).any():
                tasks = column
        if tasks is None:
            tasks = np.flatnonzero(s.unit == u)
            tasks = tasks[np.lexsort((s.op[tasks], s.start[tasks]))].astype(np.int64)
        starts = s.start[tasks]
        keep = np.ones(len(starts), dtype=bool)
        keep[1:] = np.diff(starts) > 0
        result.append(Unit(tasks, starts, s.op[tasks], starts[keep]))
    return result


def gaps(s: Schedule, pipeline: bool) -> tuple[IntArray, FloatArray, FloatArray]:
    span = s.makespan
    order, all_bounds = by_row(s)
    row_starts = s.start[order]
    reach_all = row_reach(s)[0]
    unit_tasks = units(s, pipeline)
    parts = []
    for unit in range(s.n_units):
        first_row, k = int(s.worker_offsets[unit]), s.workers[unit]
        if k == 1:
            tasks = unit_tasks[unit]
            starts, ends = tasks.starts, s.end[tasks.tasks]
            bounds = np.array([0, len(starts)])
            reach = np.maximum.accumulate(ends) if len(ends) else ends
        else:
            lo, hi = int(all_bounds[first_row]), int(all_bounds[first_row + k])
            starts, reach = row_starts[lo:hi], reach_all[lo:hi]
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
        tail = span > tail_from
        rows = np.concatenate([row_of[inner], first_row + np.flatnonzero(tail)])
        gap_lo = np.concatenate([previous[inner], tail_from[tail]])
        gap_hi = np.concatenate([starts[inner], np.full(int(tail.sum()), span)])
        if k > 1:
            key = np.argsort(rows, kind="stable")
            rows, gap_lo, gap_hi = rows[key], gap_lo[key], gap_hi[key]
        parts.append((rows, gap_lo, gap_hi))
    rows, lo, hi = (np.concatenate(column) for column in zip(*parts, strict=True))
    return rows.astype(np.int64), lo, hi


def idle_columns(s: Schedule) -> tuple[IntArray, FloatArray, FloatArray, IntArray, IntArray]:
    """The idle spans' (row, start, end, reason, next_task), as engine.reasons.waits built them."""
    pipeline = s.n_ops > 0 and len(s) > 0 and s.is_pipeline
    measured = pipeline and s.source == "measured"
    tol = 1e-9 * max(1.0, s.makespan)
    slots = s.buffers if pipeline else 0
    load_unit = int(s.unit[op_matrices(s)[2][0, 0]]) if pipeline else -1
    unit_of_row = (np.searchsorted(s.worker_offsets, np.arange(s.n_workers), "right") - 1).astype(
        np.int64
    )
    rows, lo, hi = gaps(s, pipeline)
    op_starts, op_ends, _ = op_matrices(s) if pipeline else (None, None, None)
    if pipeline:
        assert op_starts is not None and op_ends is not None
        first = s.grant if s.grant is not None else op_starts[:, 0]
        hold_lo = np.sort(np.minimum(first, op_ends[:, -1]))
        hold_hi = np.sort(op_ends[:, -1])
        if s.grant is not None:
            grant = s.grant
        else:
            grant = np.zeros(s.n_ops)
            if 0 < slots < s.n_ops:
                grant[slots:] = np.maximum.accumulate(op_ends[: s.n_ops - slots, -1])
            grant = np.minimum(grant, op_starts[:, 0])
        ready = np.empty_like(op_starts)
        ready[:, 0] = grant
        ready[:, 1:] = op_ends[:, :-1]
    gap_unit = unit_of_row[rows]
    parts = []
    budget = _CUTS_PER_TASK * len(s) + 100_000
    for u, unit in enumerate(units(s, pipeline)):
        mine = gap_unit == u
        r, x, y = rows[mine], lo[mine], hi[mine]
        points = unit.points if s.workers[u] > 1 else np.zeros(0)
        if u == load_unit and slots > 0 and s.grant is None:
            unsorted_lo = np.minimum(first, op_ends[:, -1])  # type: ignore[index]
            points = np.union1d(points, np.concatenate([unsorted_lo, op_ends[:, -1]]))  # type: ignore[index]
        if len(points) and cut_count(x, y, points) > budget:
            last_start = float(unit.starts[-1]) if len(unit.starts) else -np.inf
            points = np.asarray([last_start]) if len(unit.starts) else np.zeros(0)
        if len(points):
            parent, x, y = cut_at_points(x, y, points)
            r = r[parent]
        k = np.searchsorted(unit.starts, x, "right")
        done = k >= len(unit.starts)
        if len(unit.tasks):  # (the fix for units without tasks, which crashed before)
            task = np.where(done, -1, unit.tasks[np.minimum(k, len(unit.tasks) - 1)])
        else:
            task = np.full(len(x), -1, dtype=np.int64)
        reason = np.where(done, DONE, INPUT).astype(np.int8)
        if pipeline and u == load_unit:
            other = OVERHEAD if measured else INPUT
            if slots > 0:
                middle = 0.5 * (x + y)
                count = np.searchsorted(hold_lo, middle, "right") - np.searchsorted(
                    hold_hi, middle, "right"
                )
                full = count >= slots
                reason[~done] = np.where(full[~done], SLOT, other)
            else:
                reason[~done] = other
        elif pipeline and measured and (~done).any():
            safe = np.maximum(task, 0)
            ready_at = ready[s.op[safe], s.stage[safe]]
            late = ~done & (ready_at < y - tol)
            cut = np.where(late & (ready_at > x), ready_at, np.nan)
            threshold = np.where(np.isnan(cut), -np.inf, cut)
            parent, x, y = _split_at(x, y, cut)
            r, task, reason = r[parent], task[parent], reason[parent]
            reason[late[parent] & (x >= threshold[parent])] = OVERHEAD
        parts.append((r, x, y, reason, task.astype(np.int64)))
    columns = [np.concatenate(c) for c in zip(*parts, strict=True)]
    return (
        columns[0].astype(np.int64),
        columns[1],
        columns[2],
        columns[3].astype(np.int8),
        columns[4].astype(np.int64),
    )


def busy_by_worker(s: Schedule) -> FloatArray:
    order, bounds = by_row(s)
    starts, ends = s.start[order], s.end[order]
    busy = np.zeros(s.n_workers)
    for row in range(s.n_workers):
        lo, hi = bounds[row], bounds[row + 1]
        if lo == hi:
            continue
        a, b = starts[lo:hi], ends[lo:hi]
        reach = np.maximum.accumulate(b)
        previous = np.concatenate([[a[0]], reach[:-1]])
        busy[row] = float(np.clip(b - np.maximum(a, previous), 0, None).sum())
    return busy


def work_per_unit(s: Schedule) -> FloatArray:
    per_unit = np.zeros(s.n_units)
    np.add.at(per_unit, s.unit, s.duration)
    return per_unit


def typical_duration(s: Schedule) -> float:
    durations = s.duration
    positive = durations[durations > 0]
    return float(np.median(positive)) if len(positive) else 1.0


class SpanIndex:
    """engine.indexes.density.SpanIndex as it was (its row order ties on the start by index)."""

    def __init__(self, start: FloatArray, end: FloatArray, row: IntArray, n_rows: int) -> None:
        starts = np.asarray(start, dtype=np.float64)
        ends = np.asarray(end, dtype=np.float64)
        rows = np.asarray(row, dtype=np.int64)
        order = np.lexsort((starts, rows)).astype(np.int64)
        bounds = np.searchsorted(rows[order], np.arange(n_rows + 1)).astype(np.int64)
        s, e = starts[order], ends[order]
        reach = np.empty_like(e)
        merged_start: list[FloatArray] = []
        merged_end: list[FloatArray] = []
        counts = [0] * n_rows
        for r in range(n_rows):
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            if lo == hi:
                continue
            reach[lo:hi] = np.maximum.accumulate(e[lo:hi])
            fresh = np.concatenate([[True], s[lo + 1 : hi] > reach[lo : hi - 1]])
            firsts = np.flatnonzero(fresh)
            merged_start.append(s[lo:hi][firsts])
            lasts = np.concatenate([firsts[1:] - 1, [hi - lo - 1]])
            merged_end.append(reach[lo:hi][lasts])
            counts[r] = len(firsts)
        self.merged_bounds = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.merged_start = np.concatenate(merged_start) if merged_start else np.zeros(0)
        self.merged_end = np.concatenate(merged_end) if merged_end else np.zeros(0)
        lengths = self.merged_end - self.merged_start
        self.merged_before = np.zeros(len(self.merged_start))
        for r in range(n_rows):
            lo, hi = int(self.merged_bounds[r]), int(self.merged_bounds[r + 1])
            if hi > lo + 1:
                self.merged_before[lo + 1 : hi] = np.cumsum(lengths[lo : hi - 1])
        duration = ends - starts
        self.by_length = np.argsort(duration, kind="stable").astype(np.int64)
        self.lengths = duration[self.by_length]
        self.reach = reach

    def busy_fraction(self, t0: float, t1: float, columns: int) -> FloatArray:
        edges = np.linspace(t0, t1, columns + 1)
        out = np.empty((len(self.merged_bounds) - 1, columns))
        for r in range(len(out)):
            lo, hi = int(self.merged_bounds[r]), int(self.merged_bounds[r + 1])
            if lo == hi:
                out[r] = 0.0
                continue
            starts = self.merged_start[lo:hi]
            k = np.searchsorted(starts, edges, side="right") - 1
            inside = k >= 0
            k = np.maximum(k, 0)
            length = self.merged_end[lo:hi][k] - starts[k]
            partial = np.clip(edges - starts[k], 0.0, length)
            busy = np.where(inside, self.merged_before[lo:hi][k] + partial, 0.0)
            out[r] = np.diff(busy) / ((t1 - t0) / columns)
        return np.clip(out, 0.0, 1.0)


def idle_gaps(schedule: Schedule, row: int) -> list[tuple[float, float]]:
    """The (start, end) intervals in [0, makespan] when timeline row ``row`` is idle, one
    task at a time (engine.analysis.metrics had it)."""
    mine = np.flatnonzero(schedule.row == row)
    mine = mine[np.lexsort((schedule.end[mine], schedule.start[mine]))]
    gaps: list[tuple[float, float]] = []
    reached = 0.0
    for s, e in zip(schedule.start[mine].tolist(), schedule.end[mine].tolist(), strict=True):
        if s > reached:
            gaps.append((reached, s))
        reached = max(reached, e)
    if schedule.makespan > reached:
        gaps.append((reached, schedule.makespan))
    return gaps
