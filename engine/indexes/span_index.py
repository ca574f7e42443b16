"""`SpanIndex`: a Schedule's tasks on its rows, indexed once so that a view of them —
which are visible, which are long, each row's busy share per pixel column — costs what
the view's pixels need, not what the run holds (the Gantt and the figures draw with it)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.compiled import fast_scheduler
from engine.model.columns import TaskOrder
from engine.model.schedule import Schedule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


#: `SpanIndex` finds long spans through the longest span of each block of this many.
_BLOCK = 64
#: A disjoint row's busy time is kept before every this many spans (a float each: half a
#: byte a span), so the busy time before any span sums at most this many more.
_FENCE = 16


class SpanIndex:
    """A Schedule's tasks (spans) on its rows, indexed once so that a view of them costs
    what its pixels need, not what the run holds. Made by `of_schedule` only: it shares
    the Schedule's row order (`Schedule.by_row`), no copy.

    Row r's spans are ``order[bounds[r]:bounds[r + 1]]`` sorted by (start, end), with
    their ``starts`` and ``reach`` (running maximum of the ends; None where the row's
    spans never overlap: then a span's reach is its own end). Its own cost: the longest
    and shortest span of each block of 64 (one pass), through which long spans are found.
    """

    def __init__(
        self,
        n_rows: int,
        start: FloatArray,
        end: FloatArray,
        order: TaskOrder,
        bounds: IntArray,
        starts: FloatArray,
        reach: FloatArray | None,
    ) -> None:
        self.n_rows = n_rows
        self._start, self._end = start, end
        self._order = order
        self.bounds = bounds
        self.starts = starts
        self.reach = reach
        # (Long spans are found, and counted, block by block, without sorting n lengths.)
        blocks = -(-len(start) // _BLOCK)
        self._block_longest = np.full(blocks, -np.inf)
        self._block_shortest = np.full(blocks, np.inf)
        self._counted: tuple[float, int] | None = None
        compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
        if compiled is not None:  # one pass, the same maxima and minima
            compiled.block_extremes(
                np.ascontiguousarray(start, np.float64), np.ascontiguousarray(end, np.float64),
                _BLOCK, self._block_longest, self._block_shortest,
            )  # fmt: skip
        else:
            self._block_extremes(start, end)

    def _block_extremes(self, start: FloatArray, end: FloatArray) -> None:
        """The blocks' extremes in numpy, a chunk of blocks at a time."""
        chunk = _BLOCK * 16_384
        for first in range(0, len(start), chunk):
            durations = end[first : first + chunk] - start[first : first + chunk]
            b = first // _BLOCK
            whole = len(durations) // _BLOCK
            shaped = durations[: whole * _BLOCK].reshape(whole, _BLOCK)
            self._block_longest[b : b + whole] = shaped.max(axis=1)
            self._block_shortest[b : b + whole] = shaped.min(axis=1)
            if len(durations) > whole * _BLOCK:
                self._block_longest[b + whole] = durations[whole * _BLOCK :].max()
                self._block_shortest[b + whole] = durations[whole * _BLOCK :].min()

    @classmethod
    def of_schedule(cls, schedule: Schedule) -> SpanIndex:
        """The Schedule's tasks on its worker rows (its own reach, none on disjoint rows)."""
        order, bounds = schedule.by_row
        reach = None if schedule.rows_disjoint else schedule.row_reach[0]
        return cls(
            schedule.n_workers, schedule.start, schedule.end, order, bounds,
            schedule.row_starts, reach,
        )  # fmt: skip

    def _reach_at(self, positions: Any) -> FloatArray:
        """``reach`` at ``positions`` (a slice or array of positions in row order)."""
        if self.reach is not None:
            kept: FloatArray = self.reach[positions]
            return kept
        reach: FloatArray = self._end[self._order[positions]]
        return reach

    @cached_property
    def latest_end(self) -> float:
        """The latest end of any span (0 for none)."""
        return float(self._end.max()) if len(self._end) else 0.0

    @cached_property
    def _merged(self) -> tuple[FloatArray, FloatArray, FloatArray, IntArray]:
        """Each row's busy time as disjoint intervals (start, end), the busy time before
        each (prefix sums) and each row's first interval: `busy_until` on overlapping rows."""
        s, reach, bounds = self.starts, self._reach_at(slice(None)), self.bounds
        n = len(s)
        # A new busy interval starts where a span starts after all before it (on its row)
        # ended; a row's first span starts one.
        fresh = np.empty(n, dtype=bool)
        np.greater(s[1:], reach[:-1], out=fresh[1:])
        firsts = bounds[:-1][np.diff(bounds) > 0]
        fresh[firsts] = True
        if fresh.all():  # no span touches the one before: each is its own interval
            merged_start, merged_end, m_bounds = s, reach, bounds.copy()
        else:
            starts_at = np.flatnonzero(fresh)
            merged_start = s[starts_at]
            lasts = np.empty(len(starts_at), dtype=np.int64)
            lasts[:-1] = starts_at[1:] - 1
            lasts[-1:] = n - 1
            merged_end = reach[lasts]
            m_bounds = np.searchsorted(starts_at, bounds).astype(np.int64)
        del fresh
        lengths = merged_end - merged_start
        before = np.zeros(len(merged_start))
        for r in range(self.n_rows):
            lo, hi = int(m_bounds[r]), int(m_bounds[r + 1])
            if hi > lo + 1:
                before[lo + 1 : hi] = np.cumsum(lengths[lo : hi - 1])
        return merged_start, merged_end, before, m_bounds

    def prepare(self) -> None:
        """Build now what `busy_fraction` and a view read (else their first call does)."""
        self._fences  # noqa: B018
        self.latest_end  # noqa: B018
        if not self._disjoint.all():
            self._merged  # noqa: B018

    @cached_property
    def _disjoint(self) -> npt.NDArray[np.bool_]:
        """Per row: whether each span ends by the next one's start (simulated workers,
        idle gaps). Then ``reach`` is the spans' own ends, and the busy time up to an
        instant is a sum of lengths: no merged intervals needed."""
        if self.reach is None:  # known disjoint
            return np.ones(self.n_rows, dtype=bool)
        s, reach, bounds = self.starts, self.reach, self.bounds
        overlaps = np.zeros(len(s), dtype=bool)
        np.greater(reach[:-1], s[1:], out=overlaps[1:])
        firsts = bounds[:-1][np.diff(bounds) > 0]
        overlaps[firsts] = False
        return np.array(
            [not overlaps[bounds[r] : bounds[r + 1]].any() for r in range(self.n_rows)],
            dtype=bool,
        )

    @cached_property
    def _fences(self) -> tuple[FloatArray, IntArray]:
        """For disjoint rows: the busy time before every `_FENCE`-th span of the row (its
        first span: 0), all rows end to end, and where each row's fences begin."""
        parts, offsets = [], [0]
        for r in range(self.n_rows):
            lo, hi = int(self.bounds[r]), int(self.bounds[r + 1])
            if not self._disjoint[r] or lo == hi:
                parts.append(np.zeros(1))
            else:
                lengths = self._reach_at(slice(lo, hi)) - self.starts[lo:hi]
                padded = np.zeros(-(-len(lengths) // _FENCE) * _FENCE)
                padded[: len(lengths)] = lengths
                fences = np.zeros(len(padded) // _FENCE + 1)
                np.cumsum(padded.reshape(-1, _FENCE).sum(axis=1), out=fences[1:])
                parts.append(fences)
            offsets.append(offsets[-1] + len(parts[-1]))
        return np.concatenate(parts), np.asarray(offsets, dtype=np.int64)

    def _positions(self, lo: int, hi: int) -> IntArray:
        return self._order[lo:hi].astype(np.int64)

    def at_least(self, length: float) -> IntArray:
        """The spans at least ``length`` long, shortest first (ties: index order), in
        O(n / 64 + how many): only blocks whose longest span is long enough are read."""
        blocks = np.flatnonzero(self._block_longest >= length)
        if not len(blocks):
            return np.zeros(0, dtype=np.int64)
        candidates = (blocks[:, None] * _BLOCK + np.arange(_BLOCK)).reshape(-1)
        candidates = candidates[candidates < len(self._start)]
        durations = self._end[candidates] - self._start[candidates]
        long = durations >= length
        found, durations = candidates[long], durations[long]
        ranked: IntArray = found[np.argsort(durations, kind="stable")]
        return ranked

    def count_at_least(self, length: float) -> int:
        """How many spans are at least ``length`` long: whole blocks count at once, only
        blocks that straddle ``length`` are read (the Gantt asks again with the same
        length for each redraw of a view: the last answer is kept)."""
        if self._counted is not None and self._counted[0] == length:
            return self._counted[1]
        n = len(self._start)
        sizes_full = self._block_shortest >= length
        count = int(sizes_full.sum()) * _BLOCK
        if n % _BLOCK and len(sizes_full) and sizes_full[-1]:
            count -= _BLOCK - n % _BLOCK  # the last block is short
        straddling = np.flatnonzero((self._block_longest >= length) & ~sizes_full)
        for part in np.array_split(straddling, max(1, len(straddling) // 4096)):
            if not len(part):
                continue
            candidates = (part[:, None] * _BLOCK + np.arange(_BLOCK)).reshape(-1)
            candidates = candidates[candidates < n]
            count += int((self._end[candidates] - self._start[candidates] >= length).sum())
        self._counted = (length, count)
        return count

    def visible(self, t0: float, t1: float) -> IntArray:
        """The spans overlapping [t0, t1] (O(rows · log n + how many))."""
        parts = []
        for r in range(self.n_rows):
            lo, hi = self._window(r, t0, t1)
            parts.append(self._positions(lo, hi))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def count_visible(self, t0: float, t1: float) -> int:
        """How many spans `visible` would give, without gathering them (O(rows · log n))."""
        total = 0
        for r in range(self.n_rows):
            lo, hi = self._window(r, t0, t1)
            total += hi - lo
        return total

    def _window(self, r: int, t0: float, t1: float) -> tuple[int, int]:
        lo, hi = int(self.bounds[r]), int(self.bounds[r + 1])
        # From the first span whose reach passes t0 (a superset when spans overlap) to the
        # last that starts by t1.
        last = lo + int(np.searchsorted(self.starts[lo:hi], t1, side="right"))
        if self.reach is not None:
            first = lo + int(np.searchsorted(self.reach[lo:hi], t0, side="left"))
        else:  # disjoint: of the spans starting before t0, only the last can reach it
            first = lo + int(np.searchsorted(self.starts[lo:hi], t0, side="left"))
            if first > lo and float(self._reach_at(slice(first - 1, first))[0]) >= t0:
                first -= 1
        return first, max(first, last)

    def busy_until(self, r: int, times: FloatArray) -> FloatArray:
        """Row ``r``'s busy time before each of ``times`` (overlaps count once)."""
        if self._disjoint[r]:
            return self._busy_until_disjoint(r, np.asarray(times, dtype=np.float64))
        merged_start, merged_end, merged_before, merged_bounds = self._merged
        lo, hi = int(merged_bounds[r]), int(merged_bounds[r + 1])
        if lo == hi:
            return np.zeros(len(times))
        starts = merged_start[lo:hi]
        k = np.searchsorted(starts, times, side="right") - 1
        inside = k >= 0
        k = np.maximum(k, 0)
        partial = np.clip(times - starts[k], 0.0, merged_end[lo:hi][k] - starts[k])
        return np.where(inside, merged_before[lo:hi][k] + partial, 0.0)

    def _busy_until_disjoint(self, r: int, times: FloatArray) -> FloatArray:
        """`busy_until` on a disjoint row: the busy time before the fence before the last
        span starting by each time (`_fences`), plus the spans from the fence to it, plus
        its part before the time (compiled: a time at a time; numpy: all at once)."""
        lo, hi = int(self.bounds[r]), int(self.bounds[r + 1])
        if lo == hi:
            return np.zeros(len(times))
        starts = self.starts[lo:hi]
        compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
        if compiled is not None:  # the same sums, a time at a time
            fences, offsets = self._fences
            if self.reach is not None:  # (in row order: a span's reach is its end here)
                ends, order, offset = self.reach, None, lo
            else:
                ends, order, offset = self._end, self._order[lo:hi], 0
            out = np.empty(len(times))
            compiled.busy_until_row(
                starts, ends, order, offset, fences[offsets[r] : offsets[r + 1]], _FENCE,
                np.ascontiguousarray(times, np.float64), out,
            )  # fmt: skip
            return out
        k = np.searchsorted(starts, times, side="right") - 1
        inside = k >= 0
        k = np.maximum(k, 0)
        block = k // _FENCE
        fences, offsets = self._fences
        before = fences[offsets[r] + block]
        members = block[:, None] * _FENCE + np.arange(_FENCE)
        counted = members < k[:, None]
        members = np.minimum(members, hi - lo - 1)
        ends = self._reach_at(lo + members)
        before += np.where(counted, ends - starts[members], 0.0).sum(axis=1)
        partial = np.clip(times - starts[k], 0.0, self._reach_at(lo + k) - starts[k])
        return np.where(inside, before + partial, 0.0)

    def busy_fraction(self, t0: float, t1: float, columns: int) -> FloatArray:
        """Every row's busy share of each of ``columns`` columns over [t0, t1]:
        O(rows · columns · log n), whatever the number of spans."""
        if columns < 1 or not t1 > t0:
            return np.zeros((self.n_rows, max(columns, 0)))
        edges = np.linspace(t0, t1, columns + 1)
        step = (t1 - t0) / columns
        out = np.empty((self.n_rows, columns))
        for r in range(self.n_rows):
            out[r] = np.diff(self.busy_until(r, edges)) / step
        return np.clip(out, 0.0, 1.0)
