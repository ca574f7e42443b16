"""A pipeline's shape: its stages, the units that run them and the buffer pools ops hold
between two stages — and the reference loop that simulates any shape.

The contract (docs/model.md, binding):

* **Stages**: 1 to `MAX_STAGES`, in order, each on a unit. Each op runs every stage in order.
* **Units**: each with k ≥ 1 workers; a unit may run several stages (one copy engine for
  host-to-device and device-to-host).
* **Pools**: a size B (0 = unlimited) and two stages ``first`` ≤ ``last``: an op takes a slot
  before its ``first`` stage can start and gives it back when its ``last`` stage ends. Slots
  go out in op order (a ring: op i gets one only after op i − 1 has), when one is free; an op
  asks when its stage before ``first`` ends (at 0 when ``first`` is the first stage). Pools
  with the same ``first`` are taken in the order they are listed, each asked for once the
  one before it is granted.
* **Dispatch**: a unit gives a free worker (lowest index first) to the ready stage with the
  earliest ready time; ties go to the lower op, then to the earlier stage. At each instant
  every task ending then is finished (freeing workers and slots, readying stages) and the
  free slots are granted before any worker is handed out. A stage is ready when the op's
  previous stage has ended and it holds every pool whose ``first`` is this stage.

The book's pipeline is three stages on the load, compute and store units and one pool from
the read to the write (`book_shape`); its sequential policy is that pool with one slot.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.base.errors import PipeLabError
from engine.base.validation import check_durations
from engine.compiled import fast_scheduler
from engine.model.columns import pipeline_layout
from engine.model.schedule import STAGES, UNITS, Pool, Schedule

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The most stages a shape may have.
MAX_STAGES = 8
#: The one pool of a shape's sequential run: one slot from the first stage to the last.
ALONE = "one op at a time"
STOPS = "the pipeline stops: some op never gets its slot"


@dataclass(frozen=True)
class Shape:
    """Stages (names, and the unit each runs on), units (names, workers) and pools."""

    stages: tuple[str, ...]
    stage_units: tuple[int, ...]
    units: tuple[str, ...]
    workers: tuple[int, ...]
    pools: tuple[Pool, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= len(self.stages) <= MAX_STAGES:
            raise PipeLabError(f"a pipeline has 1 to {MAX_STAGES} stages, not {len(self.stages)}")
        for kind, names in (("stage", self.stages), ("unit", self.units)):
            seen = set()
            for name in names:
                if not name:
                    raise PipeLabError(f"a {kind} needs a name")
                if name in seen:
                    raise PipeLabError(f"two {kind}s are named {name!r}")
                seen.add(name)
        if len(self.stage_units) != len(self.stages):
            raise PipeLabError("every stage needs its unit")
        if len(self.workers) != len(self.units):
            raise PipeLabError("every unit needs its number of workers")
        for unit in self.stage_units:
            if not 0 <= unit < len(self.units):
                raise PipeLabError(f"a stage runs on unit {unit}, which the pipeline lacks")
        for name, k in zip(self.units, self.workers, strict=True):
            if k < 1:
                raise PipeLabError(f"unit {name!r} needs at least 1 worker, not {k}")
        pools = set()
        for pool in self.pools:
            if pool.name in pools:
                raise PipeLabError(f"two pools are named {pool.name!r}")
            pools.add(pool.name)
            if pool.size < 0:
                raise PipeLabError(f"pool {pool.name!r} needs a size of 0 (unlimited) or more")
            if not 0 <= pool.first <= pool.last < len(self.stages):
                raise PipeLabError(
                    f"pool {pool.name!r} must be taken at a stage no later than the one "
                    "that frees it"
                )


def book_shape(workers: tuple[int, ...] = (1, 1, 1), buffers: int = 0) -> Shape:
    """The book's pipeline: read → compute → write on the load, compute and store units,
    one pool of ``buffers`` slots held from the read to the write (0 = unlimited)."""
    return Shape(STAGES, (0, 1, 2), UNITS, tuple(workers), (Pool("slots", buffers, 0, 2),))


def shape_tasks(shape: Shape, durations: FloatArray) -> tuple[FloatArray, IntArray, FloatArray]:
    """The reference loop (the module's contract in code): for (n, stages) ``durations``,
    each stage's start and its worker within its unit (n, stages), and each pool's grant
    times (n, pools). Per instant: finish the tasks ending now, grant free slots, then let
    each unit (in the order of its first stage) hand out its free workers. A zero-length
    stage ends on the spot: what it frees or readies is served at the same instant.
    """
    n_stages, n_pools = len(shape.stages), len(shape.pools)
    n = len(durations)
    length = durations.reshape(-1).tolist()  # op-major: [op * n_stages + stage]
    starts = [0.0] * (n * n_stages)
    workers = [0] * (n * n_stages)
    grants = [[0.0] * n for _ in shape.pools]
    # Pools taken at each stage (in their listed order), and freed at each stage's end.
    taken: list[list[int]] = [[] for _ in range(n_stages)]
    freed: list[list[int]] = [[] for _ in range(n_stages)]
    for p, pool in enumerate(shape.pools):
        taken[pool.first].append(p)
        freed[pool.last].append(p)
    unit_of = shape.stage_units
    serving = sorted(range(len(shape.units)), key=lambda u: unit_of.index(u) if u in unit_of else 0)
    # Per stage: the first pool taken there (-1: none), and the one taken after each pool.
    asks = [pools[0] if pools else -1 for pools in taken]
    then = [-1] * n_pools
    for pools in taken:
        for before, after in itertools.pairwise(pools):
            then[before] = after
    sizes = [pool.size or n for pool in shape.pools]  # (0: unlimited; n slots are)
    firsts = [pool.first for pool in shape.pools]
    free = [list(range(k)) for k in shape.workers]
    ready: list[list[tuple[float, int, int]]] = [[] for _ in shape.units]
    # Ops ready for their first stage come in op order at nondecreasing times (the last
    # pool taken there grants in op order): a queue, not a heap.
    arrived: deque[tuple[float, int, int]] = deque()
    asked = [[False] * (n + 1) for _ in shape.pools]  # op i has asked for pool p (n: never)
    next_op = [0] * n_pools  # the op whose turn it is in each pool's ring
    in_use = [0] * n_pools
    running: list[tuple[float, int, int, int]] = []  # (end, op, stage, sequence)
    sequence = 0

    def finish(op: int, stage: int, now: float) -> None:
        """Stage ``stage`` of ``op`` ends: free its pools; the next stage asks or is ready."""
        for p in freed[stage]:
            in_use[p] -= 1
        stage += 1
        if stage < n_stages:
            p = asks[stage]
            if p < 0:
                heapq.heappush(ready[unit_of[stage]], (now, op, stage))
            else:
                asked[p][op] = True

    def grant(now: float) -> None:
        """The ring: each pool's slots to the op whose turn it is, once it has asked and a
        slot is free; pools in their order (a grant may ask for the next pool)."""
        for p in range(n_pools):
            wants, size, op = asked[p], sizes[p], next_op[p]
            while wants[op] and in_use[p] < size:
                grants[p][op] = now
                in_use[p] += 1
                after = then[p]
                if after >= 0:
                    asked[after][op] = True
                elif firsts[p]:
                    heapq.heappush(ready[unit_of[firsts[p]]], (now, op, firsts[p]))
                else:
                    arrived.append((now, op, 0))
                op += 1
            next_op[p] = op

    def dispatch(now: float) -> bool:
        nonlocal sequence
        served = False
        for unit in serving:
            queue, idle = ready[unit], free[unit]
            first = arrived if unit == unit_of[0] else ()
            while (queue or first) and idle:
                if first and (not queue or first[0] < queue[0]):
                    _, op, stage = first.popleft()
                else:
                    _, op, stage = heapq.heappop(queue)
                worker = heapq.heappop(idle)
                task = op * n_stages + stage
                starts[task] = now
                workers[task] = worker
                served = True
                end = now + length[task]
                if end > now:  # (a denormal duration added to `now` is zero too)
                    sequence += 1
                    heapq.heappush(running, (end, op, stage, sequence))
                    continue
                heapq.heappush(idle, worker)
                finish(op, stage, now)
        return served

    def settle(now: float) -> None:
        grant(now)
        while dispatch(now):  # (zero-length stages free and ready at this instant)
            grant(now)

    if asks[0] < 0:  # every op arrives at its first stage at 0
        arrived.extend((0.0, op, 0) for op in range(n))
    else:
        asked[asks[0]][:n] = [True] * n
    settle(0.0)
    while running:
        now = running[0][0]
        while running and running[0][0] <= now:
            _, op, stage, _ = heapq.heappop(running)
            heapq.heappush(free[unit_of[stage]], workers[op * n_stages + stage])
            finish(op, stage, now)
        settle(now)
    if any(k < n for k in next_op):  # (the ring rules it out: a check, not a case)
        raise PipeLabError(STOPS)
    return (
        np.array(starts, dtype=np.float64).reshape(n, n_stages),
        np.array(workers, dtype=np.int64).reshape(n, n_stages),
        np.array(grants, dtype=np.float64).reshape(n_pools, n).T.copy(),
    )


def simulated_tasks(shape: Shape, durations: FloatArray) -> tuple[FloatArray, IntArray, FloatArray]:
    """`shape_tasks`' result from the compiled loop where it was built: the same floats."""
    if not (fast_scheduler.use_compiled and fast_scheduler.compiled is not None):
        return shape_tasks(shape, durations)
    pools = tuple((pool.size, pool.first, pool.last) for pool in shape.pools)
    tasks = fast_scheduler.compiled_tasks(durations, shape.stage_units, shape.workers, pools)
    if tasks is None:
        raise PipeLabError(STOPS)
    return tasks


def simulate_shape(
    shape: Shape, durations: npt.ArrayLike, label: str = "pipelined", policy: str = "pipelined"
) -> Schedule:
    """The Schedule of ops of ``durations`` (n_ops, stages) through ``shape``, tasks
    op-major, with each pool's grants; a lone pool from the first stage to the last (the
    book's) also gives its grants and size as the book's runs do."""
    matrix = np.array(durations, dtype=np.float64, ndmin=2)
    n_stages = len(shape.stages)
    if matrix.shape[1:] != (n_stages,) or not len(matrix):
        raise PipeLabError(f"durations need one row per op and one column per stage ({n_stages})")
    for column, name in enumerate(shape.stages):
        check_durations(np.ascontiguousarray(matrix[:, column]), name)  # "mma duration of op 3…"
    starts, workers, grants = simulated_tasks(shape, matrix)
    op, stage, _ = pipeline_layout(len(matrix), n_stages)
    pools = shape.pools
    book_pool = len(pools) == 1 and (pools[0].first, pools[0].last) == (0, n_stages - 1)
    return Schedule(
        op=op,
        stage=stage,
        unit=np.asarray(shape.stage_units, dtype=np.int64)[stage],
        worker=workers.reshape(-1),
        start=starts.reshape(-1),
        end=(starts + matrix).reshape(-1),
        workers=shape.workers,
        n_ops=len(matrix),
        policy=policy,
        source="simulated",
        buffers=shape.pools[0].size if book_pool else 0,
        label=label,
        unit_names=shape.units,
        stage_names=shape.stages,
        grant=grants[:, 0] if book_pool else None,
        pools=shape.pools,
        pool_grants=grants,
    )
