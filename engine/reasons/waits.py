"""Why is it idle? Wait reasons for every worker's idle time and every op's waiting time:
vectorized functions of a Schedule (10^6 ops in well under a second), kept by its
`engine.analysis.derived.Derived`. Ops are 0-based in the columns, 1-based in the words.

Idle reasons (`IDLE_REASONS`) split every worker's idle time in [0, makespan]:

* ``input`` — the stage that goes next on its unit waits for the op's previous stage; the
  span names that op (the first of the unit's stages to start after the span's start;
  ties: the lowest op).
* ``slot`` — on the load unit (the read stage's), the next read waits for a shared-memory
  slot: all B slots are held; the span names the holders.
* ``done`` — the unit's last stage has started (maybe on another worker).
* ``overhead`` — measured runs only: a worker was free and the next stage ready and still
  nothing started (launch latency or synchronization the model does not see).

Op waits (`OP_WAIT_REASONS`): before its read an op waits [0, grant) for a ``slot``, then
[grant, read start) for a ``worker``; between stages for a ``worker``. Measured runs have
no grant times (`WaitIndex.grant` infers them, `WaitIndex.holds` the holds), and waits
that find the unit free are ``overhead``.

Schedules that are not a three-stage pipeline (the warps model) get ``input`` and ``done``.
A shape's run with pools (`engine.reasons.pool_waits`) generalises ``slot``: a worker whose
next stage waits for a pool's slot, or an op before each stage for its pools in turn, name
the pool and its holders ("waiting for a slot of smem stages: held by ops 3–6").
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from engine.base.text import join_words, op_list, time_text
from engine.model.columns import task_dtype
from engine.model.schedule import Schedule, op_column
from engine.reasons.idle_cuts import (
    TaskArray,
    awaited,
    compiled_columns,
    compiled_summary,
    window_columns,
)
from engine.reasons.wait_index import Intervals, WaitIndex, cut_at_points, nondecreasing

if TYPE_CHECKING:
    from engine.analysis.derived import Derived

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
ReasonArray = npt.NDArray[np.int8]
#: `OpWaits`' columns: op, stage, start, end, reason.
WaitColumns = tuple[IntArray, IntArray, FloatArray, FloatArray, ReasonArray]

IDLE_REASONS: tuple[str, ...] = ("input", "slot", "done", "overhead")
INPUT, SLOT, DONE, OVERHEAD = 0, 1, 2, 3
OP_WAIT_REASONS: tuple[str, ...] = ("worker", "slot", "overhead")
WAIT_WORKER, WAIT_SLOT, WAIT_OVERHEAD = 0, 1, 2

#: Idle spans are cut at every start on their unit (an idle worker's awaited op changes
#: when another worker takes it). With hundreds of mostly idle workers that is n · k cuts;
#: past this many per task the cuts are skipped and each span names the first op awaited.
_CUTS_PER_TASK = 4


# -- idle spans --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class IdleSpans:
    """Every worker's idle time in [0, makespan], cut into spans with one reason each.
    Columns sorted by (row, start): ``row`` (global worker index, as `Schedule.row`),
    ``start``, ``end``, ``reason`` (`IDLE_REASONS` index) and ``next_task`` (the task
    awaited: input and overhead, the op's next stage; slot, the read that waits; done, -1;
    int32 below 2^31 tasks)."""

    row: IntArray
    start: FloatArray
    end: FloatArray
    reason: ReasonArray
    next_task: TaskArray
    _index: WaitIndex = field(repr=False)
    #: `totals`, where the pass that wrote the spans added them up already.
    _totals: FloatArray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.row)

    def picked(self, which: Any) -> IdleSpans:
        """The spans ``which`` (a mask or a slice) picks, in order."""
        return IdleSpans(
            self.row[which], self.start[which], self.end[which], self.reason[which],
            self.next_task[which], self._index,
        )  # fmt: skip

    @property
    def schedule(self) -> Schedule:
        return self._index.schedule

    @cached_property
    def unit(self) -> IntArray:
        return self._index.unit_of_row[self.row]

    @cached_property
    def worker(self) -> IntArray:
        return self.row - self.schedule.worker_offsets[self.unit]

    def reason_name(self, i: int) -> str:
        return IDLE_REASONS[int(self.reason[i])]

    def pool(self, i: int) -> int:
        """The pool (`Schedule.pools` index) a slot span waits for; -1 for other spans and
        the book's runs."""
        if int(self.reason[i]) != SLOT:
            return -1
        return self._index.pool_waited(int(self.next_task[i]), self._middle(i))

    def _middle(self, i: int) -> float:
        return 0.5 * (float(self.start[i]) + float(self.end[i]))

    def ops(self, i: int) -> tuple[int, ...]:
        """The ops span ``i`` names (0-based): input and overhead — the op awaited; slot —
        the ops holding the slots (a shape's run: of the pool it waits for); done — none."""
        reason = int(self.reason[i])
        if reason == SLOT:
            holders = self._index.slot_holders(self.pool(i), self._middle(i))
            return tuple(int(op) for op in holders)
        if reason == DONE or self.next_task[i] < 0:
            return ()
        return (int(self.schedule.op[self.next_task[i]]),)

    def ops_lists(self, lo: int, hi: int) -> list[list[int]]:
        """`ops` of spans lo .. hi-1 at once (slot holders found together, vectorized)."""
        s = self.schedule
        reason = self.reason[lo:hi]
        task = self.next_task[lo:hi]
        result: list[list[int]] = [
            [int(s.op[t])] if r in (INPUT, OVERHEAD) and t >= 0 else []
            for r, t in zip(reason.tolist(), task.tolist(), strict=True)
        ]
        slot = np.flatnonzero(reason == SLOT)
        if not len(slot):
            return result
        index = self._index
        middle = 0.5 * (self.start[lo:hi][slot] + self.end[lo:hi][slot])
        groups: list[tuple[Any, Intervals]] = [(slice(None), index.holds)]
        if index.shaped:  # each slot span's pool's holders, by pool
            task = self.next_task[lo:hi][slot].astype(np.int64)
            pools = index.pool_times.waited_pools(task, middle)
            groups = [
                (np.flatnonzero(pools == pool), index.pool_holds(pool))
                for pool in np.unique(pools[pools >= 0]).tolist()
            ]
        for mine, holds in groups:
            query, ops = holds.pairs(middle[mine])
            for q, op in zip(slot[mine][query].tolist(), ops.tolist(), strict=True):
                result[q].append(op)
        return result

    def describe(self, i: int) -> str:
        """One line for people, e.g. "waiting for a slot: held by ops 1 and 2; the first
        frees at 3 s"."""
        s, index, unit = self.schedule, self._index, self.schedule.time_unit
        reason, task = int(self.reason[i]), int(self.next_task[i])
        if reason == DONE:
            return f"done: the {s.unit_title(int(index.unit_of_row[self.row[i]]))} has no work left"
        if reason == SLOT:  # (when the first holder frees its slot)
            pool, ops = self.pool(i), self.ops(i)
            when = index.slot_frees_at(pool, np.asarray(ops, dtype=np.int64))
            slot = "a slot" if pool < 0 else f"a slot of {s.pools[pool].name}"
            if not ops:
                return f"waiting for {slot}: it goes to the ops in turn"
            if len(ops) == 1:
                return f"waiting for {slot}: held by {op_list(ops)} until {time_text(when, unit)}"
            return (
                f"waiting for {slot}: held by {op_list(ops)}; "
                f"the first frees at {time_text(when, unit)}"
            )
        # (input: when the awaited op's previous stage ends; overhead: since when it was ready)
        when = index.ready_of(task) if task >= 0 else float("nan")
        op, stage = int(s.op[task]) + 1, int(s.stage[task])
        if reason == OVERHEAD and (stage == 0 or not index.pipeline):
            return (
                f"overhead: a slot was free, yet op {op}'s {s.stage_names[stage]} started "
                f"only at {time_text(float(s.start[task]), unit)} (not seen by the model)"
            )
        if reason == OVERHEAD:
            return (
                f"overhead: op {op}'s {s.stage_names[stage]} was ready at "
                f"{time_text(when, unit)} but started at {time_text(float(s.start[task]), unit)}"
            )
        if not index.pipeline or stage == 0:
            return f"waiting for input: op {op} starts next, at {time_text(when, unit)}"
        previous = s.stage_names[stage - 1]
        return f"waiting for input: op {op}'s {previous} ends at {time_text(when, unit)}"

    @cached_property
    def totals(self) -> FloatArray:
        """(rows, reasons): each row's idle time for each reason."""
        if self._totals is not None:
            return self._totals
        rows, reasons = self.schedule.n_workers, len(IDLE_REASONS)
        key = self.row * reasons + self.reason
        flat = np.bincount(key, weights=self.end - self.start, minlength=rows * reasons)
        totals: FloatArray = flat.astype(np.float64).reshape(rows, reasons)
        return totals


