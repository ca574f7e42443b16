"""How many blocks an SM holds, read from the device and capped on purpose.

Residency decides how much latency occupancy hides, so the experiments set it explicitly
instead of trusting the block scheduler: a kernel launched with enough dynamic shared memory
per block that at most ``k`` blocks fit on an SM runs exactly ``k`` blocks per SM when the
grid has ``k`` blocks per SM. The CUDA occupancy API confirms the cap before anything is
timed. Device attributes come from ``cudaDeviceGetAttribute`` through CuPy's runtime module.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from gpu.errors import GpuError

#: cudaDeviceAttr values (CUDA runtime API; the same in CUDA 12 and 13), used where CuPy's
#: runtime module does not export the name.
ATTRIBUTES = {
    "cudaDevAttrL2CacheSize": 38,
    "cudaDevAttrMaxThreadsPerMultiProcessor": 39,
    "cudaDevAttrMaxSharedMemoryPerMultiprocessor": 81,
    "cudaDevAttrMaxSharedMemoryPerBlockOptin": 97,
    "cudaDevAttrMaxBlocksPerMultiprocessor": 106,
    "cudaDevAttrReservedSharedMemoryPerBlock": 111,
}
#: Shared memory is handed out in steps; the cap is lowered by this much until it fits.
SHARED_STEP = 1024


def device_attribute(cupy: Any, name: str, device: int = 0) -> int:
    """``cudaDeviceGetAttribute(name)`` on ``device``."""
    runtime = cupy.cuda.runtime
    code = getattr(runtime, name, ATTRIBUTES[name])
    return int(runtime.deviceGetAttribute(code, device))


def l2_cache_bytes(cupy: Any, device: int = 0) -> int:
    """The device's L2 cache size in bytes; GpuError where it reports none."""
    size = device_attribute(cupy, "cudaDevAttrL2CacheSize", device)
    if size <= 0:
        raise GpuError(f"the device reports an L2 cache of {size} bytes")
    return size


@dataclass(frozen=True)
class SharedMemory:
    """Shared memory per SM, the most one block may opt in to, and what CUDA reserves per
    block (bytes)."""

    per_sm: int
    per_block_optin: int
    reserved_per_block: int

    @classmethod
    def of(cls, cupy: Any, device: int = 0) -> SharedMemory:
        reserved = 0
        with contextlib.suppress(Exception):  # attribute 111 is CUDA 11+; 0 before
            reserved = device_attribute(cupy, "cudaDevAttrReservedSharedMemoryPerBlock", device)
        return cls(
            per_sm=device_attribute(cupy, "cudaDevAttrMaxSharedMemoryPerMultiprocessor", device),
            per_block_optin=device_attribute(
                cupy, "cudaDevAttrMaxSharedMemoryPerBlockOptin", device
            ),
            reserved_per_block=reserved,
        )


def capping_shared_bytes(limits: SharedMemory, blocks_per_sm: int, static_bytes: int) -> int:
    """Dynamic shared memory per block that lets at most ``blocks_per_sm`` blocks share an
    SM: each block takes more than a (blocks_per_sm + 1)-th of the SM's shared memory."""
    if blocks_per_sm < 1:
        raise GpuError(f"blocks per SM must be 1 or more, not {blocks_per_sm}")
    share = limits.per_sm // blocks_per_sm - limits.reserved_per_block - static_bytes
    dynamic = min(share, limits.per_block_optin - static_bytes)
    dynamic -= dynamic % SHARED_STEP
    if (
        dynamic * (blocks_per_sm + 1)
        + (blocks_per_sm + 1) * (limits.reserved_per_block + static_bytes)
        <= limits.per_sm
    ):
        raise GpuError(
            f"shared memory cannot cap residency at {blocks_per_sm} blocks per SM "
            f"({limits.per_sm:,} bytes per SM, {limits.per_block_optin:,} per block)"
        )
    return max(0, dynamic)


def resident_blocks(cupy: Any, kernel: Any, threads: int, dynamic_bytes: int) -> int:
    """Blocks of ``threads`` one SM holds at once, with ``dynamic_bytes`` of dynamic shared
    memory each (``cuOccupancyMaxActiveBlocksPerMultiprocessor``)."""
    return int(
        cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            kernel.kernel.ptr, threads, dynamic_bytes
        )
    )


def static_shared_bytes(kernel: Any) -> int:
    """Static shared memory the compiled kernel declares (bytes)."""
    return int(kernel.shared_size_bytes)


def cap_residency(
    cupy: Any, kernel: Any, threads: int, blocks_per_sm: int, limits: SharedMemory
) -> int:
    """Give ``kernel`` the dynamic shared memory (returned, bytes) that holds every SM to
    exactly ``blocks_per_sm`` blocks of ``threads``, checked with the occupancy API.

    GpuError where no amount does (registers or threads already allow fewer blocks).
    """
    static = static_shared_bytes(kernel)
    dynamic = capping_shared_bytes(limits, blocks_per_sm, static)
    kernel.max_dynamic_shared_size_bytes = dynamic
    while True:
        held = resident_blocks(cupy, kernel, threads, dynamic)
        if held >= blocks_per_sm or dynamic < SHARED_STEP:
            break
        dynamic -= SHARED_STEP  # allocation granularity rounded the share up: step down
    if held != blocks_per_sm:
        raise GpuError(
            f"cannot hold SMs to exactly {blocks_per_sm} blocks of {threads} threads: the "
            f"occupancy API says {held} fit with {dynamic:,} bytes of dynamic shared memory"
        )
    return dynamic
