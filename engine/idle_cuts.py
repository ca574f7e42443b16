"""The idle spans of a run whose slot holders and readiness never change inside an idle
gap (every simulated run; see engine.waits): gaps cut at their unit's starts, each piece
with the task it awaits and its reason, written straight into the five columns of
`engine.waits.IdleSpans`. At 10^6 ops there are millions of spans: no temporary array is
made that is not needed, and no binary search where the pass that found the gaps knows
the answer.

Two builds, identical columns bit for bit: one compiled pass per unit (engine/_idle_pass.c,
with the scheduler's module, where that was built) and the numpy code below."""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engine import fast_scheduler

if TYPE_CHECKING:
    from engine.wait_index import UnitTasks, WaitIndex

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
ReasonArray = npt.NDArray[np.int8]
TaskArray = npt.NDArray[np.signedinteger[Any]]


Columns = tuple[IntArray, FloatArray, FloatArray, ReasonArray, TaskArray]


def task_dtype(n_tasks: int) -> type[np.signedinteger[Any]]:
    """The idle spans' task column: 32 bits while they can hold every task (4 bytes less
    a span, of millions)."""
    return np.int32 if n_tasks < 2**31 else np.int64


def idle_columns(
    index: WaitIndex, budget: int, reasons: tuple[int, int, int], n_reasons: int
) -> tuple[Columns, FloatArray | None]:
    """The idle spans of a run whose slot holders and readiness never change inside a gap
    (simulated runs; see engine.waits): every gap of a unit with several workers cut at
    the unit's starts (at its last start only, past ``budget`` cuts), each piece with the
    first of the unit's tasks that starts after it and its reason (``reasons``: the codes
    of input, slot and done). Written straight into the five columns, unit by unit: at
    10^6 ops there are millions of spans, and every temporary array costs its page faults.
    Where no gap is cut (one worker per unit) the spans are the gaps: their row, start
    and end columns are the gaps' own arrays. Also the idle time per row and reason
    (``n_reasons`` of them), as `engine.waits.IdleSpans.totals`, where the compiled pass
    adds it up as it goes (else None)."""
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None and task_dtype(len(index.schedule)) is np.int32:
        return _compiled_columns(compiled, index, budget, reasons, n_reasons)
    s = index.schedule
    input_, slot, done_code = reasons
    rows, lo, hi = index.gaps
    unit_bounds = np.searchsorted(rows, np.append(s.worker_offsets, s.n_workers))
    plans = []
    total = 0
    for u, unit in enumerate(index.units):
        a, b = int(unit_bounds[u]), int(unit_bounds[u + 1])
        plan = _cut_plan(lo[a:b], hi[a:b], unit, budget) if s.workers[u] > 1 else None
        plans.append((a, b, plan))
        total += (b - a) + (int(plan[1].sum()) if plan is not None else 0)
    if all(plan is None for _, _, plan in plans):
        out_row, out_start, out_end = rows, lo, hi  # nothing is cut: the gaps themselves
    else:
        out_row, out_start, out_end = np.empty(total, np.int64), np.empty(total), np.empty(total)
    out_reason, out_task = np.empty(total, np.int8), np.empty(total, task_dtype(len(s)))
    at = 0
    for u, (a, b, plan) in enumerate(plans):
        unit = index.units[u]
        n = (b - a) + (int(plan[1].sum()) if plan is not None else 0)
        piece = slice(at, at + n)
        at += n
        if plan is None:
            if out_row is not rows:
                out_row[piece], out_start[piece], out_end[piece] = rows[a:b], lo[a:b], hi[a:b]
            if s.workers[u] == 1:
                ranks = index.lone_ranks(u, a, b)
            else:  # several workers, no start to cut at: the unit never starts anything
                ranks = np.searchsorted(unit.starts, lo[a:b], "right")
        else:
            ranks = _cut_pieces(
                rows[a:b], lo[a:b], hi[a:b], unit, plan,
                out_row[piece], out_start[piece], out_end[piece],
            )  # fmt: skip
        tasks, reason = out_task[piece], out_reason[piece]
        done = ranks >= len(unit.starts)
        if len(unit.tasks):
            np.take(unit.tasks, ranks, mode="clip", out=tasks)
            tasks[done] = -1
        else:  # a unit that never worked
            tasks[:] = -1
        reason[:] = input_
        reason[done] = done_code
        if index.pipeline and u == index.load_unit and index.slots > 0:
            middle = out_start[piece] + out_end[piece]
            middle *= 0.5
            # Around an idle gap before the read of op `rank`, about `rank` ops have been
            # granted a slot, and the ops holding one are the last few of them.
            full = index.holds.count(middle, near=ranks) >= index.slots
            full &= ~done
            reason[full] = slot
    return (out_row, out_start, out_end, out_reason, out_task), None