@dataclass(frozen=True, eq=False)
class IdleSummary:
    """`idle_spans` added up, for stats and legends: per (row, reason) the idle time
    (``totals``) and the spans (``counts``), and each row's longest span (0 without one).
    Built without keeping the spans where it can be (10^6 ops with two workers a unit make
    10^7 spans, some 300 MB); `idle_spans_between` then finds those of part of the run."""

    totals: FloatArray
    counts: IntArray
    longest: FloatArray
    #: Per unit, where `idle_spans_between` cuts its gaps as the whole run's are (its
    #: distinct starts, its last start only, or none); None: it picks from the kept spans.
    cut_points: tuple[FloatArray, ...] | None = field(default=None, repr=False)

    def present(self) -> tuple[str, ...]:
        """The reasons that occur, in `IDLE_REASONS` order."""
        return tuple(r for k, r in enumerate(IDLE_REASONS) if self.counts[:, k].any())


def build_idle_summary(derived: Derived) -> IdleSummary:
    """`IdleSummary` of ``derived``'s Schedule: by a compiled pass that stores no span where
    it can be, else from `Derived.idle_spans`."""
    schedule, index = derived.schedule, derived.waits
    if _cut_like_simulated(index) and not index.shaped:  # (a shape's: its pool waits cut)
        found = compiled_summary(index, _budget(schedule), (INPUT, SLOT, DONE), len(IDLE_REASONS))
        if found is not None:
            totals, counts, longest, cut_points = found
            return IdleSummary(totals, counts, longest, cut_points)
    spans = derived.idle_spans
    rows, reasons = schedule.n_workers, len(IDLE_REASONS)
    key = spans.row * reasons + spans.reason
    counts = np.bincount(key, minlength=rows * reasons).astype(np.int64).reshape(rows, reasons)
    longest = np.zeros(rows)
    np.maximum.at(longest, spans.row, spans.end - spans.start)
    return IdleSummary(spans.totals, counts, longest)


