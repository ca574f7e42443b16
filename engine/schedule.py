"""`Schedule`: the one timeline type every part of PipeLab reads.

Columnar and immutable: numpy arrays of equal length (one entry per task) plus metadata.
A task is one stage of one op run by one worker of one unit. The engine's simulations,
gpu/'s measurements, the GUI's drawings and every exporter use this type and no other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from engine.errors import PipeLabError

#: The pipeline's stages, in order, and the unit that runs each (same index).
STAGES: tuple[str, ...] = ("read", "compute", "write")
UNITS: tuple[str, ...] = ("load", "compute", "store")

SOURCES = ("simulated", "measured")

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _frozen(values: Any, dtype: type) -> npt.NDArray[Any]:
    """A read-only 1-D copy of ``values``; an array that is one already (it owns its data
    and nobody may write it: another Schedule's column) is shared, not copied."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype == dtype
        and values.ndim == 1
        and values.flags.owndata
        and not values.flags.writeable
    ):
        return values
    array: npt.NDArray[Any] = np.ravel(np.asarray(values, dtype=dtype)).copy()
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Schedule:
    """An immutable, columnar timeline of tasks.

    Parameters
    ----------
    op, stage, unit, worker, start, end
        One entry per task. ``stage`` indexes ``stage_names``, ``unit`` indexes
        ``unit_names``, ``worker`` is the worker's index within its unit.
    workers
        Workers per unit (same order as ``unit_names``).
    n_ops
        Number of ops (ops are ``0 .. n_ops - 1``).
    policy
        "sequential", "pipelined" or a free label for measured runs.
    source
        "simulated" or "measured".
    buffers
        Shared-memory slots the run had (0 = unlimited); informational.
    grant
        Optional, per op: the time the op was granted its buffer slot (it holds the slot
        until its last stage ends). Simulated pipelines carry it; measured runs may not.
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

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        for name in ("op", "stage", "unit", "worker"):
            set_(self, name, _frozen(getattr(self, name), np.int64))
        for name in ("start", "end"):
            set_(self, name, _frozen(getattr(self, name), np.float64))
        if self.grant is not None:
            set_(self, "grant", _frozen(self.grant, np.float64))
        set_(self, "workers", tuple(int(k) for k in self.workers))
        n = len(self.op)
        if any(len(getattr(self, c)) != n for c in ("stage", "unit", "worker", "start", "end")):
            raise PipeLabError("schedule columns must all have the same length")
        if len(self.workers) != len(self.unit_names):
            raise PipeLabError("schedule needs a worker count for every unit")
        if self.source not in SOURCES:
            raise PipeLabError(f"schedule source must be one of {', '.join(SOURCES)}")
        if n:
            if not (np.isfinite(self.start).all() and np.isfinite(self.end).all()):
                raise PipeLabError("schedule times must be finite")
            if (self.end < self.start).any():
                raise PipeLabError("a task ends before it starts")
            if self.unit.min() < 0 or self.unit.max() >= len(self.unit_names):
                raise PipeLabError("a task names a unit the schedule does not have")
            if self.stage.min() < 0 or self.stage.max() >= len(self.stage_names):
                raise PipeLabError("a task names a stage the schedule does not have")
            limits = np.asarray(self.workers)[self.unit]
            if (self.worker < 0).any() or (self.worker >= limits).any():
                raise PipeLabError("a task names a worker its unit does not have")
            if self.op.min() < 0 or self.op.max() >= max(self.n_ops, 1):
                raise PipeLabError("a task names an op outside 0 .. n_ops - 1")
        if self.unit_titles is not None and len(self.unit_titles) != len(self.unit_names):
            raise PipeLabError("schedule unit titles need one entry per unit")
        if self.grant is not None and len(self.grant) != self.n_ops:
            raise PipeLabError("schedule grant times need one entry per op")

    @classmethod
    def from_stage_matrices(
        cls,
        starts: npt.ArrayLike,
        ends: npt.ArrayLike,
        worker: npt.ArrayLike | None = None,
        **meta: Any,
    ) -> Schedule:
        """A pipeline Schedule from (n_ops, 3) matrices of stage starts and ends (and the
        worker of each stage; 0 by default): tasks op-major, stage i on unit i."""
        start_matrix = np.asarray(starts, dtype=np.float64)
        n = start_matrix.shape[0]
        stage = np.tile(np.arange(3, dtype=np.int64), n)
        workers = np.zeros(3 * n, dtype=np.int64) if worker is None else worker
        return cls(
            op=np.repeat(np.arange(n, dtype=np.int64), 3),
            stage=stage,
            unit=stage,
            worker=np.asarray(workers, dtype=np.int64).reshape(-1),
            start=start_matrix.reshape(-1),
            end=np.asarray(ends, dtype=np.float64).reshape(-1),
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

    @cached_property
    def row(self) -> IntArray:
        """Each task's row (global worker index: unit-major, worker-minor)."""
        rows = self.worker_offsets[self.unit] + self.worker
        rows.flags.writeable = False
        return rows

    def unit_title(self, unit: int) -> str:
        """Human name of a unit: ``unit_titles`` when given, "load unit" for the pipeline's
        own units, other names ("copy-in", "SMs", "read thread") as they are."""
        if self.unit_titles is not None:
            return self.unit_titles[unit]
        name = self.unit_names[unit]
        return f"{name} unit" if name in UNITS else name

    def row_label(self, row: int) -> str:
        """Human name of a timeline row, e.g. "load unit", "compute unit 2", "warp 3"."""
        unit = int(np.searchsorted(self.worker_offsets, row, side="right") - 1)
        name = self.unit_title(unit)
        if self.workers[unit] > 1:
            name += f" {row - int(self.worker_offsets[unit]) + 1}"
        return name

    @cached_property
    def makespan(self) -> float:
        """Time from 0 to the last task's end (0 for an empty schedule). Cached: the GUI
        asks on every tick, and the columns never change."""
        return float(self.end.max()) if len(self) else 0.0

    @property
    def duration(self) -> FloatArray:
        return self.end - self.start

    def with_meta(self, **changes: Any) -> Schedule:
        """A copy with other metadata (label, policy, source…); the columns are shared,
        not copied (they are read-only), so relabelling a 10^6-task run costs no memory."""
        return replace(self, **changes)

    # -- per-op view (pipelines where each op has one task per stage) -------------------

    @cached_property
    def is_pipeline(self) -> bool:
        """True when every op has exactly one task for every stage."""
        n_stages = len(self.stage_names)
        if len(self) != self.n_ops * n_stages:
            return False
        key = self.op * n_stages + self.stage
        return bool(np.array_equal(np.sort(key), np.arange(len(self))))

    @cached_property
    def _op_matrix_order(self) -> IntArray:
        if not self.is_pipeline:
            raise PipeLabError("this schedule does not have one task per op and stage")
        order = np.argsort(self.op * len(self.stage_names) + self.stage, kind="stable")
        return order.astype(np.int64)

    @cached_property
    def op_starts(self) -> FloatArray:
        """Shape (n_ops, n_stages): when each stage of each op starts."""
        matrix = self.start[self._op_matrix_order].reshape(self.n_ops, len(self.stage_names))
        matrix.flags.writeable = False
        return matrix

    @cached_property
    def op_ends(self) -> FloatArray:
        """Shape (n_ops, n_stages): when each stage of each op ends."""
        matrix = self.end[self._op_matrix_order].reshape(self.n_ops, len(self.stage_names))
        matrix.flags.writeable = False
        return matrix

    @cached_property
    def op_task_index(self) -> IntArray:
        """Shape (n_ops, n_stages): index of the task for each op and stage."""
        return self._op_matrix_order.reshape(self.n_ops, len(self.stage_names))

    # -- per-worker view ----------------------------------------------------------------

    @cached_property
    def by_row(self) -> tuple[IntArray, IntArray]:
        """Task indices sorted by (row, start), and the offset of each row in that order.

        ``order[bounds[r]:bounds[r + 1]]`` are row r's tasks in time order.
        """
        order = np.lexsort((self.end, self.start, self.row)).astype(np.int64)
        bounds = np.searchsorted(self.row[order], np.arange(self.n_workers + 1)).astype(np.int64)
        return order, bounds

    @cached_property
    def row_starts(self) -> FloatArray:
        """Task starts in `by_row` order (sorted within each row)."""
        order, _ = self.by_row
        starts = self.start[order]
        starts.flags.writeable = False
        return starts

    @cached_property
    def row_reach(self) -> tuple[FloatArray, IntArray]:
        """In `by_row` order: the latest end so far within the row, and the task that has it.

        ``reach[k] > t`` for the last task k started by t means the row is busy at t.
        """
        order, bounds = self.by_row
        ends = self.end[order]
        reach = np.empty(len(order))
        task = np.empty(len(order), dtype=np.int64)
        for row in range(self.n_workers):
            lo, hi = bounds[row], bounds[row + 1]
            if lo == hi:
                continue
            segment = ends[lo:hi]
            reach[lo:hi] = np.maximum.accumulate(segment)
            # Position of the running maximum: last index where the segment set a new high.
            is_high = segment >= reach[lo:hi]
            positions = np.where(is_high, np.arange(hi - lo), 0)
            task[lo:hi] = order[lo + np.maximum.accumulate(positions)]
        return reach, task

    @cached_property
    def event_times(self) -> FloatArray:
        """Every start and end, sorted and unique (times within rounding merged), from 0."""
        times = np.unique(np.concatenate([[0.0], self.start, self.end]))
        if len(times) > 1:
            tolerance = 1e-9 * max(1.0, float(times[-1]))
            keep = np.concatenate([[True], np.diff(times) > tolerance])
            times = times[keep]
        times.flags.writeable = False
        return times


T = TypeVar("T")


def cached_on(schedule: Schedule, key: str, build: Callable[[], T]) -> T:
    """``build()`` once per Schedule, kept in the Schedule's own ``__dict__`` (where
    `functools.cached_property` keeps its values): it lives and dies with the Schedule (a
    module-level cache keyed by Schedules would keep dead ones, and their arrays, alive),
    and a copy made with `Schedule.with_meta` starts afresh."""
    store: dict[str, Any] = schedule.__dict__
    if key not in store:
        store[key] = build()
    value: T = store[key]
    return value


def cached_per_schedule(function: Callable[[Schedule], T]) -> Callable[[Schedule], T]:
    """Decorator: `cached_on` for a function of one Schedule."""
    key = f"_cache_{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def cached(schedule: Schedule) -> T:
        return cached_on(schedule, key, lambda: function(schedule))

    return cached
