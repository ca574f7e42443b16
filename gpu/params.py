"""Parameters of the chunked pipeline experiment, validated, and the progress type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from gpu.errors import GpuError

MIB = 1 << 20
#: Bytes per element (float32).
ITEM = 4
MAX_CHUNKS = 4096
MAX_STREAMS = 64
MAX_INTENSITY = 1_000_000
MAX_REPEATS = 1000


class Progress(NamedTuple):
    """What an experiment generator yields: done fraction in [0, 1] and what it is doing."""

    fraction: float
    message: str


@dataclass(frozen=True)
class PipelineParams:
    """The chunked copy-in / compute / copy-out experiment.

    Parameters
    ----------
    size_bytes
        Data size (float32 elements: size_bytes // 4).
    chunks
        Ops of the pipeline: the data is split into this many nearly equal chunks.
    streams
        Chunks in flight when pipelined: CUDA streams (each with its own device buffer), or
        staging buffers on the CPU. The model's buffer slots.
    intensity
        Multiply-adds per element in the compute stage; None = calibrate (compute ≈ copy
        on a GPU; on CPU threads see `gpu.cpu_backend.COMPUTE_SHARE`).
    repeats
        Timed runs per policy; the run with the median makespan is reported.
    warmup
        Untimed runs per policy first.
    time_limit_s
        Refuse (`gpu.calibration.RunTooLong`) a run whose calibrated estimate is longer;
        None = no limit (the app, which can cancel).
    """

    size_bytes: int
    chunks: int = 16
    streams: int = 3
    intensity: int | None = None
    repeats: int = 5
    warmup: int = 1
    seed: int = 0
    time_limit_s: float | None = None

    def __post_init__(self) -> None:
        _whole(self.size_bytes, "size in bytes", ITEM, 1 << 40)
        _whole(self.chunks, "chunks", 1, MAX_CHUNKS)
        _whole(self.streams, "streams", 1, MAX_STREAMS)
        if self.intensity is not None:
            _whole(self.intensity, "intensity", 0, MAX_INTENSITY)
        _whole(self.repeats, "repeats", 1, MAX_REPEATS)
        _whole(self.warmup, "warm-up runs", 0, MAX_REPEATS)
        if self.time_limit_s is not None and not self.time_limit_s > 0:
            raise GpuError(f"the time limit must be above 0 seconds, not {self.time_limit_s}")
        if self.n_elements < self.chunks:
            raise GpuError(
                f"{self.chunks} chunks need at least {self.chunks * ITEM} bytes of data, "
                f"not {self.size_bytes}"
            )

    @property
    def n_elements(self) -> int:
        return self.size_bytes // ITEM

    @property
    def bounds(self) -> npt.NDArray[np.int64]:
        """Chunk i is elements [bounds[i], bounds[i + 1]); sizes differ by at most one."""
        return np.linspace(0, self.n_elements, self.chunks + 1).round().astype(np.int64)

    @property
    def max_chunk(self) -> int:
        return int(np.diff(self.bounds).max())


def multiply_adds(intensity: int) -> str:
    """ "1 multiply-add per element", "16 multiply-adds per element"."""
    return f"{intensity:,} multiply-add{'' if intensity == 1 else 's'} per element"


def _whole(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise GpuError(f"{what} must be a whole number, not {value!r}")
    if not low <= int(value) <= high:
        raise GpuError(f"{what} must be between {low:,} and {high:,}, not {int(value):,}")
    return int(value)
