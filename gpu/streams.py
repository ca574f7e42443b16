"""Experiment 1 on a CUDA device: copy-in, kernel, copy-out of every chunk, on CUDA streams.

The GPU's copy engines are the load and store units, its SMs the compute unit. Sequential
runs every chunk on one stream; pipelined spreads chunks round-robin over N non-blocking
streams, each with its own device buffer (N buffer slots). CUDA events around every stage
of every chunk give a measured Schedule; pinned host buffers let the copies run async.

An event before a stage fires when its stream reaches the stage, not when the engine takes
it. In the sequential run the two are the same. In the pipelined run a stage's start is
therefore taken as the later of that moment and the end of the previous chunk's same stage
(each engine works through chunks in issue order); ends are measured as they are.
"""

from __future__ import annotations

import ctypes
import importlib
import threading
from collections.abc import Generator
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.model.schedule import Schedule
from gpu import arith
from gpu.calibration import StageCosts
from gpu.cuda_source import load_module
from gpu.detect import device_info, import_cupy
from gpu.errors import Cancelled
from gpu.gpu_memory import is_out_of_memory, out_of_memory, release
from gpu.measured import GPU_UNITS, PipelineResult, measured_schedule, median_run, predict
from gpu.params import MIB, PipelineParams, Progress
from gpu.timing import EventTimer, elapsed_from

DEFAULT_SIZE = 256 * MIB
THREADS = 256
#: Calibration: kernel times at two intensities give cost per multiply-add and a fixed part.
CALIBRATION_INTENSITIES = (64, 1024)

FloatArray = npt.NDArray[np.float64]


def default_params(**changes: object) -> PipelineParams:
    values: dict[str, object] = {"size_bytes": DEFAULT_SIZE}
    values.update({k: v for k, v in changes.items() if v is not None})
    return PipelineParams(**values)  # type: ignore[arg-type]


