"""What CuPy experiments allocate, freed however the run ends; out-of-memory in one line."""

from __future__ import annotations

import contextlib
from typing import Any

from gpu.errors import GpuError
from gpu.params import MIB


def is_out_of_memory(error: BaseException) -> bool:
    """CuPy's OutOfMemoryError, or a CUDA runtime allocation failure (pinned memory)."""
    text = f"{type(error).__name__} {error}"
    return "OutOfMemory" in text or "MemoryAllocation" in text or isinstance(error, MemoryError)


def out_of_memory(size_bytes: int, where: str) -> GpuError:
    return GpuError(
        f"out of {where} memory for {size_bytes / MIB:,.0f} MiB of data: use a smaller size"
    )


def release(cupy: Any) -> None:
    """Wait for the device, then hand cached device and pinned blocks back to CUDA.

    Called after the run's arrays are dropped; errors here must not hide the run's own.
    """
    with contextlib.suppress(Exception):
        cupy.cuda.Device().synchronize()
    for pool in ("get_default_memory_pool", "get_default_pinned_memory_pool"):
        with contextlib.suppress(Exception):
            getattr(cupy, pool)().free_all_blocks()