def idle_spans_between(
    derived: Derived,
    t0: float,
    t1: float,
    rows: Sequence[int] | None = None,
    shortest: float = 0.0,
) -> IdleSpans:
    """The spans of `idle_spans` (bit for bit) on ``rows`` (all: None) that `reaching` picks
    for [t0, t1] and ``shortest``, in (row, start) order. Not cached. Where the spans are
    not kept, found from the tasks in that window alone: a view costs what it shows, and
    a row whose longest span is shorter than ``shortest`` costs nothing."""
    schedule, index = derived.schedule, derived.waits
    summary = derived.idle_summary
    if summary.cut_points is None:  # the spans are kept: pick from them
        spans = derived.idle_spans
        keep = reaching(spans.start, spans.end, t0, t1, shortest)
        if rows is not None:
            keep &= np.isin(spans.row, np.asarray(list(rows), dtype=np.int64))
        return spans.picked(keep)
    chosen = range(schedule.n_workers) if rows is None else rows
    if not t0 <= t1:  # an empty window (or NaN): no span
        chosen = range(0)
    wanted = [int(r) for r in chosen if summary.longest[r] >= shortest and summary.counts[r].any()]
    columns = window_columns(
        index, summary.cut_points, wanted, t0, t1, shortest, (INPUT, SLOT, DONE)
    )
    return IdleSpans(*columns, index)


def reaching(
    start: FloatArray, end: FloatArray, t0: float, t1: float, shortest: float = 0.0
) -> npt.NDArray[np.bool_]:
    """Which spans reach into [t0, t1] (end > t0, start ≤ t1; none where t1 < t0) and last
    at least ``shortest``: what a view of [t0, t1] shows."""
    if not t0 <= t1:
        return np.zeros(len(start), dtype=bool)
    return (end > t0) & (start <= t1) & (end - start >= shortest)


def _budget(schedule: Schedule) -> int:
    """Cuts past which a unit's gaps are cut at its last start only."""
    return _CUTS_PER_TASK * len(schedule) + 100_000


def _cut_like_simulated(index: WaitIndex) -> bool:
    """Whether slot holders and readiness never change inside a gap (the compiled pass's
    runs, engine.reasons.idle_cuts)."""
    s = index.schedule
    return not (index.measured or (index.pipeline and index.slots > 0 and s.grant is None))


def build_idle_spans(index: WaitIndex, budget: int | None = None) -> IdleSpans:
    """Every worker's idle time with its reason (kept by `Derived.idle_spans`). A unit's
    gaps are cut at its starts where it has several workers, at its last start only past
    ``budget`` cuts (default `_budget`); by the compiled pass (engine.reasons.idle_cuts)
    where it can, else in numpy, bit for bit the same. A shape's run's pieces are then
    cut where the awaited stage's op asks for and gets its pools (`_pool_cut`)."""
    spans = _pipeline_idle_spans(index, budget)
    return _pool_cut(spans) if index.shaped else spans


