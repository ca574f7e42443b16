"""The event times of Schedules as one sorted set, counted and searched without a merged
copy (the app's clock steps through a run's Schedules' events together: "event 8 of 10").

A merged copy would be 23 MB a Schedule at 10^6 ops, rebuilt at every edit, when the
Schedule holds its times as ascending columns already: a simulated run's are 0 and each
stage's ends, sorted (`OpColumns`, which the wait reasons search anyway). So an
`EventUnion` keeps those arrays, and beside them the few occurrences that are no event of
their own (a repeat, or one within the rounding tolerance above the time before it): the
times up to t are each array's up to t, less those.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.base.tolerance import time_tolerance
from engine.compiled import fast_scheduler
from engine.model.columns import sorted_unique
from engine.model.schedule import Schedule

if TYPE_CHECKING:
    from engine.analysis.derived import Derived, OpColumns

FloatArray = npt.NDArray[np.float64]


def sorted_common(a: FloatArray, b: FloatArray) -> FloatArray:
    """The values ascending arrays ``a`` and ``b`` both hold (equal as floats), ascending,
    each once: one compiled merge pass, else a binary search of the shorter in the longer."""
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None:
        # (Strided arrays, a stage's column of a Schedule, are read as they are.)
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        # np.empty maps pages it never touches: only the shared values cost memory.
        out = np.empty(min(len(a), len(b)))
        found: FloatArray = out[: compiled.sorted_common(a, b, out)].copy()
        return found
    if len(a) > len(b):
        a, b = b, a
    if not len(a):
        return np.empty(0)
    at = np.searchsorted(b, a)  # the first of b at or above each of a
    inside = at < len(b)
    shared = a[inside][b[at[inside]] == a[inside]]
    return sorted_unique(shared)


class EventUnion:
    """A sorted set of times held as ascending arrays (repeats allowed; not copied), less
    ``removed`` (occurrences that are no time of their own) and ``dropped`` (values none
    of whose occurrences is one). Methods cost O(m log n) for m arrays of n times;
    ``np.asarray(union)`` merges them (tests, small runs).

    ``EventUnion(arrays, tolerance)``: one Schedule's times, a time within ``tolerance``
    above the one before it merged into it. `EventUnion.joined`: several Schedules'."""

    __slots__ = ("_length", "arrays", "dropped", "removed")

    def __init__(self, arrays: Sequence[npt.ArrayLike], tolerance: float = 0.0) -> None:
        parts = [np.asarray(a, dtype=np.float64) for a in arrays]
        parts = [a if a.ndim == 1 else a.reshape(-1) for a in parts]
        parts = [a for a in parts if len(a)] or [np.zeros(1)]
        compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
        if _one_after_another(parts, tolerance):
            removed = dropped = np.zeros(0)  # nothing to merge: the arrays as they are
        elif compiled is not None:  # the same, walked in merged order without a merge
            total = sum(len(a) for a in parts)
            # (np.empty maps pages it never touches: only what is written costs memory.)
            removed, dropped = np.empty(total), np.empty(total)
            n_removed, n_dropped = compiled.merge_times(tuple(parts), tolerance, removed, dropped)
            removed, dropped = removed[:n_removed].copy(), dropped[:n_dropped].copy()
        else:
            # A stable sort merges sorted runs in linear time. An occurrence within the
            # tolerance above the one before it is none of its own; a value whose first
            # occurrence is none has none.
            merged = np.concatenate(parts)
            merged.sort(kind="stable")
            keep = np.empty(len(merged), dtype=bool)
            keep[0] = True
            np.greater(merged[1:] - merged[:-1], tolerance, out=keep[1:])
            first = np.empty(len(merged), dtype=bool)
            first[0] = True
            np.not_equal(merged[1:], merged[:-1], out=first[1:])
            removed, dropped = merged[~keep], merged[first & ~keep]
            del merged, keep, first
        self._set(tuple(parts), removed, dropped)

    def _set(
        self, arrays: tuple[FloatArray, ...], removed: FloatArray, dropped: FloatArray
    ) -> None:
        for array in (removed, dropped):
            array.flags.writeable = False
        self.arrays = arrays  # (not copied: a Schedule's columns are read-only)
        self.removed = removed  # sorted
        self.dropped = dropped  # sorted, unique
        self._length = sum(len(a) for a in arrays) - len(removed)

    @classmethod
    def joined(cls, unions: Sequence[EventUnion]) -> EventUnion:
        """The times of ``unions`` as one set, a time several hold once (equal as floats:
        no tolerance across Schedules): a merge pass per pair of arrays of two unions."""
        unions = list(unions) or [cls([])]
        if len(unions) == 1:
            return unions[0]
        removed = [u.removed for u in unions]
        for j, later in enumerate(unions[1:], 1):
            # Times `later` holds that an earlier union holds too: one occurrence more.
            shared = [
                common[~_holds(later.dropped, common) & ~_holds(earlier.dropped, common)]
                for earlier in unions[:j]
                for a in later.arrays
                for b in earlier.arrays
                for common in (sorted_common(a, b),)
            ]
            removed.append(sorted_unique(np.concatenate(shared)))
        # A value one union drops is a time where another holds it.
        dropped = [
            d[~np.any([other.holds(d) for other in unions if other is not union], axis=0)]
            for union in unions
            for d in (union.dropped,)
            if len(d)
        ]
        union = cls.__new__(cls)
        union._set(
            tuple(a for u in unions for a in u.arrays),
            np.sort(np.concatenate(removed)),
            sorted_unique(np.concatenate(dropped)) if dropped else np.zeros(0),
        )
        return union

    def holds(self, values: FloatArray) -> npt.NDArray[np.bool_]:
        """Whether each of ``values`` is one of the times."""
        found = np.zeros(len(values), dtype=bool)
        for a in self.arrays:
            found |= _holds(a, values)
        return found & ~_holds(self.dropped, values)

    def __len__(self) -> int:
        return self._length

    @property
    def first(self) -> float:
        return min(float(a[0]) for a in self.arrays)  # (the first occurrence always counts)

    @property
    def last(self) -> float:
        last = self.last_before(np.inf)
        return self.first if last is None else last

    def count_through(self, time: float) -> int:
        """How many of the times are at or before ``time``."""
        held = sum(int(np.searchsorted(a, time, "right")) for a in self.arrays)
        return held - int(np.searchsorted(self.removed, time, "right"))

    def first_after(self, time: float) -> float | None:
        """The earliest time strictly after ``time`` (None: there is none)."""
        while True:  # (past any value that is no time: merged within the tolerance)
            at = [int(np.searchsorted(a, time, "right")) for a in self.arrays]
            later = [float(a[i]) for a, i in zip(self.arrays, at, strict=True) if i < len(a)]
            if not later:
                return None
            time = min(later)
            if not _holds(self.dropped, np.array([time]))[0]:
                return time

    def last_before(self, time: float) -> float | None:
        """The latest time strictly before ``time`` (None: there is none)."""
        while True:
            at = [int(np.searchsorted(a, time, "left")) for a in self.arrays]
            earlier = [float(a[i - 1]) for a, i in zip(self.arrays, at, strict=True) if i > 0]
            if not earlier:
                return None
            time = max(earlier)
            if not _holds(self.dropped, np.array([time]))[0]:
                return time

    def last_through(self, time: float) -> float:
        """The latest time at or before ``time`` (the first time where there is none)."""
        last = self.last_before(float(np.nextafter(time, np.inf)))
        return self.first if last is None else last

    def __getitem__(self, index: int) -> float:
        """The ``index``-th time (negative: from the end), by a binary search of each array
        for the least time with ``index`` + 1 times through it (O(m² log² n))."""
        n = self._length
        k = int(index) + n if index < 0 else int(index)
        if not 0 <= k < n:
            raise IndexError(f"event {index} of {n}")
        best = np.inf
        for a in self.arrays:
            lo, hi = 0, len(a)  # the first of a with more than k times through it
            while lo < hi:
                mid = (lo + hi) // 2
                if self.count_through(float(a[mid])) > k:
                    hi = mid
                else:
                    lo = mid + 1
            if lo < len(a):
                best = min(best, float(a[lo]))
        return best

    def __array__(self, dtype: object = None, copy: object = None) -> FloatArray:
        merged = np.unique(np.concatenate(self.arrays))
        if len(self.dropped):
            merged = merged[~_holds(self.dropped, merged)]
        return merged if dtype is None else merged.astype(dtype)  # type: ignore[call-overload]


