"""The occupancy sweep: warp latency hiding measured on a real SM.

A memory-bound kernel (gpu/kernels/occupancy.cu) whose loads depend on each other, so each
warp has one 16-byte-per-thread load in flight at a time, as in the warp model. It is
launched with 1, 2, … warps per SM (one block per SM up to 32 warps, two above), and the
bandwidth it reaches is measured at each step. Every block records the SM it ran on
(``%smid``), so the warps each SM really held are reported next to the ones asked for.

The model's curve beside it: bandwidth = peak · min(1, W / knee), the warp model's
min(1, W·C / (C + L)) with the knee (C + L) / C read off the measurement as peak bandwidth
over the bandwidth of the first step per warp. Bytes counted: bytes read (nothing is
written). CuPy is imported only when a sweep runs.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.warps import analytic_utilization
from gpu.cuda_source import load_module
from gpu.detect import detect, import_cupy
from gpu.errors import Cancelled, GpuError
from gpu.params import Progress

FloatArray = npt.NDArray[np.float64]

KERNEL_SOURCE = "occupancy.cu"
KERNEL_NAME = "occupancy_chase"
WARP_THREADS = 32
#: Bytes one thread reads per step (a uint4).
BYTES_PER_LOAD = 16
#: Hopper and Ampere hold up to 64 warps per SM (2048 threads); blocks are at most 32 warps.
MAX_WARPS_PER_SM = 64
MAX_WARPS_PER_BLOCK = 32
DEFAULT_WARPS: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64)
DEFAULT_STEPS = 1024
DEFAULT_REPEATS = 3
#: Far larger than any L2 (60 MB on H200), so loads go to DRAM.
DEFAULT_ARRAY_BYTES = 1 << 30
BYTES_COUNTED = "bytes read (16-byte loads that bypass L1); nothing is written"


@dataclass(frozen=True)
class LaunchShape:
    """How a step of the sweep is launched: ``blocks`` blocks of ``threads_per_block``,
    ``blocks_per_sm`` of them per SM, ``warps_per_sm`` warps per SM."""

    warps_per_sm: int
    blocks_per_sm: int
    blocks: int
    threads_per_block: int

    @property
    def warps_per_block(self) -> int:
        return self.threads_per_block // WARP_THREADS


def launch_shape(warps_per_sm: int, multiprocessors: int) -> LaunchShape:
    """One block of W warps per SM for W ≤ 32; above, equal blocks of at most 32 warps."""
    if not 1 <= warps_per_sm <= MAX_WARPS_PER_SM:
        raise GpuError(f"warps per SM must be between 1 and {MAX_WARPS_PER_SM}, not {warps_per_sm}")
    if multiprocessors < 1:
        raise GpuError(f"the device reports {multiprocessors} SMs")
    per_sm = math.ceil(warps_per_sm / MAX_WARPS_PER_BLOCK)
    if warps_per_sm % per_sm:
        raise GpuError(
            f"{warps_per_sm} warps per SM do not split into {per_sm} equal blocks: "
            "above 32 use an even number"
        )
    threads = WARP_THREADS * warps_per_sm // per_sm
    return LaunchShape(warps_per_sm, per_sm, per_sm * multiprocessors, threads)


def observed_warps_per_sm(
    block_sm: npt.ArrayLike, shape: LaunchShape, multiprocessors: int
) -> tuple[int, int]:
    """(fewest, most) warps any SM held, from the SM id each block recorded.

    ``%smid`` numbers need not be contiguous (PTX ISA: they range up to ``%nsmid`` - 1,
    which may exceed the SM count), so unused ids are not read as idle SMs: the fewest is 0
    only where fewer distinct SMs than the device has ran a block.
    """
    ids = np.asarray(block_sm, dtype=np.int64).reshape(-1)[: shape.blocks]
    counts = np.bincount(ids) * shape.warps_per_block
    held = counts[counts > 0]
    if len(held) == 0:
        return 0, 0
    fewest = int(held.min()) if len(held) >= multiprocessors else 0
    return fewest, int(held.max())


@dataclass(frozen=True)
class OccupancyPoint:
    """One step: the launch, the best time of the repeats and what the SMs held."""

    shape: LaunchShape
    milliseconds: float
    bytes_read: int
    sm_warps_min: int
    sm_warps_max: int

    @property
    def warps_per_sm(self) -> int:
        return self.shape.warps_per_sm

    @property
    def gbps(self) -> float:
        return self.bytes_read / (self.milliseconds * 1e6)

    @property
    def as_asked(self) -> bool:
        """Every SM held exactly the warps asked for."""
        return self.sm_warps_min == self.sm_warps_max == self.shape.warps_per_sm


@dataclass(frozen=True)
class OccupancySweep:
    """Measured bandwidth against warps per SM, and the warp model fitted beside it."""

    device: str
    multiprocessors: int
    steps: int
    points: tuple[OccupancyPoint, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def warps(self) -> FloatArray:
        return np.array([p.warps_per_sm for p in self.points], dtype=np.float64)

    @property
    def gbps(self) -> FloatArray:
        return np.array([p.gbps for p in self.points], dtype=np.float64)

    @property
    def peak_gbps(self) -> float:
        return float(self.gbps.max())

    @property
    def gbps_per_warp(self) -> float:
        """Bandwidth per resident warp per SM at the sweep's first (fewest-warps) step."""
        return float(self.gbps[0] / self.warps[0])

    @property
    def knee(self) -> float:
        """Warps per SM at which the fitted model saturates: (C + L) / C of the model."""
        return self.peak_gbps / self.gbps_per_warp

    @property
    def utilization(self) -> FloatArray:
        """Measured bandwidth as a fraction of the sweep's peak."""
        return self.gbps / self.peak_gbps

    def model_utilization(self, warps: npt.ArrayLike) -> Any:
        """The warp model min(1, W·C / (C + L)) with C = 1 and L = knee − 1."""
        return analytic_utilization(warps, 1.0, self.knee - 1.0)

    def figures(self) -> dict[str, Any]:
        """Plain numbers for JSON and the GPU check."""
        model = self.model_utilization(self.warps)
        return {
            "device": self.device,
            "multiprocessors": self.multiprocessors,
            "steps": self.steps,
            "bytes_counted": BYTES_COUNTED,
            "peak_gbps": round(self.peak_gbps, 3),
            "knee_warps_per_sm": round(self.knee, 3),
            "points": [
                {
                    "warps_per_sm": p.warps_per_sm,
                    "blocks": p.shape.blocks,
                    "threads_per_block": p.shape.threads_per_block,
                    "sm_warps_min": p.sm_warps_min,
                    "sm_warps_max": p.sm_warps_max,
                    "milliseconds": round(p.milliseconds, 6),
                    "gbps": round(p.gbps, 3),
                    "utilization": round(float(u), 4),
                    "model_utilization": round(float(m), 4),
                }
                for p, u, m in zip(self.points, self.utilization, model, strict=True)
            ],
            "notes": list(self.notes),
        }

    def table(self) -> str:
        """A text table: warps per SM, what the SMs held, time, GB/s, measured vs model."""
        lines = [
            f"occupancy sweep on {self.device}: {self.steps} dependent loads per thread, "
            f"{BYTES_COUNTED}",
            "warps/SM  held (min-max)   time ms     GB/s  measured  model",
        ]
        model = self.model_utilization(self.warps)
        for p, u, m in zip(self.points, self.utilization, model, strict=True):
            held = f"{p.sm_warps_min}-{p.sm_warps_max}"
            lines.append(
                f"{p.warps_per_sm:8d}  {held:>14}  {p.milliseconds:8.4f}  {p.gbps:7.1f}  "
                f"{u:8.1%}  {m:5.1%}"
            )
        lines.append(
            f"peak {self.peak_gbps:.1f} GB/s; {self.gbps_per_warp:.2f} GB/s per warp per SM at "
            f"the first step; model knee W = {self.knee:.1f} warps per SM"
        )
        lines += list(self.notes)
        return "\n".join(lines)


