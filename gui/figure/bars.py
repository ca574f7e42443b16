"""Which tasks a Gantt draws as bars and where it draws density instead.

A bar narrower than `THIN_PIXELS` device pixels (or a row lower than `MIN_ROW_PIXELS`)
cannot show its op: drawn anyway, such bars alias into stripes and colour noise. Those tasks
go into a density grid instead (`engine.density.busy_fraction`: each pixel column's busy
share per row or band of rows), drawn as runs of equal shade; the wide ones stay bars in
their op's colour on top. Zooming in widens bars and they come back. The app's Gantt and
every export plan their bars here, in data units (time, row), and map them themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.density import busy_fraction, quantize, runs
from gui.colours import DENSITY_LEVELS

#: Bars at least this many device pixels wide are drawn one by one.
THIN_PIXELS = 2.0
#: Rows lower than this many device pixels are banded (several rows per band).
MIN_ROW_PIXELS = 2.0
#: Height of a bar as a share of its row.
BAR_HEIGHT = 0.72

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
    row: IntArray,
    *,
    n_rows: int,
    t0: float,
    t1: float,
    pixels: float,
    row_pixels: float,
    capacity: int | None = None,
) -> BarPlan:
    """Split tasks shown from ``t0`` to ``t1`` over ``pixels`` device pixels, with rows
    ``row_pixels`` high, into bars and density (``capacity``: see `busy_fraction`)."""
    empty = np.zeros(0, dtype=np.int64)
    if not len(start) or not t1 > t0 or pixels <= 0:
        return BarPlan(empty, None, False)
    columns = max(1, math.ceil(pixels))
    if row_pixels < MIN_ROW_PIXELS:
        bands = max(1, min(n_rows, int(n_rows * row_pixels)))
        fraction = busy_fraction(
            start,
            end,
            row,
            n_rows=n_rows,
            t0=t0,
            t1=t1,
            columns=columns,
            bands=bands,
            capacity=capacity,
        )
        return BarPlan(empty, _runs(fraction, t0, t1, n_rows, banded=True), True)
    pixels_per_time = pixels / (t1 - t0)
    wide_mask = (end - start) * pixels_per_time >= THIN_PIXELS
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
    gaps = True
    if not len(wide):
        # A gap two columns wide empties at least one whole column before the last end.
        full = int((min(float(end.max()), t1) - t0) / (t1 - t0) * columns)
        gaps = bool((fraction[:, :full] <= 0).any())
    return BarPlan(wide, _runs(fraction, t0, t1, n_rows, banded=False), False, gaps)


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
