"""The per-Schedule indexes' fast paths (no sort where rows are in time order already,
shared arrays, the scheduler's columns handed over, column-wise reductions) give exactly
what the plain algorithms gave (tests/engine/legacy_indexes.py), bit for bit, on
simulated, measured-like, reordered and overlapping Schedules."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis import metrics
from engine.analysis.derived import Derived
from engine.analysis.view_model import typical_duration
from engine.base.errors import PipeLabError
from engine.base.tolerance import time_tolerance
from engine.compiled import fast_scheduler
from engine.indexes.span_index import SpanIndex
from engine.model.columns import pipeline_layout
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate, simulate_reference
from tests.engine import legacy_indexes as legacy
from tests.engine.strategies import BUILDS, scenarios, schedule_inputs, spans_schedule


def schedules() -> st.SearchStrategy[Schedule]:
    """Simulated runs, measured-like ones, the same tasks in another order, and free-form
    tasks on a few rows (marked measured)."""
    return schedule_inputs(
        ("simulated", "measured", "shuffled", "free"), max_ops=14, max_workers=3,
        max_buffers=5, free_source="measured", max_free_tasks=30,
    )  # fmt: skip


def _same(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype or (a.dtype.kind == b.dtype.kind == "i")
    assert np.array_equal(a, b), (a, b)


@settings(max_examples=250, deadline=None)
@given(schedules())
def test_rows_events_and_op_matrices_as_before(schedule: Schedule) -> None:
    order, bounds = schedule.by_row
    want_order, want_bounds = legacy.by_row(schedule)
    _same(order, want_order)
    _same(bounds, want_bounds)
    _same(schedule.row_starts, schedule.start[want_order])
    reach, task = schedule.row_reach
    want_reach, want_task = legacy.row_reach(schedule)
    _same(reach, want_reach)
    _same(task, want_task)
    _same(np.asarray(Derived(schedule).events), legacy.event_times(schedule))
    if schedule.is_pipeline:
        starts, ends, index = legacy.op_matrices(schedule)
        _same(schedule.op_starts, starts)
        _same(schedule.op_ends, ends)
        _same(schedule.op_task_index, index)


@settings(max_examples=250, deadline=None)
@given(schedules(), st.lists(st.floats(-1.0, 60.0), max_size=5))
def test_the_reach_of_a_few_tasks_as_the_whole_reach(schedule: Schedule, times) -> None:
    """`Schedule.reach_at` and `Schedule.first_reaching` give what the whole reach
    gives (kept only where rows overlap: `Schedule.rows_disjoint`), at every position and
    at every start, end and other time, both sides."""
    want_reach, want_task = legacy.row_reach(schedule)
    order, bounds = schedule.by_row
    ends = schedule.end[order]
    overlap = any(
        (schedule.row_starts[lo + 1 : hi] < ends[lo : hi - 1]).any()
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
        if hi > lo
    )
    assert schedule.rows_disjoint == (not overlap)
    assert (schedule._rows.reach is None) == (not overlap)
    reach, task = schedule.reach_at(np.arange(len(order)))
    _same(reach, want_reach)
    _same(task, want_task)
    for k in range(len(order)):
        assert schedule.reach_at(k) == (want_reach[k], want_task[k])
    probes = [*times, *schedule.start.tolist(), *schedule.end.tolist()]
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        for t in probes:
            for side in ("left", "right"):
                want = lo + int(np.searchsorted(want_reach[lo:hi], t, side))
                assert schedule.first_reaching(lo, hi, t, side) == want, (lo, hi, t, side)


@settings(max_examples=250, deadline=None)
@given(schedules())
def test_gaps_idle_spans_and_busy_time_as_before(schedule: Schedule) -> None:
    index = Derived(schedule).waits
    for got, want in zip(index.gaps, legacy.gaps(schedule, index.pipeline), strict=True):
        _same(got, want)
    for unit, want in zip(index.units, legacy.units(schedule, index.pipeline), strict=True):
        _same(unit.tasks_at(np.arange(len(unit))), want.tasks)
        for name in ("starts", "ops", "points"):
            _same(getattr(unit, name), getattr(want, name))
    spans = Derived(schedule).idle_spans
    want_spans = legacy.idle_columns(schedule)
    for name, want in zip(("row", "start", "end", "reason", "next_task"), want_spans, strict=True):
        _same(getattr(spans, name), want)
    _same(Derived(schedule).busy_by_worker, legacy.busy_by_worker(schedule))
    assert typical_duration(Derived(schedule)) == legacy.typical_duration(schedule)


@settings(max_examples=200, deadline=None)
@given(schedules())
def test_stats_numbers_as_before(schedule: Schedule) -> None:
    if len(schedule):
        neck = metrics.bottleneck(Derived(schedule))
        per_unit = legacy.work_per_unit(schedule) / np.asarray(schedule.workers, dtype=float)
        assert neck.work_per_worker == float(per_unit.max())
    work = metrics.op_work(schedule)
    if work is None:
        assert not len(schedule) or schedule.n_units != 3 or not schedule.is_pipeline
        return
    durations = schedule.op_ends - schedule.op_starts
    _same(work.per_stage, durations.sum(axis=0))
    assert work.column_sums == tuple(float(durations[:, i].sum()) for i in range(3))
    assert work.total == float(durations.sum())
    margin = time_tolerance(float(durations.max(initial=0.0)))
    assert work.identical == bool((np.ptp(durations, axis=0) <= margin).all())
    assert work.hold_mean == float(durations.sum(axis=1).mean())
    assert work.longest_op == float(durations.sum(axis=1).max())


@settings(max_examples=200, deadline=None)
@given(schedules(), st.floats(-1, 40), st.floats(0.5, 60), st.integers(1, 30), st.floats(0, 4))
def test_span_index_answers_as_before(schedule, t0, span, columns, shortest) -> None:
    columns_of = (schedule.start, schedule.end, schedule.row, schedule.n_workers)
    want = legacy.SpanIndex(*columns_of)
    as_spans = spans_schedule(*columns_of)  # (its own row order, reach where rows overlap)
    for index in (SpanIndex.of_schedule(schedule), SpanIndex.of_schedule(as_spans)):
        merged = ("merged_start", "merged_end", "merged_before", "merged_bounds")
        for got, name in zip(index._merged, merged, strict=True):
            _same(got, getattr(want, name))
        _same(index.at_least(shortest), want.by_length[np.searchsorted(want.lengths, shortest) :])
        assert index.count_at_least(shortest) == len(want.lengths) - int(
            np.searchsorted(want.lengths, shortest)
        )
        assert index.latest_end == float(want.reach.max(initial=0.0))
        visible = set(np.flatnonzero((schedule.end >= t0) & (schedule.start <= t0 + span)).tolist())
        assert visible <= set(index.visible(t0, t0 + span).tolist())
        assert index.count_visible(t0, t0 + span) == len(index.visible(t0, t0 + span))
        # (disjoint rows add span lengths instead of merged intervals: equal to rounding)
        got = index.busy_fraction(t0, t0 + span, columns)
        assert np.allclose(got, want.busy_fraction(t0, t0 + span, columns), rtol=0, atol=1e-9)


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("columns", [1, 3, 40, 700, 5000])
@pytest.mark.parametrize("window", [(0.0, 1.0), (0.3, 0.31), (-0.1, 1.2)])
@pytest.mark.parametrize("kept", ["by_row", "spans", "in_order"])
def test_disjoint_busy_time_many_spans_a_column_and_few(build, columns, window, kept) -> None:
    """A row's busy time on disjoint rows, from fences (compiled: a time at a time; numpy:
    all at once), zoomed out (many spans a column) and in (few), agrees with the spans
    clipped to each time, on a simulated run's rows (``by_row``: its row order, no reach
    kept), on the spans as a Schedule of their own (its own order and reach) and on spans
    in row order already (``in_order``: strided starts and ends)."""
    rng = np.random.default_rng(columns)
    n = 3_000
    durations = rng.uniform(0.5, 1.5, (n, 3))
    scenario = Scenario(*durations.T, workers=(2, 1, 3), buffers=4)
    schedule = simulate(scenario, "pipelined")
    start, end, row = schedule.start, schedule.end, schedule.row
    with fast_scheduler.using(build):
        if kept == "by_row":
            index = SpanIndex.of_schedule(schedule)
            assert schedule.rows_disjoint and index.reach is None
        elif kept == "spans":
            index = SpanIndex.of_schedule(spans_schedule(start, end, row, schedule.n_workers))
        else:
            key = np.lexsort((start, row))
            pairs = np.stack([start[key], end[key]], axis=1)  # (strided columns)
            start, end, row = pairs[:, 0], pairs[:, 1], row[key]
            index = SpanIndex.of_schedule(spans_schedule(start, end, row, schedule.n_workers))
        want = legacy.SpanIndex(start, end, row, schedule.n_workers)
        t0, t1 = (schedule.makespan * edge for edge in window)
        got = index.busy_fraction(t0, t1, columns)
        assert np.allclose(got, want.busy_fraction(t0, t1, columns), rtol=0, atol=1e-9)
        edges = np.linspace(t0, t1, columns + 1)
        for r in range(schedule.n_workers):
            mine = row == r
            plain = np.clip(edges[:, None], start[mine], end[mine])
            before = (plain - start[mine]).sum(axis=1)
            assert np.allclose(index.busy_until(r, edges), before, rtol=1e-12, atol=1e-9)


@pytest.mark.skipif(fast_scheduler.compiled is None, reason="the compiled extension")
@pytest.mark.parametrize(
    ("order", "offset", "fences", "error"),
    [
        (np.array([0, 5], np.int32), 0, np.zeros(2), ValueError),  # an end past the last
        (np.array([0, 1, 2], np.int64), 0, np.zeros(2), ValueError),  # one a span, not 3
        (None, 2, np.zeros(2), ValueError),  # spans 2, 3 of 3 ends
        (None, 0, np.zeros(0), ValueError),  # no fence for the first span
        (np.array([0, 1], np.int16), 0, np.zeros(2), TypeError),
    ],
)
def test_the_compiled_busy_time_refuses_bad_arguments(order, offset, fences, error) -> None:
    compiled = fast_scheduler.compiled
    assert compiled is not None
    starts, ends, times = np.array([0.0, 1.0]), np.array([0.5, 1.5, 2.0]), np.array([1.2])
    with pytest.raises(error):
        compiled.busy_until_row(starts, ends, order, offset, fences, 16, times, np.empty(1))


@settings(max_examples=60, deadline=None)
@given(scenarios(max_ops=14), st.sampled_from(["sequential", "pipelined"]))
def test_handed_over_columns_equal_the_reference(scenario, policy) -> None:
    fast, reference = simulate(scenario, policy), simulate_reference(scenario, policy)
    for column in ("op", "stage", "unit", "worker", "start", "end", "grant"):
        _same(getattr(fast, column), getattr(reference, column))
        assert not getattr(fast, column).flags.writeable
    # Every start is 0 or an end, so the ends alone give the event times.
    _same(np.asarray(Derived(fast).events), legacy.event_times(fast))
    assert set(fast.start.tolist()) <= set(fast.end.tolist()) | {0.0}


def test_runs_share_their_layout_and_free_it_with_them() -> None:
    scenario = Scenario.uniform_ops(1000, 1.0, 2.0, 1.5, buffers=2)
    first, second = simulate(scenario, "sequential"), simulate(scenario, "pipelined")
    assert first.op is second.op and first.stage is second.stage is second.unit
    assert first.worker is second.worker  # one worker per unit: all zeros, shared
    assert first.row is first.unit  # one worker per unit: rows are units
    assert np.shares_memory(first.op_starts, first.start)  # op-major: views, not copies
    layout = weakref.ref(first.op)
    del first, second
    gc.collect()
    assert layout() is None


def test_handed_over_arrays_are_frozen_and_borrowed_ones_copied() -> None:
    starts = np.zeros((2, 3))
    ends = np.ones((2, 3))
    borrowed = Schedule.from_stage_matrices(starts, ends)
    starts[0, 0] = 0.5  # the caller still owns its arrays: the Schedule kept a copy
    assert borrowed.start[0] == 0.0
    owned = Schedule.from_stage_matrices(starts, ends, owned=True)
    assert np.shares_memory(owned.start, starts) and not starts.flags.writeable
    view = np.arange(4.0)[1:]
    view.flags.writeable = False  # read-only, but its owner may still change
    shared = Schedule(
        op=[0, 0, 0], stage=[0, 1, 2], unit=[0, 1, 2], worker=[0, 0, 0], start=view,
        end=view + 1, n_ops=1,
    )  # fmt: skip
    assert not np.shares_memory(shared.start, view)


def test_layout_checks_still_refuse_bad_workers() -> None:
    op, stage, _ = pipeline_layout(2)
    with pytest.raises(PipeLabError, match="worker"):
        Schedule(op=op, stage=stage, unit=stage, worker=[0, 0, 0, 0, 1, 0], start=np.zeros(6),
                 end=np.ones(6), n_ops=2, workers=(1, 1, 1))  # fmt: skip
    with pytest.raises(PipeLabError, match="worker"):
        Schedule.from_stage_matrices(
            np.zeros((1, 3)), np.ones((1, 3)), [[0, 2, 0]], workers=(1, 2, 1)
        )
    for bad in ([[0, 2, 1]], [[0, -1, 1]]):  # one worker count for every unit: one pass
        with pytest.raises(PipeLabError, match="worker"):
            Schedule.from_stage_matrices(np.zeros((1, 3)), np.ones((1, 3)), bad, workers=(2, 2, 2))
    Schedule.from_stage_matrices(np.zeros((1, 3)), np.ones((1, 3)), [[1, 0, 1]], workers=(2, 2, 2))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 1.0, 1.5, 2.0, 7.0]), max_size=40),
    st.lists(st.tuples(st.sampled_from([-1.0, 0.0, 1.0, 1.2, 2.0, 9.0]), st.integers(-5, 50))),
    st.integers(0, 3),
)
def test_rank_near_is_searchsorted(values, queries, steps) -> None:
    from engine.reasons.wait_index import rank_near

    sorted_values = np.sort(np.array(values, dtype=float))
    times = np.array([t for t, _ in queries], dtype=float)
    guess = np.array([g for _, g in queries], dtype=np.int64)
    want = np.searchsorted(sorted_values, times, "right")
    _same(rank_near(sorted_values, times, guess, steps), want)


@settings(max_examples=200, deadline=None)
@given(schedules())
def test_the_narrations_sorted_columns_are_the_sorted_columns(schedule: Schedule) -> None:
    """Each stage's ready times and starts, sorted (`WaitIndex.columns`, which a simulated
    run takes from its units' sorted starts where it can), as np.sort gives them."""
    index = Derived(schedule).waits
    if not index.pipeline:
        return
    ready_sorted, start_sorted, _ = index.columns
    for stage in range(len(schedule.stage_names)):
        ready = index.grant if stage == 0 else schedule.op_ends[:, stage - 1]
        _same(ready_sorted[stage], np.sort(ready))
        _same(start_sorted[stage], np.sort(schedule.op_starts[:, stage]))


@pytest.mark.parametrize("workers", [(2, 2, 2), (1, 3, 2)])
def test_a_sequential_run_with_several_workers_shares_the_row_layout(workers) -> None:
    """One op at a time: every task on its unit's first worker, so the rows need no sort
    (the order is the shared layout; the other workers' rows are empty), the same arrays
    the sort gives."""
    rng = np.random.default_rng(1)
    n = 3_000
    scenario = Scenario(*(rng.integers(0, 3, n).astype(float) for _ in range(3)), workers=workers)
    schedule = simulate(scenario, "sequential")
    order, bounds = schedule.by_row
    want_order, want_bounds = legacy.by_row(schedule)
    _same(order, want_order)
    _same(bounds, want_bounds)
    _same(schedule.row_starts, schedule.start[want_order])
    assert order is simulate(scenario, "sequential").by_row[0]  # shared while both live
    assert schedule.rows_disjoint
