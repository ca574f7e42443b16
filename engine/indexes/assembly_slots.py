"""Shared-memory slots as the assembly line shows them: when each op holds a slot, which
slot, and who holds each slot at an instant. The engine's rule (docs/model.md) grants slots
in op order but does not say which slot: here slots are taken in turn where they can be
(always with one worker per unit), without a Python loop wherever ops are granted in order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.tolerance import time_tolerance
from engine.compiled import fast_scheduler
from engine.model.columns import task_dtype
from engine.model.schedule import OpOrder, Schedule, op_column

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class SlotState(IntEnum):
    """What one shared-memory slot holds now."""

    FREE = 0
    RESERVED = 1  # granted to an op whose read has not started (the load unit is busy)
    LOADING = 2  # the op's read is filling it
    HOLDING = 3  # the op's data sits in it (computing, or waiting for a unit)
    WRITING = 4  # the op's write is draining it


SLOT_WORDS: dict[SlotState, str] = {
    SlotState.FREE: "free",
    SlotState.RESERVED: "reserved",
    SlotState.LOADING: "loading",
    SlotState.HOLDING: "held",
    SlotState.WRITING: "writing",
}


def slot_holds(schedule: Schedule) -> tuple[FloatArray, FloatArray]:
    """Per op, the interval [from, to) it holds a shared-memory slot: from its grant (its
    first start where there are none, as in measured runs) to its last stage's end. With
    unlimited slots (B = 0) every grant is at 0, so the hold shown is the time the op's
    data is in shared memory: from its read's start."""
    first = op_column(schedule, "start", 0)
    if schedule.buffers > 0 and schedule.grant is not None:
        first = schedule.grant
    return first, op_column(schedule, "end", -1)


@dataclass(frozen=True, eq=False)
class SlotPlan:
    """Which slot each op holds: ``op % modulus`` when ``explicit`` is None (slots taken
    in turn), else ``explicit[op]``. ``count`` slots are used."""

    modulus: int
    explicit: npt.NDArray[np.signedinteger[Any]] | None  # the narrowest integers that fit
    count: int

    def slot_of(self, ops: IntArray) -> IntArray:
        if self.explicit is not None:
            return self.explicit[ops].astype(np.int64)
        return np.asarray(ops, dtype=np.int64) % self.modulus


def _narrow(slots: IntArray, count: int) -> npt.NDArray[np.signedinteger[Any]]:
    """Slot numbers (below ``count``) in the narrowest integers that hold them: 2 bytes
    an op for up to 32,767 slots (a run's B), not 8."""
    narrow: npt.NDArray[np.signedinteger[Any]] = slots.astype(
        np.int16 if count <= np.iinfo(np.int16).max else np.int32
    )
    narrow.flags.writeable = False
    return narrow


def touching_tolerance(last: FloatArray) -> float:
    """Holds that touch within rounding (a read starting 1e-12 s before the write that
    frees its slot ends) do not overlap."""
    return time_tolerance(float(last.max())) if len(last) else 0.0


def _takes_turns(first: FloatArray, last: FloatArray, modulus: int, touching: float) -> bool:
    """Whether ops i and i + modulus never overlap (then slot = op % modulus is valid)."""
    return bool((first[modulus:] >= last[:-modulus] - touching).all())


def peak_holders(first: FloatArray, last: FloatArray) -> int:
    """The most ops holding a slot at one instant (a hold freed at t can be taken at t)."""
    if not len(first):
        return 0
    starts = sorted_and_order(first)[0]
    ends = sorted_and_order(last)[0] - touching_tolerance(last)
    holding = np.searchsorted(starts, starts, side="right") - np.searchsorted(
        ends, starts, side="right"
    )
    return int(max(1, holding.max()))