def _pool_cut(spans: IdleSpans) -> IdleSpans:
    """A shape's run's input pieces cut at the awaited stage's asks and grants: [ask, grant)
    of a pool is a wait for its slot (`SLOT`)."""
    pick = np.flatnonzero((spans.reason == INPUT) & (spans.next_task >= 0))
    if not len(pick):
        return spans
    task = spans.next_task[pick].astype(np.int64)
    parent, lo, hi, pool = spans._index.pool_times.split(task, spans.start[pick], spans.end[pick])
    keep = np.delete(np.arange(len(spans)), pick)
    source = np.concatenate([keep, pick[parent]])
    start = np.concatenate([spans.start[keep], lo])
    end = np.concatenate([spans.end[keep], hi])
    reason = np.concatenate([spans.reason[keep], np.where(pool >= 0, SLOT, INPUT).astype(np.int8)])
    order = np.lexsort((start, spans.row[source]))
    return IdleSpans(
        spans.row[source][order], start[order], end[order], reason[order],
        spans.next_task[source][order], spans._index,
    )  # fmt: skip


def _pipeline_idle_spans(index: WaitIndex, budget: int | None = None) -> IdleSpans:
    budget = _budget(index.schedule) if budget is None else budget
    if _cut_like_simulated(index):
        found = compiled_columns(index, budget, (INPUT, SLOT, DONE), len(IDLE_REASONS))
        if found is not None:
            # (`totals`: the pass that wrote the spans added them up)
            return IdleSpans(*found[0], index, found[1])
    s = index.schedule
    rows, lo, hi = index.gaps
    # Gaps are sorted by row and rows are unit-major: each unit's gaps are one slice.
    unit_bounds = np.searchsorted(rows, np.append(s.worker_offsets, s.n_workers))
    parts: list[tuple[IntArray, FloatArray, FloatArray, ReasonArray, TaskArray]] = []
    for u, unit in enumerate(index.units):
        a, b = int(unit_bounds[u]), int(unit_bounds[u + 1])
        r, x, y = rows[a:b], lo[a:b], hi[a:b]
        # A lone worker's gap holds no start of its unit: only several workers need cuts;
        # and the load unit's gaps where slot holders change inside them (no grant times).
        measured_load = u == index.load_unit and index.slots > 0 and s.grant is None
        if s.workers[u] == 1 and not measured_load:
            k = index.lone_ranks(u, a, b)
        else:
            points = unit.points if s.workers[u] > 1 else np.zeros(0)
            if measured_load:
                holds = index.holds
                points = np.union1d(points, np.concatenate([holds.lo, holds.hi]))
            pieces = cut_at_points(x, y, points, budget)
            if pieces is None:  # too many: cut at the unit's last start only
                points = np.asarray([unit.last_start]) if len(unit.starts) else np.zeros(0)
                pieces = cut_at_points(x, y, points)
            assert pieces is not None
            parent, x, y, counted = pieces
            r = r[parent]
            k = unit.ranks(points, counted, x)
        load = index.pipeline and u == index.load_unit
        # (simulated: a gap on the load unit with a slot free is rounding noise, "input")
        other = OVERHEAD if load and index.measured else INPUT
        task, reason = awaited(index, u, k, x, y, (other, SLOT, DONE))
        done = reason == DONE
        if not load and index.measured and (~done).any():
            # Ready but not started with this worker free: only measured runs do that (in a
            # simulated run it is a gap of rounding noise, 1e-13 s, and stays "input").
            safe = np.maximum(task, 0)
            ready = index.ready[s.op[safe], s.stage[safe]]
            late = ~done & (ready < y - index.tol)
            cut = np.where(late & (ready > x), ready, np.nan)
            threshold = np.where(np.isnan(cut), -np.inf, cut)
            parent, x, y = _split_at(x, y, cut)
            r, task, reason = r[parent], task[parent], reason[parent]
            reason[late[parent] & (x >= threshold[parent])] = OVERHEAD
        parts.append((r, x, y, reason, task))
    if not parts:
        empty = np.zeros(0)
        tasks_as = task_dtype(len(s))
        return IdleSpans(
            np.zeros(0, np.int64), empty, empty, np.zeros(0, np.int8), np.zeros(0, tasks_as), index
        )
    columns = list(zip(*parts, strict=True))
    if sum(len(r) for r in columns[0]) == len(rows):  # nothing cut: the gaps, not copies
        row, start, end = rows, lo, hi
    else:
        row, start, end = (_joined(column) for column in columns[:3])
    return IdleSpans(row, start, end, _joined(columns[3]), _joined(columns[4]), index)


