"""The scheduler: turns a Scenario into a simulated Schedule.

Semantics (docs/model.md, binding): op i's stages run read → compute → write on the load,
compute and store units. A stage is ready when the op's previous stage ends (read: when the
op is granted a buffer slot; slots go out in op order and are held until the write ends).
A unit gives a free worker to the stage that became ready earliest, ties to the lower op.
Sequential is the case of one buffer slot.

Two implementations agree on every scenario, bit for bit (every start, end, worker and
grant time):

* `simulate_reference` — a plain discrete-event simulation: the definition in code.
* `simulate` — the same decisions and the same float additions in the compiled event loop
  (`engine.fast_scheduler`); where it was not built, `simulate` runs the reference.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np
import numpy.typing as npt

from engine import fast_scheduler
from engine.scenario import Scenario
from engine.schedule import Schedule

FloatArray = npt.NDArray[np.float64]


def effective_buffers(scenario: Scenario, policy: str | None = None) -> int:
    """Slots the run gets: 1 for sequential, else the scenario's own (0 = unlimited)."""
    return 1 if (policy or scenario.policy) == "sequential" else scenario.buffers


def simulate(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Schedule ``scenario`` under ``policy`` ("sequential" or "pipelined"; default: the
    scenario's own)."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    durations = scenario.durations
    starts, workers, grant = schedule_tasks(durations, scenario.workers, buffers)
    ends = starts + durations
    del durations
    # The event loop only stands at 0 and at task ends, and `ends` adds each duration to
    # its start as the loop did: every start is 0 or one of the ends, bit for bit.
    return _to_schedule(
        scenario, policy, buffers, starts, ends, workers, grant, owned=True, starts_at_ends=True
    )


def _to_schedule(
    scenario: Scenario,
    policy: str,
    buffers: int,
    starts: FloatArray,
    ends: FloatArray,
    workers: npt.NDArray[np.int64],
    grant: FloatArray,
    owned: bool = False,
    starts_at_ends: bool = False,
) -> Schedule:
    """The Schedule of these (n_ops, 3) matrices; ``owned``: they are fresh and handed
    over (frozen in place, not copied); ``starts_at_ends``: see `Schedule`."""
    return Schedule.from_stage_matrices(
        starts,
        ends,
        workers,
        owned=owned,
        workers=scenario.workers,
        policy=policy,
        source="simulated",
        buffers=buffers,
        label=policy,
        grant=grant,
        starts_at_ends=starts_at_ends,
    )


# -- the reference: a discrete-event simulation --------------------------------------------


def simulate_reference(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Event-by-event simulation of the semantics, for any number of workers per unit
    (`reference_tasks`)."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    starts, workers, grant = reference_tasks(scenario.durations, scenario.workers, buffers)
    return _to_schedule(
        scenario, policy, buffers, starts, starts + scenario.durations, workers, grant
    )


def schedule_tasks(
    durations: FloatArray, workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """Stage starts (n, 3), the worker of each stage (n, 3) and each op's slot grant time
    (n,): the compiled loop where it was built, else the reference's."""
    counts = (int(workers[0]), int(workers[1]), int(workers[2]))
    if fast_scheduler.use_compiled and fast_scheduler.compiled is not None:
        return fast_scheduler.compiled_tasks(durations, counts, buffers)
    return reference_tasks(durations, counts, buffers)


def reference_tasks(
    durations_matrix: FloatArray, unit_workers: tuple[int, ...], buffers: int
) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """The reference loop: stage starts (n, 3), workers (n, 3) and grant times (n,).

    At each instant: finish the tasks ending now (freeing workers, readying next stages,
    releasing slots), grant free slots in op order, then let each unit hand its free workers
    (lowest index first) to the ready stages that became ready earliest (lower op on ties).
    """
    durations = durations_matrix.reshape(-1).tolist()  # op-major: [op * 3 + stage]
    n = len(durations_matrix)
    # Plain lists while simulating: item assignment on numpy arrays costs more than the rest.
    starts = [0.0] * (3 * n)
    workers = [0] * (3 * n)
    grant = [0.0] * n
    # Reads become ready in op order at nondecreasing times (slots are granted in op order),
    # so their queue is a plain FIFO; compute and write readiness comes in any order: heaps.
    reads: deque[int] = deque()
    ready: list[list[tuple[float, int]]] = [[], [], []]
    free = [list(range(k)) for k in unit_workers]
    running: list[tuple[float, int, int, int, int]] = []  # (end, op, stage, worker, seq)
    next_op = 0
    in_use = 0
    sequence = 0

    def grant_slots(now: float) -> bool:
        nonlocal next_op, in_use
        granted = False
        while next_op < n and (buffers == 0 or in_use < buffers):
            grant[next_op] = now
            reads.append(next_op)
            next_op += 1
            in_use += 1
            granted = True
        return granted

    def dispatch(now: float) -> None:
        # Units are served in stage order and a zero-length stage completes on the spot, so
        # a stage it readies at `now` competes (earliest-ready, lower op on ties) with the
        # stages already waiting. A zero-length write frees a slot: then go round again.
        nonlocal sequence, in_use
        again = True
        while again:
            again = False
            for stage in range(3):
                queue, idle = ready[stage], free[stage]
                while (reads if stage == 0 else queue) and idle:
                    op = reads.popleft() if stage == 0 else heapq.heappop(queue)[1]
                    worker = heapq.heappop(idle)
                    task = 3 * op + stage
                    starts[task] = now
                    workers[task] = worker
                    end = now + durations[task]
                    if end > now:  # (a denormal duration added to `now` is zero too)
                        sequence += 1
                        heapq.heappush(running, (end, op, stage, worker, sequence))
                        continue
                    heapq.heappush(idle, worker)
                    if stage < 2:
                        heapq.heappush(ready[stage + 1], (now, op))
                    else:
                        in_use -= 1
                        again = grant_slots(now) or again

    grant_slots(0.0)
    dispatch(0.0)
    while running:
        now = running[0][0]
        while running and running[0][0] <= now:
            _, op, stage, worker, _ = heapq.heappop(running)
            heapq.heappush(free[stage], worker)
            if stage < 2:
                heapq.heappush(ready[stage + 1], (now, op))
            else:
                in_use -= 1
        grant_slots(now)
        dispatch(now)
    return (
        np.array(starts, dtype=np.float64).reshape(n, 3),
        np.array(workers, dtype=np.int64).reshape(n, 3),
        np.array(grant, dtype=np.float64),
    )
