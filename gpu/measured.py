"""Measured runs as Schedules, the model's prediction from them, and the result figures.

A run is timed as a (chunks, 3) array of starts and one of ends: copy-in (read), compute,
copy-out (write) of every chunk, relative to the run's start. It becomes a Schedule with
source = "measured" and one worker per unit, so the app draws it exactly like the model.
Rows may overlap themselves where the hardware really ran two chunks' stages at once;
engine.analysis.metrics counts overlaps once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.base.text import time_text
from engine.model.scenario import Scenario
from engine.model.schedule import STAGES, Schedule
from engine.model.scheduler import simulate
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


@dataclass(frozen=True)
class Spread:
    """Makespans of the timed runs: fewest, the representative (median) run's, most (ms)."""

    minimum: float
    median: float
    maximum: float
    runs: int

    @classmethod
    def of(cls, makespans: tuple[float, ...] | list[float]) -> Spread:
        """``median`` is the lower middle value for an even count: the run `median_run`
        keeps, so the drawn Schedule and the figure agree."""
        ordered = sorted(float(m) for m in makespans)
        return cls(ordered[0], ordered[(len(ordered) - 1) // 2], ordered[-1], len(ordered))

    @property
    def relative_range(self) -> float:
        """(max − min) / median: how much identical runs differ."""
        return (self.maximum - self.minimum) / self.median if self.median > 0 else 0.0

    def figures(self) -> dict[str, float | int]:
        return {
            "min": self.minimum,
            "median": self.median,
            "max": self.maximum,
            "runs": self.runs,
        }


def self_overlap(schedule: Schedule) -> tuple[float, float, float]:
    """Per unit, time during which two chunks' stages ran at once (sum of durations minus
    the length of their union): work a one-worker-per-unit model cannot overlap."""
    overlaps = []
    for stage in range(3):
        starts = schedule.op_starts[:, stage]
        ends = schedule.op_ends[:, stage]
        order = np.argsort(starts, kind="stable")
        union, reach = 0.0, -np.inf
        for start, end in zip(starts[order].tolist(), ends[order].tolist(), strict=True):
            if end > reach:
                union += end - max(start, reach)
                reach = end
        overlaps.append(max(0.0, float((ends - starts).sum()) - union))
    return overlaps[0], overlaps[1], overlaps[2]


def mean_stage_times(schedule: Schedule) -> tuple[float, float, float]:
    """Mean duration of read, compute and write over the run's chunks."""
    durations = schedule.op_ends - schedule.op_starts
    read, compute, write = (float(v) for v in durations.mean(axis=0))
    return read, compute, write


def predict(sequential: Schedule, buffers: int) -> Schedule:
    """The engine's pipelined schedule for the same chunks: the sequential run's mean stage
    times, one worker per unit, ``buffers`` slots (streams in flight)."""
    return model_of(sequential, buffers, "the sequential run's")


def model_of(run: Schedule, buffers: int, whose: str) -> Schedule:
    """The engine's pipelined schedule from ``run``'s mean stage times (``whose`` names
    the run in the label)."""
    read, compute, write = mean_stage_times(run)
    scenario = Scenario.uniform_ops(
        run.n_ops,
        read=read,
        compute=compute,
        write=write,
        buffers=buffers,
        policy="pipelined",
        name="model of the measured run",
    )
    return simulate(scenario, "pipelined").with_meta(
        unit_names=run.unit_names,
        time_unit=run.time_unit,
        label=f"model: pipelined, from {whose} mean stage times",
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
    sequential_makespans: tuple[float, ...] = field(default=())
    pipelined_makespans: tuple[float, ...] = field(default=())

    @property
    def sequential_spread(self) -> Spread:
        """Makespans of every timed sequential run (the drawn one is the median)."""
        return Spread.of(self.sequential_makespans or (self.sequential.makespan,))

    @property
    def pipelined_spread(self) -> Spread:
        return Spread.of(self.pipelined_makespans or (self.pipelined.makespan,))

    @property
    def timeline_schedules(self) -> list[Schedule]:
        """[measured sequential, measured pipelined, predicted]: the median runs and the
        model, for a view that draws all three."""
        return [self.sequential, self.pipelined, self.predicted]

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

    @property
    def predicted_side_by_side(self) -> Schedule:
        """The model fed the stage times measured side by side (the pipelined run's own
        means) instead of alone: what the model says once the units' interference is known."""
        return model_of(self.pipelined, self.params.streams, "the pipelined run's")

    def efficiency_explanation(self) -> dict[str, Any]:
        """Why the overlap efficiency is what it is, above 100% especially: stage times
        alone vs side by side, the model re-run with the side-by-side times, and stages of
        two chunks that the hardware ran at once (which a one-worker model cannot)."""
        alone = mean_stage_times(self.sequential)
        together = mean_stage_times(self.pipelined)
        ratios = self.side_by_side_slowdown
        side = self.predicted_side_by_side.makespan
        overlap = self_overlap(self.pipelined)
        efficiency = self.overlap_efficiency
        reasons: list[str] = []
        faster = [
            f"{name} {ratio:.2f}×"
            for name, ratio in zip(STAGES, ratios, strict=True)
            if ratio < 0.98
        ]
        if faster:
            reasons.append(
                "some stages ran faster beside the others than alone ("
                + ", ".join(faster)
                + "), so the model, which was given the times alone, expected too little"
            )
        concurrent = [
            f"{unit} {time_text(ms, 'ms')}"
            for unit, ms in zip(self.pipelined.unit_names, overlap, strict=True)
            if ms > 0.01 * self.pipelined.makespan
        ]
        if concurrent:
            reasons.append(
                "one unit worked on two chunks at once (" + ", ".join(concurrent) + "), "
                "which the model, with one worker per unit, never does"
            )
        shared = (
            "they share this machine's cores and memory"
            if self.backend == "cpu"
            else "they share the GPU's memory"
        )
        if efficiency > 1.02:
            text = f"Pipelined ran {efficiency - 1:.0%} faster than the model predicted: " + (
                "; ".join(reasons) if reasons else "the runs simply vary from one to the next"
            )
        elif efficiency < 0.98:
            text = f"Pipelined took {1 / efficiency:.2f}× as long as the model predicted"
            slower = [
                f"{name} {ratio:.1f}×"
                for name, ratio in zip(STAGES, ratios, strict=True)
                if ratio > 1.02
            ]
            if slower:
                text += (
                    ": running at the same time, the stages slowed each other down ("
                    + ", ".join(slower)
                    + f" as long as alone), because {shared}"
                )
            else:
                text += ": time went into handing chunks from one stage to the next"
        else:
            text = "Pipelined ran as fast as the model predicted (within 2%)"
        text += (
            f". Given the stage times measured side by side, the model says "
            f"{time_text(side, 'ms')} ({side / self.pipelined.makespan:.0%} of the measured)."
        )
        return {
            "stage_ms_alone": list(alone),
            "stage_ms_side_by_side": list(together),
            "side_by_side_ratio": list(ratios),
            "predicted_from_side_by_side_makespan": side,
            "efficiency_from_side_by_side": side / self.pipelined.makespan,
            "concurrent_stage_ms": list(overlap),
            "text": text,
        }

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
            "sequential_spread": self.sequential_spread.figures(),
            "pipelined_spread": self.pipelined_spread.figures(),
            "efficiency_explanation": self.efficiency_explanation(),
            "checked_values": self.checked_values,
            "notes": list(self.notes),
        }

    @property
    def schedules(self) -> list[Schedule]:
        """[measured pipelined, predicted]: what the panel hands the timeline."""
        return [self.pipelined, self.predicted]