def _joined(arrays: tuple[npt.NDArray[Any], ...]) -> npt.NDArray[Any]:
    """The arrays end to end (the one array itself when there is only one)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _split_at(
    x: FloatArray, y: FloatArray, cut: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Cut [x, y) at ``cut`` where it is a number inside: (parent, x, y) of the pieces."""
    has = ~np.isnan(cut) & (cut > x) & (cut < y)
    parent = np.repeat(np.arange(len(x)), 1 + has.astype(np.int64))
    starts, ends = x[parent], y[parent]
    # Interval i's first piece sits at i plus the number of cut intervals before it.
    first = (np.arange(len(x)) + np.cumsum(has) - has)[has]
    ends[first] = cut[has]
    starts[first + 1] = cut[has]
    return parent, starts, ends


# -- the reason at one instant (narration, hovering) --------------------------------------


@dataclass(frozen=True)
class IdleNow:
    """Why row ``row`` is idle at one instant: `IDLE_REASONS` index, the ops named, the
    time that matters (slot: the first frees; input: the awaited stage becomes ready;
    overhead: it was ready since; done: NaN) and the awaited task (-1 when none)."""

    row: int
    reason: int
    ops: tuple[int, ...]
    when: float
    task: int
    #: A shape's run's slot wait: the pool (`Schedule.pools` index); else -1.
    pool: int = -1


class OwnReasons(Protocol):
    """Why the worker rows of a Schedule that is no simulation wait, from what its file
    records (`gpu.profile.idle.ImportedIdle`); `engine.analysis.timeline.narrate` says these
    where a `Derived` has them (`Derived.own_reasons`)."""

    def reason_at(self, row: int, time: float) -> tuple[int, int] | None:
        """(reason, awaited task or -1) of ``row`` idle at ``time``; None where the row
        has no idle span there (it ran nothing at all)."""
        ...

    def said(self, reason: int, task: int, plural: bool) -> str:
        """What the idle worker (or workers, ``plural``) do, after their name: "waits for
        data: Memcpy HtoD runs on another stream"."""
        ...


def idle_now(derived: Derived, rows: Sequence[int], time: float) -> list[IdleNow]:
    """The reason each of ``rows`` (idle at ``time``) waits, as `idle_spans` gives it for
    the span containing ``time``, in O(log n) per row: no task is scanned."""
    index = derived.waits
    result = []
    for row in rows:
        u = int(index.unit_of_row[row])
        unit = index.units[u]
        k = int(np.searchsorted(unit.starts, time, "right"))
        if k >= len(unit.starts):
            result.append(IdleNow(int(row), DONE, (), float("nan"), -1))
            continue
        task = int(unit.tasks_at(slice(k, k + 1))[0])
        result.append(_idle_before(index, int(row), u, task, float(unit.starts[k]), time))
    return result


def _idle_before(
    index: WaitIndex, row: int, unit: int, task: int, next_start: float, time: float
) -> IdleNow:
    """`idle_now` of ``row`` (of ``unit``) idle at ``time`` before ``task``, its unit's
    next, which starts at ``next_start``."""
    ready = index.ready_of(task)
    op = int(index.schedule.op[task])
    if index.shaped:  # a wait for the pool the next stage's op waits for, else input
        pool = index.pool_waited(task, time)
        if pool < 0:
            return IdleNow(row, INPUT, (op,), ready, task)
        return _slot_wait(index, row, task, pool, index.slot_holders(pool, time))
    if index.pipeline and unit == index.load_unit:
        if index.slots > 0:
            held = index.holds.at(time)
            if len(held) >= index.slots:
                return _slot_wait(index, row, task, index.named_pool, held)
        return IdleNow(row, OVERHEAD if index.measured else INPUT, (op,), ready, task)
    if index.measured and ready < next_start - index.tol and time >= ready:
        return IdleNow(row, OVERHEAD, (op,), ready, task)
    return IdleNow(row, INPUT, (op,), ready, task)


def _slot_wait(index: WaitIndex, row: int, task: int, pool: int, holders: IntArray) -> IdleNow:
    """A wait for a slot of ``pool`` that ``holders`` (ops) hold."""
    ops = tuple(int(op) for op in holders)
    return IdleNow(row, SLOT, ops, index.slot_frees_at(pool, holders), task, pool)


@dataclass(frozen=True)
class OpsWaiting:
    """The ops waiting at one instant for one thing: a slot (``reason`` "slot") or a worker
    of the unit of ``stage`` ("worker"). When ``contiguous`` they are exactly ops
    ``first`` .. ``last``; ``next_op`` is the one that goes on first."""

    reason: str
    stage: int
    count: int
    first: int
    last: int
    contiguous: bool
    next_op: int
    #: Not contiguous: the waiting ops when there are at most `LISTED_WAITING` (else
    #: None; ``first`` and ``last`` are then the lowest and the highest of them).
    ops: tuple[int, ...] | None = None
    #: A shape's run's slot wait: the pool (`Schedule.pools` index); else -1.
    pool: int = -1


