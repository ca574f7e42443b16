"""The warp model: the scheduling rule, the analytic steady state, state and narration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.analysis.metrics import utilization_by_unit
from engine.analysis.writers import schedule_to_dict
from engine.base.errors import PipeLabError
from engine.latency.warp_stream import burst_count, summarize, task_chunks
from engine.latency.warps import (
    COMPUTE,
    ISSUE_UNIT,
    MEMORY,
    WARP_UNIT,
    WarpConfig,
    WarpPhase,
    WarpRun,
    analytic_utilization,
    knee_warps,
    narrate_warps,
    ready_intervals,
    simulate_warps,
    simulate_warps_reference,
    utilization_curve,
    warp_state_at,
)
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from tests.engine.legacy_indexes import idle_gaps

SIMULATORS = [simulate_warps, simulate_warps_reference]

configs = st.builds(
    WarpConfig,
    warps=st.integers(1, 12),
    compute=st.integers(1, 9),
    latency=st.integers(0, 60),
    cycles=st.integers(1, 400),
)


def _rows(run: WarpRun, unit: int, stage: int | None = None) -> np.ndarray:
    schedule = run.schedule
    mask = schedule.unit == unit
    if stage is not None:
        mask &= schedule.stage == stage
    return np.flatnonzero(mask)


# -- the analytic steady state ---------------------------------------------------------------


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("warps", [1, 2, 3, 4, 5, 7, 8, 16, 33])
@pytest.mark.parametrize("compute", [1, 3, 10])
@pytest.mark.parametrize("latency", [0, 1, 7, 40, 200])
def test_steady_state_utilization_matches_the_formula(simulator, warps, compute, latency):
    """Measured over a window after the warm-up that is NOT a whole number of periods."""
    probe = WarpConfig(warps, compute, latency, cycles=1)
    cycles = probe.warm_up + 150 * probe.period + probe.period // 3 + 1
    run = simulator(WarpConfig(warps, compute, latency, cycles))
    measured = run.utilization_between(probe.warm_up, cycles)
    expected = min(1.0, warps * compute / (compute + latency))
    assert measured == pytest.approx(expected, rel=0.01)
    assert run.steady_state_utilization == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize(("compute", "latency"), [(1, 0), (10, 40), (3, 97), (7, 1)])
def test_one_warp_gives_compute_over_compute_plus_latency(simulator, compute, latency):
    cycles = 200 * (compute + latency)
    run = simulator(WarpConfig(1, compute, latency, cycles))
    assert run.utilization == pytest.approx(compute / (compute + latency), rel=1e-12)
    # The lone warp never waits for the issue unit.
    assert summarize(run.config).stall_cycles.tolist() == [0.0]


def test_below_the_knee_the_issue_unit_idles_and_above_it_never_does():
    below = simulate_warps(WarpConfig(warps=4, compute=10, latency=40, cycles=1000))
    above = simulate_warps(WarpConfig(warps=6, compute=10, latency=40, cycles=1000))
    assert below.utilization == pytest.approx(0.8)
    assert above.utilization == 1.0
    assert summarize(below.config).stall_cycles.sum() < summarize(above.config).stall_cycles.sum()
    assert knee_warps(10, 40) == 5.0
    assert WarpConfig(5, 10, 40).knee == 5.0


def test_analytic_utilization_vectorizes():
    values = analytic_utilization([1, 2, 5, 9], 10, 40)
    assert values.tolist() == [0.2, 0.4, 1.0, 1.0]
    assert analytic_utilization(3, 1, 0) == 1.0


def test_utilization_curve_lies_on_the_analytic_curve():
    warps = np.arange(1, 13)
    simulated = utilization_curve(10, 50, warps)
    assert simulated == pytest.approx(analytic_utilization(warps, 10, 50), rel=1e-9)


# -- the rule, whatever the configuration ------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(configs)
def test_fast_path_equals_the_event_simulation(config):
    fast, reference = simulate_warps(config), simulate_warps_reference(config)
    for name in ("burst_warp", "burst_ready", "burst_start"):
        assert np.array_equal(getattr(fast, name), getattr(reference, name)), name
    for column in ("op", "stage", "unit", "worker", "start", "end"):
        assert np.array_equal(getattr(fast.schedule, column), getattr(reference.schedule, column))


@settings(max_examples=150, deadline=None)
@given(configs, st.sampled_from(SIMULATORS))
def test_the_issue_unit_goes_to_the_oldest_ready_warp_without_delay(config, simulator):
    run = simulator(config)
    c, latency = config.compute, config.latency
    ready, start, warp = run.burst_ready, run.burst_start, run.burst_warp
    # Issue order is sorted by (ready cycle, warp): nobody ready earlier was passed over.
    keys = list(zip(ready.tolist(), warp.tolist(), strict=True))
    assert keys == sorted(keys)
    # A burst starts when its warp is ready and the issue unit is free, not later.
    previous_end = np.concatenate([[0.0], start[:-1] + c])
    assert np.array_equal(start, np.maximum(ready, previous_end))
    # A warp is ready C + L cycles after its previous burst started (at 0 the first time).
    for k in range(config.warps):
        own = np.flatnonzero(warp == k)
        if len(own) == 0:  # the run ended before its first turn
            assert config.cycles <= k * c
            continue
        assert ready[own[0]] == 0
        assert np.array_equal(ready[own[1:]], start[own[:-1]] + c + latency)
    # The run is all of [0, T): every burst that could start before T did.
    assert start.max() < config.cycles


@settings(max_examples=150, deadline=None)
@given(configs, st.sampled_from(SIMULATORS))
def test_timeline_invariants(config, simulator):
    run = simulator(config)
    schedule = run.schedule
    issue = _rows(run, ISSUE_UNIT)
    # No two warps hold the issue unit at once.
    order = issue[np.argsort(schedule.start[issue])]
    assert (schedule.start[order][1:] >= schedule.end[order][:-1]).all()
    # The issue unit's row repeats exactly the warps' compute bursts.
    compute = _rows(run, WARP_UNIT, COMPUTE)
    ours = sorted(zip(schedule.op[compute].tolist(), schedule.start[compute].tolist(), strict=True))
    theirs = sorted(zip(schedule.op[issue].tolist(), schedule.start[issue].tolist(), strict=True))
    assert ours == theirs
    assert (schedule.op[compute] == schedule.worker[compute]).all()
    for k in range(config.warps):
        rows = np.flatnonzero((schedule.unit == WARP_UNIT) & (schedule.worker == k))
        rows = rows[np.lexsort((schedule.stage[rows], schedule.start[rows]))]
        starts, ends, stages = schedule.start[rows], schedule.end[rows], schedule.stage[rows]
        # A warp never computes while its load is in flight: its row never overlaps itself.
        assert (starts[1:] >= ends[:-1]).all()
        # Each load follows its burst at once and lasts L (unless the run ends first).
        loads = np.flatnonzero(stages == MEMORY)
        assert (loads > 0).all() and (stages[loads - 1] == COMPUTE).all()
        assert np.array_equal(starts[loads], ends[loads - 1])
        full = np.minimum(starts[loads] + config.latency, config.cycles)
        assert np.array_equal(ends[loads], full)
    assert schedule.makespan == config.cycles
    assert 0.0 <= run.utilization <= 1.0
    # Stalls are exactly the idle time of the warp rows.
    idle = (schedule.makespan - Derived(schedule).busy_by_worker)[: config.warps]
    assert summarize(config).stall_cycles == pytest.approx(idle, abs=1e-9)
    assert utilization_by_unit(Derived(schedule))["issue"] == pytest.approx(run.utilization)
    # The ready intervals are exactly the gaps of the warp rows.
    warp, start, end = ready_intervals(run)
    assert (end > start).all()
    for k in range(config.warps):
        mine = warp == k
        gaps = sorted(zip(start[mine].tolist(), end[mine].tolist(), strict=True))
        assert gaps == idle_gaps(schedule, k)


@settings(max_examples=80, deadline=None)
@given(configs, st.floats(0, 1))
def test_state_has_at_most_one_warp_on_the_issue_unit(config, where):
    run = simulate_warps(config)
    time = where * config.cycles
    snapshot = warp_state_at(run.schedule, time)
    computing = np.flatnonzero(snapshot.phase == WarpPhase.COMPUTING)
    if time >= config.cycles:
        assert (snapshot.phase == WarpPhase.WINDOW_ENDED).all()
    else:
        assert computing.tolist() == ([snapshot.issuing] if snapshot.issuing >= 0 else [])
        # The issue unit only idles when no warp is ready.
        if snapshot.issuing < 0:
            assert snapshot.ready_count == 0
    assert narrate_warps(run.schedule, time).startswith("cycle ")


# -- state and narration at known instants -----------------------------------------------------


def test_state_at_known_instants():
    schedule = simulate_warps(WarpConfig(warps=8, compute=10, latency=40, cycles=200)).schedule
    snapshot = warp_state_at(schedule, 45)
    assert snapshot.issuing == 4
    assert snapshot.phase.tolist() == [2, 2, 2, 2, 1, 0, 0, 0]
    assert snapshot.fraction[:5].tolist() == [0.875, 0.625, 0.375, 0.125, 0.5]
    assert snapshot.ready_since[5:].tolist() == [0, 0, 0]
    assert np.isnan(snapshot.ready_since[:5]).all()
    assert (snapshot.loads_in_flight, snapshot.ready_count) == (4, 3)
    later = warp_state_at(schedule, 55)  # warp 1's load returned at 50: ready, not picked
    assert later.phase[0] == WarpPhase.READY and later.ready_since[0] == 50


def test_narration_names_the_stall_and_the_switch():
    schedule = simulate_warps(WarpConfig(warps=4, compute=10, latency=40, cycles=200)).schedule
    assert narrate_warps(schedule, 0) == "cycle 0: all 4 warps are ready; the SM issues from warp 1"
    assert narrate_warps(schedule, 10) == (
        "cycle 10: warp 1 stalls on memory; the SM switches to warp 2, ready for 10 cycles"
    )
    assert narrate_warps(schedule, 40) == (
        "cycle 40: warp 4 stalls on memory; no warp is ready, so the issue unit idles "
        "(4 of 4 loads in flight)"
    )
    assert narrate_warps(schedule, 50) == (
        "cycle 50: warp 1's load returns; the idle SM issues from it at once"
    )
    assert narrate_warps(schedule, 45).startswith("cycle 45: the issue unit idles; 4 loads")
    assert narrate_warps(schedule, 200) == (
        "cycle 200: the run ends; the issue unit was busy 80% of the time"
    )
    busy = simulate_warps(WarpConfig(warps=8, compute=10, latency=40, cycles=200)).schedule
    assert narrate_warps(busy, 50).endswith("warp 1 gets its data and waits for the issue unit")
    alone = simulate_warps(WarpConfig(warps=1, compute=10, latency=0, cycles=50)).schedule
    assert "warp 1 is the only one ready and issues again" in narrate_warps(alone, 10)


def test_state_and_narration_refuse_other_timelines():
    pipeline = simulate(Scenario.uniform_ops(3))
    with pytest.raises(PipeLabError, match="not a warp-model run"):
        warp_state_at(pipeline, 0)
    with pytest.raises(PipeLabError, match="not a warp-model run"):
        narrate_warps(pipeline, 0)


# -- the Schedule's shape and validation --------------------------------------------------------


def test_schedule_metadata_lets_the_generic_timeline_draw_it():
    schedule = simulate_warps(WarpConfig(warps=3, compute=4, latency=8, cycles=50)).schedule
    assert schedule.workers == (3, 1)
    assert schedule.unit_names == ("warp", "issue")
    assert schedule.stage_names == ("compute", "memory")
    assert (schedule.time_unit, schedule.source, schedule.n_ops) == ("cycles", "simulated", 3)
    assert [schedule.row_label(r) for r in range(4)] == [
        "warp 1",
        "warp 2",
        "warp 3",
        "issue unit",
    ]


def test_zero_latency_has_no_memory_tasks():
    run = simulate_warps(WarpConfig(warps=2, compute=3, latency=0, cycles=30))
    assert (run.schedule.stage == COMPUTE).all()
    assert run.utilization == 1.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"warps": 0}, "warps must be between 1 and 1,024, not 0"),
        ({"warps": 1025}, "warps must be between 1 and 1,024"),
        ({"compute": 0}, "compute must be between 1"),
        ({"latency": -1}, "latency must be between 0"),
        ({"cycles": 0}, "cycles must be between 1"),
        ({"cycles": 10_000_001}, "cycles must be between 1 and 10,000,000"),
        ({"warps": 2.5}, "warps must be a whole number of warps, not 2.5"),
        ({"latency": "40"}, "latency must be a whole number of cycles"),
        ({"compute": True}, "compute must be a whole number"),
        ({"compute": 1, "cycles": 2_000_000}, "up to 2,000,000 bursts, more than 1,000,000"),
    ],
)
def test_bad_configurations_raise_one_line(changes, message):
    with pytest.raises(PipeLabError) as error:
        WarpConfig(**changes)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_whole_floats_are_accepted_and_window_must_be_forward():
    config = WarpConfig(warps=4.0, compute=10, latency=40, cycles=100)
    assert config.warps == 4 and isinstance(config.warps, int)
    run = simulate_warps(config)
    with pytest.raises(PipeLabError, match="window"):
        run.utilization_between(10, 10)
    assert WarpConfig(1, 10, 40, cycles=20).warm_up == 50
    assert simulate_warps(WarpConfig(1, 10, 40, cycles=20)).steady_state_utilization is None


# -- the streamed run (engine.latency.warp_stream): same numbers, same tasks, bounded memory --


@settings(max_examples=150, deadline=None)
@given(configs, st.sampled_from([1, 2, 3, 7, 64, 65_536]))
def test_streamed_tasks_equal_the_schedule_in_order(config, chunk):
    run = simulate_warps(config)
    schedule = run.schedule
    parts = list(task_chunks(config, chunk))
    columns = [np.concatenate([part[k] for part in parts]) for k in range(6)]
    expected = [schedule.op, schedule.stage, schedule.unit, schedule.worker]
    expected += [schedule.start, schedule.end]
    for got, want in zip(columns, expected, strict=True):
        assert np.array_equal(got, want)
    assert burst_count(config) == len(run.burst_start)


@settings(max_examples=150, deadline=None)
@given(configs, st.sampled_from([1, 5, 65_536]))
def test_streamed_summary_equals_the_runs_figures(config, chunk):
    run = simulate_warps(config)
    summary = summarize(config, chunk)
    assert summary.makespan == run.schedule.makespan
    assert summary.tasks == len(run.schedule)
    assert summary.utilization == pytest.approx(run.utilization, abs=1e-12)
    steady = run.steady_state_utilization
    if steady is None:
        assert summary.steady_state_utilization is None
    else:
        assert summary.steady_state_utilization == pytest.approx(steady, abs=1e-12)
    expected = utilization_by_unit(Derived(run.schedule))
    for unit, value in summary.utilization_by_unit().items():
        assert value == pytest.approx(expected[unit], abs=1e-12)
    assert schedule_to_dict(run.schedule)["ops"] == config.warps


def test_streaming_never_builds_the_whole_run():
    """A million bursts in chunks of 4,096: no chunk holds more than its share of tasks."""
    config = WarpConfig(warps=1024, compute=1, latency=10, cycles=1_000_000)
    largest = max(len(part[0]) for part in task_chunks(config, 4096))
    assert largest <= 3 * 4096 + 4096  # a chunk's tasks plus the loads carried over
    # W·C > C + L: the issue unit never rests, a burst every cycle; all but the last load.
    assert summarize(config).tasks == 2 * 1_000_000 + 999_999


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("warps", 1e308),
        ("warps", float("nan")),
        ("compute", float("-inf")),
        ("latency", 10**400),
        ("cycles", "400"),
        ("warps", True),
        ("compute", 2.5),
    ],
)
def test_warp_inputs_outside_the_limits_are_one_line(field, value):
    with pytest.raises(PipeLabError) as caught:
        WarpConfig(**{field: value})
    message = str(caught.value)
    assert message.startswith(field) and "\n" not in message and len(message) < 120