def assign_slots(
    first: FloatArray, last: FloatArray, buffers: int, touching: float | None = None
) -> SlotPlan:
    """A slot per op such that no two ops holding at once share one: op i takes op
    i − B's where that one is free in time (always with one worker per unit); unlimited
    slots: in turn over as few as the peak needs, where valid. Else ops granted in op order
    inherit released slots (`_inherited`, vectorized), others the lowest free slot (a heap
    loop, for measured runs that held more slots than they had). Holds overlapping by less
    than ``touching`` (default `touching_tolerance`; 0 is exact) do not overlap.
    """
    touching = touching_tolerance(last) if touching is None else touching
    n = len(first)
    if n == 0:
        return SlotPlan(1, None, 0)
    if n == 1 or _takes_turns(first, last, 1, touching):
        return SlotPlan(1, None, 1)
    slots = buffers
    if 0 < buffers < n:
        if _takes_turns(first, last, buffers, touching):
            return SlotPlan(buffers, None, buffers)
    elif buffers <= 0:
        slots = peak_holders(first, last)
        for modulus in range(slots, min(n, slots + 4)):
            if _takes_turns(first, last, modulus, touching):
                return SlotPlan(modulus, None, modulus)
    if 0 < slots < n:
        plan = _inherited(first, last, slots, touching)
        if plan is not None:
            return plan
    return _lowest_free(first, last, touching)


def _inherited(first: FloatArray, last: FloatArray, slots: int, touching: float) -> SlotPlan | None:
    """Slots passed on in release order: with holds granted in op order, never more than
    ``slots`` at once, op ``slots + k`` takes the slot of the k-th op to release one. None
    where that does not hold (a measured run that held more than it had)."""
    n = len(first)
    if not bool((first[1:] >= first[:-1]).all()):
        return None
    heirs = np.arange(slots, n, dtype=np.int64)
    donors = np.argsort(last, kind="stable")[: n - slots].astype(np.int64)
    if not (bool((donors < heirs).all()) and bool((last[donors] <= first[heirs] + touching).all())):
        return None
    owner = np.arange(n, dtype=np.int64)
    owner[heirs] = donors
    # Each chain of earlier ops ends at one of the first `slots` ops, its slot: one compiled
    # pass in op order, else pointer jumping (log2 n passes of O(n)) to the same roots.
    compiled = fast_scheduler.compiled if fast_scheduler.use_compiled else None
    if compiled is not None:
        compiled.chain_roots(owner)
    else:
        while True:
            further = owner[owner]
            if np.array_equal(further, owner):
                break
            owner = further
    return SlotPlan(0, _narrow(owner, slots), slots)


def _lowest_free(first: FloatArray, last: FloatArray, touching: float) -> SlotPlan:
    order = np.lexsort((np.arange(len(first)), first))
    slots = np.zeros(len(first), dtype=np.int64)
    free: list[int] = []
    busy: list[tuple[float, int]] = []
    used = 0
    for op in order.tolist():
        now = float(first[op]) + touching
        while busy and busy[0][0] <= now:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            slot = heapq.heappop(free)
        else:
            slot, used = used, used + 1
        slots[op] = slot
        heapq.heappush(busy, (float(last[op]), slot))
    return SlotPlan(0, _narrow(slots, used), used)


def sorted_and_order(values: FloatArray) -> tuple[FloatArray, IntArray | None]:
    """``values`` sorted, and the ops in that order (None when already in op order)."""
    if len(values) < 2 or bool((values[1:] >= values[:-1]).all()):
        return values, None
    order = np.argsort(values, kind="stable").astype(np.int64)
    return values[order], order


# -- looking holders up at an instant ---------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SlotIndex:
    """The holds of one pool of slots (the book's shared memory, or a shape's pool): who
    holds which slot at an instant, in O(log n) per slot."""

    holds_from: FloatArray  # per op: when it takes its slot
    holds_to: FloatArray  # per op: when it frees it
    holds_from_sorted: FloatArray
    holds_to_sorted: FloatArray
    tolerance: float  # holds that touch within this do not overlap (`touching_tolerance`)
    plan: SlotPlan
    peak: int  # most slots in use at once
    # Slots taken in turn by ops granted in op order: the holders at t are among the last
    # `plan.modulus` ops granted. Otherwise, ops sorted by (slot, hold start) per slot.
    in_turn: bool
    slot_order: OpOrder | None
    slot_from: FloatArray | None
    slot_bounds: IntArray | None


