"""Column helpers for `engine.model.schedule.Schedule` (pure numpy): freezing its arrays
(shared when nobody can write them, adopted without a copy from their maker), the layouts
every pipeline of one size shares, and spans put in time order row by row."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from engine.compiled import fast_scheduler

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
T = TypeVar("T", npt.NDArray[np.int32], npt.NDArray[np.int64])
#: Task indices in some order (`Schedule.by_row`): 32 bits below 2^31 tasks (`task_dtype`).
TaskOrder = npt.NDArray[np.int32] | npt.NDArray[np.int64]


def frozen(values: Any, dtype: type) -> npt.NDArray[Any]:
    """A read-only 1-D copy of ``values``; an array nobody may write already (another
    Schedule's column, an ``owned`` one) is shared, not copied."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype == dtype
        and values.ndim == 1
        and values.flags.c_contiguous
        and _unwritable(values)
    ):
        return values
    array: npt.NDArray[Any] = np.ravel(np.asarray(values, dtype=dtype)).copy()
    array.flags.writeable = False
    return array


def _unwritable(array: npt.NDArray[Any]) -> bool:
    """Whether ``array`` and the array owning its memory are both read-only."""
    if array.flags.writeable:
        return False
    if array.flags.owndata:
        return True
    base = array.base
    return isinstance(base, np.ndarray) and base.flags.owndata and not base.flags.writeable


def adopt(values: npt.ArrayLike, dtype: type) -> npt.NDArray[Any]:
    """A fresh array its maker hands over as a read-only 1-D column, frozen in place (no
    copy) when it is a C-contiguous array of ``dtype``."""
    array = np.asarray(values)
    if array.dtype != dtype or not array.flags.c_contiguous:
        return frozen(array, dtype)
    owner = array if array.flags.owndata or not isinstance(array.base, np.ndarray) else array.base
    if not owner.flags.owndata:
        return frozen(array, dtype)
    owner.flags.writeable = False
    column = array.reshape(-1)
    column.flags.writeable = False
    return column


_LAYOUT_LOCK = threading.Lock()
_LAYOUTS: weakref.WeakValueDictionary[tuple[str, int, int], TaskOrder] = (
    weakref.WeakValueDictionary()
)


def task_dtype(n_tasks: int) -> type[np.signedinteger[Any]]:
    """Task indices kept in bulk: 32 bits while they can hold every task."""
    return np.int32 if n_tasks < 2**31 else np.int64


def pipeline_layout(n_ops: int, n_stages: int = 3) -> tuple[IntArray, IntArray, IntArray]:
    """The op, stage and zero-worker columns of an op-major pipeline (task ``op * n_stages
    + stage``), shared by every Schedule of that size while one lives (`shared_layout`).
    (A simulated pipeline's unit column is its stage column.)"""
    key = (n_ops, n_stages)
    stage_ids = np.arange(n_stages, dtype=np.int64)
    return (
        shared_layout(("op", *key), lambda: np.repeat(np.arange(n_ops, dtype=np.int64), n_stages)),
        shared_layout(("stage", *key), lambda: np.tile(stage_ids, n_ops).copy()),  # (owns it)
        shared_layout(("zero", *key), lambda: np.zeros(n_ops * n_stages, dtype=np.int64)),
    )


