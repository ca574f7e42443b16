"""Which tasks a Gantt draws as bars and where it draws density instead.

A bar narrower than `THIN_PIXELS` device pixels (or a row lower than `MIN_ROW_PIXELS`)
cannot show its op: drawn anyway, such bars alias into stripes and colour noise. Those tasks
go into a density grid instead (`engine.indexes.density.busy_fraction`: each pixel column's busy
share per row or band of rows), drawn as runs of equal shade; the wide ones stay bars in
their op's colour on top. Zooming in widens bars and they come back. The app's Gantt and
every export plan their bars here, in data units (time, row), and map them themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.indexes.density import busy_fraction, quantize, runs
from engine.indexes.span_index import SpanIndex
from gui.colours import DENSITY_LEVELS

#: Bars at least this many device pixels wide are drawn one by one.
THIN_PIXELS = 2.0
#: Rows lower than this many device pixels are banded (several rows per band).
MIN_ROW_PIXELS = 2.0
#: Height of a bar as a share of its row.
BAR_HEIGHT = 0.72
#: Up to this many visible tasks per (row, pixel column), the density is summed from the
#: visible tasks themselves (O(visible tasks): a few hundred µs at 10^4 tasks) rather than
#: searched in the index per column (O(rows · columns · log n): about 1 ms per row at
#: 1,200 columns, however few the tasks). Both are bounded by the pixels.
DIRECT_PER_CELL = 32

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class LazyRows:
    """Tasks' rows where the whole column is not kept (`Schedule.row` with several workers
    per unit: 8 bytes a task): ``of(tasks)`` for the tasks a view finds, ``whole()`` for a
    pass over every task."""

    of: Callable[[IntArray], IntArray]
    whole: Callable[[], IntArray]


def _rows(row: IntArray | LazyRows, tasks: IntArray) -> IntArray:
    return row.of(tasks) if isinstance(row, LazyRows) else row[tasks]


def _whole(row: IntArray | LazyRows) -> IntArray:
    return row.whole() if isinstance(row, LazyRows) else row


@dataclass(frozen=True, eq=False)
class DensityRuns:
    """Runs of equal busy share: time ``t`` to ``t + length``, rows ``top`` to ``bottom``
    (row units, row r centred on r), and the ramp ``level`` (1 .. DENSITY_LEVELS)."""

    t: FloatArray
    length: FloatArray
    top: FloatArray
    bottom: FloatArray
    level: IntArray

    def __len__(self) -> int:
        return len(self.t)


@dataclass(frozen=True, eq=False)
class BarPlan:
    """``wide``: the tasks drawn as bars; ``density``: the rest, as shaded runs.
    ``gaps``: whether any row may have an idle gap `THIN_PIXELS` wide (False only when
    every pixel column up to the last task's end holds some work on every row: then no
    idle span is wide enough to hatch, and a caller can skip finding them)."""

    wide: IntArray
    density: DensityRuns | None
    banded: bool
    gaps: bool = True


def plan_bars(
    start: FloatArray,
    end: FloatArray,
    row: IntArray | LazyRows,
    *,
    n_rows: int,
    t0: float,
    t1: float,
    pixels: float,
    row_pixels: float,
    capacity: int | None = None,
    index: SpanIndex | None = None,
) -> BarPlan:
    """Split tasks shown from ``t0`` to ``t1`` over ``pixels`` device pixels, with rows
    ``row_pixels`` high, into bars and density (``capacity``: see `busy_fraction`).

    Without ``index`` this costs O(tasks) (an export draws once). With the tasks' `SpanIndex`
    (the app's Gantt, redrawn at every zoom step) it costs what the view needs: the long
    tasks or the visible ones, whichever are fewer, and a binary search per pixel column.
    """
    empty = np.zeros(0, dtype=np.int64)
    if not len(start) or not t1 > t0 or pixels <= 0:
        return BarPlan(empty, None, False)
    columns = max(1, math.ceil(pixels))
    if row_pixels < MIN_ROW_PIXELS:
        bands = max(1, min(n_rows, int(n_rows * row_pixels)))
        fraction = busy_fraction(
            start, end, _whole(row), n_rows=n_rows, t0=t0, t1=t1, columns=columns, bands=bands,
            capacity=capacity,
        )  # fmt: skip
        return BarPlan(empty, _runs(fraction, t0, t1, n_rows, banded=True), True)
    shortest = THIN_PIXELS * (t1 - t0) / pixels  # the shortest task drawn as a bar
    if index is not None:
        return _plan_indexed(index, start, end, row, n_rows, t0, t1, columns, shortest)
    row = _whole(row)
    wide_mask = end - start >= shortest
    visible = (end >= t0) & (start <= t1)
    wide = np.flatnonzero(wide_mask & visible)
    if len(wide) == int(visible.sum()):
        return BarPlan(wide, None, False)
    thin = ~wide_mask
    if thin.all():
        s, e, r = start, end, row
    else:
        s, e, r = start[thin], end[thin], row[thin]
    fraction = busy_fraction(s, e, r, n_rows=n_rows, t0=t0, t1=t1, columns=columns)
    gaps = _gaps(fraction, float(end.max()), t0, t1) if not len(wide) else True
    return BarPlan(wide, _runs(fraction, t0, t1, n_rows, banded=False), False, gaps)


def long_and_visible(
    index: SpanIndex, start: FloatArray, end: FloatArray, t0: float, t1: float, shortest: float
) -> IntArray:
    """The spans at least ``shortest`` long that overlap [t0, t1]: found among the long
    ones or among the visible ones, whichever are fewer (both are few on screen: zoomed
    out, few spans are long; zoomed in, few are visible)."""
    if index.count_at_least(shortest) <= index.count_visible(t0, t1):
        found = index.at_least(shortest)
        return found[(end[found] >= t0) & (start[found] <= t1)]
    found = index.visible(t0, t1)
    return found[(end[found] - start[found] >= shortest) & (end[found] >= t0)]


def _plan_indexed(
    index: SpanIndex,
    start: FloatArray,
    end: FloatArray,
    row: IntArray | LazyRows,
    n_rows: int,
    t0: float,
    t1: float,
    columns: int,
    shortest: float,
) -> BarPlan:
    wide = long_and_visible(index, start, end, t0, t1, shortest)
    visible = index.count_visible(t0, t1)
    if visible <= len(wide):
        return BarPlan(wide, None, False)
    fraction = None
    if visible <= DIRECT_PER_CELL * n_rows * columns:
        fraction = _visible_fraction(index, start, end, row, n_rows, t0, t1, columns)
    if fraction is None:
        fraction = index.busy_fraction(t0, t1, columns)  # every task: a search per column
    gaps = _gaps(fraction, index.latest_end, t0, t1)
    if len(wide):  # the bars are drawn over it: the shade shows the thin tasks only
        fraction = np.clip(
            fraction
            - busy_fraction(
                start[wide],
                end[wide],
                _rows(row, wide),
                n_rows=n_rows,
                t0=t0,
                t1=t1,
                columns=columns,
            ),
            0.0,
            1.0,
        )
    return BarPlan(wide, _runs(fraction, t0, t1, n_rows, banded=False), False, gaps)


def _visible_fraction(
    index: SpanIndex,
    start: FloatArray,
    end: FloatArray,
    row: IntArray | LazyRows,
    n_rows: int,
    t0: float,
    t1: float,
    columns: int,
) -> FloatArray | None:
    """`busy_fraction` of the visible tasks, summed from them; None where two of them
    overlap on a row (the index merges overlaps, a sum would count them twice)."""
    found = index.visible(t0, t1)  # row by row, each row's in time order
    s, e, r = start[found], end[found], _rows(row, found)
    if len(found) > 1 and bool(((s[1:] < e[:-1]) & (r[1:] == r[:-1])).any()):
        return None
    return busy_fraction(s, e, r, n_rows=n_rows, t0=t0, t1=t1, columns=columns)


def _gaps(fraction: FloatArray, last_end: float, t0: float, t1: float) -> bool:
    """Whether a row may have an idle gap `THIN_PIXELS` wide: a gap two columns wide
    empties at least one whole column before the last end."""
    columns = fraction.shape[1]
    full = int((min(last_end, t1) - t0) / (t1 - t0) * columns)
    return bool((fraction[:, :full] <= 0).any())


#: Binomial filter along time (sums to 1): see `smooth_columns`.
SMOOTHING = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16.0


def smooth_columns(fraction: FloatArray) -> FloatArray:
    """A [1, 4, 6, 4, 1] / 16 filter along time. One pixel column is a box filter, and a
    box aliases work that repeats every one to three columns (a thousand 1 s ops on 1,500
    columns) into stripes that are not there; this filter, two pixels each side, removes
    them and keeps the total busy time (each cell's share is spread to its neighbours)."""
    reach = len(SMOOTHING) // 2
    if fraction.shape[1] <= reach:
        return fraction
    padded = np.pad(fraction, ((0, 0), (reach, reach)), mode="edge")
    width = fraction.shape[1]
    out = np.zeros_like(fraction)
    for k, weight in enumerate(SMOOTHING):
        out += weight * padded[:, k : k + width]
    return out


def _runs(fraction: FloatArray, t0: float, t1: float, n_rows: int, banded: bool) -> DensityRuns:
    if not banded:
        fraction = smooth_columns(fraction)
    band, first, length, level = runs(quantize(fraction, DENSITY_LEVELS))
    step = (t1 - t0) / fraction.shape[1]
    if banded:
        bands = fraction.shape[0]
        # Band b holds rows ceil(b · n / bands) .. ceil((b + 1) · n / bands) - 1.
        top = np.ceil(band * n_rows / bands) - 0.5
        bottom = np.ceil((band + 1) * n_rows / bands) - 0.5
    else:
        top = band - BAR_HEIGHT / 2
        bottom = band + BAR_HEIGHT / 2
    return DensityRuns(
        t0 + first * step,
        length * step,
        np.asarray(top, dtype=np.float64),
        np.asarray(bottom, dtype=np.float64),
        level,
    )
