"""The event times of several Schedules on one clock, as one sorted set of times, without
merging them into one array.

The app shows a run's Schedules (sequential and pipelined, and any pins) on one clock,
which steps through all their events together and counts them ("event 8 of 10"). At 10^6
ops each Schedule has about 3 million event times; their merged copy was 46 MB more per
run, rebuilt (concatenated and sorted) at every edit. An `EventUnion` keeps the Schedules'
own arrays (`Schedule.event_times`, cached on them already) and, for each array after the
first, the few times it shares with the arrays before it (``repeats``; with random
durations a handful, at most the array itself), which is all it needs to count: the
times up to t are those of each array up to t, less the repeats up to t.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engine import fast_scheduler

FloatArray = npt.NDArray[np.float64]


def sorted_common(a: FloatArray, b: FloatArray) -> FloatArray:
    """The values ascending arrays ``a`` and ``b`` both hold (equal as floats), ascending
    and each once: one merge pass where the compiled module is built, else a binary search
    of the shorter in the longer (the same values)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None:
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
    return np.unique(shared)


class EventUnion:
    """The sorted union of ascending arrays of unique times (each Schedule's
    `Schedule.event_times`), counted and searched without a merged copy. Its methods cost
    O(m log n) for m arrays of n times; ``np.asarray(union)`` builds the merged array (for
    tests and small runs)."""

    __slots__ = ("_length", "arrays", "repeats")

    def __init__(self, arrays: Sequence[FloatArray]) -> None:
        parts = tuple(np.ascontiguousarray(a, dtype=np.float64) for a in arrays)
        if not parts or not any(len(a) for a in parts):
            parts = (np.zeros(1),)
        parts = tuple(a for a in parts if len(a))
        repeats: list[FloatArray] = []
        for i, part in enumerate(parts[1:], 1):
            shared = [sorted_common(part, earlier) for earlier in parts[:i]]
            repeats.append(shared[0] if len(shared) == 1 else np.unique(np.concatenate(shared)))
        for array in repeats:
            array.flags.writeable = False
        #: The arrays themselves (not copied: a Schedule's event times are read-only).
        self.arrays: tuple[FloatArray, ...] = parts
        #: For each array after the first: its times that an earlier array holds too.
        self.repeats: tuple[FloatArray, ...] = tuple(repeats)
        self._length = sum(len(a) for a in parts) - sum(len(r) for r in repeats)

    def __len__(self) -> int:
        return self._length

    @property
    def first(self) -> float:
        return min(float(a[0]) for a in self.arrays)

    @property
    def last(self) -> float:
        return max(float(a[-1]) for a in self.arrays)

    def count_through(self, time: float) -> int:
        """How many of the times are at or before ``time``."""
        held = sum(int(np.searchsorted(a, time, "right")) for a in self.arrays)
        return held - sum(int(np.searchsorted(r, time, "right")) for r in self.repeats)

    def first_after(self, time: float) -> float | None:
        """The earliest time strictly after ``time`` (None: there is none)."""
        later = []
        for a in self.arrays:
            at = int(np.searchsorted(a, time, "right"))
            if at < len(a):
                later.append(float(a[at]))
        return min(later) if later else None

    def last_before(self, time: float) -> float | None:
        """The latest time strictly before ``time`` (None: there is none)."""
        earlier = []
        for a in self.arrays:
            at = int(np.searchsorted(a, time, "left"))
            if at > 0:
                earlier.append(float(a[at - 1]))
        return max(earlier) if earlier else None

    def __getitem__(self, index: int) -> float:
        """The ``index``-th time (negative: from the end). The k-th smallest time is among
        the first k + 1 of every array (the k-th largest among the last k + 1), so this
        merges only those: cheap near either end, a merge of everything in the middle."""
        n = self._length
        k = int(index) + n if index < 0 else int(index)
        if not 0 <= k < n:
            raise IndexError(f"event {index} of {n}")
        if k <= n - 1 - k:
            return float(_union([a[: k + 1] for a in self.arrays])[k])
        back = n - 1 - k
        return float(_union([a[-(back + 1) :] for a in self.arrays])[-(back + 1)])

    def __array__(self, dtype: object = None, copy: object = None) -> FloatArray:
        merged = _union(list(self.arrays))
        return merged if dtype is None else merged.astype(dtype)  # type: ignore[call-overload]


def _union(arrays: list[FloatArray]) -> FloatArray:
    """The sorted, unique union of ascending arrays (a stable sort merges sorted runs in
    linear time, where np.unique would sort from scratch)."""
    if len(arrays) == 1:
        return arrays[0]
    merged: FloatArray = np.concatenate(arrays)
    merged.sort(kind="stable")
    keep = np.empty(len(merged), dtype=bool)
    keep[:1] = True
    np.greater(merged[1:], merged[:-1], out=keep[1:])
    unique: FloatArray = merged[keep]
    return unique
