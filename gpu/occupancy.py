"""The occupancy sweep: warp latency hiding measured on a real SM.

A memory-bound kernel (gpu/kernels/occupancy.cu) whose loads depend on each other, so each
warp has one 16-byte-per-thread load in flight at a time, as in the warp model. It is
launched with 1, 2, … warps per SM (one block per SM up to 32 warps, two above), and the
bandwidth it reaches is measured at each step.

What makes the points trustworthy:
- **DRAM, not L2.** Every launch reads at least `FOOTPRINT_L2` × the L2 size (read with
  ``cudaDeviceGetAttribute``), and starts where the previous launch stopped, in an array
  at least twice that size: no launch finds its data left in L2 by an earlier one.
- **Residency set, then checked.** Dynamic shared memory caps every SM at the blocks the
  step asks for (gpu/residency.py, confirmed by the occupancy API), and every block records
  its SM (``%smid``): an SM holding other than the warps asked for fails the sweep.
- **Fair timing.** N launches back to back per event pair (gpu/timing.py), after a warm-up.

The model beside it, ``peak · min(1, W / knee)`` (the warp model's min(1, W·C / (C + L))),
is a least-squares fit with its residual (gpu/saturation.py); a curve still rising at the
largest W is "not saturated" and has no knee. The result types live in
gpu/occupancy_result.py. CuPy is imported only when a sweep runs.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu.cuda_source import load_module
from gpu.detect import detect, import_cupy
from gpu.errors import Cancelled, GpuError
from gpu.occupancy_result import (
    BYTES_COUNTED,
    BYTES_PER_LOAD,
    FOOTPRINT_L2,
    MAX_WARPS_PER_BLOCK,
    MAX_WARPS_PER_SM,
    WARP_THREADS,
    LaunchShape,
    OccupancyPoint,
    OccupancySweep,
    launch_shape,
    observed_warps_per_sm,
)
from gpu.params import Progress
from gpu.residency import SharedMemory, cap_residency, l2_cache_bytes
from gpu.timing import EventTimer

KERNEL_SOURCE = "occupancy.cu"
KERNEL_NAME = "occupancy_chase"
DEFAULT_WARPS: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64)
#: The fewest dependent loads per thread (a floor; the L2 rule raises it for small grids).
DEFAULT_STEPS = 64
DEFAULT_REPEATS = 3
#: The array read; raised to 2 × `FOOTPRINT_L2` × L2 where that is larger.
DEFAULT_ARRAY_BYTES = 1 << 30

__all__ = [
    "BYTES_COUNTED",
    "BYTES_PER_LOAD",
    "FOOTPRINT_L2",
    "MAX_WARPS_PER_BLOCK",
    "MAX_WARPS_PER_SM",
    "WARP_THREADS",
    "LaunchShape",
    "OccupancyPoint",
    "OccupancySweep",
    "array_elements",
    "footprint_steps",
    "launch_shape",
    "observed_warps_per_sm",
    "occupancy_check",
    "run_occupancy_sweep",
    "sweep_occupancy",
]


def footprint_steps(
    l2_bytes: int, threads: int, min_steps: int = DEFAULT_STEPS, factor: int = FOOTPRINT_L2
) -> int:
    """Dependent loads per thread so that one launch of ``threads`` reads at least
    ``factor`` × ``l2_bytes`` (and at least ``min_steps``)."""
    if threads < 1 or l2_bytes < 1:
        raise GpuError("the footprint rule needs a thread count and an L2 size above 0")
    return max(min_steps, math.ceil(factor * l2_bytes / (threads * BYTES_PER_LOAD)))


def array_elements(array_bytes: int, l2_bytes: int, factor: int = FOOTPRINT_L2) -> int:
    """uint4 elements of the array: a power of two (the kernel wraps with a mask), at least
    ``array_bytes`` rounded down and at least 2 × ``factor`` × L2, so a launch that reads
    ``factor`` × L2 never comes back to addresses an earlier launch left in L2."""
    floor = max(1, array_bytes // BYTES_PER_LOAD)
    floor = 1 << (floor.bit_length() - 1)
    needed = -(-2 * factor * l2_bytes // BYTES_PER_LOAD)
    return max(floor, 1 << max(0, needed - 1).bit_length())


@dataclass
class _Launcher:
    """Launches one step's shape, each launch starting where the previous one stopped."""

    kernel: Any
    shape: LaunchShape
    steps: int
    elements: int
    dynamic_bytes: int
    buffers: tuple[Any, Any, Any]  # data, sink, block_sm
    stream: Any
    start: int = 0

    def __call__(self) -> None:
        data, sink, block_sm = self.buffers
        args = (
            data,
            np.uint64(self.elements - 1),
            np.int32(self.steps),
            np.uint32(0),
            np.uint64(self.start),
            sink,
            block_sm,
        )
        with self.stream:
            self.kernel(
                (self.shape.blocks,),
                (self.shape.threads_per_block,),
                args,
                shared_mem=self.dynamic_bytes,
            )
        self.start = (self.start + self.shape.threads * self.steps) % self.elements


