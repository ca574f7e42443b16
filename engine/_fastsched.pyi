"""Type stub for the optional compiled event loop (engine/_fastsched.c)."""

import numpy as np
import numpy.typing as npt

def schedule(
    durations: npt.NDArray[np.float64],
    workers: tuple[int, int, int],
    buffers: int,
    starts: npt.NDArray[np.float64],
    worker: npt.NDArray[np.int64],
    grant: npt.NDArray[np.float64],
) -> None:
    """Simulate the pipeline; fills starts, worker (n, 3) and grant (n,) in place."""

def critical_path(
    start: npt.NDArray[np.float64],
    end: npt.NDArray[np.float64],
    unit: npt.NDArray[np.int64],
    op: npt.NDArray[np.int64],
    worker_pred: npt.NDArray[np.int64],
    data_pred: npt.NDArray[np.int64],
    slot_pred: npt.NDArray[np.int64],
    last: int,
    tolerance: float,
    path: npt.NDArray[np.int64],
    sums: npt.NDArray[np.float64],
) -> int:
    """Walk the critical path back from ``last``; fills path and sums, returns its length."""
