"""The pools of a pipeline shape's run (issue 28) as the wait reasons read them: when each
op asks for and gets each pool's slot, and which pool an idle span or an op's wait waits
for. It serves the runs that record their pools' grants without a book grant
(`is_shape_run`: several pools, or one not held from the first stage to the last); the
book's runs keep the book's rules in engine/reasons/waits.py.

A stage that takes pools asks for the first when the op's previous stage ends (at 0 for
the first stage), for each later one once the one before it is granted; the stage is
ready when the last is granted (`engine.model.shape`). Before a stage an op waits for its
previous stage (input), then for each pool in turn (a pool wait), then for a worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from engine.model.schedule import STAGES, UNITS, Schedule

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: A wait for no pool (`PoolTimes.waited_pool`): the previous stage has not ended yet, or
#: the stage is ready.
INPUT_WAIT, READY = -1, -2


def is_shape_run(schedule: Schedule) -> bool:
    """Whether ``schedule`` is a shape's run whose pools the book's rules don't cover: it
    records its pools' grants (`Schedule.pool_grants`) and no book grant."""
    return (
        schedule.pool_grants is not None
        and schedule.grant is None
        and schedule.n_ops > 0
        and schedule.is_pipeline
    )


def named_pool(schedule: Schedule) -> int:
    """0 for a shape's run (not the book's) whose one pool follows the book's rules
    (`Schedule.grant`): its words name the pool; else -1 (the book's: "a slot")."""
    book = schedule.stage_names == STAGES and schedule.unit_names == UNITS
    if schedule.pool_grants is None or schedule.grant is None or book:
        return -1
    return 0


def slot_words(*schedules: Schedule) -> str:
    """What a legend calls the slot wait of ``schedules`` shown together: "waiting for a
    buffer slot" (where a book's run is among them), else by the pools' names ("waiting
    for a slot of smem stages"; "waiting for a slot: smem stages or consumer warpgroups")."""
    shown = [s for s in schedules if len(s)]
    if not shown or any(not (is_shape_run(s) or named_pool(s) == 0) for s in shown):
        return "waiting for a buffer slot"
    names = list(dict.fromkeys(pool.name for s in shown for pool in s.pools))
    if len(names) == 1:
        return "waiting for a slot of " + names[0]
    return "waiting for a slot: " + ", ".join(names[:-1]) + " or " + names[-1]