def sorted_unique(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``np.unique(values)`` for values without NaN. Not np.unique itself: since NumPy 2.3
    its first call imports numpy.ma, a tenth of a second of the app's start-up."""
    ordered = np.sort(values, axis=None)
    if len(ordered) < 2:
        return ordered
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def median_of(values: npt.NDArray[Any]) -> float:
    """``np.median(values)`` for a few thousand values without NaN, without np.median's
    import of numpy.ma (see `sorted_unique`)."""
    ordered = np.sort(values, axis=None)
    n = len(ordered)
    if not n:
        raise ValueError("the median of no values")
    return (float(ordered[(n - 1) // 2]) + float(ordered[n // 2])) / 2


def op_numbers(n_ops: int) -> IntArray:
    """0 .. n_ops - 1, read-only and shared (like `pipeline_layout`)."""
    return shared_layout(("ops", n_ops, 1), lambda: np.arange(n_ops, dtype=np.int64))


def shared_layout(key: tuple[str, int, int], make: Callable[[], T]) -> T:
    """A read-only index array of the layouts, made once while any Schedule holds it."""
    with _LAYOUT_LOCK:
        known = _LAYOUTS.get(key)
        if known is not None:
            return cast(T, known)
        array = make()
        array.flags.writeable = False
        _LAYOUTS[key] = array
    return array


def is_layout(array: npt.NDArray[Any], name: str, n_ops: int, n_stages: int) -> bool:
    return _LAYOUTS.get((name, n_ops, n_stages)) is array


def transposed(column: npt.NDArray[Any], n_ops: int) -> npt.NDArray[Any]:
    """An op-major column regrouped stage by stage (all of stage 0 in op order, then 1…)."""
    return np.ascontiguousarray(column.reshape(n_ops, -1).T).reshape(-1)


def _descents(first: FloatArray, second: FloatArray | None, bounds: IntArray) -> IntArray:
    """Positions k where ``first`` (then ``second`` on ties) decreases from k to k + 1
    within a segment ``bounds[r]:bounds[r + 1]``."""
    if len(first) < 2:
        return np.zeros(0, dtype=np.int64)
    rises = first[1:] > first[:-1]
    if second is None:
        fine = rises | (first[1:] == first[:-1])
    else:
        fine = rises | ((first[1:] == first[:-1]) & (second[1:] >= second[:-1]))
    # A segment's first element may be anything: it follows another segment.
    fine[across_segments(bounds, len(first))] = True
    return np.flatnonzero(~fine)


def across_segments(bounds: IntArray, n: int) -> IntArray:
    """The steps k → k + 1 (of n - 1) that cross from one segment into the next."""
    inner = bounds[1:-1]
    crossing: IntArray = inner[(inner > 0) & (inner < n)] - 1
    return crossing


def overlapping(starts: FloatArray, ends: FloatArray, bounds: IntArray) -> bool:
    """Whether some span starts before the one before it in its segment ended."""
    if len(starts) < 2:
        return False
    early = starts[1:] < ends[:-1]
    early[across_segments(bounds, len(starts))] = False
    return bool(early.any())


def sorted_within(first: FloatArray, second: FloatArray | None, bounds: IntArray) -> bool:
    """Whether ``first`` (then ``second`` on ties) never decreases within each segment."""
    return not len(_descents(first, second, bounds))


def sorted_rows(
    order: TaskOrder, bounds: IntArray, starts: FloatArray, ends: FloatArray
) -> tuple[TaskOrder, IntArray, FloatArray, FloatArray, frozenset[int]]:
    """Spans grouped by row (each row's in index order; their indices, row offsets, starts
    and ends) put in time order within each row, as ``np.lexsort((end, start, row))``
    sorts: (order, bounds, starts, ends, rows sorted again). Most rows of a run are in
    order already (one pass checks); a row that is not is sorted alone, in place."""
    descents = _descents(starts, ends, bounds)
    resorted = np.unique(np.searchsorted(bounds, descents, side="right") - 1).tolist()
    if resorted and not order.flags.writeable:
        order = order.copy()  # a shared layout: sort a copy
    for row in resorted:
        lo, hi = int(bounds[row]), int(bounds[row + 1])
        segment = np.lexsort((ends[lo:hi], starts[lo:hi]))  # stable: ties by index
        order[lo:hi] = order[lo:hi][segment]
        starts[lo:hi] = starts[lo:hi][segment]
        ends[lo:hi] = ends[lo:hi][segment]
    return order, bounds, starts, ends, frozenset(resorted)


def rows_time_order(
    start: FloatArray, end: FloatArray, row: IntArray, n_rows: int
) -> tuple[TaskOrder, IntArray, FloatArray, frozenset[int], bool]:
    """Spans sorted by (row, start, end; then index), O(n) where rows are in time order
    already: (order, row bounds, starts in that order, the rows not in order, whether some
    row's spans overlap). Compiled where built (_row_order.c: a counting sort, then a merge
    sort of the rows not in order; the ends never copied, 24 MB at 10^6 ops); else numpy."""
    n = len(row)
    order: TaskOrder
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None and task_dtype(n) is np.int32:
        order, bounds = np.empty(n, np.int32), np.empty(n_rows + 1, np.int64)
        starts = np.empty(n)
        resorted, overlaps = np.empty(n_rows, np.bool_), np.empty(n_rows, np.bool_)
        compiled.rows_in_time_order(
            np.ascontiguousarray(start, np.float64), np.ascontiguousarray(end, np.float64),
            np.ascontiguousarray(row, np.int64), n_rows, order, bounds, starts, None, resorted,
            overlaps,
        )  # fmt: skip
        again = frozenset(np.flatnonzero(resorted).tolist())
        return order, bounds, starts, again, bool(overlaps.any())
    if len(row) < 2 or bool((row[1:] >= row[:-1]).all()):
        order = np.arange(n, dtype=task_dtype(n))  # grouped by row already
        starts, ends = np.array(start, dtype=np.float64), np.array(end, dtype=np.float64)
        bounds = np.searchsorted(row, np.arange(n_rows + 1)).astype(np.int64)
    else:
        small = row.astype(np.int16) if n_rows <= np.iinfo(np.int16).max else row
        order = np.argsort(small, kind="stable").astype(task_dtype(n))  # a radix sort: O(n)
        bounds = np.searchsorted(row[order], np.arange(n_rows + 1)).astype(np.int64)
        starts, ends = start[order], end[order]
    order, bounds, starts, ends, again = sorted_rows(order, bounds, starts, ends)
    return order, bounds, starts, again, overlapping(starts, ends, bounds)
