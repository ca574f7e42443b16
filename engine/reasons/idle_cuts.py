"""The idle spans of a run whose slot holders and readiness never change inside an idle
gap (every simulated run): gaps cut at their unit's starts, each piece with the task it
awaits and its reason (`awaited`), written into the columns of
`engine.reasons.waits.IdleSpans` by one compiled pass per unit (engine/compiled/_idle_pass.c)
or added up without being stored (`compiled_summary`); and a window's pieces found from the tasks
in it (`window_columns`). Without the compiled module engine.reasons.waits cuts the gaps
in numpy: the same columns, bit for bit."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.compiled import fast_scheduler
from engine.model.columns import task_dtype
from engine.reasons.wait_index import BLOCK, FloatArray, IntArray, WaitIndex, block_maxima

ReasonArray = npt.NDArray[np.int8]
TaskArray = npt.NDArray[np.signedinteger[Any]]


Columns = tuple[IntArray, FloatArray, FloatArray, ReasonArray, TaskArray]


def awaited(
    index: WaitIndex,
    unit: int,
    ranks: IntArray,
    start: FloatArray,
    end: FloatArray,
    reasons: tuple[int, int, int],
) -> tuple[TaskArray, ReasonArray]:
    """For pieces [start, end) of ``unit``'s idle time awaiting its ``ranks``-th task in start
    order: that task (-1 past its last start) and the reason (``reasons``: input, slot and
    done codes), slot where the load unit's piece finds every slot held at its middle: the
    one rule of the numpy, window and compiled paths."""
    input_, slot, done_code = reasons
    tasks = index.units[unit]
    done = ranks >= len(tasks.starts)
    task = np.full(len(ranks), -1, task_dtype(len(index.schedule)))
    if len(tasks):
        task[~done] = tasks.tasks_at(ranks[~done])
    reason = np.full(len(ranks), input_, np.int8)
    reason[done] = done_code
    if index.pipeline and unit == index.load_unit and index.slots > 0:
        middle = start + end
        middle *= 0.5
        # Around an idle piece before the read of op `rank`, about `rank` ops have been
        # granted a slot, and the ops holding one are the last few of them.
        full = index.holds.count(middle, near=ranks) >= index.slots
        reason[full & ~done] = slot
    return task, reason


def _compiled_plans(
    index: WaitIndex, budget: int, reasons: tuple[int, int, int], counted: bool = True
) -> tuple[ModuleType, list[tuple[tuple[Any, ...], int, int, FloatArray]]] | None:
    """Per unit: the compiled pass's inputs (gaps cut at every start of the unit, or at its
    last start only past ``budget`` cuts), its pieces and cuts, counted, and the points it
    cuts at. Not ``counted`` (a summary: no sizes, no tasks written), no count is made
    where none could pass the budget (counts -1): that pass was a third of its time. None
    where the compiled module is not built or the run is too large for its 32-bit tasks."""
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is None or task_dtype(len(index.schedule)) is not np.int32:
        return None
    s = index.schedule
    order, bounds = s.by_row
    row_starts = s.row_starts
    # Disjoint rows: each task's reach its own end, read through the order (no copy).
    reach = (np.ascontiguousarray(s.end), order) if s.rows_disjoint else s.row_reach[0]
    no_points = np.zeros(0)
    plans = []
    for u, unit in enumerate(index.units):
        rows = (int(s.worker_offsets[u]), s.workers[u])
        points = unit.points if s.workers[u] > 1 else no_points
        holds = (no_points, no_points)
        if index.pipeline and u == index.load_unit and index.slots > 0:
            holds = (index.holds.lo, index.holds.hi_sorted)
        starts = np.ascontiguousarray(unit.starts)
        # (The points the unit's starts themselves: one copy, which the pass recognizes.)
        cut_at = starts if points is unit.starts else np.ascontiguousarray(points)
        tasks = np.ascontiguousarray(unit.tasks_at(slice(None)), np.int64) if counted else None
        inputs = (
            row_starts, reach, bounds, *rows, index.span, cut_at, starts, tasks,
            *(np.ascontiguousarray(h) for h in holds), index.slots, reasons,
        )  # fmt: skip
        if not counted and s.workers[u] * len(points) <= budget:
            plans.append((inputs, -1, -1, points))
            continue
        nothing = (None, None, None, None, None, None)
        gaps, cuts = compiled.rows_pass(*inputs, budget, *nothing)
        if cuts < 0:  # too many: cut at its last start only (at most once a gap)
            points = np.asarray([unit.last_start])
            inputs = (*inputs[:6], points, *inputs[7:])
            gaps, cuts = compiled.rows_pass(*inputs, sys.maxsize, *nothing)
        plans.append((inputs, gaps + cuts, cuts, points))
    return compiled, plans


def compiled_columns(
    index: WaitIndex, budget: int, reasons: tuple[int, int, int], n_reasons: int
) -> tuple[Columns, FloatArray] | None:
    """The idle spans by the compiled pass (as `awaited`; cut as `_compiled_plans`), with
    each row's total per reason (``n_reasons`` columns, `IdleSpans.totals`); None without
    the compiled module. The pass finds the gaps itself, row by row (`Schedule.by_row`); where
    nothing is cut the pieces are the gaps: written once, they become `WaitIndex.gaps`."""
    found = _compiled_plans(index, budget, reasons)
    if found is None:
        return None
    s, (compiled, plans) = index.schedule, found
    total = sum(n for _, n, _, _ in plans)
    cut = any(cuts for _, _, cuts, _ in plans)
    known = None if cut else index.gaps_found()
    if known is None:
        out_row, out_start, out_end = np.empty(total, np.int64), np.empty(total), np.empty(total)
    else:
        out_row, out_start, out_end = known  # nothing is cut: the gaps themselves
    out_reason, out_task = np.empty(total, np.int8), np.empty(total, np.int32)
    totals = np.zeros((s.n_workers, n_reasons))
    at = 0
    for inputs, n, _, _ in plans:
        piece = slice(at, at + n)
        geometry = (None, None, None) if known is not None else (
            out_row[piece], out_start[piece], out_end[piece]
        )  # fmt: skip
        compiled.rows_pass(*inputs, 0, *geometry, out_reason[piece], out_task[piece], totals)
        at += n
    if not cut and known is None:
        for column in (out_row, out_start, out_end):
            column.flags.writeable = False
        index.keep_gaps((out_row, out_start, out_end))
    return (out_row, out_start, out_end, out_reason, out_task), totals


def compiled_summary(
    index: WaitIndex, budget: int, reasons: tuple[int, int, int], n_reasons: int
) -> tuple[FloatArray, IntArray, FloatArray, tuple[FloatArray, ...]] | None:
    """The idle spans added up by the compiled pass, writing none (as
    `engine.reasons.waits.IdleSummary`: totals, counts, longest, cut points); None without
    the compiled module (then the spans themselves are added up)."""
    found = _compiled_plans(index, budget, reasons, counted=False)
    if found is None:
        return None
    compiled, plans = found
    rows = index.schedule.n_workers
    totals, counts = np.zeros((rows, n_reasons)), np.zeros((rows, n_reasons), np.int64)
    longest = np.zeros(rows)
    nothing = (None, None, None, None, None)
    for inputs, _, _, _ in plans:
        compiled.rows_pass(*inputs, 0, *nothing, totals, counts, longest)
    return totals, counts, longest, tuple(points for _, _, _, points in plans)


def gap_blocks(index: WaitIndex) -> FloatArray:
    """The longest gap before a task (from the reach of the task before it on its row, 0 for
    a row's first) in each block of `BLOCK` tasks in `Schedule.by_row` order, through which
    `window_columns` finds long gaps. Kept by the index."""
    if index.gap_blocks is not None:
        return index.gap_blocks
    schedule = index.schedule
    _, bounds = schedule.by_row
    starts = schedule.row_starts
    n = len(starts)
    firsts = bounds[:-1][bounds[:-1] < bounds[1:]]  # each row's first task
    longest = np.full(-(-n // BLOCK), -np.inf)
    chunk = BLOCK * 16_384  # (a chunk of blocks at a time: small temporaries)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        gap = np.empty(hi - lo)
        gap[1:] = schedule.reach_at(slice(lo, hi - 1))[0]
        gap[0] = schedule.reach_at(lo - 1)[0] if lo else 0.0
        gap[firsts[(firsts >= lo) & (firsts < hi)] - lo] = 0.0
        np.subtract(starts[lo:hi], gap, out=gap)
        whole = (hi - lo) // BLOCK
        b = lo // BLOCK
        longest[b : b + whole] = gap[: whole * BLOCK].reshape(whole, BLOCK).max(axis=1)
        if whole * BLOCK < hi - lo:
            longest[b + whole] = gap[whole * BLOCK :].max()
    longest.flags.writeable = False
    index.gap_blocks = longest
    return longest


def _pieces_wanted(
    index: WaitIndex,
    unit: int,
    points: FloatArray,
    inside: IntArray,
    j_lo: IntArray,
    j_hi: IntArray,
    shortest: float,
) -> tuple[IntArray, IntArray]:
    """(gap, piece) of the pieces j_lo .. j_hi of each gap (piece j of a gap starts at its
    start, j = 0, or at the j-th point inside it), in order; of a gap cut into many, only
    those that may last ``shortest``: its first and last, and those between points spaced
    so far apart (found through the widest spacing of each block of points)."""
    n = j_hi - j_lo + 1
    many = (n > 4 * BLOCK) if shortest > 0 else np.zeros(len(n), dtype=bool)
    few = np.flatnonzero(~many)
    gap = np.repeat(few, n[few])
    firsts = np.zeros(len(few), np.int64)
    np.cumsum(n[few][:-1], out=firsts[1:])
    j = j_lo[gap] + np.arange(len(gap)) - np.repeat(firsts, n[few])
    if not many.any():
        return gap, j
    spacing = point_blocks(index, unit, points)
    gaps, js = [gap], [j]
    for g in np.flatnonzero(many).tolist():
        # Inner piece j spans points inside[g] + j - 1 .. + j: spacing q = inside[g] + j - 1.
        q_lo, q_hi = int(inside[g] + j_lo[g]), int(inside[g] + j_hi[g]) - 2
        b0, b1 = q_lo // BLOCK, q_hi // BLOCK
        chosen = np.flatnonzero(spacing[b0 : b1 + 1] >= shortest) + b0
        q = (chosen[:, None] * BLOCK + np.arange(BLOCK)).ravel()
        q = q[(q >= q_lo) & (q <= q_hi)]
        inner = q - int(inside[g]) + 1
        mine = np.unique(np.concatenate([[j_lo[g], j_hi[g]], inner]))
        gaps.append(np.full(len(mine), g, np.int64))
        js.append(mine)
    gap, j = np.concatenate(gaps), np.concatenate(js)
    order = np.lexsort((j, gap))
    return gap[order], j[order]


def point_blocks(index: WaitIndex, unit: int, points: FloatArray) -> FloatArray:
    """The widest spacing between consecutive ``points`` (where ``unit``'s gaps are cut)
    in each block of `BLOCK` spacings. Kept by the index."""
    if unit not in index.point_blocks:
        widest = block_maxima(np.diff(points))
        widest.flags.writeable = False
        index.point_blocks[unit] = widest
    return index.point_blocks[unit]


def window_columns(
    index: WaitIndex,
    cut_points: tuple[FloatArray, ...],
    rows: Sequence[int],
    t0: float,
    t1: float,
    shortest: float,
    reasons: tuple[int, int, int],
) -> Columns:
    """The idle pieces (the same columns, bit for bit) on ``rows`` that reach into [t0, t1]
    (end > t0, start ≤ t1) and last at least ``shortest``, found from the rows' tasks in
    that window alone: a view costs what lies in it. ``cut_points``: as `compiled_summary`."""
    s = index.schedule
    _, bounds = s.by_row
    span = index.span
    empty = np.zeros(0)
    parts: list[Columns] = [
        (np.zeros(0, np.int64), empty, empty, np.zeros(0, np.int8), np.zeros(0, np.int32))
    ]
    for r in rows:
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        starts = s.row_starts[lo:hi]
        m = hi - lo
        # Gap i lies before task i (the row's tail: i = m): [reach of task i - 1 (0 for
        # the first), start of task i (the makespan for the tail)), where that is not empty.
        first = int(np.searchsorted(starts, t0, "right"))  # gaps ending after t0
        last = min(s.first_reaching(lo, hi, t1, "right") - lo, m)  # starting by t1
        before_tasks = min(last, m - 1)  # the last gap before a task (the tail apart)
        if shortest > 0 and before_tasks >= first:
            # Only blocks holding a gap so long: a wide view of a long run costs what its
            # long gaps cost.
            blocks = gap_blocks(index)
            b0, b1 = (lo + first) // BLOCK, (lo + before_tasks) // BLOCK
            chosen = np.flatnonzero(blocks[b0 : b1 + 1] >= shortest) + b0
            p = (chosen[:, None] * BLOCK + np.arange(BLOCK)).ravel()
            i = p[(p >= lo + first) & (p <= lo + before_tasks)] - lo
            if last == m:
                i = np.append(i, m)
        else:
            i = np.arange(first, last + 1)
        a = np.zeros(len(i))
        a[i > 0] = s.reach_at(lo + i[i > 0] - 1)[0]
        b = np.full(len(i), span)
        b[i < m] = starts[i[i < m]]
        keep = (a < b) & (b > t0) & (a <= t1)
        a, b = a[keep], b[keep]
        u = int(index.unit_of_row[r])
        unit, points = index.units[u], cut_points[u]
        # A gap's pieces: cut at the points strictly inside it; those reaching the window.
        inside = np.searchsorted(points, a, "right")
        count = np.searchsorted(points, b, "left") - inside
        np.maximum(count, 0, out=count)
        j_lo = np.clip(np.searchsorted(points, t0, "right") - inside, 0, count)
        j_hi = np.clip(np.searchsorted(points, t1, "right") - inside, 0, count)
        gap, j = _pieces_wanted(index, u, points, inside, j_lo, j_hi, shortest)
        padded = np.concatenate([[np.nan], points, [np.nan]])
        at = inside[gap] + j
        x = np.where(j == 0, a[gap], padded[np.minimum(at, len(padded) - 1)])
        y = np.where(j == count[gap], b[gap], padded[np.minimum(at + 1, len(padded) - 1)])
        long = y - x >= shortest
        x, y = x[long], y[long]
        task, reason = awaited(index, u, np.searchsorted(unit.starts, x, "right"), x, y, reasons)
        parts.append((np.full(len(x), r, np.int64), x, y, reason, task))
    row, start, end, reason, task = (np.concatenate(column) for column in zip(*parts, strict=True))
    return row, start, end, reason, task
