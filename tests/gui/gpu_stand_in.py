"""A stand-in for the GPU page's experiment 1: a `PipelineResult` made by hand (no run, no
timing), for the panel's tests and the real-window checks under Xvfb."""

from __future__ import annotations

from gpu.measured import PipelineResult


def stand_in_result(
    sequential_makespans: tuple[float, ...] = (8.5, 9.0, 12.25),
    side_by_side: float = 1.0,
) -> PipelineResult:
    """Experiment 1's result, made by hand: three chunks whose stages take 1 ms alone;
    side by side each stage takes ``side_by_side`` ms (below 1: faster than alone, so the
    measurement beats the model)."""
    import numpy as np

    from gpu.experiments import default_params
    from gpu.measured import CPU_UNITS, measured_schedule, predict

    chunks = 3
    starts = np.array([[3.0 * i, 3.0 * i + 1, 3.0 * i + 2] for i in range(chunks)])
    sequential = measured_schedule(
        starts,
        starts + 1.0,
        policy="sequential",
        buffers=1,
        unit_names=CPU_UNITS,
        label="sequential on stand-in threads",
    )
    step = side_by_side
    starts = np.array([[step * i, step * (i + 1), step * (i + 2)] for i in range(chunks)])
    pipelined = measured_schedule(
        starts,
        starts + step,
        policy="pipelined",
        buffers=3,
        unit_names=CPU_UNITS,
        label="pipelined on stand-in threads",
    )
    params = default_params("cpu", size_bytes=3 * 4096, chunks=chunks, repeats=3, intensity=1)
    return PipelineResult(
        "cpu",
        "stand-in",
        params,
        1,
        sequential,
        pipelined,
        predict(sequential, 3),
        checked_values=3072,
        sequential_makespans=sequential_makespans,
        pipelined_makespans=(pipelined.makespan,) * 3,
    )
