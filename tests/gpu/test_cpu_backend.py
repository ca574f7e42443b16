"""The CPU backend: real threads, real timings, a well-formed measured Schedule, correct
results, the model's prediction, cancel midway through a chunk, and no thread left behind."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from schedule_checks import assert_well_formed

from engine.base.errors import PipeLabError
from gpu import arith, cpu_backend
from gpu.errors import Cancelled
from gpu.experiments import run_to_end
from gpu.measured import CPU_UNITS, PipelineResult
from gpu.params import MIB, PipelineParams, Progress


def small(**changes: object) -> PipelineParams:
    values: dict[str, object] = {"size_bytes": 2 * MIB, "chunks": 8, "streams": 3, "repeats": 2}
    values.update(changes)
    return PipelineParams(**values)  # type: ignore[arg-type]


def run(params: PipelineParams) -> tuple[PipelineResult, list[Progress]]:
    reports: list[Progress] = []
    result = run_to_end(cpu_backend.run_cpu_pipeline(params), reports.append)
    return result, reports


def test_small_run_gives_well_formed_measured_schedules() -> None:
    result, reports = run(small(intensity=3))
    assert_well_formed(result.sequential, 8, 1)
    assert_well_formed(result.pipelined, 8, 3)
    assert result.sequential.policy == "sequential" and result.pipelined.policy == "pipelined"
    assert result.sequential.unit_names == CPU_UNITS
    # Sequential really is sequential: a chunk starts reading after the previous one wrote.
    seq = result.sequential
    assert (seq.op_starts[1:, 0] >= seq.op_ends[:-1, 2]).all()
    assert result.intensity == 3
    assert result.checked_values == 8 * arith.CHECK_PER_CHUNK
    fractions = [r.fraction for r in reports]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)


def test_model_prediction_uses_the_sequential_means() -> None:
    result, _ = run(small(intensity=2))
    read, compute, write = result.stage_ms
    predicted = result.predicted
    assert predicted.source == "simulated" and predicted.buffers == 3
    assert predicted.unit_names == CPU_UNITS and predicted.time_unit == "ms"
    # Identical ops, one worker per unit, 3 slots: the textbook formula.
    formula = (read + compute + write) + 7 * max(read, compute, write)
    assert predicted.makespan == pytest.approx(formula, rel=1e-9)
    assert result.overlap_efficiency == pytest.approx(
        predicted.makespan / result.pipelined.makespan
    )
    figures = result.figures()
    assert figures["speedup"] == pytest.approx(
        result.sequential.makespan / result.pipelined.makespan
    )
    assert figures["read_gbps"] > 0 and figures["compute_gbps"] > 0
    assert result.schedules == [result.pipelined, result.predicted]
    # How much slower each stage ran side by side than alone: the measured means' ratio.
    together = (result.pipelined.op_ends - result.pipelined.op_starts).mean(axis=0)
    alone = np.array([read, compute, write])
    assert result.side_by_side_slowdown == pytest.approx(tuple(together / alone))
    from gpu.report import pipeline_rows

    assert "as long as alone" in dict(pipeline_rows(result))["side by side"]


def test_results_are_checked_against_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    real = arith.chain_numpy

    def off_by_one(data, intensity, scratch, should_stop=None):  # one pass too few
        return real(data, max(0, intensity - 1), scratch, should_stop)

    monkeypatch.setattr(arith, "chain_numpy", off_by_one)
    with pytest.raises(PipeLabError, match="wrong result at element"):
        run(small(intensity=2, repeats=1))


def test_the_arithmetic_matches_its_closed_form() -> None:
    x = arith.make_input(100_000, seed=3)
    for intensity in (0, 1, 7, 300):
        y = x.copy()
        arith.chain_numpy(y, intensity, np.empty(arith.BLOCK, np.float32))
        np.testing.assert_allclose(y, arith.expected(x, intensity), rtol=arith.RTOL)
    assert not np.allclose(arith.expected(x, 5), arith.expected(x, 6), rtol=arith.RTOL)


def test_calibration_picks_an_intensity() -> None:
    result, _ = run(small(repeats=1))
    assert result.intensity >= 1


@pytest.mark.parametrize("phase", ["sequential", "pipelined"])
def test_cancel_stops_a_run_midway_through_a_chunk(
    phase: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancel arrives while a chunk is being computed: the run ends with Cancelled without
    finishing that chunk. No wall clock: the compute is a stand-in that never finishes on
    its own, only when its stop check says so (its 60 s of 1 ms polls are a safety net)."""
    cancel = threading.Event()
    stopped: list[bool] = []
    original = arith.chain_numpy

    def endless(data, intensity, scratch, should_stop=None):
        if intensity == 1:  # the cheap sequential phase before a pipelined cancel
            return original(data, intensity, scratch, should_stop)
        cancel.set()
        for _ in range(60_000):
            if should_stop is not None and should_stop():
                stopped.append(True)
                return False
            time.sleep(0.001)
        return True

    monkeypatch.setattr(arith, "chain_numpy", endless)
    params = small(size_bytes=4 * MIB, chunks=4, intensity=50_000, repeats=1, warmup=0)
    if phase == "pipelined":
        params = small(size_bytes=4 * MIB, chunks=4, intensity=1, repeats=1, warmup=0)
    experiment = cpu_backend.run_cpu_pipeline(params, cancel)
    if phase == "pipelined":
        for report in experiment:  # through the sequential phase, then make compute endless
            if report.message.startswith("sequential run 1 done"):
                break
        monkeypatch.setattr(
            arith, "chain_numpy", lambda d, i, s, stop=None: endless(d, 50_000, s, stop)
        )
    with pytest.raises(Cancelled, match="cancelled"):
        run_to_end(experiment)
    assert cancel.is_set() and stopped == [True]
    assert not [t for t in threading.enumerate() if t.name.startswith("pipelab-cpu")]