def build_slot_index(
    first: FloatArray, last: FloatArray, last_sorted: FloatArray, buffers: int
) -> SlotIndex:
    """The index of holds [``first``, ``last``) per op with ``buffers`` slots (0:
    unlimited); ``last_sorted``: ``last`` sorted (shared with other indexes)."""
    plan = assign_slots(first, last, buffers)
    from_sorted, by_from = sorted_and_order(first)
    in_turn = plan.explicit is None and by_from is None
    slot_order = slot_from = slot_bounds = None
    if not in_turn:
        slots = plan.slot_of(np.arange(len(first), dtype=np.int64))
        slot_order = _by_slot_then_hold(slots, first, last, plan.count)
        slot_from = first[slot_order]
        slot_bounds = np.searchsorted(slots[slot_order], np.arange(plan.count + 1))
        slot_bounds = slot_bounds.astype(np.int64)
    return SlotIndex(
        holds_from=first,
        holds_to=last,
        holds_from_sorted=from_sorted,
        holds_to_sorted=last_sorted,
        tolerance=touching_tolerance(last),
        plan=plan,
        peak=peak_holders(first, last) if buffers <= 0 else plan.count,
        in_turn=in_turn,
        slot_order=slot_order,
        slot_from=slot_from,
        slot_bounds=slot_bounds,
    )


def _by_slot_then_hold(slots: IntArray, first: FloatArray, last: FloatArray, count: int) -> OpOrder:
    """Ops sorted as ``np.lexsort((last, first, slots))``; where they are in (start, end)
    order already (a simulated run's) by a stable radix sort of the slots alone."""
    in_hold_order = len(first) < 2 or bool(
        ((first[1:] > first[:-1]) | ((first[1:] == first[:-1]) & (last[1:] >= last[:-1]))).all()
    )
    if in_hold_order and count <= np.iinfo(np.int16).max:
        order: OpOrder = np.argsort(slots.astype(np.int16), kind="stable")
    else:
        order = np.lexsort((last, first, slots))
    return order.astype(task_dtype(len(order)), copy=False)


def in_use_at(index: SlotIndex, time: float) -> int:
    """Slots held at ``time`` (a hold freed at ``time`` is free)."""
    holding = int(np.searchsorted(index.holds_from_sorted, time, side="right"))
    freed = int(np.searchsorted(index.holds_to_sorted, time + index.tolerance, side="right"))
    return max(0, holding - freed)


def holders_at(index: SlotIndex, time: float, count: int) -> IntArray:
    """The op holding each of slots 0 .. count − 1 at ``time`` (−1: free); O(count · log n)."""
    holders = np.full(count, -1, dtype=np.int64)
    plan = index.plan
    if index.in_turn:
        # Slots taken in turn: slot s's holder can only be the last op granted by now
        # among s, s + M, s + 2M, … (an older one ended before the next began).
        granted = int(np.searchsorted(index.holds_from, time, side="right"))
        slots = np.arange(min(count, plan.modulus), dtype=np.int64)
        last = slots + plan.modulus * ((granted - 1 - slots) // plan.modulus)
        live = (last >= 0) & (last < granted)
        live[live] = index.holds_to[last[live]] > time
        holders[slots[live]] = last[live]
        return holders
    assert index.slot_order is not None and index.slot_from is not None
    assert index.slot_bounds is not None
    for slot in range(min(count, plan.count)):
        lo, hi = int(index.slot_bounds[slot]), int(index.slot_bounds[slot + 1])
        k = lo + int(np.searchsorted(index.slot_from[lo:hi], time, side="right")) - 1
        if k >= lo and index.holds_to[index.slot_order[k]] > time:
            holders[slot] = index.slot_order[k]
    return holders
