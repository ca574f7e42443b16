"""What the assembly line shows at one instant of a pipeline Schedule (no Qt): where each
op's chip sits (the input shelf, a worker, its shared-memory slot, the output shelf), where
it glides from, and what every shared-memory slot holds.

A chip moves only when its op does: for ``travel`` time units after a transition (a stage
starting or ending) it glides from the spot it left (at most half the time to the op's next
transition). With ``travel = 0`` a frame is the engine's state
(`engine.analysis.timeline.state_at`). A frame costs O(log n + workers + slots shown +
shelf): binary searches in `Derived.assembly`, never a scan of all ops.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.analysis.timeline import WorkersNow, progress, workers_at
from engine.indexes.assembly_slots import (
    SlotIndex,
    SlotState,
    build_slot_index,
    holders_at,
    in_use_at,
    slot_holds,
    sorted_and_order,
)
from engine.model.columns import sorted_unique
from engine.model.schedule import OpOrder, Schedule

if TYPE_CHECKING:
    from engine.analysis.derived import Derived, OpColumns

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class Spot(IntEnum):
    """Where a chip can sit. Its index is a rank on a shelf, a timeline row or a slot."""

    INPUT = 0  # the input shelf (global memory), ranked by op number
    WORKER = 1  # a worker running one of the op's stages (index: timeline row)
    SLOT = 2  # its shared-memory slot, between stages (index: slot number)
    OUTPUT = 3  # the output shelf, most recently done first


# (Plain ints: an enum member's lookup costs more than the small-array operation it feeds.)
_INPUT, _WORKER, _SLOT, _OUTPUT = (int(spot) for spot in Spot)
_FREE, _RESERVED, _LOADING, _HOLDING, _WRITING = (int(state) for state in SlotState)


# -- the per-Schedule index -----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AssemblyIndex:
    """Sorted views of one pipeline Schedule, built once, that make a frame O(log n)."""

    n_ops: int
    n_places: int  # 2 · stages: the place of a done op
    makespan: float
    earliest: FloatArray  # every op's first transition (its read start), sorted
    by_earliest: OpOrder | None  # ops in that order (None: op order)
    latest: FloatArray  # every op's last transition (its write end), sorted
    by_latest: OpOrder | None
    slots: SlotIndex  # the book's shared memory (held from the grant to the write's end)
    # A pipeline shape's run (`Schedule.pool_grants`): each pool's slots, and for the ops
    # resting between stage s and s + 1 the pool whose slot they sit in (see `rest_pools`).
    pools: tuple[SlotIndex, ...] = ()
    shape: bool = False
    rest_pools: tuple[tuple[int, ...], ...] = ()

    @property
    def pool_stride(self) -> int:
        """A chip in slot s of pool p sits at `Spot.SLOT` index p · pool_stride + s."""
        return max([1, *(pool.plan.count for pool in self.pools)])


def build_index(schedule: Schedule, columns: OpColumns) -> AssemblyIndex:
    """The index of ``schedule`` (a pipeline), on the stage columns other indexes share."""
    starts, ends = schedule.op_starts, schedule.op_ends
    # (stage by stage: a comparison along an axis of length 2 is slow at 10^6 ops)
    ordered = all(bool((starts[:, i + 1] >= ends[:, i]).all()) for i in range(starts.shape[1] - 1))
    # (Stages in order, as in every simulated run: the read starts first, the write ends last.)
    first, last = slot_holds(schedule)  # (last: the write's ends, `op_column`)
    last_sorted, by_last = columns.sorted("end", -1)  # shared with the waits'
    if ordered:
        earliest_sorted, by_earliest = columns.sorted("start", 0)
        latest_sorted, by_latest = last_sorted, by_last
    else:
        earliest = np.minimum(starts.min(axis=1), ends.min(axis=1))
        latest = np.maximum(starts.max(axis=1), ends.max(axis=1))
        earliest_sorted, by_earliest = sorted_and_order(earliest)
        latest_sorted, by_latest = sorted_and_order(latest)
    grants = schedule.pool_grants
    pools: tuple[SlotIndex, ...] = ()
    if grants is not None:
        pools = tuple(
            build_slot_index(
                np.ascontiguousarray(grants[:, p]),
                np.ascontiguousarray(ends[:, pool.last]),
                columns.sorted("end", pool.last)[0],
                pool.size,
            )
            for p, pool in enumerate(schedule.pools)
        )
    return AssemblyIndex(
        n_ops=schedule.n_ops,
        n_places=2 * len(schedule.stage_names),
        makespan=float(ends.max()) if schedule.n_ops else 0.0,
        earliest=earliest_sorted,
        by_earliest=by_earliest,
        latest=latest_sorted,
        by_latest=by_latest,
        slots=build_slot_index(first, last, last_sorted, schedule.buffers),
        pools=pools,
        shape=grants is not None,
        rest_pools=rest_pools(schedule) if grants is not None else (),
    )


def rest_pools(schedule: Schedule) -> tuple[tuple[int, ...], ...]:
    """Per gap between stage s and s + 1, the pools whose slot an op resting there sits in,
    first choice first: those held across the gap, taken earliest first (a tile waiting for
    the MMA sits in its shared-memory stage), then those taken for stage s + 1."""
    n_stages = len(schedule.stage_names)
    pools = list(enumerate(schedule.pools))
    gaps = []
    for s in range(n_stages - 1):
        held = sorted((pool.first, p) for p, pool in pools if pool.first <= s < pool.last)
        taken = [p for p, pool in pools if pool.first == s + 1]
        gaps.append(tuple([p for _, p in held] + taken))
    return tuple(gaps)


# -- one frame ----------------------------------------------------------------------------


def transitions(schedule: Schedule, ops: IntArray) -> FloatArray:
    """Shape (len(ops), 2 · stages): each op's stage starts and ends, interleaved. An op's
    place (`engine.analysis.timeline.Place`) at t is how many of them are ≤ t."""
    times = np.empty((len(ops), 2 * len(schedule.stage_names)))
    times[:, 0::2] = schedule.op_starts[ops]
    times[:, 1::2] = schedule.op_ends[ops]
    return times


@dataclass(frozen=True, eq=False)
class ChipMotion:
    """Per op: its place now, the place it glides from, and how far along (1 = arrived,
    sitting still at ``place``; in [0, 1) while it glides from ``from_place``)."""

    place: IntArray
    from_place: IntArray
    fraction: FloatArray
    moved_at: FloatArray  # the time of its latest transition (−inf before the first)


def chip_motion(times: FloatArray, time: float, travel: float) -> ChipMotion:
    """Motion of the ops whose transition rows are ``times`` (see `transitions`).
    Transitions at one instant are one move (load worker straight to compute worker)."""
    n, width = times.shape
    rows = np.arange(n)
    place = (times <= time).sum(axis=1).astype(np.int64)
    moved_at = np.where(place > 0, times[rows, np.maximum(place - 1, 0)], -np.inf)
    from_place = (times < moved_at[:, None]).sum(axis=1).astype(np.int64)
    upcoming = np.where(place < width, times[rows, np.minimum(place, width - 1)], np.inf)
    window = np.minimum(travel, 0.5 * (upcoming - moved_at))
    elapsed = time - moved_at
    gliding = (place > 0) & (window > 0) & (elapsed < window)
    fraction = np.ones(n)
    fraction[gliding] = elapsed[gliding] / window[gliding]
    from_place = np.where(gliding, from_place, place)
    return ChipMotion(place, from_place, fraction, moved_at)


@dataclass(frozen=True, eq=False)
class SlotsNow:
    """For shared-memory slots 0 .. count − 1: the op in it (−1 if free), its
    `SlotState`, and how full it is (0..1: a read fills it, a write drains it)."""

    op: IntArray
    state: IntArray
    fill: FloatArray


def slots_now(derived: Derived, time: float, count: int) -> SlotsNow:
    """What each of the first ``count`` shared-memory slots holds at ``time`` (O(count ·
    log n)): filled by the read, drained by the write."""
    return _slots_in(derived.schedule, derived.assembly.slots, time, count, 0, -1)


def _slots_in(
    schedule: Schedule, index: SlotIndex, time: float, count: int, first: int, last: int
) -> SlotsNow:
    """The first ``count`` slots of ``index`` at ``time``: reserved until stage ``first``
    starts, filled while it runs, held, drained while stage ``last`` runs."""
    holders = holders_at(index, time, count)
    state = np.full(count, _FREE, dtype=np.int64)
    fill = np.zeros(count)
    held = np.flatnonzero(holders >= 0)
    if len(held):
        ops = holders[held]
        read_start, read_end = schedule.op_starts[ops, first], schedule.op_ends[ops, first]
        write_start, write_end = schedule.op_starts[ops, last], schedule.op_ends[ops, last]
        # (nested `where`s, not `np.select`: a frame shows a few slots, and select's
        # fixed cost is ten times theirs)
        stage_state = np.where(
            time < read_start,
            _RESERVED,
            np.where(time < read_end, _LOADING, np.where(time < write_start, _HOLDING, _WRITING)),
        )
        state[held] = stage_state
        # (A progress is 0 before its stage starts: reserved slots are empty, held full.)
        fill[held] = np.where(
            stage_state <= _LOADING,
            progress(read_start, read_end, time),
            1.0 - progress(write_start, write_end, time),
        )
    return SlotsNow(holders, state, fill)


@dataclass(frozen=True, eq=False)
class PoolNow:
    """One pool of a shape's run at an instant: slots held, the most ever held, and its
    first slots (`SlotsNow`) with, per slot, what its op does in the shape's own words
    ("mma", "waits mma"; "free")."""

    in_use: int
    peak: int
    slots: SlotsNow
    words: tuple[str, ...]


def pools_now(derived: Derived, time: float, counts: tuple[int, ...]) -> tuple[PoolNow, ...]:
    """Each pool of a shape's run at ``time``, its first ``counts[p]`` slots (O(slots ·
    log n)); () for the book's runs."""
    schedule, index = derived.schedule, derived.assembly
    found = []
    for p, (pool, slots) in enumerate(zip(schedule.pools, index.pools, strict=True)):
        count = counts[p] if p < len(counts) else 0
        now = _slots_in(schedule, slots, time, count, pool.first, pool.last)
        found.append(
            PoolNow(
                in_use=in_use_at(slots, time),
                peak=slots.peak,
                slots=now,
                words=stage_words(schedule, now.op, time),
            )
        )
    return tuple(found)