def _array_elements(array_bytes: int) -> int:
    """uint4 elements of the array: a power of two (the kernel wraps with a mask)."""
    vectors = max(1, array_bytes // BYTES_PER_LOAD)
    return 1 << (vectors.bit_length() - 1)


def sweep_occupancy(
    warps: Iterable[int] = DEFAULT_WARPS,
    steps: int = DEFAULT_STEPS,
    repeats: int = DEFAULT_REPEATS,
    array_bytes: int = DEFAULT_ARRAY_BYTES,
    cancel: threading.Event | None = None,
) -> Generator[Progress, None, OccupancySweep]:
    """Run the sweep on the first CUDA device, yielding progress; return the result.

    Raises GpuError (with the reason) where no device works, Cancelled when ``cancel`` is
    set between steps. GPU memory is freed on every exit.
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
    loaded = load_module(cupy, KERNEL_SOURCE)
    kernel = loaded.function(KERNEL_NAME)
    elements = _array_elements(array_bytes)
    data = sink = block_sm = None
    try:
        data = cupy.zeros(elements * 4, dtype=cupy.uint32)
        sink = cupy.zeros(max(s.blocks * s.threads_per_block for s in shapes), dtype=cupy.uint32)
        block_sm = cupy.zeros(max(s.blocks for s in shapes), dtype=cupy.uint32)
        begin, end = cupy.cuda.Event(), cupy.cuda.Event()
        args = (data, np.uint64(elements - 1), np.int32(steps), np.uint32(0), sink, block_sm)
        points = []
        for index, shape in enumerate(shapes):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield Progress(index / len(shapes), f"{shape.warps_per_sm} warps per SM")
            grid, block = (shape.blocks,), (shape.threads_per_block,)
            kernel(grid, block, args)  # warm-up (and the SM ids)
            end.record()
            end.synchronize()
            times = []
            for _ in range(repeats):
                begin.record()
                kernel(grid, block, args)
                end.record()
                end.synchronize()
                times.append(float(cupy.cuda.get_elapsed_time(begin, end)))
            held = observed_warps_per_sm(cupy.asnumpy(block_sm[: shape.blocks]), shape, sms)
            total = shape.blocks * shape.threads_per_block * steps * BYTES_PER_LOAD
            points.append(OccupancyPoint(shape, min(times), total, *held))
        yield Progress(1.0, "occupancy sweep done")
    finally:
        del data, sink, block_sm
        # Freeing is best effort: the result (or the error being raised) matters more.
        with contextlib.suppress(Exception):
            cupy.get_default_memory_pool().free_all_blocks()
    notes = [loaded.note]
    uneven = [p.warps_per_sm for p in points if not p.as_asked]
    if uneven:
        notes.append(
            "the block scheduler did not give every SM the warps asked for at "
            f"{', '.join(map(str, uneven))} warps per SM (see held min-max)"
        )
    return OccupancySweep(found.device.describe(), sms, steps, tuple(points), tuple(notes))


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
