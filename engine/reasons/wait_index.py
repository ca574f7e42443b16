"""The index behind the wait reasons (engine/reasons/waits.py): sorted views of one Schedule,
built lazily and kept by its `engine.analysis.derived.Derived`; interval stabbing and
vectorized cutting of spans."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.base.tolerance import time_tolerance
from engine.model.columns import op_numbers
from engine.model.schedule import OpOrder, Schedule, op_column
from engine.reasons.pool_waits import PoolTimes, is_shape_run, named_pool

if TYPE_CHECKING:
    from engine.analysis.derived import OpColumns

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: Intervals and the idle window search keep a maximum per block of this many values.
BLOCK = 64


# -- building blocks ---------------------------------------------------------------------


class Intervals:
    """Half-open intervals [lo, hi) with lo ≤ hi: how many and which contain a time, in
    O(log n + answer) when they nest little (slot holds), O(n / 64) at worst. Given in
    order of lo (holds granted in op order), they are kept without a sort or a copy:
    ``order`` is then None (position = interval)."""

    def __init__(self, lo: FloatArray, hi: FloatArray, hi_sorted: FloatArray | None = None) -> None:
        """``hi_sorted``: ``np.sort(hi)`` where the caller has it (shared, not copied)."""
        self.order: IntArray | None = None
        self.lo, self.hi = lo, hi
        if not nondecreasing(lo):
            self.order = np.argsort(lo, kind="stable").astype(np.int64)
            self.lo, self.hi = lo[self.order], hi[self.order]
        hi_in_order = nondecreasing(self.hi)
        if hi_sorted is None:
            hi_sorted = self.hi if hi_in_order else np.sort(hi)
        self.hi_sorted = hi_sorted
        self.block_max = block_maxima(self.hi)
        # The latest end so far, in order of lo: the ends themselves when they rise with
        # lo; else kept per block of 64 only (`_first_open`), not per interval.
        self.reach = self.hi if hi_in_order else None
        self.block_reach = np.maximum.accumulate(self.block_max) if len(lo) else self.block_max

    def _first_open(self, time: float, k: int) -> int:
        """The first position below ``k`` (in order of lo) where the ends so far reach past
        ``time`` (``k`` if none), through the blocks' running maxima and one block's ends."""
        if self.reach is not None:
            return int(np.searchsorted(self.reach[:k], time, "right"))
        block = int(np.searchsorted(self.block_reach, time, "right"))
        lo = block * BLOCK
        if lo >= k:
            return k
        later = np.flatnonzero(self.hi[lo : min(lo + BLOCK, k)] > time)
        return lo + int(later[0]) if len(later) else k

    def _intervals(self, positions: IntArray) -> IntArray:
        """The intervals at these positions of the sorted order."""
        return positions if self.order is None else self.order[positions]

    def count(self, times: FloatArray, near: IntArray | None = None) -> IntArray:
        """How many intervals contain each of ``times``. ``near``: per time, about how many
        intervals started (and ended) by then; the ranks are then found by stepping from
        there (`rank_near`), not by a binary search each (the same answer)."""
        if near is None:
            started = np.searchsorted(self.lo, times, "right")
            ended = np.searchsorted(self.hi_sorted, times, "right")
        else:
            started = rank_near(self.lo, times, near)
            ended = rank_near(self.hi_sorted, times, near)
        started -= ended
        return started.astype(np.int64, copy=False)

    def at(self, time: float) -> IntArray:
        """Indices (ascending) of the intervals containing ``time``."""
        k = int(np.searchsorted(self.lo, time, "right"))
        first = self._first_open(time, k)
        if k - first <= 4 * BLOCK:
            positions = first + np.flatnonzero(self.hi[first:k] > time)
        else:
            b0, b1 = first // BLOCK, (k - 1) // BLOCK + 1
            blocks = b0 + np.flatnonzero(self.block_max[b0:b1] > time)
            candidates = (blocks[:, None] * BLOCK + np.arange(BLOCK)).reshape(-1)
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
        first = self._first_open(float(qs[0]), k)
        lo, hi = self.lo[first:k], self.hi[first:k]
        a = np.searchsorted(qs, lo, "left")
        counts = np.maximum(np.searchsorted(qs, hi, "left") - a, 0)
        interval = np.repeat(np.arange(first, k), counts)
        step = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        query = q_order[np.repeat(a, counts) + step]
        ops = self._intervals(interval)
        key = np.lexsort((ops, query))
        return query[key].astype(np.int64), ops[key].astype(np.int64)


def rank_near(values: FloatArray, times: FloatArray, guess: IntArray, steps: int = 8) -> IntArray:
    """``searchsorted(values, times, "right")`` (values sorted) found by stepping from
    ``guess`` (a binary search for what is still farther off after ``steps``): cheaper
    than a full search each when the guesses are close (the ops around an idle gap)."""
    n = len(values)
    rank = np.clip(guess, 0, n).astype(np.int64)
    if not n or not len(times):
        return np.searchsorted(values, times, "right") if n else np.zeros(len(times), np.int64)
    padded = np.empty(n + 2)
    padded[0], padded[-1] = -np.inf, np.inf
    padded[1:-1] = values
    # values[rank - 1] <= time < values[rank] settles it (padded: values[-1] = -inf, …).
    below = padded[rank] > times  # values[rank - 1] > time: go down
    above = padded[rank + 1] <= times  # values[rank] <= time: go up
    for moving, step in ((below, -1), (above, 1)):
        which = np.flatnonzero(moving)
        for _ in range(steps):
            if not len(which):
                break
            rank[which] += step
            r = rank[which]
            still = padded[r] > times[which] if step < 0 else padded[r + 1] <= times[which]
            which = which[still]
        if len(which):
            rank[which] = np.searchsorted(values, times[which], "right")
    return rank


def _openers(starts: FloatArray, reach: FloatArray, firsts: IntArray) -> IntArray:
    """Positions (in `Schedule.by_row` order) of the tasks that open a gap: they start
    after everything before them on their row ended (a row's first task, at ``firsts``:
    after 0)."""
    opens = np.empty(len(starts), dtype=bool)
    np.greater(starts[1:], reach[:-1], out=opens[1:])
    opens[firsts] = starts[firsts] > 0.0
    return np.flatnonzero(opens)


def nondecreasing(values: FloatArray) -> bool:
    return len(values) < 2 or bool((values[1:] >= values[:-1]).all())


def block_maxima(values: FloatArray) -> FloatArray:
    """The largest of ``values`` in each block of `BLOCK` (the last block padded)."""
    blocks = -(-len(values) // BLOCK)
    padded = np.full(blocks * BLOCK, -np.inf)
    padded[: len(values)] = values
    maxima: FloatArray = padded.reshape(blocks, BLOCK).max(axis=1)
    return maxima


def cut_at_points(
    lo: FloatArray, hi: FloatArray, points: FloatArray, budget: int | None = None
) -> tuple[IntArray, FloatArray, FloatArray, IntArray] | None:
    """Cut each [lo, hi) at the sorted ``points`` strictly inside it: (parent, lo, hi) of
    the pieces in order, and per piece ``searchsorted(points, start, "right")`` (found
    without a search); None past ``budget`` cuts. Running sums, no repeat: at 10^6 ops
    with two workers a unit there are millions of pieces."""
    a = np.searchsorted(points, lo, "right")
    counts = np.searchsorted(points, hi, "left")
    counts -= a
    np.maximum(counts, 0, out=counts)
    if budget is not None and int(counts.sum()) > budget:
        return None
    if not len(lo):
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0, np.int64)
    first = np.zeros(len(lo), dtype=np.int64)  # each gap's first piece
    np.cumsum(counts[:-1] + 1, out=first[1:])
    total = int(first[-1] + counts[-1] + 1)
    # Piece j of a gap starts after point `a + j` - 1 (j > 0): +1 a piece, restarted at
    # each gap's first piece.
    index = np.ones(total, dtype=np.int64)
    index[first[1:]] = a[1:] - a[:-1] - counts[:-1]
    index[0] = a[0]
    np.cumsum(index, out=index)
    parent = np.zeros(total, dtype=np.int64)
    parent[first[1:]] = 1
    np.cumsum(parent, out=parent)
    padded = np.empty(len(points) + 2)
    padded[0] = padded[-1] = np.nan  # (never read: those ends and starts are the gap's)
    padded[1:-1] = points
    starts = np.take(padded, index)  # point `index` - 1
    starts[first] = lo
    ends = np.take(padded[1:], index)  # point `index`
    ends[first + counts] = hi
    return parent, starts, ends, index


@dataclass(frozen=True, eq=False)
class UnitTasks:
    """One unit's tasks sorted by (start, op): their starts, ops, distinct starts and the
    tasks (`tasks_at`; an op-major pipeline's stage keeps no list: stage + stages · op)."""

    starts: FloatArray
    ops: IntArray | npt.NDArray[np.int32]
    listed: IntArray | None = None  # the tasks, where no layout gives them
    stage: int = 0
    stages: int = 1

    def __len__(self) -> int:
        return len(self.starts)

    @cached_property
    def points(self) -> FloatArray:
        """The distinct starts (the starts themselves when no two are equal)."""
        keep = np.ones(len(self.starts), dtype=bool)
        keep[1:] = self.starts[1:] > self.starts[:-1]
        return self.starts if keep.all() else self.starts[keep]

    def tasks_at(self, positions: IntArray | slice) -> IntArray:
        """The tasks at these positions of the order (an array of them, or a slice)."""
        if self.listed is not None:
            return self.listed[positions]
        return self.stage + self.stages * self.ops[positions].astype(np.int64)

    def ranks(self, points: FloatArray, counted: IntArray, starts: FloatArray) -> IntArray:
        """``searchsorted(self.starts, starts, "right")`` for pieces with ``counted`` of
        ``points`` at or before each (`cut_at_points`), without a search where the points
        are the unit's starts or its distinct starts."""
        if points is self.starts:
            return counted
        if points is self.points:
            first = np.flatnonzero(np.concatenate([[True], self.starts[1:] > self.starts[:-1]]))
            ranks: IntArray = np.append(first, len(self.starts))[counted]
            return ranks
        return np.searchsorted(self.starts, starts, "right")

    @property
    def last_start(self) -> float:
        return float(self.starts[-1]) if len(self.starts) else -np.inf


class WaitIndex:
    """Everything the reasons need, built once per Schedule (lazily, part by part)."""

    def __init__(self, schedule: Schedule, columns: OpColumns) -> None:
        self.schedule = schedule
        self.op_columns = columns  # (the stage columns sorted, shared with other indexes)
        self._found_gaps: tuple[IntArray, FloatArray, FloatArray] | None = None
        #: The window search's blocks (`engine.reasons.idle_cuts.gap_blocks`, `point_blocks`).
        self.gap_blocks: FloatArray | None = None
        self.point_blocks: dict[int, FloatArray] = {}
        self._pool_holds: dict[int, Intervals] = {}
        self._ready_kept: dict[int, tuple[FloatArray, OpOrder | None]] = {}
        self.span = schedule.makespan
        self.tol = time_tolerance(self.span)
        self.pipeline = schedule.n_ops > 0 and len(schedule) > 0 and schedule.is_pipeline
        self.measured = self.pipeline and schedule.source == "measured"
        self.slots = schedule.buffers if self.pipeline else 0
        #: A shape's run with pools the book's rules don't cover (`engine.reasons.pool_waits`).
        self.shaped = is_shape_run(schedule)
        #: 0 where a shape's one pool follows the book's rules, named in the words; else -1.
        self.named_pool = named_pool(schedule)
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
        """One unit's tasks sorted by (start, op): no sort for a unit that runs one stage in
        op order (every one-worker simulation, every load unit)."""
        s = self.schedule
        stages = len(s.stage_names)
        if self.pipeline and s.op_major and s.unit is s.stage and unit < stages:
            # The stage's starts sorted, ties in op order (shared with the narration's; in
            # op order already, the column itself: with one worker, its row's part).
            starts, ops = self.op_columns.sorted("start", unit)
            return UnitTasks(starts, self._op_numbers if ops is None else ops, None, unit, stages)
        tasks = np.flatnonzero(s.unit == unit)
        tasks = tasks[np.lexsort((s.op[tasks], s.start[tasks]))].astype(np.int64)
        return UnitTasks(s.start[tasks], s.op[tasks], tasks)

    @cached_property
    def _op_numbers(self) -> IntArray:
        """0 .. n_ops - 1: the op of each task of a stage in op order (shared by units)."""
        return op_numbers(self.schedule.n_ops)

    def prepare_narration(self) -> None:
        """Build, once, every sorted view narration searches (so no later call pays)."""
        if self._narration_ready:
            return
        _ = self.units
        if self.pipeline:
            _, _, in_order = self.columns
            for stage, ordered in enumerate(in_order):
                if not ordered:
                    _ = self.ready_order(stage)
            if self.slots > 0:
                _ = self.holds
        _ = self.schedule.by_row
        self._narration_ready = True

    @cached_property
    def load_unit(self) -> int:
        """The unit of the read stage (its reads wait for slots), -1 off pipelines."""
        if not self.pipeline:
            return -1
        return int(self.schedule.unit[self.schedule.task_of(0, 0)])

    @cached_property
    def pool_times(self) -> PoolTimes:
        """A shape's run's pools: asks and grants (`shaped` runs only)."""
        return PoolTimes(self.schedule)

    def pool_holds(self, pool: int) -> Intervals:
        """A shape's ``pool``'s holds: [grant, end of its last stage) per op (kept)."""
        found = self._pool_holds.get(pool)
        if found is None:
            last = np.ascontiguousarray(self.schedule.op_ends[:, self.schedule.pools[pool].last])
            found = self._pool_holds[pool] = Intervals(self.pool_times.grants[:, pool], last)
        return found

    def _in_pool(self, pool: int) -> bool:
        """Whether ``pool`` names a shape's pool (-1, none found, means the book's slots:
        never ``pools[-1]``)."""
        return self.shaped and pool >= 0

    def slot_holders(self, pool: int, time: float) -> IntArray:
        """The ops holding a slot at ``time`` (ascending): of ``pool`` in a shape's run,
        else (or for pool -1) of the book's slots (`holds`)."""
        return self.pool_holds(pool).at(time) if self._in_pool(pool) else self.holds.at(time)

    def slot_frees_at(self, pool: int, holders: IntArray) -> float:
        """When the first of ``holders`` frees its slot (of ``pool`` in a shape's run, else
        at its op's end); NaN for none."""
        last = self.schedule.pools[pool].last if self._in_pool(pool) else -1
        ends = self.schedule.op_ends[holders, last]
        return float(ends.min()) if len(ends) else float("nan")

    def pool_waited(self, task: int, time: float) -> int:
        """The pool (`Schedule.pools` index) a slot wait of ``task`` at ``time`` waits for:
        a shape's run's (-1: none), else `named_pool`."""
        if not self.shaped:
            return self.named_pool
        s = self.schedule
        return max(self.pool_times.waited_pool(int(s.op[task]), int(s.stage[task]), time), -1)

    @cached_property
    def grant(self) -> FloatArray:
        """Per op, when it got its slot: the Schedule's grant times, else (measured) when
        the op B places before it had written (slots in op order), at most its read start;
        a shape's run: when its first stage was ready (its pools granted)."""
        s = self.schedule
        if self.shaped:
            column: FloatArray = self.pool_times.ready[:, 0]
            return column
        if s.grant is not None:
            return s.grant
        grant = np.zeros(s.n_ops)
        b = self.slots
        if 0 < b < s.n_ops:
            grant[b:] = np.maximum.accumulate(s.op_ends[: s.n_ops - b, -1])
        return np.minimum(grant, s.op_starts[:, 0])

    @cached_property
    def ready(self) -> FloatArray:
        """(n_ops, stages): when each stage could start (read: the grant)."""
        s = self.schedule
        if self.shaped:  # (each stage's pools granted too)
            return self.pool_times.ready
        ready = np.empty_like(s.op_starts)
        ready[:, 0] = self.grant
        ready[:, 1:] = s.op_ends[:, :-1]
        return ready

    @cached_property
    def holds(self) -> Intervals:
        """Slot holds: [grant (measured: read start), write end) per op, as
        `engine.analysis.timeline.state_at` draws them."""
        s = self.schedule
        first = s.grant if s.grant is not None else op_column(s, "start", 0)
        last = op_column(s, "end", -1)
        lo = first if bool((first <= last).all()) else np.minimum(first, last)
        return Intervals(lo, last, self.op_columns.sorted("end", -1)[0])

    def ready_of(self, task: int) -> float:
        """When ``task`` could start: its op's grant (first stage) or previous stage's end;
        off pipelines, its start."""
        s = self.schedule
        if not self.pipeline:
            return float(s.start[task])
        op, stage = int(s.op[task]), int(s.stage[task])
        return float(self.grant[op] if stage == 0 else s.op_ends[op, stage - 1])

    @property
    def gaps(self) -> tuple[IntArray, FloatArray, FloatArray]:
        """Every row's idle intervals in [0, makespan] (overlapping tasks count once),
        sorted by (row, start): one pass over the rows' tasks (`Schedule.by_row`)."""
        if self._found_gaps is None:
            self._found_gaps = self._find_gaps()
        return self._found_gaps

    def gaps_found(self) -> tuple[IntArray, FloatArray, FloatArray] | None:
        """`gaps` where found already, else None (the compiled idle pass then finds them)."""
        return self._found_gaps

    def keep_gaps(self, gaps: tuple[IntArray, FloatArray, FloatArray]) -> None:
        """Keep ``gaps`` as `gaps`: the compiled idle pass found them where it cut none
        (the same arrays `_find_gaps` makes)."""
        self._found_gaps = gaps

    def _find_gaps(self) -> tuple[IntArray, FloatArray, FloatArray]:
        s = self.schedule
        _, bounds = s.by_row
        starts, (reach, _) = s.row_starts, s.row_reach
        n_rows, span = s.n_workers, self.span
        nonempty = bounds[:-1] < bounds[1:]
        position = _openers(starts, reach, bounds[:-1][nonempty])
        cuts = np.searchsorted(position, bounds)
        inner = np.diff(cuts)
        last = np.maximum(bounds[1:] - 1, 0)
        tail_from = np.where(nonempty, reach[last] if len(reach) else 0.0, 0.0)
        tail = span > tail_from
        counts = inner + tail
        total = int(counts.sum())
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), counts)
        lo, hi = np.empty(total), np.empty(total)
        # Row by row (each row's gaps in time order: its inner gaps, then its tail),
        # written in place.
        out = 0
        for r in range(n_rows):
            mine = position[int(cuts[r]) : int(cuts[r + 1])]
            m = len(mine)
            if m:
                np.take(starts, mine, out=hi[out : out + m])
                previous = mine - 1
                row_first = int(mine[0]) == int(bounds[r])
                if row_first:
                    previous[0] = mine[0]
                np.take(reach, previous, out=lo[out : out + m])
                if row_first:
                    lo[out] = 0.0
                out += m
            if tail[r]:
                lo[out], hi[out] = tail_from[r], span
                out += 1
        for column in (rows, lo, hi):
            column.flags.writeable = False
        return rows, lo, hi

    def lone_ranks(self, unit: int, a: int, b: int) -> IntArray:
        """For gaps ``a:b`` (those of one-worker unit ``unit``): the rank in start order of
        the task that ends each gap, ``searchsorted(starts, start, "right")``, found again
        with the pass that found the gaps, without a search."""
        s = self.schedule
        _, bounds = s.by_row
        row = int(s.worker_offsets[unit])
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        starts, reach = s.row_starts[lo:hi], s.reach_at(slice(lo, hi))[0]
        first = np.array([0] if hi > lo else [], dtype=np.int64)  # the row's first task
        ranks = _openers(starts, reach, first)
        if len(ranks) < b - a:  # the row's tail gap: no task after it
            ranks = np.append(ranks, hi - lo)
        return ranks

    def ready_order(self, stage: int) -> OpOrder:
        """Ops in the order ``stage`` became ready (ties: op order): a unit serves ready
        stages first come, first served, so the ops waiting at any time are a slice of it."""
        order = self._ready_sorted(stage)[1]
        return self._op_numbers if order is None else order

    @cached_property
    def columns(self) -> tuple[list[FloatArray], list[FloatArray], list[bool]]:
        """Per stage: ready times sorted, starts sorted (shared `OpColumns`), and whether
        both run in op order (then the ops waiting at any time are one range)."""
        ready_sorted, start_sorted, in_order = [], [], []
        for stage in range(len(self.schedule.stage_names)):
            ready, by_ready = self._ready_sorted(stage)
            start, by_start = self.op_columns.sorted("start", stage)
            in_order.append(by_ready is None and by_start is None)
            ready_sorted.append(ready)
            start_sorted.append(start)
        return ready_sorted, start_sorted, in_order

    def _ready_sorted(self, stage: int) -> tuple[FloatArray, OpOrder | None]:
        """``stage``'s ready times sorted and the ops in that order (ties: op order; None
        where that is op order): when the stage before ended (shared `OpColumns`), or for
        the first stage the grants, for a shape's stage that takes pools its last grant."""
        if stage > 0 and not (self.shaped and self.pool_times.taken[stage]):
            return self.op_columns.sorted("end", stage - 1)
        found = self._ready_kept.get(stage)
        if found is None:
            column = self.grant if stage == 0 else self.ready[:, stage]
            order = None
            if not nondecreasing(column):
                order = np.argsort(column, kind="stable").astype(np.int64)
            found = self._ready_kept[stage] = (column if order is None else column[order], order)
        return found
