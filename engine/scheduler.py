"""The scheduler: turns a Scenario into a simulated Schedule.

Semantics (ARCHITECTURE.md, binding): op i's stages run read → compute → write on the load,
compute and store units. A stage is ready when the op's previous stage ends (read: when the
op is granted a buffer slot; slots go out in op order and are held until the write ends).
A unit gives a free worker to the stage that became ready earliest, ties to the lower op.
Sequential is the case of one buffer slot.

Two implementations agree on every scenario:

* `simulate_reference` — a discrete-event simulation, any worker counts. It is the
  definition in code, and the path for units with several workers.
* the one-worker fast path used by `simulate` — with one worker per unit every unit serves
  ops in op order, so each stage is a max-plus recurrence ``end_i = max(ready_i, end_{i-1})
  + d_i``. Those vectorize with numpy; the buffer feedback (op i is granted its slot when op
  i − B has written) is handled by chunking (see `_one_worker_symbolic`).
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np
import numpy.typing as npt

from engine.scenario import Scenario
from engine.schedule import Schedule

FloatArray = npt.NDArray[np.float64]

#: Below this many ops a plain Python loop beats numpy's per-call overhead. Its arithmetic
#: is also exactly the reference's; the vectorized paths agree to rounding (a few ulps).
_SMALL = 300
#: Buffer counts from here on are scheduled a block of B ops at a time.
_LARGE_BUFFERS = 48


def effective_buffers(scenario: Scenario, policy: str | None = None) -> int:
    """Slots the run gets: 1 for sequential, else the scenario's own (0 = unlimited)."""
    return 1 if (policy or scenario.policy) == "sequential" else scenario.buffers