#: Ops waiting out of op order are named one by one up to this many.
LISTED_WAITING = 64


def ops_waiting_at(derived: Derived, time: float) -> list[OpsWaiting]:
    """Who waits at ``time``, by reason and stage, in O(log n) (pipelines; else empty)."""
    schedule, index = derived.schedule, derived.waits
    if not index.pipeline:
        return []
    ready_sorted, start_sorted, in_order = index.columns
    n = schedule.n_ops
    result = []
    for stage in range(len(ready_sorted)):
        ready = int(np.searchsorted(ready_sorted[stage], time, "right"))
        started = int(np.searchsorted(start_sorted[stage], time, "right"))
        if ready <= started:
            continue
        u = int(schedule.unit[schedule.task_of(0, stage)])
        unit = index.units[u]
        k = int(np.searchsorted(unit.starts, time, "right"))
        next_op = int(unit.ops[min(k, len(unit.ops) - 1)])
        if in_order[stage]:
            result.append(
                OpsWaiting("worker", stage, ready - started, started, ready - 1, True, started)
            )
        else:
            result.append(_waiting_out_of_order(index, stage, started, ready, time, next_op))
    for p, pool in enumerate(schedule.pools if index.shaped else ()):
        # The ops that asked for its slot and have not got it (in op order: the last ops).
        granted = int(np.searchsorted(index.pool_times.grants[:, p], time, "right"))
        asks = index.pool_times.pool_asked(p)
        ordered = nondecreasing(asks)
        asked = int(np.searchsorted(asks if ordered else np.sort(asks), time, "right"))
        if asked > granted:
            first, last = (granted, asked - 1) if ordered else (-1, -1)
            waiting = (asked - granted, first, last, ordered, granted, None, p)
            result.append(OpsWaiting("slot", pool.first, *waiting))
    if index.slots > 0:
        granted = int(np.searchsorted(ready_sorted[0], time, "right"))
        if granted < n:
            # Slots go out in op order: the ops not yet granted are the last ones.
            first = granted if in_order[0] else -1
            next_op = first if first >= 0 else int(index.ready_order(0)[granted])
            waiting = (n - granted, first, n - 1, first >= 0, next_op, None, index.named_pool)
            result.append(OpsWaiting("slot", 0, *waiting))
    return result


def _waiting_out_of_order(
    index: WaitIndex, stage: int, started: int, ready: int, time: float, next_op: int
) -> OpsWaiting:
    """The ops waiting for ``stage``'s unit when they are not a range of ops: first come,
    first served, the ready ops not yet started are the last ``ready - started`` to have
    become ready (a measured run may break that rule: then only their count is known)."""
    count = ready - started
    waiting = index.ready_order(stage)[started:ready]
    starts = op_column(index.schedule, "start", stage)
    if not bool((starts[waiting] > time).all()):
        return OpsWaiting("worker", stage, count, -1, -1, False, next_op)
    listed = tuple(sorted(waiting.tolist())) if count <= LISTED_WAITING else None
    first, last = int(waiting.min()), int(waiting.max())
    return OpsWaiting("worker", stage, count, first, last, False, next_op, listed)


