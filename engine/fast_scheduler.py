"""The event loop behind `simulate`: any worker counts, bit for bit `simulate_reference`.

Simulated time only moves forward, so each unit's ready stages arrive in (time, op) order,
except for ties at the current instant: the ready queues are FIFOs kept sorted by inserting
from the tail (nearly always a plain append), where the reference keeps heaps. Heaps remain
only for the running tasks and each unit's idle workers: O(N log k) for N ops, k workers.
Every choice and every addition (`end = now + d`) happens in the reference's order, so the
floats come out identical.

Two builds of that one algorithm:

* ``engine._fastsched``, compiled from engine/_fastsched.c when the optional extension was
  built (setup.py); it releases the GIL while it runs.
* `schedule_python`, the same loop in Python, when the extension is missing (no C compiler)
  or ``PIPELAB_PURE_PYTHON=1`` is set. With one worker per unit it runs the reference's
  recurrences op by op instead, which is the same arithmetic and several times faster.
"""

from __future__ import annotations

import heapq
import os
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Tasks = tuple[FloatArray, IntArray, FloatArray]

#: Set (to anything but "" or "0") to run the Python fallback even where the extension built.
FORCE_PYTHON = "PIPELAB_PURE_PYTHON"


def _load_compiled() -> tuple[ModuleType | None, str]:
    if os.environ.get(FORCE_PYTHON, "") not in ("", "0"):
        return None, f"{FORCE_PYTHON} is set"
    try:
        import engine._fastsched as _fastsched
    except ImportError as error:  # not built: no C compiler when the project was installed
        return None, f"engine._fastsched did not load ({error})"
    return _fastsched, ""


#: The compiled module, or None; ``why_not_compiled`` then says why.
compiled, why_not_compiled = _load_compiled()
#: Whether `schedule_tasks` uses the compiled module (tests switch it off to compare).
use_compiled = compiled is not None


def backend() -> str:
    """ "compiled" or "python": which build `schedule_tasks` runs now."""
    return "compiled" if use_compiled and compiled is not None else "python"


@contextmanager
def using(name: str) -> Iterator[None]:
    """Within the block, `schedule_tasks` runs ``name`` ("compiled" or "python"), so tests
    and benchmarks can compare the two. Not thread-safe: it sets a module switch."""
    global use_compiled
    if name not in ("compiled", "python"):
        raise ValueError(f"no scheduler build named {name!r}")
    if name == "compiled" and compiled is None:
        raise RuntimeError(why_not_compiled)
    before, use_compiled = use_compiled, name == "compiled"
    try:
        yield
    finally:
        use_compiled = before


def schedule_tasks(durations: FloatArray, workers: tuple[int, ...], buffers: int) -> Tasks:
    """Stage starts (n, 3), the worker of each stage (n, 3) and each op's slot grant time
    (n,) for ops with ``durations`` (n, 3) on units of ``workers`` with ``buffers`` slots
    (0 = unlimited)."""
    counts = (int(workers[0]), int(workers[1]), int(workers[2]))
    if use_compiled and compiled is not None:
        n = len(durations)
        starts = np.zeros((n, 3))
        worker = np.zeros((n, 3), dtype=np.int64)
        grant = np.zeros(n)
        table = np.ascontiguousarray(durations, dtype=np.float64)
        compiled.schedule(table, counts, buffers, starts, worker, grant)
        return starts, worker, grant
    return schedule_python(durations, counts, buffers)


def schedule_python(durations: FloatArray, workers: tuple[int, int, int], buffers: int) -> Tasks:
    """`schedule_tasks` in pure Python (identical results)."""
    n = len(durations)
    if workers == (1, 1, 1):
        starts, grant = _one_worker(durations, buffers)
        return starts, np.zeros((n, 3), dtype=np.int64), grant
    starts_list, worker_list, grant_list = _event_loop(
        durations.reshape(-1).tolist(), n, workers, buffers
    )
    return (
        np.array(starts_list, dtype=np.float64).reshape(n, 3),
        np.array(worker_list, dtype=np.int64).reshape(n, 3),
        np.array(grant_list, dtype=np.float64),
    )


def _one_worker(durations: FloatArray, buffers: int) -> tuple[FloatArray, FloatArray]:
    """One worker per unit: every unit serves the ops in op order, so each stage starts at
    max(ready, the unit's previous end), and op i is granted its slot when op i − B has
    written (the reference's `now` at those instants is exactly these values)."""
    n = len(durations)
    rows = np.zeros((n, 3)).tolist()
    grant = [0.0] * n
    write_ends: list[float] = []
    read_end = compute_end = write_end = 0.0
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
    return np.array(rows, dtype=np.float64).reshape(n, 3), np.array(grant, dtype=np.float64)


def _event_loop(
    durations: list[float], n: int, workers: tuple[int, int, int], buffers: int
) -> tuple[list[float], list[int], list[float]]:
    """The event loop of engine/_fastsched.c, line for line (durations op-major)."""
    starts = [0.0] * (3 * n)
    assigned = [0] * (3 * n)
    grant = [0.0] * n
    # Reads wait as ops read_head .. next_op - 1 (granted in op order); compute and write
    # wait in (time, op) order.
    ready: list[deque[tuple[float, int]]] = [deque(), deque(), deque()]
    idle = [list(range(k)) for k in workers]
    running: list[tuple[float, int, int, int]] = []  # (end, op, stage, worker)
    next_op = read_head = in_use = 0

    def make_ready(stage: int, now: float, op: int) -> None:
        queue, item = ready[stage], (now, op)
        if not queue or queue[-1] < item:
            queue.append(item)
            return
        # A tie at `now` with a higher op (only after zero-length stages): insert before it.
        place = len(queue) - 1
        while place > 0 and queue[place - 1] > item:
            place -= 1
        queue.insert(place, item)

    def grant_slots(now: float) -> bool:
        nonlocal next_op, in_use
        granted = False
        while next_op < n and (buffers == 0 or in_use < buffers):
            grant[next_op] = now
            next_op += 1
            in_use += 1
            granted = True
        return granted

    def dispatch(now: float) -> None:
        # Units in stage order; a zero-length stage completes on the spot and readies the
        # next at `now`; a zero-length write frees a slot: then go round again.
        nonlocal read_head, in_use
        again = True
        while again:
            again = False
            for stage in range(3):
                queue, free = ready[stage], idle[stage]
                while free and (read_head < next_op if stage == 0 else queue):
                    if stage == 0:
                        op = read_head
                        read_head += 1
                    else:
                        op = queue.popleft()[1]
                    worker = heapq.heappop(free)
                    task = 3 * op + stage
                    starts[task] = now
                    assigned[task] = worker
                    end = now + durations[task]
                    if end > now:  # (a denormal duration added to `now` is zero too)
                        heapq.heappush(running, (end, op, stage, worker))
                        continue
                    heapq.heappush(free, worker)
                    if stage < 2:
                        make_ready(stage + 1, now, op)
                    else:
                        in_use -= 1
                        again = grant_slots(now) or again

    grant_slots(0.0)
    dispatch(0.0)
    while running:
        now = running[0][0]
        while running and running[0][0] <= now:
            _, op, stage, worker = heapq.heappop(running)
            heapq.heappush(idle[stage], worker)
            if stage < 2:
                make_ready(stage + 1, now, op)
            else:
                in_use -= 1
        grant_slots(now)
        dispatch(now)
    return starts, assigned, grant