def simulate(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Schedule ``scenario`` under ``policy`` ("sequential" or "pipelined"; default: the
    scenario's own)."""
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    if scenario.workers != (1, 1, 1):
        return simulate_reference(scenario, policy)
    starts, grant = _one_worker(scenario.durations, buffers)
    workers = np.zeros(starts.shape, dtype=np.int64)
    return _to_schedule(scenario, policy, buffers, starts, workers, grant)


def _to_schedule(
    scenario: Scenario,
    policy: str,
    buffers: int,
    starts: FloatArray,
    workers: npt.NDArray[np.int64],
    grant: FloatArray,
) -> Schedule:
    return Schedule.from_stage_matrices(
        starts,
        starts + scenario.durations,
        workers,
        workers=scenario.workers,
        policy=policy,
        source="simulated",
        buffers=buffers,
        label=policy,
        grant=grant,
    )


# -- the reference: a discrete-event simulation --------------------------------------------


def simulate_reference(scenario: Scenario, policy: str | None = None) -> Schedule:
    """Event-by-event simulation of the semantics, for any number of workers per unit.

    At each instant: finish the tasks ending now (freeing workers, readying next stages,
    releasing slots), grant free slots in op order, then let each unit hand its free workers
    (lowest index first) to the ready stages that became ready earliest (lower op on ties).
    """
    policy = policy or scenario.policy
    buffers = effective_buffers(scenario, policy)
    durations = scenario.durations.reshape(-1).tolist()  # op-major: [op * 3 + stage]
    n = scenario.n_ops
    # Plain lists while simulating: item assignment on numpy arrays costs more than the rest.
    starts = [0.0] * (3 * n)
    workers = [0] * (3 * n)
    grant = [0.0] * n
    # Reads become ready in op order at nondecreasing times (slots are granted in op order),
    # so their queue is a plain FIFO; compute and write readiness comes in any order: heaps.
    reads: deque[int] = deque()
    ready: list[list[tuple[float, int]]] = [[], [], []]
    free = [list(range(k)) for k in scenario.workers]
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
    return _to_schedule(
        scenario,
        policy,
        buffers,
        np.array(starts).reshape(n, 3),
        np.array(workers, dtype=np.int64).reshape(n, 3),
        np.array(grant),
    )


# -- the one-worker fast path --------------------------------------------------------------


def _one_worker(durations: FloatArray, buffers: int) -> tuple[FloatArray, FloatArray]:
    """Start times (n, 3) and slot grant times (n,) with one worker per unit."""
    n = len(durations)
    if n < _SMALL:
        return _one_worker_loop(durations, buffers)  # exact arithmetic, op by op
    if buffers == 0 or buffers >= n:
        return _one_worker_blocks(durations, 0)  # no slot ever waits: three scans
    if buffers >= _LARGE_BUFFERS:
        return _one_worker_blocks(durations, buffers)
    return _one_worker_symbolic(durations, buffers)


def _one_worker_loop(durations: FloatArray, buffers: int) -> tuple[FloatArray, FloatArray]:
    """The recurrences one op at a time (fastest for small n)."""
    n = len(durations)
    starts = np.zeros((n, 3))
    grant = np.zeros(n)
    write_ends: list[float] = []
    read_end = compute_end = write_end = 0.0
    rows = starts.tolist()
    for i, (r, c, w) in enumerate(durations.tolist()):
        granted = write_ends[i - buffers] if buffers and i >= buffers else 0.0
        grant[i] = granted
        row = rows[i]
        row[0] = max(granted, read_end)
        read_end = row[0] + r
        row[1] = max(read_end, compute_end)
        compute_end = row[1] + c
        row[2] = max(compute_end, write_end)
        write_end = row[2] + w
        write_ends.append(write_end)
    return np.array(rows, dtype=np.float64).reshape(n, 3), grant


def _scan(ready: FloatArray, previous_end: float, duration: FloatArray) -> FloatArray:
    """Starts of ``start_i = max(ready_i, start_{i-1} + d_{i-1})`` with the unit free from
    ``previous_end``, vectorized: start_i − S_{i−1} is a running maximum."""
    before = np.empty_like(duration)  # exclusive prefix sums: S_{i-1}
    before[0] = 0.0
    np.cumsum(duration[:-1], out=before[1:])
    shifted = ready - before
    shifted[0] = max(shifted[0], previous_end)
    return np.maximum.accumulate(shifted) + before


def _one_worker_blocks(durations: FloatArray, buffers: int) -> tuple[FloatArray, FloatArray]:
    """Blocks of B ops: within a block every grant depends only on earlier blocks' writes,
    so each block is three vectorized scans. One block when buffers are unlimited."""
    n = len(durations)
    block = n if buffers == 0 or buffers >= n else buffers
    starts = np.empty((n, 3))
    grant = np.zeros(n)
    write_end = np.empty(n)
    ends = [0.0, 0.0, 0.0]
    for first in range(0, n, block):
        last = min(first + block, n)
        d = durations[first:last]
        if buffers and first >= buffers:
            grant[first:last] = write_end[first - buffers : last - buffers]
        ready = grant[first:last]
        for stage in range(3):
            s = _scan(ready, ends[stage], d[:, stage])
            starts[first:last, stage] = s
            ready = s + d[:, stage]
            ends[stage] = float(ready[-1])
        write_end[first:last] = ready
    return starts, grant


def _one_worker_symbolic(
    durations: FloatArray, buffers: int, chunk: int | None = None
) -> tuple[FloatArray, FloatArray]:
    """Small B, large n: chunked max-plus evaluation.

    Every time in a chunk of L ops is a max-plus linear function of the state entering the
    chunk: (0, last read end, last compute end, the last B write ends). Pass 1 runs the
    recurrences on those functions (vectors of d = B + 3 coefficients) for all chunks at
    once; a short sequential pass then chains the chunks' states; pass 2 runs the plain
    recurrences for all chunks at once from their now-known entry states.
    """
    n = len(durations)
    length = chunk or max(16, int(np.sqrt(n)))
    chunks = -(-n // length)
    padded = np.zeros((chunks * length, 3))
    padded[:n] = durations
    r, c, w = (padded[:, s].reshape(chunks, length) for s in range(3))
    d = buffers + 3
    unit = np.full((d, d), -np.inf)
    np.fill_diagonal(unit, 0.0)

    # Pass 1: each chunk's transfer function. Component 0 is the constant 0 (time origin).
    read_f = np.broadcast_to(unit[1], (chunks, d))
    compute_f = np.broadcast_to(unit[2], (chunks, d))
    history = deque(
        (np.broadcast_to(unit[3 + j], (chunks, d)) for j in range(buffers)), maxlen=buffers
    )
    for t in range(length):
        read_f = np.maximum(history[0], read_f) + r[:, t, None]
        compute_f = np.maximum(read_f, compute_f) + c[:, t, None]
        history.append(np.maximum(compute_f, history[-1]) + w[:, t, None])
    transfer = np.stack(
        [np.broadcast_to(unit[0], (chunks, d)), read_f, compute_f, *history], axis=1
    )

    # Chain: state entering chunk p + 1 = transfer_p ⊗ state entering chunk p.
    entry = np.empty((chunks, d))
    state = np.zeros(d)
    for p in range(chunks):
        entry[p] = state
        state = (transfer[p] + state[None, :]).max(axis=1)

    # Pass 2: the numeric recurrences, all chunks side by side.
    read_end, compute_end = entry[:, 1].copy(), entry[:, 2].copy()
    writes = deque((entry[:, 3 + j] for j in range(buffers)), maxlen=buffers)
    starts = np.empty((chunks, length, 3))
    grant = np.empty((chunks, length))
    for t in range(length):
        grant[:, t] = writes[0]
        s_read = np.maximum(writes[0], read_end)
        read_end = s_read + r[:, t]
        s_compute = np.maximum(read_end, compute_end)
        compute_end = s_compute + c[:, t]
        s_write = np.maximum(compute_end, writes[-1])
        writes.append(s_write + w[:, t])
        starts[:, t, 0], starts[:, t, 1], starts[:, t, 2] = s_read, s_compute, s_write
    return starts.reshape(-1, 3)[:n], grant.reshape(-1)[:n]
