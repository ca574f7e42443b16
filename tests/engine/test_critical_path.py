"""The critical path and what it charges: what binds most of the time for uneven ops."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.analysis.metrics import steady_state
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.scheduler import simulate
from engine.reasons.critical_path import CriticalPath, critical_path
from tests.engine.strategies import scenarios

#: Longer runs than the other properties use: paths that switch units many times.
LONGER = scenarios(max_ops=30, max_buffers=6)


@settings(max_examples=200, deadline=None)
@given(LONGER, st.sampled_from(["sequential", "pipelined"]))
def test_the_path_is_a_chain_from_zero_to_the_makespan(scenario, policy) -> None:
    """Each task on the path starts when the one before it ends (a simulated run has no
    unexplained waits), the first at 0 and the last at the makespan, and what the path
    charges adds up to the makespan."""
    schedule = simulate(scenario, policy)
    path = critical_path(schedule)
    tasks = path.tasks
    assert len(tasks) >= 1
    tolerance = 1e-9 * max(1.0, schedule.makespan)
    assert schedule.start[tasks[0]] == pytest.approx(0.0, abs=tolerance)
    assert schedule.end[tasks[-1]] == schedule.makespan
    np.testing.assert_allclose(
        schedule.start[tasks[1:]], schedule.end[tasks[:-1]], rtol=0, atol=tolerance
    )
    assert path.charged["overhead"] == pytest.approx(0.0, abs=len(tasks) * tolerance)
    assert sum(path.charged.values()) == pytest.approx(schedule.makespan, rel=1e-9, abs=1e-12)
    if schedule.buffers == 0 or schedule.buffers >= schedule.n_ops:
        assert path.charged["slots"] == 0.0  # no read ever waits for a slot


@settings(max_examples=60, deadline=None)
@given(LONGER, st.integers(0, 2**32 - 1))
def test_a_measured_run_charges_its_gaps_to_overhead(scenario, seed) -> None:
    model = simulate(scenario, "pipelined")
    rng = np.random.default_rng(seed)
    start = model.start + rng.uniform(0, 0.5, len(model))
    measured = replace(
        model, source="measured", grant=None, start=start, end=start + model.duration
    )
    path = critical_path(measured)
    assert path.charged["overhead"] >= 0
    assert sum(path.charged.values()) == pytest.approx(measured.makespan, rel=1e-9, abs=1e-9)
    steady_state(Derived(measured))


def _skewed() -> Scenario:
    """Nine reads of 2 s, then one op whose compute takes 15 s: the load unit works
    without a break for 19 s, and only then does the long compute hold the run."""
    reads, computes, writes = [2.0] * 9 + [1.0], [1.0] * 9 + [15.0], [1.0] * 10
    return Scenario(reads, computes, writes, name="skew")


def test_the_unit_that_paces_most_of_the_run_binds_not_the_one_with_most_work() -> None:
    schedule = simulate(_skewed())
    charged = critical_path(schedule).charged
    assert charged["load"] > charged["compute"] > charged["store"]
    state = steady_state(Derived(schedule))
    # The compute unit has the most work in all (24 s against 19 s), yet it binds only
    # for the last op's compute.
    assert state.resource == "load"
    assert state.why.startswith("the load unit binds most of the time: it paces 18 s of the 35 s")
    assert "the compute unit 16 s" in state.why and "19 s of reads in all" in state.why


def test_slots_bind_an_uneven_run_whose_reads_wait_for_them() -> None:
    rng = np.random.default_rng(1)
    n = 40
    scenario = Scenario(
        rng.uniform(0.9, 1.1, n), rng.uniform(0.9, 1.1, n), rng.uniform(0.9, 1.1, n), buffers=1
    )
    state = steady_state(Derived(simulate(scenario)))
    assert state.resource == "slots"
    assert state.why.startswith("buffer slots bind most of the time")
    assert "an op holds the only slot for" in state.why


def test_compute_binds_an_uneven_compute_heavy_run() -> None:
    rng = np.random.default_rng(2)
    n = 50
    scenario = Scenario(rng.uniform(0.5, 1, n), rng.uniform(2, 4, n), rng.uniform(0.5, 1, n))
    state = steady_state(Derived(simulate(scenario)))
    assert state.resource == "compute"
    assert "it paces" in state.why and "of compute in all" in state.why


@pytest.mark.skipif(fast_scheduler.compiled is None, reason="the compiled extension is not built")
@settings(max_examples=100, deadline=None)
@given(LONGER, st.sampled_from(["sequential", "pipelined"]))
def test_the_compiled_walk_and_the_python_walk_agree(scenario, policy) -> None:
    """On the run (op-major: the compiled walk reads its candidates off by_row) and on the
    same tasks in another order (the candidates handed over as arrays)."""
    schedule = simulate(scenario, policy)
    p = np.random.default_rng(len(schedule)).permutation(len(schedule))
    shuffled = replace(
        schedule, op=schedule.op[p], stage=schedule.stage[p], unit=schedule.unit[p],
        worker=schedule.worker[p], start=schedule.start[p], end=schedule.end[p],
    )  # fmt: skip
    for run in (schedule, shuffled):
        compiled = critical_path(replace(run))  # a copy: each keeps its own path
        with fast_scheduler.using("python"):
            python = critical_path(replace(run))
        np.testing.assert_array_equal(compiled.tasks, python.tasks)
        assert compiled.charged == python.charged


@pytest.mark.parametrize("build", ["python", "compiled"])
def test_the_path_is_int32_tasks_and_the_same_both_ways(build) -> None:
    """A sequential run's path is every one of its tasks: kept as int32 (half the bytes)."""
    if build == "compiled" and fast_scheduler.compiled is None:
        pytest.skip("the compiled extension is not built")
    schedule = simulate(Scenario.uniform_ops(50, 1.0, 2.0, 1.0, buffers=2), "sequential")
    with fast_scheduler.using(build):
        path = critical_path(schedule.with_meta())
    assert path.tasks.dtype == np.int32
    assert np.array_equal(path.tasks, np.arange(len(schedule)))


def test_the_stats_keep_what_the_path_charges_not_the_path() -> None:
    """A sequential run's path is every task: the Schedule keeps only its charges."""
    from engine.analysis.stats import schedule_stats

    schedule = simulate(Scenario.uniform_ops(50, 1.0, 2.0, 1.0, buffers=2), "sequential")
    schedule_stats(Derived(schedule))
    kept = [value for value in vars(schedule).values() if isinstance(value, CriticalPath)]
    assert not kept
    assert Derived(schedule).critical_charges == critical_path(schedule).charged
