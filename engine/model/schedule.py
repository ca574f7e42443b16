"""`Schedule`: the one timeline type every part of PipeLab reads. Columnar and immutable:
numpy arrays of equal length (one entry per task: one stage of one op on one worker of one
unit) plus metadata."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.model.columns import (
    TaskOrder,
    adopt,
    frozen,
    is_layout,
    overlapping,
    pipeline_layout,
    rows_time_order,
    shared_layout,
    sorted_rows,
    sorted_within,
    task_dtype,
    transposed,
)

#: The pipeline's stages, in order, and the unit that runs each (same index).
STAGES: tuple[str, ...] = ("read", "compute", "write")
UNITS: tuple[str, ...] = ("load", "compute", "store")

SOURCES = ("simulated", "measured")

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Pool:
    """Slots an op holds from the start of stage ``first`` to the end of stage ``last``
    (stage indices); ``size`` 0 is unlimited (a pipeline shape's buffer pool)."""

    name: str
    size: int
    first: int
    last: int


@dataclass(frozen=True, eq=False)
class Schedule:
    """An immutable, columnar timeline of tasks.

    Parameters
    ----------
    op, stage, unit, worker, start, end
        One entry per task; ``stage`` and ``unit`` index ``stage_names``, ``unit_names``;
        ``worker`` is the index within its unit. ``workers``: workers per unit.
    policy, source, buffers
        "sequential", "pipelined" or a measured run's label; "simulated" or "measured";
        the shared-memory slots the run had (0 = unlimited; informational).
    grant
        Optional, per op: when it was granted its buffer slot (held until its last stage
        ends). Simulated pipelines carry it; measured runs may not.
    pools, pool_grants
        A pipeline shape's pools (`engine.model.shape`; empty for the book's) and
        (n_ops, pools) grant times, each slot held until its pool's ``last`` stage ends;
        None for the book's runs (the assembly line then draws the one shared memory).
    row_titles, task_name, names
        Optional: a name per row where the maker knows better than "load unit 2" (an
        imported profile's streams), each task's name as an index into ``names``.
    starts_at_ends
        Said by its maker (engine.model.scheduler) when every task starts at 0 or at some
        task's end, bit for bit: event times (`engine.indexes.event_union`) then need only
        the ends. Kept as ``ends_hold_starts``; copies (`with_meta`, ``replace``) drop it.
    """

    op: IntArray
    stage: IntArray
    unit: IntArray
    worker: IntArray
    start: FloatArray
    end: FloatArray
    workers: tuple[int, ...] = (1, 1, 1)
    n_ops: int = 0
    policy: str = "pipelined"
    source: str = "simulated"
    time_unit: str = "s"
    buffers: int = 0
    label: str = ""
    unit_names: tuple[str, ...] = UNITS
    stage_names: tuple[str, ...] = STAGES
    grant: FloatArray | None = field(default=None)
    unit_titles: tuple[str, ...] | None = None
    pools: tuple[Pool, ...] = ()
    pool_grants: FloatArray | None = field(default=None)
    row_titles: tuple[str, ...] | None = None
    task_name: IntArray | None = field(default=None)
    names: tuple[str, ...] = ()
    starts_at_ends: InitVar[bool] = False
    ends_hold_starts: bool = field(default=False, init=False, repr=False)

    def __post_init__(self, starts_at_ends: bool) -> None:
        set_ = object.__setattr__
        set_(self, "ends_hold_starts", bool(starts_at_ends))
        for name in ("op", "stage", "unit", "worker", "task_name", "start", "end", "grant"):
            if getattr(self, name) is not None:
                dtype = np.float64 if name in ("start", "end", "grant") else np.int64
                set_(self, name, frozen(getattr(self, name), dtype))
        if self.pool_grants is not None:
            grants = np.array(self.pool_grants, dtype=np.float64, ndmin=2)  # (a copy)
            grants.setflags(write=False)
            set_(self, "pool_grants", grants)
            if self.pool_grants.shape != (self.n_ops, len(self.pools)):
                raise PipeLabError("schedule pool grants need one row per op, one column per pool")
        set_(self, "workers", tuple(int(k) for k in self.workers))
        n = len(self.op)
        if any(len(getattr(self, c)) != n for c in ("stage", "unit", "worker", "start", "end")):
            raise PipeLabError("schedule columns must all have the same length")
        if len(self.workers) != len(self.unit_names):
            raise PipeLabError("schedule needs a worker count for every unit")
        if self.source not in SOURCES:
            raise PipeLabError(f"schedule source must be one of {', '.join(SOURCES)}")
        if n:
            self._check_rows(n)
        for what, values, count, each in (
            ("unit titles", self.unit_titles, len(self.unit_names), "unit"),
            ("grant times", self.grant, self.n_ops, "op"),
            ("row titles", self.row_titles, self.n_workers, "row"),
            ("task names", self.task_name, n, "task"),
        ):
            if values is not None and len(values) != count:
                raise PipeLabError(f"schedule {what} need one entry per {each}")
        names = self.task_name
        if names is not None and n and (names.min() < 0 or names.max() >= len(self.names)):
            raise PipeLabError("a task names a name the schedule does not have")

    def _check_rows(self, n: int) -> None:
        """Refuse times that are not finite or run backwards, and a unit, stage, worker or
        op the Schedule lacks (one pass per column; `pipeline_layout`'s are known good)."""
        if not (np.isfinite(self.start).all() and np.isfinite(self.end).all()):
            raise PipeLabError("schedule times must be finite")
        if (self.end < self.start).any():
            raise PipeLabError("a task ends before it starts")
        stages = len(self.stage_names)
        layout = (
            n == self.n_ops * stages
            and is_layout(self.op, "op", self.n_ops, stages)
            and is_layout(self.stage, "stage", self.n_ops, stages)
        )
        units_are_stages = layout and self.unit is self.stage and len(self.workers) == stages
        if not units_are_stages and (
            self.unit.min() < 0 or self.unit.max() >= len(self.unit_names)
        ):
            raise PipeLabError("a task names a unit the schedule does not have")
        if not layout and (self.stage.min() < 0 or self.stage.max() >= stages):
            raise PipeLabError("a task names a stage the schedule does not have")
        if not (
            min(self.workers) >= 1 and layout and is_layout(self.worker, "zero", self.n_ops, stages)
        ):
            if units_are_stages and len(set(self.workers)) == 1:
                # (one worker count for all: one pass; a min or max along axis 0 of an
                # (n, 3) matrix is ten times slower than over the flat column)
                bad = bool(self.worker.min() < 0 or self.worker.max() >= self.workers[0])
            elif units_are_stages:
                columns = [self.worker[i::stages] for i in range(stages)]
                bad = any(
                    bool(c.min() < 0 or c.max() >= k)
                    for c, k in zip(columns, self.workers, strict=True)
                )
            else:
                limits = np.asarray(self.workers)[self.unit]
                bad = bool((self.worker < 0).any() or (self.worker >= limits).any())
            if bad:
                raise PipeLabError("a task names a worker its unit does not have")
        if not layout and (self.op.min() < 0 or self.op.max() >= max(self.n_ops, 1)):
            raise PipeLabError("a task names an op outside 0 .. n_ops - 1")

    @classmethod
    def from_stage_matrices(
        cls,
        starts: npt.ArrayLike,
        ends: npt.ArrayLike,
        worker: npt.ArrayLike | None = None,
        *,
        owned: bool = False,
        **meta: Any,
    ) -> Schedule:
        """A pipeline Schedule from (n_ops, 3) matrices of stage starts, ends and workers
        (default 0): tasks op-major, stage i on unit i, the shared `pipeline_layout`.
        ``owned``: the caller hands these fresh arrays over, to be frozen in place."""
        start_matrix = np.asarray(starts, dtype=np.float64)
        n = start_matrix.shape[0]
        op, stage, zeros = pipeline_layout(n, 3)
        if owned and meta.get("grant") is not None:
            meta["grant"] = adopt(meta["grant"], np.float64)
        if worker is None:
            workers: npt.NDArray[np.int64] = zeros
        else:
            workers = adopt(worker, np.int64) if owned else np.asarray(worker, dtype=np.int64)
            if not workers.any():  # (one worker per unit, or a sequential run: 23 MB
                workers = zeros  # at 10^6 ops) every worker index is 0: shared zeros
        return cls(
            op=op,
            stage=stage,
            unit=stage,
            worker=workers if workers.ndim == 1 else workers.reshape(-1),
            start=adopt(start_matrix, np.float64) if owned else start_matrix.reshape(-1),
            end=adopt(ends, np.float64) if owned else np.asarray(ends, np.float64).reshape(-1),
            n_ops=n,
            **meta,
        )

    # -- size and shape -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.op)

    @property
    def n_units(self) -> int:
        return len(self.unit_names)

    @property
    def n_workers(self) -> int:
        """Workers of all units together (one timeline row each)."""
        return sum(self.workers)

    @cached_property
    def worker_offsets(self) -> IntArray:
        """Row of the first worker of each unit: rows are units in order, workers within."""
        offsets = np.concatenate([[0], np.cumsum(self.workers)[:-1]]).astype(np.int64)
        offsets.flags.writeable = False
        return offsets

    @property
    def row(self) -> IntArray:
        """Each task's row (unit-major, worker-minor): the units with one worker each, else
        built on each access, not kept (23 MB at 10^6 ops); `rows_of` for a few tasks."""
        if self._one_worker_each:
            return self.unit
        rows = self.worker_offsets[self.unit] + self.worker
        rows.flags.writeable = False
        return rows

    def rows_of(self, tasks: Any) -> Any:
        """The rows of these tasks (a task, or an array of them), as ``row[tasks]``."""
        if self._one_worker_each:
            return self.unit[tasks]
        return self.worker_offsets[self.unit[tasks]] + self.worker[tasks]

    @cached_property
    def _one_worker_each(self) -> bool:
        return all(k == 1 for k in self.workers)

    @cached_property
    def _first_workers_only(self) -> bool:
        """Whether every task runs on its unit's first worker (one worker a unit, or a
        sequential run's shared zeros)."""
        return self._one_worker_each or is_layout(
            self.worker, "zero", self.n_ops, len(self.stage_names)
        )

    def unit_title(self, unit: int) -> str:
        """A unit's ``unit_titles`` entry, else "load unit" for the book's, else its name."""
        if self.unit_titles is not None:
            return self.unit_titles[unit]
        name = self.unit_names[unit]
        return f"{name} unit" if name in UNITS else name

    def row_label(self, row: int) -> str:
        """A row's ``row_titles`` entry, else e.g. "load unit", "compute unit 2"."""
        if self.row_titles is not None:
            return self.row_titles[row]
        unit = int(np.searchsorted(self.worker_offsets, row, side="right") - 1)
        name = self.unit_title(unit)
        if self.workers[unit] > 1:
            name += f" {row - int(self.worker_offsets[unit]) + 1}"
        return name

    def task_title(self, task: int) -> str | None:
        """The task's own name (a kernel's, a copy's) where the Schedule has names."""
        if self.task_name is None:
            return None
        return self.names[int(self.task_name[task])]

    @cached_property
    def makespan(self) -> float:
        """Time from 0 to the last task's end (0 when empty); cached, asked every tick."""
        return float(self.end.max()) if len(self) else 0.0

    @property
    def duration(self) -> FloatArray:
        return self.end - self.start

    def with_meta(self, **changes: Any) -> Schedule:
        """A copy with other metadata (label, policy…), sharing the read-only columns."""
        return replace(self, **changes)

    # -- per-op view (pipelines where each op has one task per stage) -------------------

    @cached_property
    def op_major(self) -> bool:
        """Whether task ``i`` is stage ``i % stages`` of op ``i // stages``: per-op
        matrices are then views of the columns."""
        n_stages = len(self.stage_names)
        if len(self) != self.n_ops * n_stages:
            return False
        if is_layout(self.op, "op", self.n_ops, n_stages) and is_layout(
            self.stage, "stage", self.n_ops, n_stages
        ):
            return True
        op, stage = pipeline_layout(self.n_ops, n_stages)[:2]
        return bool(np.array_equal(self.op, op) and np.array_equal(self.stage, stage))

    @cached_property
    def is_pipeline(self) -> bool:
        """True when every op has exactly one task for every stage."""
        n_stages = len(self.stage_names)
        if len(self) != self.n_ops * n_stages:
            return False
        if self.op_major:
            return True
        key = self.op * n_stages + self.stage
        return bool(np.array_equal(np.sort(key), np.arange(len(self))))

    @cached_property
    def _op_matrix_order(self) -> IntArray | None:
        """Tasks in (op, stage) order; None when they are in that order already."""
        if not self.is_pipeline:
            raise PipeLabError("this schedule does not have one task per op and stage")
        if self.op_major:
            return None
        order = np.argsort(self.op * len(self.stage_names) + self.stage, kind="stable")
        return order.astype(np.int64)

    def _per_op(self, column: npt.NDArray[Any]) -> npt.NDArray[Any]:
        order = self._op_matrix_order
        shape = (self.n_ops, len(self.stage_names))
        matrix = column.reshape(shape) if order is None else column[order].reshape(shape)
        matrix.flags.writeable = False
        return matrix

    @cached_property
    def op_starts(self) -> FloatArray:
        """Shape (n_ops, n_stages): when each stage of each op starts."""
        return self._per_op(self.start)

    @cached_property
    def op_ends(self) -> FloatArray:
        """Shape (n_ops, n_stages): when each stage of each op ends."""
        return self._per_op(self.end)

    def task_of(self, op: Any, stage: Any) -> Any:
        """``op_task_index[op, stage]``, by arithmetic where op-major (no index built)."""
        if self.op_major:
            return np.asarray(op, dtype=np.int64) * len(self.stage_names) + stage
        return self.op_task_index[op, stage]

    @cached_property
    def op_task_index(self) -> IntArray:
        """Shape (n_ops, n_stages): index of the task for each op and stage."""
        order = self._op_matrix_order
        if order is None:  # op-major: 0 .. n - 1, shared by the runs of that size
            order = shared_layout(
                ("tasks", self.n_ops, len(self.stage_names)),
                lambda: np.arange(len(self), dtype=np.int64),
            )
        order.flags.writeable = False
        return order.reshape(self.n_ops, len(self.stage_names))

    # -- per-worker view ----------------------------------------------------------------

    @cached_property
    def _rows(self) -> RowOrder:
        """The tasks in (row, start, end; then index) order and what is built with it."""
        if (
            len(self)
            and self.op_major
            and self.unit is self.stage
            and self._first_workers_only
            and len(self.stage_names) == self.n_units
        ):
            # Every task on its unit's first worker, op-major (one worker a unit, or a
            # sequential run): each unit's first row holds one stage in op order, the
            # others none; its ends a strided view of the column (stage r: end[r::stages]).
            stages = len(self.stage_names)
            order: TaskOrder = shared_layout(  # the same for every such run of this size: shared
                ("rows", self.n_ops, stages),
                lambda: transposed(np.arange(len(self), dtype=task_dtype(len(self))), self.n_ops),
            )
            held = np.zeros(self.n_workers, dtype=np.int64)
            held[self.worker_offsets[:stages]] = self.n_ops
            bounds = np.concatenate([[0], np.cumsum(held)]).astype(np.int64)
            starts = transposed(self.start, self.n_ops)
            rows = [(starts[r * self.n_ops : (r + 1) * self.n_ops], self.end[r::stages])
                    for r in range(stages)]  # fmt: skip
            one_row = np.array([0, self.n_ops])
            resorted: frozenset[int] = frozenset()
            if all(sorted_within(s, e, one_row) for s, e in rows):
                overlaps = any(overlapping(s, e, one_row) for s, e in rows)
            else:  # (not a simulation's: sorted as any rows are)
                ends = transposed(self.end, self.n_ops)
                order, bounds, starts, ends, resorted = sorted_rows(order, bounds, starts, ends)
                overlaps = overlapping(starts, ends, bounds)
        else:
            order, bounds, starts, resorted, overlaps = rows_time_order(
                self.start, self.end, self.row, self.n_workers
            )
        order.flags.writeable = False
        starts.flags.writeable = False
        # The ends in this order are kept only where rows overlap: on rows whose tasks do
        # not (every simulated run's), a task's reach is its own end (`row_reach`).
        reach = _overlapping_reach(order, bounds, self.end[order]) if overlaps else None
        return RowOrder(order, bounds, starts, reach, resorted)

    @property
    def by_row(self) -> tuple[TaskOrder, IntArray]:
        """Task indices by (row, start, end; then index) (`task_dtype`) and each row's
        offset: ``order[bounds[r]:bounds[r + 1]]`` are row r's tasks in time order."""
        rows = self._rows
        return rows.order, rows.bounds

    @property
    def row_starts(self) -> FloatArray:
        """Task starts in `by_row` order (sorted within each row)."""
        return self._rows.starts

    @property
    def rows_disjoint(self) -> bool:
        """Whether no task starts before the one before it on its row ended (every
        simulated run): a task's reach is then its own end."""
        return self._rows.reach is None

    @property
    def rows_resorted(self) -> frozenset[int]:
        """The rows whose tasks `by_row` sorted out of op order (none in a simulation)."""
        return self._rows.resorted

    @property
    def row_reach(self) -> tuple[FloatArray, TaskOrder]:
        """In `by_row` order: the latest end so far within the row, and its task
        (``reach[k] > t`` for the last task k started by t: the row is busy at t). On
        disjoint rows, gathered on each call, not kept (46 MB a 10^6-op run's pair);
        `reach_at` for a few tasks."""
        rows = self._rows
        if rows.reach is not None:
            return rows.reach
        reach = self.end[rows.order]
        reach.flags.writeable = False
        return reach, rows.order

    def reach_at(self, positions: Any) -> tuple[Any, Any]:
        """`row_reach` at ``positions`` of `by_row`, without building all of it."""
        rows = self._rows
        if rows.reach is not None:
            return rows.reach[0][positions], rows.reach[1][positions]
        task = rows.order[positions]
        return self.end[task], task

    def first_reaching(self, lo: int, hi: int, time: float, side: str = "left") -> int:
        """``lo + searchsorted(reach[lo:hi], time, side)`` for one row's part of `by_row`,
        in O(log n). On disjoint rows only the last task started before ``time`` can
        reach it."""
        rows = self._rows
        if rows.reach is not None:
            return lo + int(np.searchsorted(rows.reach[0][lo:hi], time, side))  # type: ignore[call-overload]
        k = lo + int(np.searchsorted(rows.starts[lo:hi], time, side))  # type: ignore[call-overload]
        if k > lo:
            end = float(self.end[rows.order[k - 1]])
            if end > time or (side == "left" and end == time):
                return k - 1
        return k


@dataclass(frozen=True, eq=False)
class RowOrder:
    """`Schedule.by_row`'s order and row offsets, the starts in it, the running reach where
    rows overlap (else None), and the rows sorted out of op order."""

    order: TaskOrder
    bounds: IntArray
    starts: FloatArray
    reach: tuple[FloatArray, TaskOrder] | None
    resorted: frozenset[int]


def op_column(schedule: Schedule, kind: str, stage: int) -> FloatArray:
    """One stage's column of `Schedule.op_starts` ("start") or ``op_ends`` ("end"),
    read-only, not copied (46 MB a run at 10^6 ops): a strided view of the per-op matrix,
    or a one-worker unit's contiguous part of ``row_starts``. A compiled pass that needs
    contiguous memory copies it for the call."""
    stages = len(schedule.stage_names)
    stage %= stages
    shared = _row_part(schedule, kind, stage)
    if shared is not None:
        return shared
    matrix = schedule.op_starts if kind == "start" else schedule.op_ends
    column: FloatArray = matrix[:, stage]
    return column


OpOrder = npt.NDArray[np.int32] | npt.NDArray[np.int64]


def sort_op_column(schedule: Schedule, kind: str, stage: int) -> tuple[FloatArray, OpOrder | None]:
    """`op_column` sorted and the ops in that order (stable; int32 below 2^31 ops), or the
    column and None where already sorted. `engine.analysis.derived.OpColumns` keeps them."""
    column = op_column(schedule, kind, stage)
    if len(column) < 2 or bool((column[1:] >= column[:-1]).all()):
        return column, None
    order: OpOrder = np.argsort(column, kind="stable")
    if schedule.n_ops < 2**31:
        order = order.astype(np.int32)
    values = column[order]
    values.flags.writeable = False
    order.flags.writeable = False
    return values, order


def _row_part(schedule: Schedule, kind: str, stage: int) -> FloatArray | None:
    if not (
        kind == "start"
        and schedule.is_pipeline
        and schedule.op_major
        and schedule.unit is schedule.stage
        and schedule.workers[stage] == 1
    ):
        return None
    _, bounds = schedule.by_row
    row = int(schedule.worker_offsets[stage])
    if row in schedule.rows_resorted:
        return None
    part: FloatArray = schedule.row_starts[int(bounds[row]) : int(bounds[row + 1])]
    return part


def _overlapping_reach(
    order: TaskOrder, bounds: IntArray, ends: FloatArray
) -> tuple[FloatArray, TaskOrder]:
    """`Schedule.row_reach` where some row's tasks overlap, from the ends in by_row order."""
    ends.flags.writeable = False
    if sorted_within(ends, None, bounds):
        return ends, order  # no task ends before the one before it: its own end
    reach = np.empty(len(order))
    task = np.empty_like(order)
    for row in range(len(bounds) - 1):
        lo, hi = bounds[row], bounds[row + 1]
        if lo == hi:
            continue
        segment = ends[lo:hi]
        reach[lo:hi] = np.maximum.accumulate(segment)
        # Position of the running maximum: last index where the segment set a new high.
        is_high = segment >= reach[lo:hi]
        positions = np.where(is_high, np.arange(hi - lo), 0)
        task[lo:hi] = order[lo + np.maximum.accumulate(positions)]
    reach.flags.writeable = False
    task.flags.writeable = False
    return reach, task
