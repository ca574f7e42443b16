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
largest W is "not saturated" and has no knee. Bytes counted: bytes read (nothing is
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

from gpu.cuda_source import load_module
from gpu.detect import detect, import_cupy
from gpu.errors import Cancelled, GpuError
from gpu.params import Progress
from gpu.residency import SharedMemory, cap_residency, l2_cache_bytes
from gpu.saturation import SaturationFit, Verdict, fit_saturation, saturation_verdict
from gpu.timing import EventTimer

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
#: The fewest dependent loads per thread (a floor; the L2 rule raises it for small grids).
DEFAULT_STEPS = 64
DEFAULT_REPEATS = 3
#: The array read; raised to 2 × `FOOTPRINT_L2` × L2 where that is larger.
DEFAULT_ARRAY_BYTES = 1 << 30
#: Every launch reads at least this many times the L2 size.
FOOTPRINT_L2 = 4
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

    @property
    def threads(self) -> int:
        return self.blocks * self.threads_per_block


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
    """One step: the launch, the best per-launch time of the timed windows, what one launch
    read, and the warps the SMs held."""

    shape: LaunchShape
    milliseconds: float
    bytes_read: int
    sm_warps_min: int
    sm_warps_max: int
    steps: int = 0
    launches_per_window: int = 1
    dynamic_shared_bytes: int = 0

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
    l2_bytes: int = 0
    array_bytes: int = 0

    @property
    def warps(self) -> FloatArray:
        return np.array([p.warps_per_sm for p in self.points], dtype=np.float64)

    @property
    def gbps(self) -> FloatArray:
        return np.array([p.gbps for p in self.points], dtype=np.float64)

    @property
    def peak_gbps(self) -> float:
        """The highest bandwidth measured."""
        return float(self.gbps.max())

    @property
    def gbps_per_warp(self) -> float:
        """Bandwidth per resident warp per SM at the sweep's first (fewest-warps) step."""
        return float(self.gbps[0] / self.warps[0])

    @property
    def fit(self) -> SaturationFit:
        """The least-squares fit of peak · min(1, W / knee)."""
        return fit_saturation(self.warps, self.gbps)

    @property
    def knee(self) -> float:
        """Warps per SM at which the fitted model saturates: (C + L) / C of the model. Only
        a lower bound where the sweep is not `saturated`."""
        return self.fit.knee

    @property
    def verdict(self) -> Verdict:
        return saturation_verdict(self.warps, self.gbps, self.fit)

    @property
    def saturated(self) -> bool:
        return self.verdict.saturated

    @property
    def utilization(self) -> FloatArray:
        """Measured bandwidth as a fraction of the sweep's peak."""
        return self.gbps / self.peak_gbps

    def model_utilization(self, warps: npt.ArrayLike) -> Any:
        """The fitted model as a fraction of the measured peak."""
        return self.fit.model_gbps(warps) / self.peak_gbps

    def figures(self) -> dict[str, Any]:
        """Plain numbers for JSON and the GPU check."""
        fit, verdict = self.fit, self.verdict
        model = self.model_utilization(self.warps)
        return {
            "device": self.device,
            "multiprocessors": self.multiprocessors,
            "min_steps": self.steps,
            "l2_bytes": self.l2_bytes,
            "array_bytes": self.array_bytes,
            "footprint_rule": f"every launch reads >= {FOOTPRINT_L2} x L2 and starts where "
            "the previous one stopped",
            "bytes_counted": BYTES_COUNTED,
            "peak_gbps": round(self.peak_gbps, 3),
            "fit": {
                "model": "gbps = peak * min(1, W / knee), least squares",
                "peak_gbps": round(fit.peak_gbps, 3),
                "knee_warps_per_sm": round(fit.knee, 3),
                "rms_residual_gbps": round(fit.rms_residual_gbps, 3),
                "relative_residual": round(fit.relative_residual, 4),
            },
            "saturated": verdict.saturated,
            "verdict": verdict.text,
            "knee_warps_per_sm": round(fit.knee, 3) if verdict.saturated else None,
            "points": [
                {
                    "warps_per_sm": p.warps_per_sm,
                    "blocks": p.shape.blocks,
                    "threads_per_block": p.shape.threads_per_block,
                    "blocks_per_sm": p.shape.blocks_per_sm,
                    "dynamic_shared_bytes": p.dynamic_shared_bytes,
                    "steps": p.steps,
                    "bytes_per_launch": p.bytes_read,
                    "launches_per_window": p.launches_per_window,
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
            f"occupancy sweep on {self.device}: dependent loads, every launch >= "
            f"{FOOTPRINT_L2} x L2 ({self.l2_bytes / 2**20:,.0f} MiB), {BYTES_COUNTED}",
            "warps/SM  held (min-max)  steps  launches  time ms     GB/s  measured  model",
        ]
        model = self.model_utilization(self.warps)
        for p, u, m in zip(self.points, self.utilization, model, strict=True):
            held = f"{p.sm_warps_min}-{p.sm_warps_max}"
            lines.append(
                f"{p.warps_per_sm:8d}  {held:>14}  {p.steps:5d}  {p.launches_per_window:8d}  "
                f"{p.milliseconds:7.4f}  {p.gbps:7.1f}  {u:8.1%}  {m:5.1%}"
            )
        fit = self.fit
        lines.append(
            f"fit: peak {fit.peak_gbps:,.1f} GB/s, knee W = {fit.knee:.1f}, RMS residual "
            f"{fit.rms_residual_gbps:,.1f} GB/s ({fit.relative_residual:.1%} of the peak); "
            f"{self.gbps_per_warp:.2f} GB/s per warp per SM at the first step"
        )
        lines.append(self.verdict.text)
        lines += list(self.notes)
        return "\n".join(lines)


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
