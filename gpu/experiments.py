"""One door to the experiments for the CLI and the panel: pick the backend, run to the end."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import TypeVar

from gpu import cpu_backend, streams
from gpu.measured import PipelineResult
from gpu.params import PipelineParams, Progress

Result = TypeVar("Result")


def default_params(backend: str, **changes: object) -> PipelineParams:
    """Experiment 1's defaults for ``backend`` ("cupy" and "cpu": 256 MiB in 16 chunks),
    with ``changes`` (None values are ignored) applied and validated."""
    if backend == "cupy":
        return streams.default_params(**changes)
    return cpu_backend.default_params(**changes)


def pipeline_experiment(
    backend: str, params: PipelineParams, cancel: threading.Event | None = None
) -> Generator[Progress, None, PipelineResult]:
    """Experiment 1 on ``backend`` ("cupy" or "cpu"; resolve "auto" with
    `gpu.detect.resolve_backend` first)."""
    if backend == "cupy":
        return streams.run_cupy_pipeline(params, cancel)
    return cpu_backend.run_cpu_pipeline(params, cancel)


def run_to_end(
    experiment: Generator[Progress, None, Result],
    on_progress: Callable[[Progress], None] | None = None,
) -> Result:
    """Drive an experiment generator to its result, passing each progress report on."""
    while True:
        try:
            report = next(experiment)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        if on_progress is not None:
            on_progress(report)