def sweep_occupancy(
    warps: Iterable[int] = DEFAULT_WARPS,
    steps: int = DEFAULT_STEPS,
    repeats: int = DEFAULT_REPEATS,
    array_bytes: int = DEFAULT_ARRAY_BYTES,
    cancel: threading.Event | None = None,
) -> Generator[Progress, None, OccupancySweep]:
    """Run the sweep on the first CUDA device, yielding progress; return the result.

    ``steps`` is a floor: each step's loads per thread follow the L2 rule
    (`footprint_steps`). Raises GpuError (with the reason) where no device works or an SM
    held other than the warps asked for, Cancelled when ``cancel`` is set between steps.
    GPU memory is freed on every exit.
    """
    counts = sorted(set(int(w) for w in warps))
    if not counts:
        raise GpuError("the occupancy sweep needs at least one warp count")
    if steps < 1 or repeats < 1:
        raise GpuError("steps and repeats must be 1 or more")
    found = detect()
    if found.backend != "cupy" or found.device is None:
        raise GpuError(f"the occupancy sweep needs a CUDA device: {found.reason}")
    sms = found.device.multiprocessors
    shapes = [launch_shape(w, sms) for w in counts]
    cupy = import_cupy()
    l2 = l2_cache_bytes(cupy, found.device.index)
    limits = SharedMemory.of(cupy, found.device.index)
    loaded = load_module(cupy, KERNEL_SOURCE)
    kernel = loaded.function(KERNEL_NAME)
    elements = array_elements(array_bytes, l2)
    plan = [(shape, footprint_steps(l2, shape.threads, steps)) for shape in shapes]
    data = sink = block_sm = None
    try:
        timer = EventTimer(cupy)
        with timer.stream:
            data = cupy.zeros(elements * 4, dtype=cupy.uint32)
            sink = cupy.zeros(max(s.threads for s in shapes), dtype=cupy.uint32)
            block_sm = cupy.zeros(max(s.blocks for s in shapes), dtype=cupy.uint32)
        points = []
        position = 0  # where the next launch starts reading: never where L2 still holds
        for index, (shape, shape_steps) in enumerate(plan):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield Progress(index / len(plan), f"{shape.warps_per_sm} warps per SM")
            dynamic = cap_residency(
                cupy, kernel, shape.threads_per_block, shape.blocks_per_sm, limits
            )
            launch = _Launcher(
                kernel,
                shape,
                shape_steps,
                elements,
                dynamic,
                (data, sink, block_sm),
                timer.stream,
                start=position,
            )
            if index == 0:
                yield Progress(0.0, "warming up (~100 ms of back-to-back launches)")
                timer.warm_up(launch)
            timing = timer.measure(launch, repeats)
            position = launch.start
            with timer.stream:
                placed = cupy.asnumpy(block_sm[: shape.blocks])
            held = observed_warps_per_sm(placed, shape, sms)
            point = OccupancyPoint(
                shape,
                timing.min_ms,
                shape.threads * shape_steps * BYTES_PER_LOAD,
                *held,
                steps=shape_steps,
                launches_per_window=timing.launches,
                dynamic_shared_bytes=dynamic,
            )
            if not point.as_asked:
                raise GpuError(
                    f"residency check failed at {shape.warps_per_sm} warps per SM: SMs held "
                    f"{held[0]}-{held[1]} warps (%smid of every block) although shared memory "
                    f"capped them at {shape.blocks_per_sm} block(s); is another process "
                    "using the GPU?"
                )
            points.append(point)
        yield Progress(1.0, "occupancy sweep done")
    finally:
        del data, sink, block_sm
        # Freeing is best effort: the result (or the error being raised) matters more.
        with contextlib.suppress(Exception):
            cupy.get_default_memory_pool().free_all_blocks()
    notes = [
        loaded.note,
        f"every SM held exactly the warps asked for (%smid of every block), capped with "
        f"dynamic shared memory; L2 {l2 / 2**20:,.0f} MiB, array {elements * 16 / 2**20:,.0f} "
        "MiB; N launches per event pair, best window",
    ]
    return OccupancySweep(
        found.device.describe(),
        sms,
        steps,
        tuple(points),
        tuple(notes),
        l2_bytes=l2,
        array_bytes=elements * BYTES_PER_LOAD,
    )


def run_occupancy_sweep(**options: Any) -> OccupancySweep:
    """`sweep_occupancy` run to the end (for scripts; the app runs the generator in a worker)."""
    sweep = sweep_occupancy(**options)
    while True:
        try:
            next(sweep)
        except StopIteration as done:
            result: OccupancySweep = done.value
            return result


def occupancy_check(**options: Any) -> dict[str, Any]:
    """For the GPU check script: ``{"ran": True, "table": …, "figures": …}`` or
    ``{"ran": False, "reason": …}``; never raises for a missing or failing device."""
    try:
        sweep = run_occupancy_sweep(**options)
    except GpuError as error:
        return {"ran": False, "reason": str(error)}
    return {"ran": True, "table": sweep.table(), "figures": sweep.figures()}
