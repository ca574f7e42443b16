"""Stage costs from a calibration: the balanced intensity, the run estimate, the refusal."""

from __future__ import annotations

import pytest

from engine.base.text import duration_words
from gpu.calibration import RunTooLong, StageCosts
from gpu.errors import GpuError
from gpu.params import PipelineParams

COSTS = StageCosts.from_two_intensities(1.0, 3.0, (64, 1.0), (1024, 4.0), "stand-in")


def test_two_intensities_give_a_line() -> None:
    assert COSTS.compute_ms_per_intensity == pytest.approx(3.0 / 960)
    assert COSTS.compute_ms(64) == pytest.approx(1.0)
    assert COSTS.compute_ms(1024) == pytest.approx(4.0)
    # Compute = mean of the copies (2 ms) at 64 + 1 ms / (3/960 ms) = 384.
    assert COSTS.balanced_intensity() == 384


def test_time_that_does_not_grow_is_a_failed_calibration() -> None:
    with pytest.raises(GpuError, match="does not grow with intensity"):
        StageCosts.from_two_intensities(1.0, 1.0, (1, 2.0), (5, 2.0), "stand-in")


def test_the_estimate_counts_every_run_of_both_policies() -> None:
    params = PipelineParams(size_bytes=1 << 20, chunks=4, repeats=2, warmup=1)
    # At intensity 64 the stages are 1, 1, 3 ms: sequential 4 × 5, pipelined 4 × 3 + 2.
    assert COSTS.run_seconds(params, 64) == pytest.approx(3 * (20 + 14) / 1e3)


def test_the_limit_refuses_with_the_estimate() -> None:
    params = PipelineParams(size_bytes=1 << 20, chunks=4, time_limit_s=60.0)
    COSTS.check_time_limit(params, 64)  # well under a minute
    with pytest.raises(
        RunTooLong, match=r"^this run would take about 13 min \(stand-in: one chunk "
    ):
        COSTS.check_time_limit(params, 5_000_000)
    assert PipelineParams(size_bytes=1 << 20, chunks=4).time_limit_s is None
    with pytest.raises(GpuError, match="time limit must be above 0"):
        PipelineParams(size_bytes=1 << 20, time_limit_s=0)


@pytest.mark.parametrize(
    ("seconds", "words"), [(40, "about 40 s"), (600, "about 10 min"), (12_600, "about 3.5 h")]
)
def test_durations_in_words(seconds: float, words: str) -> None:
    assert duration_words(seconds) == words
