"""Experiment 1 on CPU threads: the same chunked read → compute → write, measured for real.

read = copy a chunk from the source array into one of B staging buffers, compute = the
arithmetic chain in numpy (which releases the GIL), write = copy the chunk back into the
destination. Sequential runs every stage of every chunk on one thread; pipelined runs a
thread per unit, handing chunks on through bounded queues, with B staging buffers as the
model's buffer slots (a chunk holds its buffer from the start of its read to the end of its
write, and buffers are taken in chunk order). Times come from `time.perf_counter_ns`.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from engine.model.schedule import STAGES, Schedule
from gpu import arith, cores
from gpu.calibration import StageCosts
from gpu.errors import Cancelled, GpuError
from gpu.measured import CPU_UNITS, PipelineResult, measured_schedule, median_run, predict
from gpu.params import MIB, PipelineParams, Progress

Item = TypeVar("Item")

#: Defaults that finish in a few seconds on a 2-core machine and show the overlap there:
#: 16 MiB chunks, so that each stage takes milliseconds (at 4 MiB a stage took 0.3 ms, no
#: longer than handing a chunk from one thread to the next, and pipelining never won).
#: Measured with bench/cpu_overlap.py (see `gpu.cores`).
DEFAULT_SIZE = 256 * MIB
#: Without a given intensity, compute takes about this many times the two copies together:
#: then two cores suffice (one computes while the other copies in and out), with room for
#: the hand-overs. With compute ≈ one copy (the GPU's choice) the three threads need three
#: cores, and memory-bound compute fights the copies for the memory bus.
COMPUTE_SHARE = 1.5
#: How often a waiting thread looks at the stop flag (seconds).
POLL = 0.02
#: GIL switch interval while the pipeline threads run. CPython's default (5 ms) lets the
#: compute thread, which re-takes the GIL between numpy calls, keep a woken reader or writer
#: waiting up to 5 ms per hand-over, longer than a chunk's stage; the old value is restored.
SWITCH_INTERVAL = 0.001

FloatArray = npt.NDArray[np.float32]


def default_params(**changes: object) -> PipelineParams:
    values: dict[str, object] = {"size_bytes": DEFAULT_SIZE}
    values.update({k: v for k, v in changes.items() if v is not None})
    return PipelineParams(**values)  # type: ignore[arg-type]


@dataclass
class _Data:
    """Arrays one experiment allocates once and reuses for every run."""

    source: FloatArray
    target: FloatArray
    staging: list[FloatArray]
    scratch: list[FloatArray]
    bounds: npt.NDArray[np.int64]


class _Stopped(Exception):
    """Internal: a pipeline thread saw the stop flag."""


def run_cpu_pipeline(
    params: PipelineParams | None = None, cancel: threading.Event | None = None
) -> Generator[Progress, None, PipelineResult]:
    """Run sequential and pipelined; yield progress; return the measured result.

    ``cancel`` is checked between chunks (and between compute passes): setting it ends the
    run with `Cancelled` within a fraction of a second, threads joined and arrays dropped.
    """
    params = params or default_params()
    cancel = cancel or threading.Event()
    yield Progress(0.0, "allocating arrays")
    try:
        data = _allocate(params)
    except MemoryError:
        raise GpuError(
            f"not enough memory for {params.size_bytes / MIB:.0f} MiB of data: use a smaller size"
        ) from None
    _check_cancel(cancel)
    intensity = params.intensity
    how = f"intensity {intensity} as given"
    if intensity is None or params.time_limit_s is not None:
        yield Progress(0.0, "calibrating: one chunk's copy and compute")
        costs = calibrate_costs(data)
        if intensity is None:
            intensity = costs.intensity_for(COMPUTE_SHARE * (costs.read_ms + costs.write_ms))
            how = (
                f"intensity {intensity} calibrated on this run (compute ≈ "
                f"{COMPUTE_SHARE:g} × read + write: one core computes while another copies)"
            )
        costs.check_time_limit(params, intensity)
    indices = arith.sample_indices(data.bounds)
    want = arith.expected(data.source[indices], intensity)
    runs = params.warmup + params.repeats
    total = 2 * runs
    timed: dict[str, list[Schedule]] = {"sequential": [], "pipelined": []}
    step = 0
    for policy in ("sequential", "pipelined"):
        buffers = 1 if policy == "sequential" else params.streams
        for run in range(runs):
            kind = "warm-up" if run < params.warmup else f"run {run - params.warmup + 1}"
            data.target[indices] = np.nan  # a stale value from the last run must not pass
            runner = _sequential if policy == "sequential" else _pipelined
            times = yield from runner(data, intensity, buffers, cancel, step / total, 1 / total)
            arith.check_result(data.target[indices], want, indices, f"CPU {policy} {kind}")
            step += 1
            yield Progress(step / total, f"{policy} {kind} done")
            if run >= params.warmup:
                timed[policy].append(
                    measured_schedule(
                        *times,
                        policy=policy,
                        buffers=buffers,
                        unit_names=CPU_UNITS,
                        label=f"{policy} on CPU threads",
                    )
                )
    sequential = median_run(timed["sequential"])
    return PipelineResult(
        backend="cpu",
        device=f"CPU threads ({cores.this_machine().usable} cores)",
        params=params,
        intensity=intensity,
        sequential=sequential,
        pipelined=median_run(timed["pipelined"]),
        predicted=predict(sequential, params.streams),
        checked_values=len(indices),
        notes=(how, "times from time.perf_counter_ns; GB/s = 10^9 bytes/s"),
        sequential_makespans=tuple(r.makespan for r in timed["sequential"]),
        pipelined_makespans=tuple(r.makespan for r in timed["pipelined"]),
    )


#: Compute passes timed to calibrate: the difference is the cost of one pass.
CALIBRATION_INTENSITIES = (1, 5)


def calibrate_costs(data: _Data) -> StageCosts:
    """One chunk's copy and its compute at two intensities (best of three each)."""
    lo, hi = int(data.bounds[0]), int(data.bounds[1])
    chunk, buffer, scratch = data.source[lo:hi], data.staging[0][: hi - lo], data.scratch[0]

    def best(action: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            action()
            times.append(time.perf_counter() - t0)
        return min(times) * 1e3

    copy = best(lambda: np.copyto(buffer, chunk))
    low, high = CALIBRATION_INTENSITIES
    t_low = best(lambda: arith.chain_numpy(buffer, low, scratch))
    t_high = best(lambda: arith.chain_numpy(buffer, high, scratch))
    if not t_high > t_low:  # a busy machine can blur a small difference: one pass instead
        t_high = t_low * high / low
    return StageCosts.from_two_intensities(
        copy, copy, (low, t_low), (high, t_high), "calibrated with time.perf_counter"
    )


def _allocate(params: PipelineParams) -> _Data:
    size = params.max_chunk
    slots = params.streams
    return _Data(
        source=arith.make_input(params.n_elements, params.seed),
        target=np.zeros(params.n_elements, dtype=np.float32),
        staging=[np.zeros(size, dtype=np.float32) for _ in range(slots)],
        scratch=[np.zeros(arith.BLOCK, dtype=np.float32) for _ in range(slots)],
        bounds=params.bounds,
    )


def _check_cancel(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise Cancelled()


Times = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _sequential(
    data: _Data,
    intensity: int,
    buffers: int,
    cancel: threading.Event,
    done: float,
    share: float,
) -> Generator[Progress, None, Times]:
    """One thread, every stage of every chunk in turn (buffer slot 0 only)."""
    n = len(data.bounds) - 1
    starts = np.zeros((n, 3))
    ends = np.zeros((n, 3))
    clock = time.perf_counter_ns
    origin = clock()
    for i in range(n):
        _check_cancel(cancel)
        lo, hi = int(data.bounds[i]), int(data.bounds[i + 1])
        buffer, scratch = data.staging[0][: hi - lo], data.scratch[0]
        t0 = clock()
        np.copyto(buffer, data.source[lo:hi])
        t1 = clock()
        if not arith.chain_numpy(buffer, intensity, scratch, cancel.is_set):
            raise Cancelled()
        t2 = clock()
        np.copyto(data.target[lo:hi], buffer)
        t3 = clock()
        starts[i] = (t0 - origin, t1 - origin, t2 - origin)
        ends[i] = (t1 - origin, t2 - origin, t3 - origin)
        yield Progress(done + share * (i + 1) / n, f"sequential: chunk {i + 1} of {n}")
    return starts / 1e6, ends / 1e6


def _pipelined(
    data: _Data,
    intensity: int,
    buffers: int,
    cancel: threading.Event,
    done: float,
    share: float,
) -> Generator[Progress, None, Times]:
    """A reader, a computer and a writer thread; B staging buffers handed on in chunk order.

    The generator's own thread only waits for finished chunks and watches ``cancel``; the
    `finally` clause stops and joins the three threads however the generator ends.
    """
    n = len(data.bounds) - 1
    starts = np.zeros((n, 3))
    ends = np.zeros((n, 3))
    stop = threading.Event()
    failures: list[BaseException] = []
    free_slots: queue.Queue[int] = queue.Queue()
    for slot in range(buffers):
        free_slots.put(slot)
    to_compute: queue.Queue[tuple[int, int]] = queue.Queue(maxsize=buffers)
    to_write: queue.Queue[tuple[int, int]] = queue.Queue(maxsize=buffers)
    finished: queue.Queue[int] = queue.Queue()
    clock = time.perf_counter_ns
    origin = clock()

    def take(source: queue.Queue[Item]) -> Item:
        while True:
            if stop.is_set():
                raise _Stopped
            try:
                return source.get(timeout=POLL)
            except queue.Empty:
                continue

    def hand_on(target: queue.Queue[Item], item: Item) -> None:
        while True:
            if stop.is_set():
                raise _Stopped
            try:
                target.put(item, timeout=POLL)
                return
            except queue.Full:
                continue

    def stamp(i: int, stage: int, t0: int, t1: int) -> None:
        starts[i, stage] = t0 - origin
        ends[i, stage] = t1 - origin

    def reader() -> None:
        for i in range(n):
            slot = take(free_slots)
            lo, hi = int(data.bounds[i]), int(data.bounds[i + 1])
            t0 = clock()
            np.copyto(data.staging[slot][: hi - lo], data.source[lo:hi])
            stamp(i, 0, t0, clock())
            hand_on(to_compute, (i, slot))

    def computer() -> None:
        for _ in range(n):
            i, slot = take(to_compute)
            m = int(data.bounds[i + 1] - data.bounds[i])
            t0 = clock()
            buffer, scratch = data.staging[slot][:m], data.scratch[slot]
            if not arith.chain_numpy(buffer, intensity, scratch, stop.is_set):
                raise _Stopped
            stamp(i, 1, t0, clock())
            hand_on(to_write, (i, slot))

    def writer() -> None:
        for _ in range(n):
            i, slot = take(to_write)
            lo, hi = int(data.bounds[i]), int(data.bounds[i + 1])
            t0 = clock()
            np.copyto(data.target[lo:hi], data.staging[slot][: hi - lo])
            stamp(i, 2, t0, clock())
            free_slots.put(slot)
            finished.put(i)

    def guarded(body: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                body()
            except _Stopped:
                pass
            except BaseException as error:  # reported by the generator's thread
                failures.append(error)
                stop.set()

        return run

    threads = [
        threading.Thread(target=guarded(body), name=f"pipelab-cpu-{name}", daemon=True)
        for name, body in zip(STAGES, (reader, computer, writer), strict=True)
    ]
    previous_interval = sys.getswitchinterval()
    sys.setswitchinterval(min(previous_interval, SWITCH_INTERVAL))
    try:
        for thread in threads:
            thread.start()
        count = 0
        while count < n:
            if cancel.is_set():
                raise Cancelled()
            if failures:
                raise GpuError(f"CPU pipeline thread failed: {failures[0]}") from failures[0]
            try:
                finished.get(timeout=POLL)
            except queue.Empty:
                continue
            count += 1
            yield Progress(done + share * count / n, f"pipelined: chunk {count} of {n}")
    finally:
        stop.set()
        for thread in threads:
            if thread.ident is not None:
                thread.join()
        sys.setswitchinterval(previous_interval)
    return starts / 1e6, ends / 1e6