def _compiled_columns(
    compiled: ModuleType,
    index: WaitIndex,
    budget: int,
    reasons: tuple[int, int, int],
    n_reasons: int,
) -> tuple[Columns, FloatArray]:
    """`idle_columns` by the compiled pass, which finds the gaps itself, row by row
    (`Schedule.by_row`): per unit, its gaps and cuts counted (the same budget rule), then
    every piece written with its task and reason, its length added to its row's and
    reason's total. Where nothing is cut the pieces are the gaps: written once, they
    become `WaitIndex.gaps` too (or are those, when built)."""
    s = index.schedule
    _, bounds = s.by_row
    row_starts, reach = s.row_starts, s.row_reach[0]
    no_points = np.zeros(0)
    plans = []
    for u, unit in enumerate(index.units):
        rows = (int(s.worker_offsets[u]), s.workers[u])
        points = unit.points if s.workers[u] > 1 else no_points
        holds = (no_points, no_points)
        if index.pipeline and u == index.load_unit and index.slots > 0:
            holds = (index.holds.lo, index.holds.hi_sorted)
        inputs = (
            row_starts, reach, bounds, *rows, index.span, points,
            np.ascontiguousarray(unit.starts), np.ascontiguousarray(unit.tasks, np.int64),
            *holds, index.slots, reasons,
        )  # fmt: skip
        nothing = (None, None, None, None, None, None)
        gaps, cuts = compiled.rows_pass(*inputs, budget, *nothing)
        if cuts < 0:  # too many: cut at its last start only (at most once a gap)
            points = np.asarray([unit.last_start])
            inputs = (*inputs[:6], points, *inputs[7:])
            gaps, cuts = compiled.rows_pass(*inputs, sys.maxsize, *nothing)
        plans.append((inputs, gaps + cuts, cuts))
    total = sum(n for _, n, _ in plans)
    cut = any(cuts for _, _, cuts in plans)
    known = None if cut else index.__dict__.get("gaps")
    if known is None:
        out_row, out_start, out_end = np.empty(total, np.int64), np.empty(total), np.empty(total)
    else:
        out_row, out_start, out_end = known  # nothing is cut: the gaps themselves
    out_reason, out_task = np.empty(total, np.int8), np.empty(total, np.int32)
    totals = np.zeros((s.n_workers, n_reasons))
    at = 0
    for inputs, n, _ in plans:
        piece = slice(at, at + n)
        geometry = (None, None, None) if known is not None else (
            out_row[piece], out_start[piece], out_end[piece]
        )  # fmt: skip
        compiled.rows_pass(*inputs, 0, *geometry, out_reason[piece], out_task[piece], totals)
        at += n
    if not cut and known is None:
        for column in (out_row, out_start, out_end):
            column.flags.writeable = False
        index.__dict__["gaps"] = (out_row, out_start, out_end)
    return (out_row, out_start, out_end, out_reason, out_task), totals


def _cut_plan(
    lo: FloatArray, hi: FloatArray, unit: UnitTasks, budget: int
) -> tuple[IntArray, IntArray, FloatArray, bool] | None:
    """Where `idle_columns` cuts a unit's gaps: per gap, how many distinct starts lie at
    or before its start and how many inside it; the points cut at; whether those are all
    the unit's starts (else its last one only: too many cuts)."""
    points = unit.points
    if not len(points):
        return None
    for every in (True, False):
        if not every:
            points = np.asarray([unit.last_start])
        first = np.searchsorted(points, lo, "right")
        counts = np.searchsorted(points, hi, "left")
        counts -= first
        np.maximum(counts, 0, out=counts)
        if not every or int(counts.sum()) <= budget:
            return first, counts, points, every
    raise AssertionError("unreachable")


def _cut_pieces(
    rows: IntArray,
    lo: FloatArray,
    hi: FloatArray,
    unit: UnitTasks,
    plan: tuple[IntArray, IntArray, FloatArray, bool],
    out_row: IntArray,
    out_start: FloatArray,
    out_end: FloatArray,
) -> IntArray:
    """`cut_at_points`, written into the given columns, and each piece's task rank (as
    `cut_at_starts` gives it)."""
    first, counts, points, every = plan
    if not len(lo):
        return np.zeros(0, dtype=np.int64)
    gap_first = np.zeros(len(lo), dtype=np.int64)  # each gap's first piece
    np.cumsum(counts[:-1] + 1, out=gap_first[1:])
    gap_last = gap_first + counts
    # Piece j of a gap lies after distinct start `first + j` - 1: running sums of +1 per
    # piece, restarted at each gap's first piece.
    index = np.ones(len(out_start), dtype=np.int64)
    index[gap_first[1:]] = first[1:] - first[:-1] - counts[:-1]
    index[0] = first[0]
    np.cumsum(index, out=index)
    out_row[:] = 0
    out_row[gap_first[1:]] = rows[1:] - rows[:-1]
    out_row[0] = rows[0]
    np.cumsum(out_row, out=out_row)
    padded = np.empty(len(points) + 2)
    padded[0] = padded[-1] = np.nan  # (never read: those ends and starts are the gap's)
    padded[1:-1] = points
    np.take(padded, index, out=out_start)  # distinct start index - 1
    out_start[gap_first] = lo
    np.take(padded[1:], index, out=out_end)  # distinct start index
    out_end[gap_last] = hi
    if every and points is unit.starts:
        return index
    if every:
        distinct = np.flatnonzero(np.concatenate([[True], unit.starts[1:] > unit.starts[:-1]]))
        return np.append(distinct, len(unit.starts))[index]
    return np.searchsorted(unit.starts, out_start, "right")