# -- op waits ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class OpWaits:
    """Every op's waiting time, cut into spans with one reason each (`OP_WAIT_REASONS`).
    Columns sorted by (op, start): ``op``, ``stage`` (the stage it waits to start),
    ``start``, ``end``, ``reason``."""

    op: IntArray
    stage: IntArray
    start: FloatArray
    end: FloatArray
    reason: ReasonArray
    _index: WaitIndex = field(repr=False)

    def __len__(self) -> int:
        return len(self.op)

    def picked(self, which: Any) -> OpWaits:
        """The spans ``which`` (a mask or a slice) picks, in order."""
        return OpWaits(
            self.op[which], self.stage[which], self.start[which], self.end[which],
            self.reason[which], self._index,
        )  # fmt: skip

    @property
    def schedule(self) -> Schedule:
        return self._index.schedule

    def unit(self, i: int) -> int:
        """The unit the op waits for."""
        return int(self.schedule.unit[self.schedule.task_of(int(self.op[i]), int(self.stage[i]))])

    def pool(self, i: int) -> int:
        """The pool a slot wait waits for (`Schedule.pools` index); -1 for other waits and
        the book's runs."""
        if self.reason[i] != WAIT_SLOT:
            return -1
        task = int(self.schedule.task_of(int(self.op[i]), int(self.stage[i])))
        return self._index.pool_waited(task, float(np.nextafter(self.end[i], -np.inf)))

    def blockers(self, i: int) -> tuple[tuple[int, int], ...]:
        """What keeps span ``i`` waiting just before it ends: worker — (row, task) of each
        of the unit's workers busy then; slot — (-1, task of the holder's write) per holder
        (a shape's run: of the stage that frees the pool waited for)."""
        s, index = self.schedule, self._index
        moment = float(np.nextafter(self.end[i], -np.inf))
        if self.reason[i] == WAIT_SLOT:
            pool = self.pool(i)
            last = s.pools[pool].last if index.shaped and pool >= 0 else len(s.stage_names) - 1
            holders = index.slot_holders(pool, moment)
            return tuple((-1, int(s.task_of(int(h), last))) for h in holders)
        unit = self.unit(i)
        first = int(s.worker_offsets[unit])
        busy = []
        _, bounds = s.by_row
        for row in range(first, first + s.workers[unit]):
            lo, hi = int(bounds[row]), int(bounds[row + 1])
            k = lo + int(np.searchsorted(s.row_starts[lo:hi], moment, "right")) - 1
            if k < lo:
                continue
            reach, task = s.reach_at(k)
            if reach > moment:
                busy.append((row, int(task)))
        return tuple(busy)

    def ops(self, i: int) -> tuple[int, ...]:
        """The ops span ``i`` names (0-based): slot — the holders; worker and overhead — what
        the unit's workers run just before the wait ends (overhead: usually none)."""
        return tuple(sorted(int(self.schedule.op[t]) for _, t in self.blockers(i)))

    def describe(self, i: int) -> str:
        """One line for people, e.g. "op 3 waits 0–3 s for a slot: held by ops 1 and 2 until
        3 s" or "op 3 waits 1–2 s for the load unit: it is reading op 2 until 2 s"."""
        s = self.schedule
        unit = s.time_unit
        op = int(self.op[i]) + 1
        a, b = float(self.start[i]), float(self.end[i])
        period = f"{time_text(a, '').strip()}–{time_text(b, unit)}"
        blockers = self.blockers(i)
        if self.reason[i] == WAIT_SLOT:
            pool = self.pool(i)
            holders = [int(s.op[t]) for _, t in blockers]
            last = -1 if pool < 0 else s.pools[pool].last
            freeing = [h for h in holders if s.op_ends[h, last] <= b]
            slot = "a slot" if pool < 0 else f"a slot of {s.pools[pool].name}"
            text = f"op {op} waits {period} for {slot}: held by {op_list(holders)}"
            if freeing:
                text += f"; {op_list(freeing)} frees one at {time_text(b, unit)}"
            return text
        title = s.unit_title(self.unit(i))
        if self.reason[i] == WAIT_OVERHEAD or not blockers:
            return (
                f"op {op} waits {period} although the {title} is free: overhead the model "
                "does not see"
            )
        doing = [
            f"{'it' if s.workers[self.unit(i)] == 1 else s.row_label(row)} "
            f"{_ONGOING.get(s.stage_names[s.stage[t]], 'works on')} "
            f"op {int(s.op[t]) + 1} until {time_text(float(s.end[t]), unit)}"
            for row, t in blockers
        ]
        return f"op {op} waits {period} for the {title}: " + join_words(doing)


_ONGOING = {"read": "is reading", "compute": "is computing", "write": "is writing"}


def op_waits_between(derived: Derived, first: int, last: int) -> OpWaits:
    """The spans of `op_waits` of ops ``first`` .. ``last`` - 1 (bit for bit). Not cached:
    a simulated run's are found from those ops alone (a view costs what it shows); a
    measured run's are picked from all of them."""
    schedule, index = derived.schedule, derived.waits
    first = min(max(0, first), schedule.n_ops)
    last = max(first, min(schedule.n_ops, last))
    if not index.pipeline or schedule.source == "measured":
        waits = derived.op_waits
        a, b = np.searchsorted(waits.op, [first, last])
        return waits.picked(slice(a, b))
    return OpWaits(*_op_wait_columns(index, first, last), index)


def find_op_wait_reasons(derived: Derived) -> tuple[str, ...]:
    """The reasons of `OP_WAIT_REASONS` that some op waits for. A simulated run's are found
    without making its waits: a grant after 0 (slot), a stage starting after its op was
    ready (worker; a block of ops at a time, stopping at the first)."""
    schedule, index = derived.schedule, derived.waits
    if not index.pipeline or schedule.source == "measured" or index.shaped:
        codes = derived.op_waits.reason
        return tuple(r for k, r in enumerate(OP_WAIT_REASONS) if np.count_nonzero(codes == k))
    tol, grant = index.tol, index.grant
    found = {WAIT_SLOT} if bool((grant > tol).any()) else set()
    starts, ends = schedule.op_starts, schedule.op_ends
    for first in range(0, schedule.n_ops, _OPS_AT_ONCE):
        last = first + _OPS_AT_ONCE
        read_waits = starts[first:last, 0] - grant[first:last] > tol
        if read_waits.any() or (starts[first:last, 1:] - ends[first:last, :-1] > tol).any():
            found.add(WAIT_WORKER)
            break
    return tuple(r for k, r in enumerate(OP_WAIT_REASONS) if k in found)


