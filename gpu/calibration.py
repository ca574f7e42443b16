"""One chunk's stage costs, measured once before experiment 1 runs, and what follows.

Both backends time a chunk's copies and its compute stage at two intensities before the
timed runs. From that: the intensity at which compute takes as long as the copies (when
none is given), and an estimate of the whole run, so a run that would take far too long is
refused up front in one line instead of running for an hour in silence.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.base.text import duration_words, time_text
from gpu.errors import GpuError
from gpu.params import MAX_INTENSITY, PipelineParams, multiply_adds


class RunTooLong(GpuError):
    """The calibrated estimate of a run exceeds the time limit it was given."""

    def __init__(self, message: str, estimate_s: float) -> None:
        super().__init__(message)
        self.estimate_s = estimate_s


@dataclass(frozen=True)
class StageCosts:
    """One chunk's stage times (ms): fixed copies, and compute = fixed + slope · intensity.

    ``how`` says how they were measured (it goes into the refusal message and the notes).
    """

    read_ms: float
    write_ms: float
    compute_fixed_ms: float
    compute_ms_per_intensity: float
    how: str

    @classmethod
    def from_two_intensities(
        cls,
        read_ms: float,
        write_ms: float,
        low: tuple[int, float],
        high: tuple[int, float],
        how: str,
    ) -> StageCosts:
        """Costs from compute times (intensity, ms) at two intensities; GpuError where the
        time does not grow with the intensity (a broken clock or kernel)."""
        (i_low, t_low), (i_high, t_high) = low, high
        slope = (t_high - t_low) / (i_high - i_low)
        if not slope > 0:
            raise GpuError("calibration failed: compute time does not grow with intensity")
        return cls(read_ms, write_ms, max(0.0, t_low - slope * i_low), slope, how)

    def compute_ms(self, intensity: int) -> float:
        return self.compute_fixed_ms + self.compute_ms_per_intensity * intensity

    def balanced_intensity(self) -> int:
        """The intensity at which compute takes as long as the mean of the two copies."""
        return self.intensity_for((self.read_ms + self.write_ms) / 2)

    def intensity_for(self, compute_ms: float) -> int:
        """The intensity at which one chunk's compute takes about ``compute_ms``."""
        wanted = round((compute_ms - self.compute_fixed_ms) / self.compute_ms_per_intensity)
        return int(min(MAX_INTENSITY, max(1, wanted)))

    def run_seconds(self, params: PipelineParams, intensity: int) -> float:
        """Estimated wall time of every run (warm-up and timed, both policies): sequential
        is the sum of every stage; pipelined the bottleneck stage per chunk plus one fill."""
        stages = (self.read_ms, self.compute_ms(intensity), self.write_ms)
        chunk = sum(stages)
        sequential = params.chunks * chunk
        pipelined = params.chunks * max(stages) + (chunk - max(stages))
        return (params.warmup + params.repeats) * (sequential + pipelined) / 1e3

    def check_time_limit(self, params: PipelineParams, intensity: int) -> None:
        """RunTooLong when the estimate exceeds ``params.time_limit_s`` (None: no limit)."""
        limit = params.time_limit_s
        if limit is None:
            return
        estimate = self.run_seconds(params, intensity)
        if estimate <= limit:
            return
        runs = params.warmup + params.repeats
        raise RunTooLong(
            f"this run would take {duration_words(estimate)} ({self.how}: one chunk reads in "
            f"{_brief(self.read_ms)}, computes {multiply_adds(intensity)} in "
            f"{_brief(self.compute_ms(intensity))}, writes in {_brief(self.write_ms)}; "
            f"{runs} runs of each policy × {params.chunks} chunks), over the limit of "
            f"{duration_words(limit, about=False)}: use a lower intensity, a smaller size or "
            "fewer repeats",
            estimate,
        )


def _brief(milliseconds: float) -> str:
    """'0.299 ms', '184 ms', or the duration in words from 10 s up."""
    if milliseconds >= 10_000:
        return duration_words(milliseconds / 1e3, about=False)
    return time_text(milliseconds, "ms")