def test_the_compute_chain_checks_its_stop_flag_every_few_passes() -> None:
    """What makes cancel prompt on real work: `chain_numpy` asks ``should_stop`` at least
    every `STOP_CHECK` passes (counted, not timed)."""
    passes = 10 * arith.STOP_CHECK
    data = np.ones(arith.BLOCK, dtype=np.float32)
    scratch = np.zeros(arith.BLOCK, dtype=np.float32)
    asked: list[int] = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    assert arith.chain_numpy(data, passes, scratch, should_stop) is False
    assert len(asked) == 4  # stopped at the fourth check, within the first block


def test_closing_the_generator_midway_joins_the_threads() -> None:
    experiment = cpu_backend.run_cpu_pipeline(small(intensity=2, repeats=1))
    for report in experiment:
        if report.message.startswith("pipelined: chunk 2"):
            break
    experiment.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("pipelab-cpu")]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"chunks": 0}, "chunks must be between"),
        ({"streams": 0}, "streams must be between"),
        ({"intensity": -1}, "intensity must be between"),
        ({"repeats": 0}, "repeats must be between"),
        ({"size_bytes": 8, "chunks": 4}, "4 chunks need at least 16 bytes"),
        ({"chunks": 2.5}, "chunks must be a whole number"),
    ],
)
def test_bad_parameters_are_one_line_errors(changes: dict[str, object], message: str) -> None:
    with pytest.raises(PipeLabError, match=message):
        small(**changes)


def test_the_result_carries_the_spread_and_the_measured_sequential_run() -> None:
    result, _ = run(small(intensity=2, repeats=3))
    assert len(result.sequential_makespans) == len(result.pipelined_makespans) == 3
    for spread, drawn in (
        (result.sequential_spread, result.sequential),
        (result.pipelined_spread, result.pipelined),
    ):
        assert spread.runs == 3 and spread.minimum <= spread.median <= spread.maximum
        assert spread.median == drawn.makespan  # the median run is the one drawn
    assert result.timeline_schedules == [result.sequential, result.pipelined, result.predicted]
    from gpu.report import pipeline_rows

    rows = dict(pipeline_rows(result))
    assert (
        rows["sequential spread"].startswith("min ") and "over 3 runs" in rows["sequential spread"]
    )
    assert rows["why"]


def test_an_over_long_run_is_refused_after_a_short_calibration(monkeypatch) -> None:
    from gpu.calibration import RunTooLong

    def never(*args: object) -> None:
        raise AssertionError("a timed run started")

    monkeypatch.setattr(cpu_backend, "_sequential", never)
    with pytest.raises(RunTooLong) as refused:
        run(small(intensity=1_000_000, time_limit_s=60.0))
    assert refused.value.estimate_s > 60
    assert str(refused.value).startswith("this run would take about ")
    # The same run without a limit (the app's: it can cancel) is not refused up front.
    assert small(intensity=1_000_000).time_limit_s is None


def test_calibrated_costs_grow_with_intensity() -> None:
    data = cpu_backend._allocate(small())
    costs = cpu_backend.calibrate_costs(data)
    assert costs.read_ms > 0 and costs.compute_ms_per_intensity > 0
    assert costs.compute_ms(100) > costs.compute_ms(1)
    assert costs.balanced_intensity() >= 1
    params = small(repeats=2, warmup=1)
    # Three runs of each policy; sequential = every stage, pipelined ≥ the bottleneck's.
    assert costs.run_seconds(params, 10) >= 3 * 8 * costs.compute_ms(10) * 2 / 1e3
