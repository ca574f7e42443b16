"""The event times of Schedules as one sorted set of times, counted and searched without
a merged copy.

The app shows a run's Schedules (sequential and pipelined, and any pins) on one clock,
which steps through all their events together and counts them ("event 8 of 10"). At 10^6
ops each Schedule has about 3 million event times. A merged, sorted copy of them is 23 MB
a Schedule, rebuilt at every edit, when the Schedule already holds them as ascending
columns: a simulated run's times are 0 and its ends (every start is one of them), and each
stage's ends, sorted, are what the wait reasons search anyway (`OpColumns`; with
one worker a unit, the column itself). So an `EventUnion` keeps ascending arrays as they
are, and beside them the few occurrences that are no event of their own: a time repeated,
or (within one Schedule) one that lies within the rounding tolerance above the time
before it (`schedule_events` merges them so). That is all it needs to count — the
times up to t are each array's up to t, less those occurrences up to t — and to search.
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
    """The values ascending arrays ``a`` and ``b`` both hold (equal as floats), ascending
    and each once: one merge pass where the compiled module is built, else a binary search
    of the shorter in the longer (the same values)."""
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
    """A sorted set of times held as ascending arrays (repeats allowed; strided views are
    not copied), ``removed``: the occurrences that are no time of their own (sorted), and
    ``dropped``: the values none of whose occurrences is one (sorted, unique). Its
    methods cost O(m log n) for m arrays of n times; ``np.asarray(union)`` builds the
    merged array (for tests and small runs).

    ``EventUnion(arrays, tolerance)``: one Schedule's times — a time that lies within
    ``tolerance`` above the time before it (all occurrences merged in order) is none of
    its own (`schedule_events`). `EventUnion.joined`: several Schedules' times on one
    clock, each time once."""

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
            # Every occurrence in order (a stable sort merges sorted runs in linear time):
            # one within the tolerance above the one before it is none of its own; a
            # value whose first occurrence is none has none (the rest follow it at 0).
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
        #: The arrays themselves (not copied: a Schedule's columns are read-only).
        self.arrays = arrays
        #: Occurrences that are no time of their own (sorted): repeats, merged times.
        self.removed = removed
        #: Values that are no time at all (sorted, unique): merged within the tolerance.
        self.dropped = dropped
        self._length = sum(len(a) for a in arrays) - len(removed)

    @classmethod
    def joined(cls, unions: Sequence[EventUnion]) -> EventUnion:
        """The times of ``unions`` (several Schedules') as one set: a time more than one
        holds counts once (equal as floats: no tolerance across Schedules). Costs a merge
        pass per pair of arrays from different unions; the result shares every array."""
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
        """The ``index``-th time (negative: from the end): the least time with ``index`` + 1
        times at or before it, found by a binary search of each array (O(m² log² n))."""
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
    """``schedule``'s event times — 0 and every start and end, sorted, a time within the
    rounding tolerance above the one before it merged into it — as an `EventUnion`
    (`engine.analysis.derived.Derived.events` keeps it). A simulated run's times are 0 and its
    ends: the end column itself where it rises (a sequential run), else each stage's
    ends in time order (``columns``: a view of the column where it is in op order, every
    one-worker unit's), none copied. Any other Schedule's: one merged, sorted array."""
    stages = len(schedule.stage_names)
    tolerance = time_tolerance(schedule.makespan)
    if not (schedule.ends_hold_starts and schedule.is_pipeline):
        times = np.concatenate([[0.0], schedule.start, schedule.end])
        times.sort()
        # A time is kept when it lies more than the tolerance above the one before it
        # (equal times differ by 0).
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
    """Whether each array rises by more than ``tolerance`` at every step, and begins more
    than that after the one before it ends (0, then a sequential run's ends)."""
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
