"""Experiment 2 on a CUDA device: pipelining inside a kernel, global → shared → compute.

Three kernels (gpu/kernels/tile_sync.cu, tile_async.cu) work through 4 KiB tiles: the
synchronous one loads a tile, waits, computes, stores; the cp.async ones (sm_80+) prefetch
the next one or two tiles while computing the current one. An intensity sweep goes from
memory-bound to compute-bound, and every variant's effective bandwidth is held against a
plain device-to-device copy measured in the same run. Bandwidth here always counts bytes
read + bytes written.

The sweep runs twice: at the default occupancy (8 blocks of 256 threads per SM, where other
blocks already hide a block's memory latency) and at low occupancy (1 block per SM, capped
with dynamic shared memory), where latency must be hidden *inside* the block: the lesson
cp.async is about. gpu/tile_result.py names the pass, the row and the variant (fixed in
advance) that carry each claim: the gain over the synchronous kernel at low occupancy, the
share of copy bandwidth at full occupancy. Every figure is N back-to-back launches per
event pair, divided by N, all N queued behind a spin before the window opens
(gpu/timing.py), after a ~100 ms warm-up; an empty kernel timed the same way gives the
device's own launch-to-launch time, reported beside the figures (not subtracted).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any

import numpy as np

from engine.base.text import time_text
from gpu import arith
from gpu.cuda_source import load_module
from gpu.detect import DeviceInfo, device_info, import_cupy
from gpu.errors import Cancelled, GpuError
from gpu.gpu_memory import is_out_of_memory, out_of_memory, release
from gpu.params import ITEM, Progress
from gpu.residency import SharedMemory, cap_residency, resident_blocks
from gpu.tile_result import (
    KERNELS,
    SYNC,
    TILE,
    VARIANTS,
    TileParams,
    TilePass,
    TileResult,
    TileRow,
)
from gpu.timing import EventTimer, Timing

THREADS = 256
CHECK_COUNT = 65536
#: The tile kernels' __launch_bounds__ minimum (gpu/kernels/tile_common.cuh).
LAUNCH_BOUNDS_BLOCKS = 8


class _Sweep:
    """The device state of one experiment-2 run: arrays, kernels, the timer, the check."""

    def __init__(self, cupy: Any, params: TileParams, kernels: dict[str, Any]) -> None:
        self.cupy, self.params, self.kernels = cupy, params, kernels
        n = params.n_elements
        self.host = arith.make_input(n, params.seed)
        # Every device operation goes on the timer's stream. It is non-blocking, so work on
        # the legacy default stream (cupy.asarray's copy, the NaN fill, the gather) would not
        # be ordered before or after the timed kernels.
        self.timer = EventTimer(cupy)
        self.indices = np.unique(np.linspace(0, n - 1, min(n, CHECK_COUNT)).astype(np.int64))
        self.reversed_in_tile = self.indices // TILE * TILE + (TILE - 1 - self.indices % TILE)
        with self.timer.stream:
            self.source = cupy.asarray(self.host)
            self.target = cupy.empty_like(self.source)
            self.check_at = cupy.asarray(self.indices)
        self.timer.stream.synchronize()

    def close(self) -> None:
        """Drop the device arrays, so the memory pool can hand their blocks back."""
        self.source = self.target = self.check_at = None

    def measure(self, action: Callable[[], object]) -> Timing:
        p = self.params
        return self.timer.measure(action, p.repeats, p.warmup, p.min_launches, p.min_window_ms)

    def copy(self) -> None:
        n = self.params.n_elements
        self.target.data.copy_from_device_async(self.source.data, ITEM * n, self.timer.stream)

    def launcher(
        self, variant: str, intensity: int, blocks: int, shared: int
    ) -> Callable[[], None]:
        kernel = self.kernels[variant]
        n_tiles = self.params.n_elements // TILE
        args = (self.source, self.target, np.int64(n_tiles), np.int32(intensity), arith.A, arith.C)

        def launch() -> None:
            with self.timer.stream:
                kernel((blocks,), (THREADS,), args, shared_mem=shared)

        return launch

    def checked(self, variant: str, intensity: int, blocks: int, shared: int) -> Timing:
        """Time one variant at one intensity, then check its output against numpy."""
        with self.timer.stream:  # stale output must not pass the check
            self.target[self.check_at] = np.float32(np.nan)
        timing = self.measure(self.launcher(variant, intensity, blocks, shared))
        with self.timer.stream:
            got = self.cupy.asnumpy(self.target[self.check_at])
        want = arith.expected(self.host[self.reversed_in_tile], intensity)
        arith.check_result(got, want, self.indices, f"{VARIANTS[variant]}, intensity {intensity}")
        return timing


def _grid_blocks(
    cupy: Any, kernels: dict[str, Any], info: DeviceInfo, wanted: int, n_tiles: int
) -> tuple[int, int, str]:
    """Blocks per SM of the main pass: ``wanted``, lowered to what every variant can hold
    at once (occupancy API), so every variant runs one wave of the same grid."""
    held = {v: resident_blocks(cupy, k, THREADS, 0) for v, k in kernels.items()}
    per_sm = min([wanted, *held.values()])
    note = (
        f"main pass: {per_sm} blocks of {THREADS} threads per SM, one wave for every variant "
        f"(__launch_bounds__({THREADS}, {LAUNCH_BOUNDS_BLOCKS}); the occupancy API holds "
        + ", ".join(f"{v} {h}" for v, h in held.items())
        + " per SM)"
    )
    if per_sm < 1:
        raise GpuError(f"the occupancy API says no tile kernel block fits on an SM: {held}")
    return per_sm, min(n_tiles, info.multiprocessors * per_sm), note


def run_tiles(
    params: TileParams | None = None, cancel: threading.Event | None = None
) -> Generator[Progress, None, TileResult]:
    """Both passes of the sweep; yields progress; GpuError on compile errors, wrong results,
    OOM, or a residency the occupancy API does not confirm."""
    params = params or TileParams()
    cancel = cancel or threading.Event()
    cupy = import_cupy()
    info = device_info(cupy, cupy.cuda.Device().id)
    variants = [SYNC]
    notes: list[str] = ["bandwidth counts bytes read + bytes written; GB/s = 10^9 bytes/s"]
    yield Progress(0.0, "compiling the tile kernels")
    sync_module = load_module(cupy, "tile_sync.cu")
    kernels = {SYNC: sync_module.function(KERNELS[SYNC])}
    notes.append(sync_module.note)
    if info.supports_async_copy:
        async_module = load_module(cupy, "tile_async.cu", needs_pipeline_header=True)
        kernels.update({v: async_module.function(KERNELS[v]) for v in ("async2", "async3")})
        variants += ["async2", "async3"]
        notes.append(async_module.note)
    else:
        notes.append(
            f"{info.name} is sm_{info.compute_capability[0]}{info.compute_capability[1]}: "
            "cp.async needs sm_80 or newer, so only the synchronous kernel ran"
        )
    empty = load_module(cupy, "empty.cu").function("pipelab_empty")
    sweep: _Sweep | None = None
    try:
        n_tiles = params.n_elements // TILE
        per_sm, blocks, grid_note = _grid_blocks(cupy, kernels, info, params.blocks_per_sm, n_tiles)
        notes.append(grid_note)
        low_shared: dict[str, int] = {}
        if params.low_blocks_per_sm:
            limits = SharedMemory.of(cupy, info.index)
            for variant in variants:
                low_shared[variant] = cap_residency(
                    cupy, kernels[variant], THREADS, params.low_blocks_per_sm, limits
                )
        try:
            sweep = active = _Sweep(cupy, params, kernels)
        except Exception as error:
            if is_out_of_memory(error):
                raise out_of_memory(2 * ITEM * params.n_elements, "GPU") from None
            raise
        yield Progress(
            0.0, f"warming up (~{time_text(params.warmup_ms, 'ms')} of back-to-back work)"
        )
        warm = active.launcher(SYNC, params.intensities[0], blocks, 0)

        def warm_action() -> None:
            active.copy()
            warm()

        active.timer.warm_up(warm_action, params.warmup_ms)

        def empty_launch() -> None:
            with active.timer.stream:
                empty((blocks,), (THREADS,), ())

        overhead = active.measure(empty_launch)
        passes: list[tuple[int, int, dict[str, int]]] = [
            (per_sm, blocks, dict.fromkeys(variants, 0))
        ]
        if params.low_blocks_per_sm:
            low_grid = min(n_tiles, info.multiprocessors * params.low_blocks_per_sm)
            passes.append((params.low_blocks_per_sm, low_grid, low_shared))
        steps = len(passes) * len(params.intensities) * (len(variants) + 1)
        step = 0
        results: list[TilePass] = []
        for pass_per_sm, grid, shared in passes:
            rows: list[TileRow] = []
            for intensity in params.intensities:
                if cancel.is_set():
                    raise Cancelled()
                yield Progress(
                    step / steps, f"{pass_per_sm} block(s)/SM, intensity {intensity}: copy"
                )
                copy = active.measure(active.copy)
                step += 1
                timings: dict[str, Timing] = {}
                for variant in variants:
                    if cancel.is_set():
                        raise Cancelled()
                    yield Progress(
                        step / steps,
                        f"{pass_per_sm} block(s)/SM, intensity {intensity}: {VARIANTS[variant]}",
                    )
                    timings[variant] = active.checked(variant, intensity, grid, shared[variant])
                    step += 1
                rows.append(
                    TileRow(
                        intensity,
                        copy.median_ms,
                        {v: t.median_ms for v, t in timings.items()},
                        launches={"copy": copy.launches}
                        | {v: t.launches for v, t in timings.items()},
                    )
                )
            how = (
                "default occupancy"
                if not any(shared.values())
                else f"capped with {max(shared.values()):,} bytes of dynamic shared memory "
                "per block (occupancy API confirmed)"
            )
            results.append(TilePass(pass_per_sm, grid, how, tuple(rows)))
        yield Progress(1.0, "done")
        main = results[0]
        return TileResult(
            info.describe(),
            params,
            tuple(variants),
            main.rows,
            len(active.indices),
            tuple(notes),
            passes=tuple(results),
            launch_overhead_ms=overhead.median_ms,
            launch_overhead_host_bound=overhead.host_bound_windows,
        )
    except Exception as error:
        if is_out_of_memory(error):
            raise out_of_memory(2 * ITEM * params.n_elements, "GPU") from None
        raise
    finally:
        if sweep is not None:
            sweep.close()
        release(cupy)
