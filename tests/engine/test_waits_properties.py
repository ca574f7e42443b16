"""Hypothesis properties of the wait reasons over random scenarios (and measured-like runs)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.analysis.metrics import makespan_formula, steady_state
from engine.analysis.timeline import narrate
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate
from engine.reasons.waits import (
    DONE,
    INPUT,
    OVERHEAD,
    SLOT,
    WAIT_SLOT,
    WAIT_WORKER,
    idle_now,
)
from tests.engine.legacy_indexes import idle_gaps
from tests.engine.strategies import scenarios

EPS = 1e-9

# As in test_properties: a small grid makes ties and zero-length stages common.


def _holders(schedule: Schedule, time: float) -> int:
    assert schedule.grant is not None
    return int(((schedule.grant <= time) & (time < schedule.op_ends[:, -1])).sum())


def _probes(start: float, end: float) -> list[float]:
    return [start + (end - start) * f for f in (0.01, 0.5, 0.99)]


def _merged(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Intervals that touch merged into one (zero-length tasks split gaps, not idle time)."""
    merged: list[tuple[float, float]] = []
    for a, b in intervals:
        if merged and abs(merged[-1][1] - a) <= EPS:
            merged[-1] = (merged[-1][0], b)
        else:
            assert not merged or a > merged[-1][1], "intervals overlap or run backwards"
            merged.append((a, b))
    return merged


def _check_partition(schedule: Schedule) -> None:
    """One row's spans follow one another and cover exactly its idle gaps."""
    spans = Derived(schedule).idle_spans
    assert (spans.end > spans.start).all()
    for row in range(schedule.n_workers):
        mine = np.flatnonzero(spans.row == row)
        ours = _merged(list(zip(spans.start[mine].tolist(), spans.end[mine].tolist(), strict=True)))
        gaps = _merged(idle_gaps(schedule, row))
        assert len(ours) == len(gaps)
        np.testing.assert_allclose(np.array(ours).reshape(-1, 2), np.array(gaps).reshape(-1, 2))


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.sampled_from(["sequential", "pipelined"]))
def test_reasons_partition_and_mean_what_they_say(scenario, policy) -> None:
    schedule = simulate(scenario, policy)
    _check_partition(schedule)
    spans = Derived(schedule).idle_spans
    load = 0
    for i in range(len(spans)):
        a, b = float(spans.start[i]), float(spans.end[i])
        unit = int(spans.unit[i])
        reason = int(spans.reason[i])
        unit_starts = schedule.start[schedule.unit == unit]
        assert reason != OVERHEAD, "a simulated run never leaves ready work on a free worker"
        if reason == SLOT:
            assert unit == load and schedule.buffers > 0
            for t in _probes(a, b):
                assert _holders(schedule, t) == schedule.buffers
            assert len(spans.ops(i)) == schedule.buffers
        if reason == DONE:
            assert a >= unit_starts.max() - EPS, "done before the unit's last task started"
        else:
            assert (unit_starts > a - EPS).any()
        if reason == INPUT:
            assert unit != load
            (op,) = spans.ops(i)
            task = spans.next_task[i]
            stage = int(schedule.stage[task])
            # The op awaited is not ready yet: its previous stage ends at the span's end or later.
            assert schedule.op_ends[op, stage - 1] >= b - EPS
            assert schedule.start[task] >= b - EPS
        middle = 0.5 * (a + b)
        if not a <= middle < b:
            continue  # a span one ulp long: its middle rounds onto its end (not inside it)
        (now,) = idle_now(Derived(schedule), [int(spans.row[i])], middle)
        assert now.reason == reason and now.ops == spans.ops(i)


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.sampled_from(["sequential", "pipelined"]))
def test_op_waits_partition_each_ops_waiting_time(scenario, policy) -> None:
    schedule = simulate(scenario, policy)
    waits = Derived(schedule).op_waits
    starts, ends = schedule.op_starts, schedule.op_ends
    ready = np.column_stack([np.zeros(schedule.n_ops), ends[:, :-1]])
    waiting = (starts - ready).sum(axis=1)
    per_op = np.bincount(waits.op, weights=waits.end - waits.start, minlength=schedule.n_ops)
    np.testing.assert_allclose(per_op, waiting, atol=1e-6)
    assert (np.diff(waits.op) >= 0).all()
    for i in range(len(waits)):
        op, stage = int(waits.op[i]), int(waits.stage[i])
        a, b = float(waits.start[i]), float(waits.end[i])
        assert ready[op, stage] - EPS <= a < b <= starts[op, stage] + EPS
        if waits.reason[i] == WAIT_SLOT:
            assert stage == 0 and b <= schedule.grant[op] + EPS
        else:
            assert waits.reason[i] == WAIT_WORKER
            k = schedule.workers[stage]
            on_unit = schedule.unit == stage
            for t in _probes(a, b):
                busy = on_unit & (schedule.start <= t) & (schedule.end > t)
                assert busy.sum() == k, "an op waited for a worker while one was free"
            assert len(waits.ops(i)) == k


@settings(max_examples=60, deadline=None)
@given(scenarios(), st.integers(0, 2**32 - 1))
def test_measured_runs_never_crash(scenario, seed) -> None:
    """A simulated run jittered like hardware (no grant times, late starts, overlaps)."""
    model = simulate(scenario, "pipelined")
    rng = np.random.default_rng(seed)
    start = model.start + rng.uniform(-0.3, 0.5, len(model)).clip(0, None)
    measured = replace(
        model, source="measured", grant=None, start=start, end=start + model.duration
    )
    _check_partition(measured)
    spans, waits = Derived(measured).idle_spans, Derived(measured).op_waits
    for i in range(len(spans)):
        spans.describe(i)
    for i in range(len(waits)):
        waits.describe(i)
    for time in np.asarray(Derived(measured).events).tolist():
        assert "more" not in narrate(Derived(measured), time)
    steady_state(Derived(measured))
    makespan_formula(Derived(measured))


@settings(max_examples=80, deadline=None)
@given(scenarios())
def test_narration_never_cuts_a_list_short(scenario) -> None:
    schedule = simulate(scenario)
    for time in np.asarray(Derived(schedule).events).tolist():
        line = narrate(Derived(schedule), time)
        assert line.startswith("t = ") and " more" not in line
