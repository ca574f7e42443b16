"""engine.view_model (pure, no Qt): idle intervals, hover lookup, op motion, slots, stats."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.metrics import idle_gaps
from engine.scenario import Scenario, load_preset
from engine.schedule import Schedule
from engine.scheduler import simulate
from engine.timeline import state_at, workers_at
from engine.view_model import (
    comparison,
    idle_intervals,
    op_motion,
    ops_now,
    schedule_stats,
    slot_assignment,
    slot_holders,
    task_at,
)


@pytest.mark.parametrize("preset", ["book", "double-buffering", "two-load-units", "uneven-ops"])
@pytest.mark.parametrize("policy", ["sequential", "pipelined"])
def test_idle_intervals_match_metrics(preset: str, policy: str) -> None:
    schedule = simulate(load_preset(preset), policy)
    rows, starts, ends = idle_intervals(schedule)
    for row in range(schedule.n_workers):
        mine = [(a, b) for r, a, b in zip(rows, starts, ends, strict=True) if r == row]
        theirs = idle_gaps(schedule, row)
        assert np.allclose(np.array(mine).reshape(-1, 2), np.array(theirs).reshape(-1, 2))


def test_task_at_finds_the_running_task() -> None:
    schedule = simulate(load_preset("book"), "pipelined")
    task = task_at(schedule, 1, 2.5)  # compute unit at 2.5 s: op 2
    assert schedule.op[task] == 1 and schedule.stage[task] == 1
    assert task_at(schedule, 1, 0.5) == -1
    assert task_at(schedule, 7, 1.0) == -1


def test_motion_lands_on_the_engine_state_at_every_event() -> None:
    schedule = simulate(load_preset("double-buffering"), "pipelined")
    for t in schedule.event_times:
        motion = op_motion(schedule, float(t), travel=0.3)
        assert np.array_equal(motion.place, state_at(schedule, float(t)).op_place)
        assert (motion.fraction == 0).all()  # still frames at events


def test_motion_glides_before_a_transition() -> None:
    schedule = simulate(load_preset("book"), "pipelined")
    motion = op_motion(schedule, 0.9, travel=0.2)  # op 1 about to finish reading at 1 s
    assert motion.place[0] == 1 and motion.next_place[0] == 3  # read ends, compute starts
    assert motion.fraction[0] == pytest.approx(0.5)


def test_slots_never_double_booked() -> None:
    scenario = Scenario.uniform_ops(12, 1.0, 2.0, 1.0, workers=(2, 1, 2), buffers=3)
    schedule = simulate(scenario, "pipelined")
    slots = slot_assignment(schedule)
    assert slots.max() < 3
    first, last = schedule.grant, schedule.op_ends[:, -1]
    for a in range(12):
        for b in range(a + 1, 12):
            if slots[a] == slots[b]:
                assert last[a] <= first[b] or last[b] <= first[a]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(*(st.integers(0, 3) for _ in range(3))), min_size=1, max_size=12),
    st.tuples(*(st.integers(1, 2) for _ in range(3))),
    st.integers(0, 4),
)
def test_slot_assignment_is_valid_on_random_runs(rows, workers, buffers) -> None:
    """Whichever rule applies (round robin or lowest free), no two ops holding at the same
    time share a slot, and B slots are never exceeded."""
    d = np.array(rows, dtype=float)
    scenario = Scenario(d[:, 0], d[:, 1], d[:, 2], workers=workers, buffers=buffers)
    schedule = simulate(scenario, "pipelined")
    slots = slot_assignment(schedule)
    if buffers:
        assert slots.max() < buffers
    first, last = schedule.grant, schedule.op_ends[:, -1]
    for a in range(schedule.n_ops):
        for b in range(a + 1, schedule.n_ops):
            overlap = first[a] < last[b] and first[b] < last[a]
            assert not (overlap and slots[a] == slots[b])


def test_round_robin_slots_with_one_worker_per_unit() -> None:
    schedule = simulate(Scenario.uniform_ops(7, buffers=3))
    assert slot_assignment(schedule).tolist() == [0, 1, 2, 0, 1, 2, 0]


def test_stats_explain_themselves() -> None:
    scenario = load_preset("book")
    seq, pipe = simulate(scenario, "sequential"), simulate(scenario, "pipelined")
    stats = schedule_stats(pipe, scenario)
    values = {line.label: line.value for line in stats.lines}
    assert values["makespan"] == "5 s"
    assert values["formula"] == "5 s = 3 s for the first op + 2 × 1 s ✓ agrees"
    assert all(line.how for line in stats.lines)
    assert [w.utilization for w in stats.workers] == pytest.approx([0.6, 0.6, 0.6])
    # Every stage takes 1 s: no stage is the bottleneck, and the panel says so.
    assert values["bottleneck"] == (
        "none: read = compute = write: each allows one op every 1 s (balanced)"
    )
    how = {line.label: line.how for line in stats.lines}["bottleneck"]
    assert "read, compute and write each have 3 s per worker = 60%" in how
    uneven = simulate(Scenario.uniform_ops(3, 1.0, 2.0, 1.0), "pipelined")
    neck = {line.label: line for line in schedule_stats(uneven).lines}["bottleneck"]
    assert neck.value == "the compute unit: each compute takes 2 s: one op every 2 s"
    assert "6 s of compute per worker" in neck.how
    speed = comparison([seq, pipe])
    assert speed is not None and speed.value == "1.8×" and "9 s" in speed.how


# -- the fast frame (ops_now, slot_holders, workers_at) equals state_at / op_motion ------

SHELF = 4


def _relabelled(schedule: Schedule, seed: int) -> Schedule:
    """The same run with op numbers shuffled, so ops neither start nor finish in op order
    (as a measured run may): the fast frame must not rely on that order."""
    perm = np.random.default_rng(seed).permutation(schedule.n_ops)
    grant = None
    if schedule.grant is not None:
        grant = np.empty(schedule.n_ops)
        grant[perm] = schedule.grant
    return Schedule(
        perm[schedule.op],
        schedule.stage,
        schedule.unit,
        schedule.worker,
        schedule.start,
        schedule.end,
        workers=schedule.workers,
        n_ops=schedule.n_ops,
        buffers=schedule.buffers,
        grant=grant,
    )


def _assert_frame_equals_state(schedule: Schedule, time: float, travel: float) -> None:
    full = op_motion(schedule, time, travel)
    state = state_at(schedule, time)
    now = ops_now(schedule, time, travel, SHELF)
    last = 2 * len(schedule.stage_names)
    assert now.last_place == last
    # Every op it returns moves exactly as op_motion says ...
    assert np.array_equal(full.place[now.ops], now.place)
    assert np.array_equal(full.next_place[now.ops], now.next_place)
    assert np.array_equal(full.fraction[now.ops], now.fraction)
    # ... and it returns every op off the shelves or gliding, and no other moving op.
    moving = (full.place > 0) & (full.place < last) | (full.fraction > 0)
    assert np.array_equal(np.sort(now.moving), np.flatnonzero(moving))
    assert np.array_equal(full.place, state.op_place)
    assert now.waiting == int((state.op_place == 0).sum())
    assert now.done == int((state.op_place == last).sum())
    assert np.array_equal(now.first_waiting, np.flatnonzero(state.op_place == 0)[:SHELF])
    assert np.array_equal(now.last_done, np.flatnonzero(state.op_place == last)[::-1][:SHELF])
    assert now.slots_in_use == state.slots_in_use
    slots = slot_assignment(schedule)
    expected = np.full(8, -1)
    for op in np.flatnonzero(state.op_holds_slot):
        if slots[op] < 8:
            expected[slots[op]] = op
    assert np.array_equal(slot_holders(schedule, time, 8), expected)
    workers = workers_at(schedule, time)
    assert np.array_equal(workers.task, state.worker_task)
    assert np.array_equal(workers.op, state.worker_op)
    assert np.array_equal(workers.stage, state.worker_stage)
    assert np.array_equal(workers.fraction, state.worker_fraction)
    assert np.array_equal(workers.idle_since, state.worker_idle_since, equal_nan=True)


def _times(schedule: Schedule) -> list[float]:
    """Every event time, just before and after each, and instants outside the run."""
    events = schedule.event_times
    near = np.concatenate([events, events - 1e-7, events + 1e-7, (events[1:] + events[:-1]) / 2])
    times = np.unique(near)[:: max(1, len(near) // 400)]  # long runs: a spread of 400
    return sorted({-1.0, schedule.makespan + 1.0, *times.tolist()})


@pytest.mark.parametrize(
    "preset", ["book", "double-buffering", "two-load-units", "uneven-ops", "many-ops"]
)
@pytest.mark.parametrize("policy", ["sequential", "pipelined"])
@pytest.mark.parametrize("shuffled", [False, True])
def test_fast_frame_equals_state_at_on_presets(preset: str, policy: str, shuffled: bool) -> None:
    schedule = simulate(load_preset(preset), policy)
    if shuffled:
        schedule = _relabelled(schedule, seed=len(preset))
    for time in _times(schedule):
        _assert_frame_equals_state(schedule, time, travel=0.3)


_duration = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.7])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(_duration, _duration, _duration), min_size=1, max_size=10),
    workers=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)),
    buffers=st.integers(0, 4),
    travel=st.sampled_from([0.0, 0.2, 1.0, 5.0]),
    seed=st.integers(0, 3),
)
def test_fast_frame_equals_state_at_on_random_runs(
    rows: list[tuple[float, float, float]],
    workers: tuple[int, int, int],
    buffers: int,
    travel: float,
    seed: int,
) -> None:
    r, c, w = (list(col) for col in zip(*rows, strict=True))
    schedule = simulate(Scenario(r, c, w, workers=workers, buffers=buffers), "pipelined")
    if seed:
        schedule = _relabelled(schedule, seed)
    for time in _times(schedule):
        _assert_frame_equals_state(schedule, time, travel)


def test_slots_of_a_sequential_run_are_all_slot_zero_and_pipelined_reuse_them() -> None:
    scenario = Scenario.uniform_ops(6, 1.0, 2.0, 1.0, buffers=2)
    assert (slot_assignment(simulate(scenario, "sequential")) == 0).all()
    slots = slot_assignment(simulate(scenario, "pipelined"))
    assert sorted(set(slots.tolist())) == [0, 1]  # double buffering takes turns


def test_measured_beside_the_model_reports_overlap_efficiency() -> None:
    from dataclasses import replace

    from engine.view_model import comparison

    model = simulate(load_preset("book"))
    measured = replace(model, source="measured", end=model.end * 1.25, label="hardware")
    line = comparison([measured, model])
    assert line is not None
    assert line.label == "model ÷ measured" and line.value == "80%"
    assert "Overlap efficiency" in line.how


def test_the_stats_name_a_list_scheduling_anomaly() -> None:
    from engine.scenario import Scenario
    from engine.view_model import schedule_stats

    scenario = Scenario([1.0, 0.0], [0.0, 2.0], [2.0, 3.0], buffers=2, workers=(2, 1, 1))
    stats = schedule_stats(simulate(scenario, "pipelined"), scenario)
    (anomaly,) = [line for line in stats.lines if line.label == "anomaly"]
    assert anomaly.value == "fewer load workers is faster"
    assert "with 1 load workers instead of 2" in anomaly.how
    book = load_preset("book")
    assert not [
        line for line in schedule_stats(simulate(book), book).lines if line.label == "anomaly"
    ]
