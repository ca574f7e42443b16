"""The critical path of a pipeline Schedule, and what paced each stretch of it.

Walking back from the task that ends last, each task started when the latest of what it
waited for ended: the previous stage of its op (``data``), the previous task of its worker
(``worker``), or, for a read, the write that freed the slot its op was granted (``slot``).
The chain covers the run from 0 to the makespan (a measured run also has gaps nothing it
records explains: ``overhead``). The walk is one loop, compiled with the scheduler
(engine/compiled/_fastsched.c) where built, else `walk_back` (identical results).

Charging each stretch to what paced it says which resource binds most of the time for
uneven ops, where no closed form does: a task's time goes to its unit, except the
releasing op's own stages after a slot edge, which are the slot's hold. A shape's run
(`walk_shape`) charges its units and pools by name, a pool's hold being the releasing
op's stages from the pool's first to its last; the book's run is a shape with one pool,
the slots, held over all its stages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.base.tolerance import time_tolerance
from engine.compiled import fast_scheduler
from engine.model.schedule import STAGES, UNITS, Schedule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Where the path's time goes: the units (in unit order), the slots, and waits nothing
#: recorded explains (a measured run's overhead).
CHARGES = ("load", "compute", "store", "slots", "overhead")


@dataclass(frozen=True, eq=False)
class CriticalPath:
    """The chain of tasks (first to last; int32 below 2^31 tasks: a sequential run's path
    is every task) and the time it charges to each of `CHARGES` (a shape's: by name)."""

    tasks: npt.NDArray[np.int32] | IntArray
    charged: dict[str, float]


def ranked_charges(charged: dict[str, float]) -> list[tuple[str, float]]:
    """The resources of `CHARGES` by time charged, most first (only those charged
    anything; overhead is no resource)."""
    items = [(name, t) for name, t in charged.items() if t > 0 and name != "overhead"]
    return sorted(items, key=lambda item: -item[1])


def critical_path(schedule: Schedule) -> CriticalPath:
    """The critical path of a pipeline Schedule (not kept: a sequential run's path is every
    task; `engine.analysis.derived.Derived.critical_charges` keeps its charges). A shape's
    simulated run (pools the book's one, `Schedule.grant`, does not cover, or other stages
    and units) is walked by `walk_shape`; a measured run's charges stay the book's."""
    s = schedule
    if not len(s):
        return CriticalPath(np.zeros(0, dtype=np.int32), dict.fromkeys(CHARGES, 0.0))
    tolerance = time_tolerance(s.makespan)
    # The last task to end (ties: the highest index, the last op's last stage).
    last = int(len(s) - 1 - np.argmax(s.end[::-1]))
    other_pools = bool(s.pools) and s.grant is None
    other_names = s.stage_names != STAGES and s.unit_names != UNITS
    # (`is_pipeline` last: it looks at the columns, which the book's runs never need)
    if s.source == "simulated" and (other_pools or other_names) and s.is_pipeline:
        return walk_shape(s, last, tolerance)
    sums = np.zeros(len(CHARGES))
    found = _walk_book(s, last, tolerance, sums)
    tasks = found.astype(np.int32) if len(s) < 2**31 else found.copy()
    return CriticalPath(tasks, dict(zip(CHARGES, sums.tolist(), strict=True)))


def _walk_book(s: Schedule, last: int, tolerance: float, sums: FloatArray) -> IntArray:
    """The book's critical path from ``last`` back (first to last), compiled where it
    can be; adds the time charged to each of `CHARGES` into ``sums``."""
    unit = np.ascontiguousarray(s.unit, dtype=np.int64)
    op = np.ascontiguousarray(s.op, dtype=np.int64)
    start = np.ascontiguousarray(s.start, dtype=np.float64)
    end = np.ascontiguousarray(s.end, dtype=np.float64)
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None:
        path = np.empty(len(s), dtype=np.int64)
        order, bounds = s.by_row if s.op_major else (None, None)
        if order is not None and order.dtype == np.int32:  # (below 2^31 tasks)
            # the candidates read off by_row and the ops as the walk goes
            stage = np.ascontiguousarray(s.stage, dtype=np.int64)
            stages = len(s.stage_names)
            writes = s.end[stages - 1 :: stages]
            freed = _release_order(writes) if 0 < s.buffers < s.n_ops else None
            length = compiled.critical_path_rows(
                start, end, unit, op, stage, order, bounds, freed,
                stages, s.buffers, last, tolerance, path, sums,
            )  # fmt: skip
        else:
            length = compiled.critical_path(
                start, end, unit, op, *_candidates(s), last, tolerance, path, sums
            )
        found: IntArray = path[:length][::-1]
        return found
    everywhere = [(0, len(s.stage_names) - 1, CHARGES.index("slots"))]
    path_back = walk_back(
        start, end, unit, op, None, _candidates(s), everywhere, last, tolerance, sums
    )
    return np.asarray(path_back[::-1], dtype=np.int64)


def _candidates(
    schedule: Schedule, pools: list[tuple[int, int, int]] | None = None
) -> list[IntArray]:
    """Per task, the tasks it may have waited for last (-1: none): the previous task of its
    worker, the previous stage of its op, and per pool (size, first and last stage; default
    the book's slots), at its first stage, the task that freed its op's slot."""
    s = schedule
    n_tasks = len(s)
    stages = len(s.stage_names)
    ops = np.arange(s.n_ops, dtype=np.int64)
    worker = np.full(n_tasks, -1, dtype=np.int64)
    order, bounds = s.by_row
    worker[order[1:]] = order[:-1]
    firsts = bounds[:-1][bounds[:-1] < n_tasks]
    worker[order[firsts]] = -1
    if s.op_major:  # task 3i + k follows task 3i + k - 1
        data = np.arange(-1, n_tasks - 1, dtype=np.int64)
        data[::stages] = -1
    else:
        data = np.full(n_tasks, -1, dtype=np.int64)
        for stage in range(1, stages):
            data[s.task_of(ops, stage)] = s.task_of(ops, stage - 1)
    candidates = [worker, data]
    for size, first, last in [(s.buffers, 0, -1)] if pools is None else pools:
        freed_by = _slot_releases(s, size, last)
        column = np.full(n_tasks, -1, dtype=np.int64)
        has = freed_by >= 0
        column[np.asarray(s.task_of(ops[has], first), dtype=np.int64)] = freed_by[has]
        candidates.append(column)
    return candidates


def _slot_releases(schedule: Schedule, slots: int, last: int) -> IntArray:
    """Per op, the task of stage ``last`` that freed the slot of a pool of ``slots`` it was
    granted (-1: none, a free slot)."""
    s = schedule
    stages = len(s.stage_names)
    ops = np.arange(s.n_ops, dtype=np.int64)
    released = np.full(s.n_ops, -1, dtype=np.int64)
    if 0 < slots < s.n_ops:
        # Slots are granted in op order: op i gets the slot of the (i - B)-th release, or
        # waits for op i - 1's grant; the release that set each grant is the one at the
        # latest position holding the running maximum (as _fastsched.c's slot_releases).
        writes = np.asarray(s.task_of(ops, last % stages), dtype=np.int64)
        releases = s.end[writes]
        order = _release_order(releases)
        by_release = ops if order is None else order
        freeing = np.full(s.n_ops, -np.inf)
        freeing[slots:] = releases[by_release[: s.n_ops - slots]]
        position = np.where(freeing >= np.maximum.accumulate(freeing), ops, 0)
        np.maximum.accumulate(position, out=position)
        has = position >= slots
        released[has] = writes[by_release[position[has] - slots]]
    return released


def _release_order(releases: FloatArray) -> IntArray | None:
    """The ops in the order of their slots' ``releases`` (ties: op order); None when that is
    op order (always so with one writer)."""
    if bool((releases[1:] >= releases[:-1]).all()):
        return None
    return np.argsort(releases, kind="stable").astype(np.int64)


def walk_back(
    start: FloatArray,
    end: FloatArray,
    unit: IntArray,
    op: IntArray,
    stage: IntArray | None,
    candidates: list[IntArray],
    pools: list[tuple[int, int, int]],
    last: int,
    tolerance: float,
    sums: FloatArray,
) -> list[int]:
    """The walk of _fastsched.c's ``critical_path``: the path from ``last`` back, filling
    ``sums`` (a task's time at ``sums[unit]``, waits nothing explains at ``sums[-1]``).

    ``candidates``: per task, its worker's previous task, its op's previous stage, then per
    pool the task that freed its op's slot (-1: none); the one ending latest at most
    ``tolerance`` after the task's start is taken (ties: the earlier). ``pools``: per pool,
    its first and last stage and its ``sums`` index: after its slot edge, the releasing
    op's tasks at those stages go to the hold, until the path steps to a worker's previous
    task. ``stage`` None: every pool holds all the stages (the book's slots)."""
    start_of, end_of = start.tolist(), end.tolist()
    unit_of, op_of = unit.tolist(), op.tolist()
    stage_of = None if stage is None else stage.tolist()
    options = [c.tolist() for c in candidates]
    totals = [0.0] * len(sums)
    overhead = len(totals) - 1
    path: list[int] = []
    releasing, first, final, hold = -1, 0, -1, overhead  # the releasing op after a slot edge
    task = last
    # At most one step a task: zero-length tasks at one instant in an order that is not
    # the ops' (a reordered run) can lead back to a task already on the path.
    while task >= 0 and len(path) < len(start_of):
        path.append(task)
        took = end_of[task] - start_of[task]
        if op_of[task] == releasing and (stage_of is None or first <= stage_of[task] <= final):
            totals[hold] += took
        else:
            totals[unit_of[task]] += took
        before, link, best = -1, -1, -math.inf
        for c in range(len(options)):
            other = options[c][task]
            if other < 0:
                continue
            e = end_of[other]
            if e <= start_of[task] + tolerance and e > best:
                best, before, link = e, other, c
        if before < 0:
            if start_of[task] > 0:
                totals[overhead] += start_of[task]
            break
        if start_of[task] > end_of[before]:
            totals[overhead] += start_of[task] - end_of[before]
        if link >= 2:
            releasing = op_of[before]
            first, final, hold = pools[link - 2]
        elif link == 0:
            releasing = -1
        task = before
    sums[:] = totals
    return path


def walk_shape(schedule: Schedule, last: int, tolerance: float) -> CriticalPath:
    """The critical path of a shape's run: `walk_back` with a candidate per pool at the
    pool's first stage, charging units and pools by name."""
    s = schedule
    names = list(dict.fromkeys([*s.unit_names, *(p.name for p in s.pools)]))
    candidates = _candidates(s, [(p.size, p.first, p.last) for p in s.pools])
    pools = [(p.first, p.last, names.index(p.name)) for p in s.pools]
    sums = np.zeros(len(names) + 1)
    charge_of_unit = np.array([names.index(name) for name in s.unit_names], dtype=np.int64)
    unit = charge_of_unit[s.unit]
    path = walk_back(s.start, s.end, unit, s.op, s.stage, candidates, pools, last, tolerance, sums)
    charged = dict(zip([*names, "overhead"], sums.tolist(), strict=True))
    found = np.asarray(path[::-1], dtype=np.int64)
    return CriticalPath(found.astype(np.int32) if len(s) < 2**31 else found, charged)
