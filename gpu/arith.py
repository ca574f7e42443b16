"""The arithmetic every experiment applies per element, and its check against numpy.

``y ← a·y + c·x``, ``intensity`` times, from ``y = x`` (the CUDA kernels in
gpu/kernels/chain.cuh do the same with one fused multiply-add per step). With ``a < 1``
rounding errors are damped, and the closed form ``x·(aⁿ + c·(1 − aⁿ)/(1 − a))`` still
depends on x, so a chunk that is lost, swapped or stale fails the check. The check uses the
closed form in float64, independent of the code under test.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from gpu.errors import GpuError

FloatArray = npt.NDArray[np.float32]

#: The chain's constants, as the float32 values the kernels receive.
A = np.float32(0.99)
C = np.float32(2.0 * (1.0 - 0.99))
#: Relative tolerance of the check: float32 rounding, damped by a = 0.99, stays near 1e-5.
RTOL = 1e-4
#: Elements checked per chunk (evenly spread, first and last included).
CHECK_PER_CHUNK = 4096
#: Elements the CPU computes on at a time: block and scratch (256 KiB) fit a core's L2.
BLOCK = 32768
#: Passes over a block between looks at the stop flag (a few ms at most).
STOP_CHECK = 64


def make_input(n_elements: int, seed: int = 0) -> FloatArray:
    """Values in [0.5, 1.5): no zeros, so a missing chunk can't pass as correct."""
    values = np.random.default_rng(seed).random(n_elements, dtype=np.float32)
    values += np.float32(0.5)
    return values


def fill_input(target: FloatArray, seed: int = 0) -> None:
    """`make_input` into an existing (e.g. pinned) array."""
    np.copyto(target, make_input(len(target), seed))


def chain_numpy(
    data: FloatArray,
    intensity: int,
    scratch: FloatArray,
    should_stop: Callable[[], bool] | None = None,
) -> bool:
    """Apply the chain to ``data`` in place (numpy releases the GIL in every ufunc).

    Works through blocks of `BLOCK` elements, all passes on one block before the next, so
    the passes run from the core's own cache instead of main memory (as a CPU programmer
    would tile it, and like the GPU's registers). ``scratch`` (at least `BLOCK` long) holds
    c·x. Returns False when ``should_stop`` said so midway (the data is then garbage,
    which the caller discards).
    """
    if intensity <= 0:
        return True
    for lo in range(0, len(data), BLOCK):
        if should_stop is not None and should_stop():
            return False
        block = data[lo : lo + BLOCK]
        cx = np.multiply(block, C, out=scratch[: len(block)])
        for step in range(intensity):
            if step % STOP_CHECK == STOP_CHECK - 1 and should_stop is not None and should_stop():
                return False
            np.multiply(block, A, out=block)
            np.add(block, cx, out=block)
    return True


def expected(x: npt.NDArray[np.floating], intensity: int) -> npt.NDArray[np.float64]:
    """The exact result of the chain (float64 closed form)."""
    a, c = float(A), float(C)
    power = a**intensity
    return np.asarray(x, dtype=np.float64) * (power + c * (1.0 - power) / (1.0 - a))


def sample_indices(bounds: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Indices to check: `CHECK_PER_CHUNK` spread over every chunk [bounds[i], bounds[i+1])."""
    picks = [
        np.unique(np.linspace(lo, hi - 1, min(CHECK_PER_CHUNK, hi - lo)).astype(np.int64))
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        if hi > lo
    ]
    return np.concatenate(picks) if picks else np.zeros(0, dtype=np.int64)


def check_result(
    got: npt.NDArray[np.floating],
    want: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int64],
    what: str,
) -> None:
    """Raise GpuError naming the first wrong element: a wrong result is never a timing."""
    values = np.asarray(got, dtype=np.float64)
    good = np.isclose(values, want, rtol=RTOL, atol=1e-6)
    if not good.all():
        bad = int(np.flatnonzero(~good)[0])
        raise GpuError(
            f"{what}: wrong result at element {int(indices[bad]):,} "
            f"(got {values[bad]:.7g}, numpy says {want[bad]:.7g}); "
            f"{int((~good).sum()):,} of {len(good):,} checked values differ"
        )
