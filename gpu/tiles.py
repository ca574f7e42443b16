"""Experiment 2 on a CUDA device: pipelining inside a kernel, global → shared → compute.

Three kernels (gpu/kernels/tile_sync.cu, tile_async.cu) work through 4 KiB tiles: the
synchronous one loads a tile, waits, computes, stores; the cp.async ones (sm_80+) prefetch
the next one or two tiles while computing the current one. An intensity sweep goes from
memory-bound to compute-bound, and every variant's effective bandwidth is held against a
plain device-to-device copy measured in the same run. Bandwidth here always counts bytes
read + bytes written.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpu import arith
from gpu.cuda_source import load_module
from gpu.detect import device_info, import_cupy
from gpu.errors import Cancelled, GpuError
from gpu.gpu_memory import is_out_of_memory, out_of_memory, release
from gpu.params import ITEM, MIB, Progress

#: Floats per tile (256 threads × one float4 each): gpu/kernels/tile_common.cuh TILE_VEC × 4.
TILE = 1024
THREADS = 256
SYNC = "sync"
VARIANTS = {SYNC: "synchronous", "async2": "cp.async, 2 stages", "async3": "cp.async, 3 stages"}
KERNELS = {SYNC: "tile_sync", "async2": "tile_async2", "async3": "tile_async3"}
DEFAULT_INTENSITIES = (0, 8, 16, 32, 64, 128, 512)
CHECK_COUNT = 65536


@dataclass(frozen=True)
class TileParams:
    """Experiment 2's knobs: data size, the intensity sweep, timing repeats, grid size."""

    size_bytes: int = 256 * MIB
    intensities: tuple[int, ...] = DEFAULT_INTENSITIES
    repeats: int = 10
    warmup: int = 2
    blocks_per_sm: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        if self.size_bytes < TILE * ITEM:
            raise GpuError(f"experiment 2 needs at least {TILE * ITEM} bytes (one tile)")
        if not self.intensities or any(not 0 <= i <= 1_000_000 for i in self.intensities):
            raise GpuError("intensities must be whole numbers between 0 and 1,000,000")
        if not 1 <= self.repeats <= 1000 or not 0 <= self.warmup <= 1000:
            raise GpuError("repeats must be 1 to 1,000 and warm-up runs 0 to 1,000")
        if not 1 <= self.blocks_per_sm <= 64:
            raise GpuError("blocks per SM must be between 1 and 64")

    @property
    def n_elements(self) -> int:
        """Whole tiles only."""
        return (self.size_bytes // ITEM) // TILE * TILE


@dataclass(frozen=True)
class TileRow:
    """One intensity: median ms of the device-to-device copy and of every variant."""

    intensity: int
    copy_ms: float
    variant_ms: dict[str, float]


@dataclass(frozen=True)
class TileResult:
    device: str
    params: TileParams
    variants: tuple[str, ...]
    rows: tuple[TileRow, ...]
    checked_values: int
    notes: tuple[str, ...] = field(default=())

    @property
    def bytes_moved(self) -> int:
        """Bytes read + bytes written by every variant and by the copy."""
        return 2 * ITEM * self.params.n_elements

    def gbps(self, milliseconds: float) -> float:
        return self.bytes_moved / (milliseconds * 1e6) if milliseconds > 0 else 0.0

    def fraction_of_copy(self, row: TileRow, variant: str) -> float:
        return row.copy_ms / row.variant_ms[variant]

    def best_pipelined(self) -> tuple[TileRow, str, float] | None:
        """The (row, variant, fraction of copy bandwidth) where a cp.async variant comes
        closest to the copy, at the intensity where sync falls furthest behind it."""
        pipelined = [v for v in self.variants if v != SYNC]
        if not pipelined:
            return None
        candidates = [
            (row, v, self.fraction_of_copy(row, v)) for row in self.rows for v in pipelined
        ]
        return max(candidates, key=lambda item: item[2])

    def figures(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "size_bytes": ITEM * self.params.n_elements,
            "bandwidth_counts": "bytes read + bytes written",
            "variants": {v: VARIANTS[v] for v in self.variants},
            "rows": [
                {
                    "intensity": row.intensity,
                    "copy_ms": row.copy_ms,
                    "copy_gbps": self.gbps(row.copy_ms),
                    **{f"{v}_ms": row.variant_ms[v] for v in self.variants},
                    **{f"{v}_gbps": self.gbps(row.variant_ms[v]) for v in self.variants},
                    **{
                        f"{v}_speedup_over_sync": row.variant_ms[SYNC] / row.variant_ms[v]
                        for v in self.variants
                        if v != SYNC
                    },
                }
                for row in self.rows
            ],
            "checked_values": self.checked_values,
            "notes": list(self.notes),
        }


def run_tiles(
    params: TileParams | None = None, cancel: threading.Event | None = None
) -> Generator[Progress, None, TileResult]:
    """The intensity sweep; yields progress; GpuError on compile errors, wrong results, OOM."""
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
    source = target = None
    try:
        n = params.n_elements
        host = arith.make_input(n, params.seed)
        # Every device operation goes on the timer's stream. It is non-blocking, so work on
        # the legacy default stream (cupy.asarray's copy, the NaN fill, the gather) would not
        # be ordered before or after the timed kernels.
        timer = _Timer(cupy)
        indices = np.unique(np.linspace(0, n - 1, min(n, CHECK_COUNT)).astype(np.int64))
        reversed_in_tile = indices // TILE * TILE + (TILE - 1 - indices % TILE)
        try:
            with timer.stream:
                source = cupy.asarray(host)
                target = cupy.empty_like(source)
                check_at = cupy.asarray(indices)
            timer.stream.synchronize()
        except Exception as error:
            if is_out_of_memory(error):
                raise out_of_memory(2 * ITEM * n, "GPU") from None
            raise
        blocks = min(n // TILE, info.multiprocessors * params.blocks_per_sm)
        rows: list[TileRow] = []
        steps = len(params.intensities) * (len(variants) + 1)
        step = 0
        for intensity in params.intensities:
            copy_ms = timer.median(
                lambda: target.data.copy_from_device_async(source.data, ITEM * n, timer.stream),
                params,
            )
            step += 1
            variant_ms: dict[str, float] = {}
            want = arith.expected(host[reversed_in_tile], intensity)
            for variant in variants:
                if cancel.is_set():
                    raise Cancelled()
                yield Progress(step / steps, f"intensity {intensity}: {VARIANTS[variant]}")
                with timer.stream:  # stale output must not pass the check
                    target[check_at] = np.float32(np.nan)
                args = (source, target, np.int64(n // TILE), np.int32(intensity), arith.A, arith.C)

                def launch(kernel: Any = kernels[variant], args: tuple[Any, ...] = args) -> None:
                    with timer.stream:
                        kernel((blocks,), (THREADS,), args)

                variant_ms[variant] = timer.median(launch, params)
                with timer.stream:
                    got = cupy.asnumpy(target[check_at])
                arith.check_result(
                    got, want, indices, f"{VARIANTS[variant]}, intensity {intensity}"
                )
                step += 1
            rows.append(TileRow(intensity, copy_ms, variant_ms))
        yield Progress(1.0, "done")
        return TileResult(
            info.describe(), params, tuple(variants), tuple(rows), len(indices), tuple(notes)
        )
    except Exception as error:
        if is_out_of_memory(error):
            raise out_of_memory(2 * ITEM * params.n_elements, "GPU") from None
        raise
    finally:
        source = target = None
        release(cupy)


class _Timer:
    """CUDA events around an action on one stream; the median of the timed repeats."""

    def __init__(self, cupy: Any) -> None:
        self.cupy = cupy
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.begin = cupy.cuda.Event()
        self.end = cupy.cuda.Event()

    def median(self, action: Any, params: TileParams) -> float:
        times: list[float] = []
        for index in range(params.warmup + params.repeats):
            self.begin.record(self.stream)
            action()
            self.end.record(self.stream)
            self.end.synchronize()
            if index >= params.warmup:
                times.append(float(self.cupy.cuda.get_elapsed_time(self.begin, self.end)))
        return float(np.median(times))


def intensities_from_text(text: str) -> tuple[int, ...]:
    """ "0,8,32" → (0, 8, 32); GpuError on anything else."""
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise GpuError(
            f"intensities must be whole numbers separated by commas, not {text!r}"
        ) from None
    if not values:
        raise GpuError("give at least one intensity")
    return values


__all__ = ["TileParams", "TileResult", "TileRow", "intensities_from_text", "run_tiles"]
