"""Measured runs as Schedules, the model's prediction from them, and the result figures.

A run is timed as a (chunks, 3) array of starts and one of ends: copy-in (read), compute,
copy-out (write) of every chunk, relative to the run's start. It becomes a Schedule with
source = "measured" and one worker per unit, so the app draws it exactly like the model.
Rows may overlap themselves where the hardware really ran two chunks' stages at once;
engine.metrics counts overlaps once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.scenario import Scenario
from engine.schedule import Schedule
from engine.scheduler import simulate
from gpu.params import PipelineParams

FloatArray = npt.NDArray[np.float64]

#: How the app names the three units of each backend.
GPU_UNITS = ("copy-in", "SMs", "copy-out")
CPU_UNITS = ("read thread", "compute thread", "write thread")
TIME_UNIT = "ms"


def measured_schedule(
    starts: FloatArray,
    ends: FloatArray,
    *,
    policy: str,
    buffers: int,
    unit_names: tuple[str, ...],
    label: str,
) -> Schedule:
    """A measured Schedule from per-chunk stage times (ms, any common origin).

    The origin moves to the earliest start, so every measured run begins at 0 like the
    model's.
    """
    starts = np.asarray(starts, dtype=np.float64)
    ends = np.asarray(ends, dtype=np.float64)
    origin = float(starts.min()) if starts.shape[0] else 0.0
    return Schedule.from_stage_matrices(
        starts - origin,
        np.maximum(ends, starts) - origin,
        workers=(1, 1, 1),
        policy=policy,
        source="measured",
        time_unit=TIME_UNIT,
        buffers=buffers,
        label=label,
        unit_names=unit_names,
    )


def median_run(schedules: list[Schedule]) -> Schedule:
    """The run with the median makespan (the lower middle one for an even count)."""
    order = sorted(range(len(schedules)), key=lambda i: schedules[i].makespan)
    return schedules[order[(len(order) - 1) // 2]]


def mean_stage_times(schedule: Schedule) -> tuple[float, float, float]:
    """Mean duration of read, compute and write over the run's chunks."""
    durations = schedule.op_ends - schedule.op_starts
    read, compute, write = (float(v) for v in durations.mean(axis=0))
    return read, compute, write


def predict(sequential: Schedule, buffers: int) -> Schedule:
    """The engine's pipelined schedule for the same chunks: the sequential run's mean stage
    times, one worker per unit, ``buffers`` slots (streams in flight)."""
    read, compute, write = mean_stage_times(sequential)
    scenario = Scenario.uniform_ops(
        sequential.n_ops,
        read=read,
        compute=compute,
        write=write,
        buffers=buffers,
        policy="pipelined",
        name="model of the measured run",
    )
    return simulate(scenario, "pipelined").with_meta(
        unit_names=sequential.unit_names,
        time_unit=sequential.time_unit,
        label="model: pipelined, from the sequential run's mean stage times",
    )


@dataclass(frozen=True)
class PipelineResult:
    """Experiment 1 (GPU streams) or its CPU twin: measured runs, the model, the figures.

    Bandwidths are in GB/s (10⁹ bytes per second). Copy bandwidth counts the bytes moved
    once; kernel bandwidth counts bytes read + written.
    """

    backend: str
    device: str
    params: PipelineParams
    intensity: int
    sequential: Schedule
    pipelined: Schedule
    predicted: Schedule
    checked_values: int
    notes: tuple[str, ...] = field(default=())

    @property
    def speedup(self) -> float:
        return self.sequential.makespan / self.pipelined.makespan

    @property
    def predicted_speedup(self) -> float:
        return self.sequential.makespan / self.predicted.makespan

    @property
    def overlap_efficiency(self) -> float:
        """Measured pipelined speed as a fraction of the model's (predicted makespan /
        measured makespan): 1.0 means the hardware overlaps as well as the model says."""
        return self.predicted.makespan / self.pipelined.makespan

    @property
    def stage_ms(self) -> tuple[float, float, float]:
        return mean_stage_times(self.sequential)

    @property
    def side_by_side_slowdown(self) -> tuple[float, float, float]:
        """Per stage, mean time in the pipelined run ÷ mean time alone (sequential run).

        The model assumes a stage takes as long side by side as alone. Above 1, the units
        are not independent: shared cores, memory bus or copy engines slow each other down,
        which is time the model cannot see.
        """
        alone = mean_stage_times(self.sequential)
        together = mean_stage_times(self.pipelined)
        ratios = [t / a if a > 0 else 1.0 for t, a in zip(together, alone, strict=True)]
        return (ratios[0], ratios[1], ratios[2])

    def _per_chunk_gbps(self, milliseconds: float, factor: float) -> float:
        chunk_bytes = self.params.n_elements * 4 / self.params.chunks
        return factor * chunk_bytes / (milliseconds * 1e6) if milliseconds > 0 else 0.0

    @property
    def read_gbps(self) -> float:
        return self._per_chunk_gbps(self.stage_ms[0], 1.0)

    @property
    def compute_gbps(self) -> float:
        return self._per_chunk_gbps(self.stage_ms[1], 2.0)

    @property
    def write_gbps(self) -> float:
        return self._per_chunk_gbps(self.stage_ms[2], 1.0)

    def figures(self) -> dict[str, Any]:
        """The numbers the table and the JSON show (times in ms)."""
        read, compute, write = self.stage_ms
        return {
            "backend": self.backend,
            "device": self.device,
            "size_bytes": self.params.size_bytes,
            "chunks": self.params.chunks,
            "streams": self.params.streams,
            "intensity": self.intensity,
            "repeats": self.params.repeats,
            "time_unit": TIME_UNIT,
            "sequential_makespan": self.sequential.makespan,
            "pipelined_makespan": self.pipelined.makespan,
            "speedup": self.speedup,
            "predicted_makespan": self.predicted.makespan,
            "predicted_speedup": self.predicted_speedup,
            "overlap_efficiency": self.overlap_efficiency,
            "mean_read": read,
            "mean_compute": compute,
            "mean_write": write,
            "read_gbps": self.read_gbps,
            "compute_gbps": self.compute_gbps,
            "write_gbps": self.write_gbps,
            "checked_values": self.checked_values,
            "notes": list(self.notes),
        }

    @property
    def schedules(self) -> list[Schedule]:
        """[measured pipelined, predicted]: what the panel hands the timeline."""
        return [self.pipelined, self.predicted]
