"""The occupancy sweep's results: launch shapes, measured points, the sweep with its fit.

Plain values (numpy only), so the app and the GPU check read them without CuPy. The sweep
itself (gpu/occupancy.py) fills them; the model beside the points is the least-squares fit
of gpu/saturation.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from gpu.errors import GpuError
from gpu.saturation import SaturationFit, Verdict, fit_saturation, saturation_verdict

FloatArray = npt.NDArray[np.float64]

WARP_THREADS = 32
#: Bytes one thread reads per step (a uint4).
BYTES_PER_LOAD = 16
#: Hopper and Ampere hold up to 64 warps per SM (2048 threads); blocks are at most 32 warps.
MAX_WARPS_PER_SM = 64
MAX_WARPS_PER_BLOCK = 32
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
        shape = (
            f"knee W = {fit.knee:.1f}"
            if self.saturated
            else f"not saturated by W = {max(p.warps_per_sm for p in self.points)}"
        )
        lines.append(
            f"fit: peak {fit.peak_gbps:,.1f} GB/s, {shape}, RMS residual "
            f"{fit.rms_residual_gbps:,.1f} GB/s ({fit.relative_residual:.1%} of the peak); "
            f"{self.gbps_per_warp:.2f} GB/s per warp per SM at the first step"
        )
        lines.append(self.verdict.text)
        lines += list(self.notes)
        return "\n".join(lines)