def stage_words(schedule: Schedule, ops: IntArray, time: float) -> tuple[str, ...]:
    """Per op (−1: "free"): the stage it runs at ``time`` ("mma") or waits for ("waits
    mma"); "done" once its last stage ended."""
    names = schedule.stage_names
    held = ops[ops >= 0]
    places = (transitions(schedule, held) <= time).sum(axis=1).tolist() if len(held) else []
    words = []
    found = iter(places)
    for op in ops.tolist():
        if op < 0:
            words.append("free")
            continue
        place = next(found)
        if place >= 2 * len(names):
            words.append("done")
        elif place % 2:
            words.append(names[place // 2])
        else:
            words.append(f"waits {names[place // 2]}")
    return tuple(words)


@dataclass(frozen=True, eq=False)
class Chips:
    """The chips to draw: per op, the spot it glides from and the spot it sits at (an
    index of −1 is a spot not shown, e.g. beyond the shelf), and how far along."""

    op: IntArray
    from_spot: IntArray
    from_index: IntArray
    to_spot: IntArray
    to_index: IntArray
    fraction: FloatArray


@dataclass(frozen=True, eq=False)
class AssemblyFrame:
    """Everything the assembly line draws of one pipeline Schedule at ``time``: ops not
    started (``waiting``) and done; slots held now and at most (``peak``: what an unlimited
    run needs); every worker's task and idle time (`idle_durations`); the first slots; a
    shape's run's pools (`pools_now`; () for the book's, whose one pool is ``slots``)."""

    time: float
    waiting: int
    done: int
    in_use: int
    peak: int
    workers: WorkersNow
    idle: FloatArray
    slots: SlotsNow
    chips: Chips
    pools: tuple[PoolNow, ...] = ()


def idle_durations(workers: WorkersNow, time: float, makespan: float) -> FloatArray:
    """How long each idle worker has been idle at ``time`` (0 while busy), counted within
    its own run: after ``makespan`` the count stops (another Schedule on the same clock
    may run longer)."""
    since = np.where(np.isfinite(workers.idle_since), workers.idle_since, 0.0)
    idle = np.maximum(0.0, min(time, makespan) - since)
    return np.where(workers.task >= 0, 0.0, idle)


def assembly_frame(
    derived: Derived,
    time: float,
    travel: float,
    shelf: int,
    slots_shown: int,
    pools_shown: tuple[int, ...] = (),
) -> AssemblyFrame:
    """The frame of ``derived``'s Schedule at ``time``: chips glide for ``travel`` time
    units after each move, at most ``shelf`` chips per shelf, the first ``slots_shown``
    slots and, for a shape's run, the first ``pools_shown[p]`` slots of each pool p."""
    schedule, index = derived.schedule, derived.assembly
    n = index.n_ops
    workers = workers_at(schedule, time)
    idle = idle_durations(workers, time, index.makespan)
    started = int(np.searchsorted(index.earliest, time, side="right"))
    done = int(np.searchsorted(index.latest, time, side="right"))
    slots = slots_now(derived, time, slots_shown)
    pools = pools_now(derived, time, pools_shown) if index.pools else ()
    first_waiting = _first_waiting(index, started, shelf)
    last_done = _last_done(index, done, shelf)
    held = [slots.op[slots.op >= 0], *(pool.slots.op[pool.slots.op >= 0] for pool in pools)]
    candidates = sorted_unique(
        np.concatenate([first_waiting, last_done, workers.op[workers.op >= 0], *held])
    ).astype(np.int64)
    chips = _chips(schedule, index, candidates, time, travel, first_waiting, last_done)
    return AssemblyFrame(
        time=time,
        waiting=n - started,
        done=done,
        in_use=in_use_at(index.slots, time),
        peak=index.slots.peak,
        workers=workers,
        idle=idle,
        slots=slots,
        chips=chips,
        pools=pools,
    )


def _first_waiting(index: AssemblyIndex, started: int, shelf: int) -> IntArray:
    """The lowest-numbered ops not started, ascending (at most ``shelf``)."""
    if index.by_earliest is None:
        return np.arange(started, min(index.n_ops, started + shelf), dtype=np.int64)
    return _smallest(index.by_earliest[started:], shelf)


def _last_done(index: AssemblyIndex, done: int, shelf: int) -> IntArray:
    """The ops done most recently, latest first (ties: the higher op first)."""
    if index.by_latest is None:
        return np.arange(done - 1, max(-1, done - 1 - shelf), -1, dtype=np.int64)
    recent = index.by_latest[max(0, done - shelf) : done]
    return recent[::-1].astype(np.int64)


def _smallest(values: OpOrder, count: int) -> IntArray:
    """The ``count`` smallest values, ascending (a partition: O(len) only when ops do
    not start in op order, which no simulated run does)."""
    few = np.partition(values, count - 1)[:count] if len(values) > count > 0 else values
    return np.sort(few)[:count].astype(np.int64, copy=False)


def _chips(
    schedule: Schedule,
    index: AssemblyIndex,
    ops: IntArray,
    time: float,
    travel: float,
    first_waiting: IntArray,
    last_done: IntArray,
) -> Chips:
    motion = chip_motion(transitions(schedule, ops), time, travel)
    # Both ends of every glide in one pass (half the small-array calls of two).
    n = len(ops)
    spots, indexes = _spots(
        schedule,
        index,
        np.concatenate([ops, ops]),
        np.concatenate([motion.place, motion.from_place]),
        first_waiting,
        last_done,
        time,
    )
    to_spot, from_spot = spots[:n], spots[n:]
    to_index, from_index = indexes[:n], indexes[n:]
    fraction = motion.fraction.copy()
    # A chip leaves the input shelf from the rank it had just before it left.
    leaving = (motion.from_place == 0) & (fraction < 1)
    if leaving.any():
        if index.by_earliest is None:
            before = np.searchsorted(index.earliest, motion.moved_at[leaving], side="left")
            from_index[leaving] = ops[leaving] - before
        else:
            from_index[leaving] = 0
    if travel > 0:
        # The queues move up as ops leave the input shelf and down as ops reach the output
        # shelf: the chips that stay glide one rank per op that left or joined (``moves``:
        # the sorted times of that) in the last ``travel``.
        shelves = [(index.latest, (to_spot == _OUTPUT) & (fraction >= 1), -1)]
        if index.by_earliest is None:
            shelves.append((index.earliest, to_spot == _INPUT, +1))
        for moves, staying, direction in shelves:
            recent = int(np.searchsorted(moves, time, side="right"))
            since = int(np.searchsorted(moves, time - travel, side="right"))
            staying &= to_index >= 0
            if recent > since and staying.any():
                from_index[staying] = to_index[staying] + direction * (recent - since)
                fraction[staying] = (time - float(moves[since])) / travel
    return Chips(ops, from_spot, from_index, to_spot, to_index, fraction)


def _spots(
    schedule: Schedule,
    index: AssemblyIndex,
    ops: IntArray,
    places: IntArray,
    first_waiting: IntArray,
    last_done: IntArray,
    time: float,
) -> tuple[IntArray, IntArray]:
    """The spot and its index for each op at ``places`` (``time``: now)."""
    spot = np.full(len(ops), _SLOT, dtype=np.int64)
    where = np.full(len(ops), -1, dtype=np.int64)
    if not len(ops):
        return spot, where
    waiting = places == 0
    finished = places >= index.n_places
    working = ~waiting & ~finished & (places % 2 == 1)
    resting = ~waiting & ~finished & ~working
    spot[waiting], spot[finished], spot[working] = _INPUT, _OUTPUT, _WORKER
    where[waiting] = _ranks(ops[waiting], first_waiting)
    where[finished] = _ranks(ops[finished], last_done)
    if working.any():
        stage = places[working] // 2
        where[working] = schedule.rows_of(schedule.task_of(ops[working], stage))
    if index.shape:
        where[resting] = _pool_slots(schedule, index, ops[resting], places[resting], time)
    else:
        where[resting] = index.slots.plan.slot_of(ops[resting])
    return spot, where


def _pool_slots(
    schedule: Schedule, index: AssemblyIndex, ops: IntArray, places: IntArray, time: float
) -> IntArray:
    """For ops resting between two stages of a shape's run: the `Spot.SLOT` index of the
    slot they sit in (pool · `AssemblyIndex.pool_stride` + slot; −1 where they hold none
    of the pools `rest_pools` names, as between two stages that no pool spans)."""
    where = np.full(len(ops), -1, dtype=np.int64)
    stride = index.pool_stride
    for i, (op, place) in enumerate(zip(ops.tolist(), places.tolist(), strict=True)):
        for p in index.rest_pools[place // 2 - 1]:
            pool = index.pools[p]
            if pool.holds_from[op] <= time < pool.holds_to[op]:
                where[i] = p * stride + int(pool.plan.slot_of(np.array([op]))[0])
                break
    return where


def _ranks(ops: IntArray, shelf: IntArray) -> IntArray:
    """Each op's position on a shelf (−1 when beyond what the shelf shows)."""
    rank_of = {op: rank for rank, op in enumerate(shelf.tolist())}
    return np.array([rank_of.get(op, -1) for op in ops.tolist()], dtype=np.int64)