def schedule_events(schedule: Schedule, columns: OpColumns) -> EventUnion:
    """``schedule``'s event times (0 and every start and end, a time within the rounding
    tolerance above the one before it merged into it). A simulated run's are 0 and its
    ends: the end column where it rises (sequential), else each stage's ends sorted
    (``columns``), none copied. Any other Schedule's: one merged, sorted array."""
    stages = len(schedule.stage_names)
    tolerance = time_tolerance(schedule.makespan)
    if not (schedule.ends_hold_starts and schedule.is_pipeline):
        times = np.concatenate([[0.0], schedule.start, schedule.end])
        times.sort()
        keep = np.empty(len(times), dtype=bool)
        keep[0] = True
        np.greater(times[1:] - times[:-1], tolerance, out=keep[1:])
        times = times[keep]
        times.flags.writeable = False
        return EventUnion([times])
    end = schedule.end
    if len(end) < 2 or bool((end[1:] >= end[:-1]).all()):  # one task at a time
        return EventUnion([np.zeros(1), end], tolerance)
    parts = [np.zeros(1)] + [columns.sorted("end", s)[0] for s in range(stages)]
    return EventUnion(parts, tolerance)


def events_of(derived: Sequence[Derived]) -> EventUnion:
    """The event times of the Schedules of ``derived`` on one clock (`EventUnion.joined`)."""
    return EventUnion.joined([d.events for d in derived])


def _one_after_another(parts: list[FloatArray], tolerance: float) -> bool:
    """Whether each array rises by more than ``tolerance`` at every step and after the one
    before it (0, then a sequential run's ends)."""
    for before, after in pairwise(parts):
        if not float(after[0]) - float(before[-1]) > tolerance:
            return False
    return all(len(a) < 2 or bool((a[1:] - a[:-1] > tolerance).all()) for a in parts)


def _holds(sorted_values: FloatArray, values: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether each of ``values`` is in ascending ``sorted_values``."""
    if not len(sorted_values):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_values, values), len(sorted_values) - 1)
    found: npt.NDArray[np.bool_] = sorted_values[at] == values
    return found
