"""engine.analysis.view_model (pure, no Qt): the task under the pointer; and
engine.analysis.stats's lines as the stats panel shows them."""

from __future__ import annotations

import pytest

from engine.analysis.derived import Derived
from engine.analysis.stats import comparison, schedule_stats
from engine.analysis.view_model import task_at
from engine.model.scenario import Scenario, load_preset
from engine.model.scheduler import simulate


def test_task_at_finds_the_running_task() -> None:
    schedule = simulate(load_preset("book"), "pipelined")
    task = task_at(schedule, 1, 2.5)  # compute unit at 2.5 s: op 2
    assert schedule.op[task] == 1 and schedule.stage[task] == 1
    assert task_at(schedule, 1, 0.5) == -1
    assert task_at(schedule, 7, 1.0) == -1


def test_stats_explain_themselves() -> None:
    scenario = load_preset("book")
    seq, pipe = simulate(scenario, "sequential"), simulate(scenario, "pipelined")
    stats = schedule_stats(Derived(pipe), scenario)
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
    neck = {line.label: line for line in schedule_stats(Derived(uneven)).lines}["bottleneck"]
    assert neck.value == "the compute unit: each compute takes 2 s: one op every 2 s"
    assert "6 s of compute per worker" in neck.how
    speed = comparison([seq, pipe])
    assert speed is not None and speed.value == "1.8×" and "9 s" in speed.how


def test_measured_beside_the_model_reports_overlap_efficiency() -> None:
    from dataclasses import replace

    model = simulate(load_preset("book"))
    measured = replace(model, source="measured", end=model.end * 1.25, label="hardware")
    line = comparison([measured, model])
    assert line is not None
    assert line.label == "model ÷ measured" and line.value == "80%"
    assert "Overlap efficiency" in line.how


def test_the_stats_name_a_list_scheduling_anomaly() -> None:

    scenario = Scenario([1.0, 0.0], [0.0, 2.0], [2.0, 3.0], buffers=2, workers=(2, 1, 1))
    stats = schedule_stats(Derived(simulate(scenario, "pipelined")), scenario)
    (anomaly,) = [line for line in stats.lines if line.label == "anomaly"]
    assert anomaly.value == "fewer load workers is faster"
    assert "with 1 load workers instead of 2" in anomaly.how
    book = load_preset("book")
    assert not [
        line
        for line in schedule_stats(Derived(simulate(book)), book).lines
        if line.label == "anomaly"
    ]