class _Run:
    """Device buffers, pinned host arrays, streams and events of one experiment."""

    def __init__(self, cupy: Any, params: PipelineParams) -> None:
        cupyx = importlib.import_module("cupyx")
        self.cupy = cupy
        self.params = params
        self.bounds = params.bounds
        n = params.n_elements
        self.host_in = cupyx.empty_pinned((n,), dtype=np.float32)
        self.host_out = cupyx.empty_pinned((n,), dtype=np.float32)
        self.device = [
            cupy.empty((params.max_chunk,), dtype=np.float32) for _ in range(params.streams)
        ]
        self.streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(params.streams)]
        self.start = cupy.cuda.Event()
        # Per chunk: stream reaches copy-in, copy-in done, kernel done, copy-out done.
        self.events = [[cupy.cuda.Event() for _ in range(4)] for _ in range(params.chunks)]
        arith.fill_input(self.host_in, params.seed)
        sm = int(
            cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]
        )
        self.max_blocks = sm * 32

    def host_pointer(self, array: Any, element: int) -> ctypes.c_void_p:
        return ctypes.c_void_p(int(array.ctypes.data) + 4 * element)

    def launch(self, kernel: Any, buffer: Any, count: int, intensity: int, stream: Any) -> None:
        blocks = max(1, min(self.max_blocks, -(-count // THREADS)))
        with stream:
            kernel(
                (blocks,),
                (THREADS,),
                (buffer, np.int64(count), np.int32(intensity), arith.A, arith.C),
            )

    def issue(self, kernel: Any, used: int, intensity: int) -> None:
        """Queue every chunk's three stages; chunk i on stream i mod ``used``."""
        first = self.streams[0]
        self.start.record(first)
        for stream in self.streams[1:used]:
            stream.wait_event(self.start)
        for i in range(self.params.chunks):
            lo, hi = int(self.bounds[i]), int(self.bounds[i + 1])
            stream, buffer = self.streams[i % used], self.device[i % used]
            events = self.events[i]
            events[0].record(stream)
            buffer.data.copy_from_host_async(
                self.host_pointer(self.host_in, lo), 4 * (hi - lo), stream
            )
            events[1].record(stream)
            self.launch(kernel, buffer, hi - lo, intensity, stream)
            events[2].record(stream)
            buffer.data.copy_to_host_async(
                self.host_pointer(self.host_out, lo), 4 * (hi - lo), stream
            )
            events[3].record(stream)

    def times(self) -> tuple[FloatArray, FloatArray]:
        """(chunks, 3) starts and ends in ms from the start event."""
        marks = elapsed_from(self.cupy, self.start, self.events)
        return marks[:, 0:3], marks[:, 1:4]


def engine_order(starts: FloatArray, ends: FloatArray) -> FloatArray:
    """Starts as the engines saw them: a stage can't start before the previous chunk's same
    stage ended (engines take chunks in issue order); never after the stage's own end."""
    previous_end = np.vstack([np.full((1, 3), -np.inf), np.maximum.accumulate(ends, axis=0)[:-1]])
    ordered: FloatArray = np.minimum(np.maximum(starts, previous_end), ends)
    return ordered


def run_cupy_pipeline(
    params: PipelineParams | None = None, cancel: threading.Event | None = None
) -> Generator[Progress, None, PipelineResult]:
    """Experiment 1 with CuPy: sequential, then pipelined; yield progress; return the result.

    Cancel is checked between chunks; out-of-memory and compile errors become GpuError;
    whatever the run allocated is freed however it ends.
    """
    params = params or default_params()
    cancel = cancel or threading.Event()
    cupy = import_cupy()
    info = device_info(cupy, cupy.cuda.Device().id)
    yield Progress(0.0, f"compiling the kernel for {info.name}")
    loaded = load_module(cupy, "stream_chain.cu")
    kernel = loaded.function("stream_chain")
    run: _Run | None = None
    try:
        yield Progress(0.0, f"allocating {params.size_bytes / MIB:,.0f} MiB (pinned and device)")
        try:
            run = _Run(cupy, params)
        except Exception as error:
            if is_out_of_memory(error):
                raise out_of_memory(params.size_bytes, "GPU or pinned host") from None
            raise
        intensity = params.intensity
        how = f"intensity {intensity} as given"
        if intensity is None or params.time_limit_s is not None:
            yield Progress(0.0, "calibrating: one chunk's copies and kernel, CUDA events")
            costs = calibrate_costs(run, kernel)
            if intensity is None:
                intensity = costs.balanced_intensity()
                how = f"intensity {intensity} calibrated on this run (kernel ≈ copy)"
            costs.check_time_limit(params, intensity)
        indices = arith.sample_indices(run.bounds)
        want = arith.expected(run.host_in[indices], intensity)
        result = yield from _measure(run, kernel, intensity, indices, want, cancel)
        sequential = median_run(result["sequential"])
        props = cupy.cuda.runtime.getDeviceProperties(info.index)
        engines = int(props.get("asyncEngineCount", 0))
        notes = (
            loaded.note,
            how,
            f"copy engines (asyncEngineCount): {engines}",
            "pipelined stage starts: the later of stream-ready and the previous chunk's "
            "same stage ending (events can't see an engine's queue); ends as measured",
            "GB/s = 10^9 bytes/s; copies count bytes moved, the kernel bytes read + written",
        )
        return PipelineResult(
            backend="cupy",
            device=info.describe(),
            params=params,
            intensity=intensity,
            sequential=sequential,
            pipelined=median_run(result["pipelined"]),
            predicted=predict(sequential, params.streams),
            checked_values=len(indices),
            notes=notes,
            sequential_makespans=tuple(r.makespan for r in result["sequential"]),
            pipelined_makespans=tuple(r.makespan for r in result["pipelined"]),
        )
    except Exception as error:
        if is_out_of_memory(error):
            raise out_of_memory(params.size_bytes, "GPU") from None
        raise
    finally:
        run = None
        release(cupy)


def _measure(
    run: _Run,
    kernel: Any,
    intensity: int,
    indices: npt.NDArray[np.int64],
    want: FloatArray,
    cancel: threading.Event,
) -> Generator[Progress, None, dict[str, list[Schedule]]]:
    params = run.params
    runs = params.warmup + params.repeats
    total = 2 * runs * params.chunks
    step = 0
    timed: dict[str, list[Schedule]] = {"sequential": [], "pipelined": []}
    for policy in ("sequential", "pipelined"):
        used = 1 if policy == "sequential" else params.streams
        for repeat in range(runs):
            if cancel.is_set():
                raise Cancelled()
            kind = "warm-up" if repeat < params.warmup else f"run {repeat - params.warmup + 1}"
            run.host_out[indices] = np.nan  # a stale value from the last run must not pass
            run.issue(kernel, used, intensity)
            for i in range(params.chunks):
                run.events[i][3].synchronize()
                step += 1
                if cancel.is_set():
                    raise Cancelled()
                yield Progress(step / total, f"{policy} {kind}: chunk {i + 1} of {params.chunks}")
            arith.check_result(run.host_out[indices], want, indices, f"GPU {policy} {kind}")
            if repeat < params.warmup:
                continue
            starts, ends = run.times()
            if policy == "pipelined":
                starts = engine_order(starts, ends)
            timed[policy].append(
                measured_schedule(
                    starts,
                    ends,
                    policy=policy,
                    buffers=used,
                    unit_names=GPU_UNITS,
                    label=f"{policy} on {used} CUDA stream{'s' if used > 1 else ''}",
                )
            )
    return timed


def calibrate_costs(run: _Run, kernel: Any) -> StageCosts:
    """One chunk's copy-in, copy-out and kernel times at two intensities (best of three
    windows of N back-to-back launches each, `gpu.timing`)."""
    timer = EventTimer(run.cupy, run.streams[0])
    buffer = run.device[0]
    count = int(run.bounds[1] - run.bounds[0])
    nbytes = 4 * count
    stream = timer.stream

    def best(action: Any) -> float:
        return timer.measure(action, repeats=3, warmup=0).min_ms

    copy_in = best(
        lambda: buffer.data.copy_from_host_async(run.host_pointer(run.host_in, 0), nbytes, stream)
    )
    copy_out = best(
        lambda: buffer.data.copy_to_host_async(run.host_pointer(run.host_out, 0), nbytes, stream)
    )
    low, high = CALIBRATION_INTENSITIES
    t_low = best(lambda: run.launch(kernel, buffer, count, low, stream))
    t_high = best(lambda: run.launch(kernel, buffer, count, high, stream))
    return StageCosts.from_two_intensities(
        copy_in, copy_out, (low, t_low), (high, t_high), "calibrated with CUDA events"
    )


def calibrate(run: _Run, kernel: Any) -> int:
    """Intensity at which one chunk's kernel takes about as long as its copies (mean of
    copy-in and copy-out)."""
    return calibrate_costs(run, kernel).balanced_intensity()


def copy_bandwidth(size_bytes: int = DEFAULT_SIZE, repeats: int = 5) -> dict[str, float]:
    """Best host→device and device→host GB/s of one large pinned copy (the reference the
    chunked copies are held against), and device→device GB/s counting read + written,
    timed after ~100 ms of device-to-device warm-up (`gpu.timing.WARMUP_MS`)."""
    cupy = import_cupy()
    cupyx = importlib.import_module("cupyx")
    n = size_bytes // 4
    host = dev = dev2 = None
    try:
        host = cupyx.empty_pinned((n,), dtype=np.float32)
        dev = cupy.empty((n,), dtype=np.float32)
        dev2 = cupy.empty((n,), dtype=np.float32)
        timer = EventTimer(cupy)
        stream = timer.stream
        pointer = ctypes.c_void_p(int(host.ctypes.data))

        def best(action: Any) -> float:
            return timer.measure(action, repeats=repeats, warmup=1).min_ms

        source: Any = dev
        target: Any = dev2

        def device_copy() -> None:
            target.data.copy_from_device_async(source.data, 4 * n, stream)

        h2d = best(lambda: dev.data.copy_from_host_async(pointer, 4 * n, stream))
        d2h = best(lambda: dev.data.copy_to_host_async(pointer, 4 * n, stream))
        # After ~1 s of PCIe-only work the SM and memory clocks may have dropped: warm them
        # as experiment 2 does before its copy baseline.
        timer.warm_up(device_copy)
        d2d = best(device_copy)
        return {
            "h2d_gbps": 4 * n / (h2d * 1e6),
            "d2h_gbps": 4 * n / (d2h * 1e6),
            "d2d_gbps": 8 * n / (d2d * 1e6),
        }
    except Exception as error:
        if is_out_of_memory(error):
            raise out_of_memory(size_bytes, "GPU or pinned host") from None
        raise
    finally:
        host = dev = dev2 = None
        release(cupy)
