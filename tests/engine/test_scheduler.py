"""The scheduler against the textbook, the closed form, and its reference simulation."""

from __future__ import annotations

import numpy as np
import pytest

from engine.metrics import closed_form_makespan, lower_bound, speedup
from engine.scenario import Scenario
from engine.scheduler import (
    _one_worker_blocks,
    _one_worker_loop,
    _one_worker_symbolic,
    simulate,
    simulate_reference,
)


@pytest.mark.parametrize(
    ("buffers", "expected"),
    [(1, 9.0), (0, 5.0), (3, 5.0), (2, 6.0)],
    ids=["B=1 sequential", "B=0 unlimited", "B=3", "B=2"],
)
def test_textbook_makespans(buffers: int, expected: float) -> None:
    book = Scenario.uniform_ops(3, buffers=buffers)
    assert simulate(book).makespan == expected
    assert simulate_reference(book).makespan == expected


def test_sequential_policy_is_one_buffer_slot() -> None:
    book = Scenario.uniform_ops(3, buffers=0)
    sequential = simulate(book, "sequential")
    assert sequential.makespan == 9.0
    assert sequential.buffers == 1
    assert speedup(sequential, simulate(book, "pipelined")) == pytest.approx(1.8)


def test_book_pipelined_tasks_exactly() -> None:
    schedule = simulate(Scenario.uniform_ops(3))
    assert schedule.op_starts.tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert schedule.op_ends.tolist() == [[1, 2, 3], [2, 3, 4], [3, 4, 5]]
    assert schedule.worker.tolist() == [0] * 9


def test_double_buffering_waits_for_a_slot() -> None:
    schedule = simulate(Scenario.uniform_ops(3, buffers=2))
    # Op 3 (index 2) may read only once op 1 has written back (t = 3).
    assert schedule.op_starts[2, 0] == 3.0
    assert schedule.grant is not None
    assert schedule.grant.tolist() == [0.0, 0.0, 3.0]


@pytest.mark.parametrize("n", [1, 2, 7, 50])
@pytest.mark.parametrize(
    ("r", "c", "w"), [(1, 1, 1), (3, 1, 1), (1, 3, 1), (1, 1, 3), (0.5, 2.0, 0.25), (0, 1, 0)]
)
@pytest.mark.parametrize("buffers", [0, 3, 5])
def test_closed_form_on_identical_ops(n: int, r: float, c: float, w: float, buffers: int) -> None:
    scenario = Scenario.uniform_ops(n, r, c, w, buffers=buffers)
    expected = (r + c + w) + (n - 1) * max(r, c, w)
    assert closed_form_makespan(scenario) == pytest.approx(expected)
    assert simulate(scenario).makespan == pytest.approx(expected)
    assert simulate(scenario, "sequential").makespan == pytest.approx(n * (r + c + w))


def test_closed_form_does_not_claim_what_it_cannot() -> None:
    assert closed_form_makespan(Scenario.uniform_ops(5, buffers=2)) is None
    assert closed_form_makespan(Scenario.uniform_ops(5, workers=(2, 1, 1))) is None
    assert closed_form_makespan(Scenario([1, 2], [1, 1], [1, 1])) is None


def test_two_load_units_share_the_reads() -> None:
    scenario = Scenario.uniform_ops(4, 2.0, 1.0, 1.0, workers=(2, 1, 1))
    schedule = simulate(scenario)
    reads = schedule.stage == 0
    assert sorted(schedule.worker[reads].tolist()) == [0, 0, 1, 1]
    assert schedule.op_starts[:, 0].tolist() == [0, 0, 2, 2]
    # The single compute unit then serializes them: 2-3, 3-4, 4-5, 5-6; writes end at 7.
    assert schedule.op_starts[:, 1].tolist() == [2, 3, 4, 5]
    assert schedule.makespan == 7.0


def test_ready_order_not_op_order_with_two_compute_workers() -> None:
    """With two compute workers a short op overtakes a long one; the store unit then
    serves whichever became ready first."""
    scenario = Scenario([1, 1], [5, 1], [1, 1], workers=(1, 2, 1))
    schedule = simulate(scenario)
    assert schedule.op_ends[1, 1] == 3.0  # op 2 computes 2-3 on the second worker
    assert schedule.op_starts[1, 2] == 3.0  # and writes first
    assert schedule.op_starts[0, 2] == 6.0


@pytest.mark.parametrize("n", [5000, 20_011])
@pytest.mark.parametrize("buffers", [0, 1, 2, 3, 7, 47, 48, 300])
def test_fast_paths_match_the_loop(n: int, buffers: int) -> None:
    rng = np.random.default_rng(n + buffers)
    durations = rng.exponential(1.0, (n, 3)) * (rng.random((n, 3)) > 0.05)
    expected, expected_grant = _one_worker_loop(durations, buffers)
    candidates = [_one_worker_blocks(durations, buffers)]
    if 1 <= buffers < n:
        candidates.append(_one_worker_symbolic(durations, buffers))
        candidates.append(_one_worker_symbolic(durations, buffers, chunk=97))
    for starts, grant in candidates:
        np.testing.assert_allclose(starts, expected, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(grant, expected_grant, rtol=1e-12, atol=1e-9)


def test_large_scenario_agrees_with_reference() -> None:
    rng = np.random.default_rng(7)
    n = 6000
    d = rng.uniform(0.1, 2.0, (n, 3))
    scenario = Scenario(d[:, 0], d[:, 1], d[:, 2], buffers=3)
    fast, reference = simulate(scenario), simulate_reference(scenario)
    np.testing.assert_allclose(fast.op_starts, reference.op_starts, rtol=1e-12, atol=1e-9)


def test_makespan_respects_lower_bound_on_presets() -> None:
    from engine.scenario import load_preset, preset_names

    for name in preset_names():
        scenario = load_preset(name)
        for policy in ("sequential", "pipelined"):
            assert simulate(scenario, policy).makespan >= lower_bound(scenario) - 1e-9
