"""Busy fraction per pixel: what a timeline shows where its bars are thinner than a pixel
(they would alias into stripes). `busy_fraction` gives, for every (row band × time column)
cell, the share of it the tasks keep busy: exact, O(tasks + cells), its result the size of
the picture. Unlike `SpanIndex.busy_fraction` it needs no index (an export, the visible
tasks) and bands rows: one row per op at 10^6 ops is far more rows than pixels.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def band_of_rows(rows: npt.ArrayLike, n_rows: int, bands: int) -> IntArray:
    """The band of each row when ``n_rows`` rows are split into ``bands`` equal bands."""
    values = np.asarray(rows, dtype=np.int64)
    if bands >= n_rows:
        return values
    return (values * bands) // max(n_rows, 1)


def rows_per_band(n_rows: int, bands: int) -> IntArray:
    """How many rows each of the ``bands`` bands holds (see `band_of_rows`)."""
    bands = max(1, min(bands, n_rows)) if n_rows else max(1, bands)
    return np.bincount(band_of_rows(np.arange(n_rows), n_rows, bands), minlength=bands)


#: `busy_fraction` adds up this many tasks at a time.
_CHUNK = 1 << 20


def busy_fraction(
    start: npt.ArrayLike,
    end: npt.ArrayLike,
    row: npt.ArrayLike,
    *,
    n_rows: int,
    t0: float,
    t1: float,
    columns: int,
    bands: int | None = None,
    capacity: int | None = None,
) -> FloatArray:
    """Share of each (band, column) cell that the tasks (``start``, ``end``, ``row``: one
    entry each) keep busy over [t0, t1] in ``columns`` columns, shape (bands, columns).

    ``bands``: row bands (default, or more than rows: one per row); a band's share is the
    mean over its rows, clipped to 1 (tasks overlapping on a row count once each).
    ``capacity``: most tasks that can run at once in one band (default: its rows); with
    one row per op, ``capacity`` = workers reads "all workers on these ops" as fully busy.
    """
    n_bands = n_rows if bands is None else max(1, min(int(bands), n_rows))
    columns = int(columns)
    if columns < 1 or n_bands < 1 or not t1 > t0:
        return np.zeros((max(n_bands, 0), max(columns, 0)))
    step = (t1 - t0) / columns
    # Time covered before column edge k, per band: sum over tasks of ramp(k - u0) -
    # ramp(k - u1), ramp(x) = max(x, 0), u = time in columns; over the tasks with u <= k,
    # sum of (k - u) = k * count - sum of u: two running sums per band. A chunk of tasks at
    # a time: temporaries of a few MB, reused, not hundreds of MB of fresh pages.
    wide = columns + 1
    cells = n_bands * wide
    counts = np.zeros(cells)
    sums = np.zeros(cells)
    starts, ends, rows = np.asarray(start), np.asarray(end), np.asarray(row)
    for lo in range(0, len(starts), _CHUNK):
        band = band_of_rows(rows[lo : lo + _CHUNK], n_rows, n_bands) * wide
        for times, sign in ((starts[lo : lo + _CHUNK], 1.0), (ends[lo : lo + _CHUNK], -1.0)):
            u = np.asarray(times, dtype=np.float64) - t0
            u /= step
            np.clip(u, 0.0, float(columns), out=u)
            first_edge = np.ceil(u).astype(np.int64)  # the first edge k with u <= k
            first_edge += band
            counts += sign * np.bincount(first_edge, minlength=cells)[:cells]
            sums += sign * np.bincount(first_edge, weights=u, minlength=cells)[:cells]
    counts = np.cumsum(counts.reshape(n_bands, wide), axis=1)
    sums = np.cumsum(sums.reshape(n_bands, wide), axis=1)
    covered = np.arange(wide, dtype=np.float64) * counts - sums
    busy = np.diff(covered, axis=1)
    per_band = rows_per_band(n_rows, n_bands).astype(np.float64)
    if capacity is not None:
        per_band = np.minimum(per_band, float(max(1, capacity)))
    with np.errstate(invalid="ignore", divide="ignore"):
        fraction = busy / per_band[:, None]
    return np.clip(np.nan_to_num(fraction), 0.0, 1.0)


def runs(levels: npt.NDArray[np.int64]) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Runs of equal values along each row of a 2-D array of levels.

    Returns (row, first column, length, level) of every run whose level is not 0: what a
    drawing needs to paint a density grid as a few rectangles instead of one per cell.
    """
    grid = np.asarray(levels, dtype=np.int64)
    if grid.ndim != 2 or grid.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    n_rows, n_cols = grid.shape
    change = np.ones(grid.shape, dtype=bool)
    change[:, 1:] = grid[:, 1:] != grid[:, :-1]
    row, first = np.nonzero(change)
    flat_first = row * n_cols + first
    flat_next = np.append(flat_first[1:], n_rows * n_cols)
    # A run ends where the next one starts, or at the end of its row.
    row_end = (row + 1) * n_cols
    length = np.minimum(flat_next, row_end) - flat_first
    level = grid[row, first]
    keep = level != 0
    return row[keep], first[keep], length[keep], level[keep]


def quantize(fraction: npt.ArrayLike, levels: int) -> IntArray:
    """Busy shares in [0, 1] as steps 0 .. ``levels``; any busy time is at least step 1,
    so a sliver of work never vanishes into the idle colour."""
    share = np.asarray(fraction, dtype=np.float64)
    steps = np.clip(np.rint(share * levels), 1, levels).astype(np.int64)
    steps[share <= 0] = 0
    return steps