@dataclass(frozen=True, eq=False)
class PoolTimes:
    """Per op and pool of a shape's run: when the op asked for a slot, and got it; per
    stage, the pools taken there (in their order) and when each op's stage was ready."""

    schedule: Schedule

    @cached_property
    def grants(self) -> FloatArray:
        grants = self.schedule.pool_grants
        assert grants is not None
        return grants

    @cached_property
    def taken(self) -> tuple[tuple[int, ...], ...]:
        """Per stage, the pools an op takes before it (in their listed order)."""
        s = self.schedule
        return tuple(
            tuple(p for p, pool in enumerate(s.pools) if pool.first == stage)
            for stage in range(len(s.stage_names))
        )

    def asked(self, stage: int) -> FloatArray:
        """Per op, when it asked for stage ``stage``'s first pool: its previous stage's end
        (0 for the first stage)."""
        if stage == 0:
            return np.zeros(self.schedule.n_ops)
        column: FloatArray = self.schedule.op_ends[:, stage - 1]
        return column

    def pool_asked(self, pool: int) -> FloatArray:
        """Per op, when it asked for ``pool``: as `asked`, or the grant of the pool taken
        before it at that stage."""
        first = self.schedule.pools[pool].first
        pools = self.taken[first]
        at = pools.index(pool)
        if at == 0:
            return self.asked(first)
        column: FloatArray = self.grants[:, pools[at - 1]]
        return column

    @cached_property
    def ready(self) -> FloatArray:
        """(n_ops, stages): when each stage could start (previous stage over, pools granted)."""
        s = self.schedule
        ready = np.empty_like(s.op_starts)
        ready[:, 0] = 0.0
        ready[:, 1:] = s.op_ends[:, :-1]
        for stage, pools in enumerate(self.taken):
            if pools:
                ready[:, stage] = np.maximum(ready[:, stage], self.grants[:, pools[-1]])
        ready.flags.writeable = False
        return ready

    def waited_pool(self, op: int, stage: int, time: float) -> int:
        """What stage ``stage`` of op ``op`` waits for at ``time``: a pool (its index),
        `INPUT_WAIT` (its previous stage has not ended) or `READY`."""
        if stage > 0 and float(self.schedule.op_ends[op, stage - 1]) > time:
            return INPUT_WAIT
        for pool in self.taken[stage]:
            if float(self.grants[op, pool]) > time:
                return pool
        return READY

    def waited_pools(self, task: IntArray, times: FloatArray) -> IntArray:
        """`waited_pool` of many tasks at ``times`` at once (vectorized)."""
        s = self.schedule
        op, stage = s.op[task], s.stage[task]
        found = np.full(len(task), READY, dtype=np.int64)
        before = np.where(stage > 0, s.op_ends[op, np.maximum(stage - 1, 0)], -np.inf)
        running = before > times
        found[running] = INPUT_WAIT
        undecided = ~running
        for st, pools in enumerate(self.taken):
            for pool in pools:
                waiting = undecided & (stage == st) & (self.grants[op, pool] > times)
                found[waiting] = pool
                undecided &= ~waiting
        return found

    def split(
        self, task: IntArray, start: FloatArray, end: FloatArray
    ) -> tuple[IntArray, FloatArray, FloatArray, IntArray]:
        """Cut idle pieces [start, end) awaiting ``task`` (each a stage of a shape's op) at
        the moments the stage's op asks for and gets its pools: (parent, start, end, pool)
        of the pieces in order, pool -1 where it waits for no pool (input)."""
        s = self.schedule
        op, stage = s.op[task], s.stage[task]
        most = max(len(p) for p in self.taken)
        # Per piece, its edges: the start, the ask, each grant, the end (clipped); a stage
        # with fewer pools keeps -inf edges: empty pieces, once accumulated.
        edges = np.full((len(task), most + 3), -np.inf)
        edges[:, 0] = start
        edges[:, -1] = end
        edges[:, 1] = np.where(stage > 0, s.op_ends[op, np.maximum(stage - 1, 0)], 0.0)
        pool_of = np.full((len(task), most + 2), -1, dtype=np.int64)
        for st, pools in enumerate(self.taken):
            mine = stage == st
            for j, pool in enumerate(pools):
                edges[mine, 2 + j] = self.grants[op[mine], pool]
                pool_of[mine, 1 + j] = pool
        inner = edges[:, 1:-1]
        np.maximum.accumulate(inner, axis=1, out=inner)
        np.clip(inner, start[:, None], end[:, None], out=inner)
        lo, hi = edges[:, :-1], edges[:, 1:]
        keep = hi > lo
        parent = np.repeat(np.arange(len(task), dtype=np.int64), keep.sum(axis=1))
        return parent, lo[keep], hi[keep], pool_of[keep]


@dataclass(frozen=True)
class PoolUse:
    """How a run used one pool: the most slots held at once, the slots held on average
    over the makespan, and the time ops waited for a slot, all ops together."""

    peak: int
    mean: float
    waited: float


def pool_use(schedule: Schedule) -> tuple[PoolUse, ...]:
    """`PoolUse` of each pool of a run that records their grants (none else). A slot is
    held on [grant, end of the pool's last stage); freed at an instant, it can be taken
    again at that instant (the peak counts it once)."""
    if schedule.pool_grants is None or not schedule.n_ops or not schedule.is_pipeline:
        return ()
    times = PoolTimes(schedule)
    span = schedule.makespan
    found = []
    for p, pool in enumerate(schedule.pools):
        lo = times.grants[:, p]
        hi = schedule.op_ends[:, pool.last]
        # Ends before grants at one instant: a slot freed then is free for the next op.
        moments = np.concatenate([hi, lo])
        steps = np.concatenate([-np.ones(len(hi)), np.ones(len(lo))])
        order = np.lexsort((steps, moments))
        peak = int(np.cumsum(steps[order]).max(initial=0))
        mean = float((hi - lo).sum()) / span if span > 0 else 0.0
        waited = float(np.maximum(lo - times.pool_asked(p), 0.0).sum())
        found.append(PoolUse(peak, mean, waited))
    return tuple(found)