#: `find_op_wait_reasons` looks at this many ops at a time (small temporaries).
_OPS_AT_ONCE = 1 << 16


def build_op_waits(index: WaitIndex) -> OpWaits:
    """Every op's waiting time with its reason (see the module docstring; kept by
    `Derived.op_waits`)."""
    s = index.schedule
    if not index.pipeline:
        empty = np.zeros(0)
        return OpWaits(
            np.zeros(0, np.int64), np.zeros(0, np.int64), empty, empty, np.zeros(0, np.int8), index
        )
    columns = _op_wait_columns(index, 0, s.n_ops)
    if s.source == "measured":
        columns = _measured_overhead(index, columns)
    return OpWaits(*columns, index)


def _op_wait_columns(index: WaitIndex, first: int, last: int) -> WaitColumns:
    """The waits of ops ``first`` .. ``last`` - 1 longer than the tolerance, before any
    measured overhead is cut out: per op and stage, from the previous stage's end (0 for
    the first) to each of its pools' grants in turn (`WAIT_SLOT`; the book's: one slot,
    before the read), then to its start (`WAIT_WORKER`)."""
    s = index.schedule
    last = min(last, s.n_ops)
    n = last - first
    edges: list[tuple[FloatArray, FloatArray]] = []
    stage_of: list[int] = []
    reasons: list[int] = []
    for at in range(s.op_starts.shape[1]):
        if index.shaped:
            asked = index.pool_times.asked(at)[first:last]
            grants = [index.pool_times.grants[first:last, p] for p in index.pool_times.taken[at]]
        else:
            asked = np.zeros(n) if at == 0 else s.op_ends[first:last, at - 1]
            grants = [index.grant[first:last]] if at == 0 else []
        edges += itertools.pairwise([asked, *grants, s.op_starts[first:last, at]])
        stage_of += [at] * (len(grants) + 1)
        reasons += [WAIT_SLOT] * len(grants) + [WAIT_WORKER]
    lo = np.column_stack([a for a, _ in edges]).reshape(-1) if n else np.zeros(0)
    hi = np.column_stack([b for _, b in edges]).reshape(-1) if n else np.zeros(0)
    op = np.repeat(np.arange(first, last, dtype=np.int64), len(edges))
    stage = np.tile(np.asarray(stage_of, dtype=np.int64), n)
    reason = np.tile(np.asarray(reasons, dtype=np.int8), n)
    keep = hi - lo > index.tol
    return op[keep], stage[keep], lo[keep], hi[keep], reason[keep]


def _measured_overhead(index: WaitIndex, columns: WaitColumns) -> WaitColumns:
    """Measured runs: the parts of worker waits during which the unit (one worker) sat idle
    are overhead. Cut at the unit's idle gaps (skipped where that would take too many cuts)."""
    s = index.schedule
    op, stage, lo, hi, reason = columns
    rows, gap_lo, gap_hi = index.gaps
    for stage_index in range(s.op_starts.shape[1]):
        unit = int(s.unit[s.op_task_index[0, stage_index]])
        if s.workers[unit] != 1:
            continue
        row = int(s.worker_offsets[unit])
        starts, ends = gap_lo[rows == row], gap_hi[rows == row]
        if not len(starts):
            continue
        mine = (stage == stage_index) & (reason == WAIT_WORKER)
        pieces = cut_at_points(lo[mine], hi[mine], np.union1d(starts, ends), _budget(s))
        if pieces is None:
            continue
        parent, a, b, _ = pieces
        middle = 0.5 * (a + b)
        k = np.searchsorted(starts, middle, "right") - 1
        idle = (k >= 0) & (middle < ends[np.maximum(k, 0)])
        picked = np.flatnonzero(mine)[parent]
        new_reason = np.where(idle, WAIT_OVERHEAD, WAIT_WORKER).astype(np.int8)
        rest = np.flatnonzero(~mine)
        op = np.concatenate([op[rest], op[picked]])
        stage = np.concatenate([stage[rest], stage[picked]])
        lo, hi = np.concatenate([lo[rest], a]), np.concatenate([hi[rest], b])
        reason = np.concatenate([reason[rest], new_reason])
        key = np.lexsort((lo, op))
        op, stage, lo, hi, reason = op[key], stage[key], lo[key], hi[key], reason[key]
    return op, stage, lo, hi, reason
