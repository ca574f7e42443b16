"""engine.view_model (pure, no Qt): idle intervals, hover lookup, op motion, slots, stats."""

from __future__ import annotations

import numpy as np
import pytest

from engine.metrics import idle_gaps
from engine.scenario import Scenario, load_preset
from engine.scheduler import simulate
from engine.timeline import state_at
from engine.view_model import (
    comparison,
    idle_intervals,
    op_motion,
    schedule_stats,
    slot_assignment,
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


def test_stats_explain_themselves() -> None:
    scenario = load_preset("book")
    seq, pipe = simulate(scenario, "sequential"), simulate(scenario, "pipelined")
    stats = schedule_stats(pipe, scenario)
    values = {line.label: line.value for line in stats.lines}
    assert values["makespan"] == "5 s" and values["formula"] == "5 s ✓ agrees"
    assert all(line.how for line in stats.lines)
    assert [w.utilization for w in stats.workers] == pytest.approx([0.6, 0.6, 0.6])
    speed = comparison([seq, pipe])
    assert speed is not None and speed.value == "1.8×" and "9 s" in speed.how
