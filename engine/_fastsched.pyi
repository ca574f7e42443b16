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
