"""Hypothesis properties of the scheduler, the metrics and state_at over random scenarios."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis.derived import Derived
from engine.analysis.metrics import utilization_by_unit, utilization_by_worker
from engine.analysis.timeline import Place, state_at
from engine.base.validation import MIN_DURATION
from engine.compiled import fast_scheduler
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from engine.model.scheduler import simulate, simulate_reference
from tests.engine.bounds import lower_bound

EPS = 1e-9

# Durations from a small grid make ties (and zero-length stages) common; floats cover the rest
# of what a scenario accepts (0, or at least MIN_DURATION).
duration = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0]),
    st.floats(min_value=MIN_DURATION, max_value=10.0, allow_nan=False, allow_infinity=False),
)


@st.composite
def scenarios(draw: st.DrawFn, max_workers: int = 3) -> Scenario:
    n = draw(st.integers(1, 12))
    rows = draw(st.lists(st.tuples(duration, duration, duration), min_size=n, max_size=n))
    workers = draw(st.tuples(*(st.integers(1, max_workers) for _ in range(3))))
    buffers = draw(st.integers(0, 5))
    r, c, w = (list(col) for col in zip(*rows, strict=True))
    return Scenario(r, c, w, workers=workers, buffers=buffers)


def _ready_times(schedule: Schedule) -> np.ndarray:
    """(n, 3): when each stage became ready (read: the slot grant; else previous end)."""
    assert schedule.grant is not None
    ready = np.empty_like(schedule.op_starts)
    ready[:, 0] = schedule.grant
    ready[:, 1:] = schedule.op_ends[:, :-1]
    return ready


def _slots_in_use(schedule: Schedule, time: float) -> int:
    assert schedule.grant is not None
    return int(((schedule.grant <= time) & (time < schedule.op_ends[:, 2])).sum())


def _check_invariants(scenario: Scenario, schedule: Schedule) -> None:
    starts, ends = schedule.op_starts, schedule.op_ends
    np.testing.assert_allclose(ends - starts, scenario.durations, atol=1e-9)

    # No worker runs two stages at once.
    order, bounds = schedule.by_row
    for row in range(schedule.n_workers):
        idx = order[bounds[row] : bounds[row + 1]]
        assert (schedule.start[idx][1:] >= schedule.end[idx][:-1] - EPS).all()

    # Stages of an op run in order.
    assert (starts[:, 1:] >= ends[:, :-1] - EPS).all()

    ready = _ready_times(schedule)
    assert (starts >= ready - EPS).all()

    # No needless waiting: a stage that starts after it became ready found every worker of
    # its unit busy throughout the wait, and stages are served in ready order (op on ties).
    for stage in range(3):
        k = schedule.workers[stage]
        unit_tasks = schedule.unit == stage
        for op in range(schedule.n_ops):
            if starts[op, stage] <= ready[op, stage] + EPS:
                continue
            lo, hi = ready[op, stage], starts[op, stage]
            probes = np.unique(np.concatenate([[lo], schedule.end[unit_tasks]]))
            probes = probes[(probes >= lo - EPS) & (probes < hi - EPS)]
            for t in probes:
                busy = unit_tasks & (schedule.start <= t + EPS) & (schedule.end > t + EPS)
                assert busy.sum() == k, f"op {op} stage {stage} waited with a worker free at {t}"
        key = np.lexsort((np.arange(schedule.n_ops), ready[:, stage]))
        assert (np.diff(starts[key, stage]) >= -EPS).all(), "a later-ready stage jumped ahead"

    # Slots: granted in op order, never more than B held, a grant is never late.
    grant = schedule.grant
    assert grant is not None
    assert (np.diff(grant) >= -EPS).all()
    buffers = schedule.buffers
    if buffers:
        for t in np.unique(np.concatenate([grant, ends[:, 2], starts.ravel()])):
            assert _slots_in_use(schedule, t) <= buffers
        for op in range(1, schedule.n_ops):
            if grant[op] > grant[op - 1] + EPS:
                before = np.nextafter(grant[op], -np.inf)  # the instant just before
                assert _slots_in_use(schedule, before) >= buffers, f"op {op} granted late"
    else:
        assert (grant == 0).all()

    assert schedule.makespan >= lower_bound(scenario) - 1e-9
    util = utilization_by_worker(Derived(schedule))
    assert ((util >= -EPS) & (util <= 1 + EPS)).all()
    assert all(0 <= u <= 1 + EPS for u in utilization_by_unit(Derived(schedule)).values())


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_pipelined_invariants(scenario: Scenario) -> None:
    _check_invariants(scenario, simulate(scenario, "pipelined"))


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_sequential_invariants(scenario: Scenario) -> None:
    schedule = simulate(scenario, "sequential")
    _check_invariants(scenario, schedule)
    total_work = float(scenario.durations.sum())  # one op at a time: the work end to end
    assert abs(schedule.makespan - total_work) <= 1e-9 * max(1.0, total_work)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_sequential_never_beats_pipelined(scenario: Scenario) -> None:
    """True for any worker counts: while ops remain, some worker is always busy (an op holding
    a slot has a running or waiting stage, and a waiting stage finds its unit busy), so the
    pipelined makespan never exceeds the total work, which is the sequential makespan."""
    sequential = simulate(scenario, "sequential").makespan
    assert simulate(scenario, "pipelined").makespan <= sequential + 1e-9 * max(1.0, sequential)


@st.composite
def long_scenarios(draw: st.DrawFn) -> Scenario:
    """300-900 ops: long enough for every rounding difference the old vectorized one-worker
    paths had, with ties and zero-length stages (grid) or without (continuous)."""
    n = draw(st.integers(300, 900))
    workers = draw(st.tuples(*(st.integers(1, 3) for _ in range(3))))
    buffers = draw(st.one_of(st.sampled_from([0, 1, 2, 3, 48]), st.integers(0, n + 5)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["continuous", "grid", "identical"]))
    if kind == "continuous":
        low = draw(st.sampled_from([0.0, 0.5]))
        d = rng.uniform(low, low + 1.0, (n, 3))
        d[d < MIN_DURATION] = 0.0  # (0 or at least 1 µs: about one scenario in 500 drew less)
    elif kind == "grid":
        d = rng.choice([0.0, 0.25, 0.5, 1.0, 1.5, 3.0], (n, 3))
    else:
        d = np.tile(draw(st.tuples(duration, duration, duration)), (n, 1))
    return Scenario(d[:, 0], d[:, 1], d[:, 2], workers=workers, buffers=buffers)


def _identical(got: Schedule, expected: Schedule) -> bool:
    assert got.grant is not None and expected.grant is not None
    return all(
        np.array_equal(a, b)
        for a, b in [
            (got.start, expected.start),
            (got.end, expected.end),
            (got.worker, expected.worker),
            (got.grant, expected.grant),
        ]
    )


@settings(max_examples=120, deadline=None)
@given(long_scenarios())
def test_simulate_equals_reference_bit_for_bit(scenario: Scenario) -> None:
    """Both builds of `simulate` (compiled where built, and pure Python) are the reference."""
    builds = ["python"] + (["compiled"] if fast_scheduler.compiled is not None else [])
    for policy in ("sequential", "pipelined"):
        reference = simulate_reference(scenario, policy)
        for name in builds:
            with fast_scheduler.using(name):
                assert _identical(simulate(scenario, policy), reference), (name, policy)


@settings(max_examples=200, deadline=None)
@given(scenarios(), st.floats(min_value=0.0, max_value=1.0))
def test_state_at_matches_the_task_list(scenario: Scenario, where: float) -> None:
    schedule = simulate(scenario)
    time = where * schedule.makespan
    state = state_at(schedule, time)
    running = (schedule.start <= time) & (time < schedule.end)
    # Each worker's task is exactly the task running on its row now.
    for row in range(schedule.n_workers):
        mine = np.flatnonzero(running & (schedule.row == row))
        assert len(mine) <= 1
        if len(mine):
            task = int(mine[0])
            assert state.workers.task[row] == task
            assert state.workers.op[row] == schedule.op[task]
            span = schedule.end[task] - schedule.start[task]
            assert abs(state.workers.fraction[row] - (time - schedule.start[task]) / span) < 1e-9
        else:
            assert state.workers.task[row] == -1
            done = schedule.end[(schedule.row == row) & (schedule.end <= time)]
            assert state.workers.idle_since[row] == (done.max() if len(done) else 0.0)
    # Each op's place agrees with its stages' times.
    for op in range(schedule.n_ops):
        place = Place(int(state.op_place[op]))
        s, e = schedule.op_starts[op], schedule.op_ends[op]
        if place == Place.DONE:
            assert e[2] <= time
        elif place == Place.WAITING:
            assert s[0] > time
        elif place in (Place.READING, Place.COMPUTING, Place.WRITING):
            stage = (int(place) - 1) // 2
            assert s[stage] <= time < e[stage]
        else:
            stage = (int(place) - 2) // 2
            assert e[stage] <= time < s[stage + 1]
    assert state.slots_in_use == _slots_in_use(schedule, time)
    if schedule.buffers:
        assert state.slots_in_use <= schedule.buffers
