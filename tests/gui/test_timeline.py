"""The Gantt: bars in one item, hover text, the cursor follows and drives the clock, and
moving the cursor never repaints the bars."""

from __future__ import annotations

import numpy as np
import pytest

from engine.scenario import Scenario, load_preset
from engine.schedule import Schedule
from engine.scheduler import simulate
from gui.clock import Clock
from gui.timeline import TimelineView


@pytest.fixture
def timeline(qtbot):
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    scenario = load_preset("book")
    view.set_schedules([simulate(scenario, "sequential"), simulate(scenario, "pipelined")])
    clock.set_timeline(np.arange(10.0), 9.0)
    return view


def test_bars_live_in_one_item(timeline: TimelineView) -> None:
    from pyqtgraph import GraphicsObject

    items = [i for i in timeline.getPlotItem().items if isinstance(i, GraphicsObject)]
    assert timeline.bar_count == 18
    assert len([i for i in items if type(i).__name__ == "BarsItem"]) == 1


def test_hover_text_names_task_and_idle_gap(timeline: TimelineView) -> None:
    first = timeline.groups[0].first_row
    text = timeline.describe_at(3.5, first + 0)  # sequential load unit, op 2 reading
    assert "op 2 · read" in text and "start 3 s" in text and "duration 1 s" in text
    idle = timeline.describe_at(1.5, first + 0)
    assert "idle" in idle and "from 1 s to 3 s" in idle
    assert timeline.describe_at(20.0, -5.0) == ""


def test_cursor_follows_and_drives_the_clock(timeline: TimelineView, qtbot) -> None:
    clock = timeline._clock
    clock.seek(2.5)
    assert timeline.cursor.value() == 2.5
    timeline.cursor.setValue(6.0)
    timeline.cursor.sigDragged.emit(timeline.cursor)
    assert clock.time == 6.0


def test_moving_the_cursor_never_repaints_the_bars(timeline: TimelineView, qapp, qtbot) -> None:
    qtbot.wait(100)  # let the plot settle its deferred range updates
    assert timeline.bars.paint_count >= 1
    before = timeline.bars.paint_count
    for t in np.linspace(0, 9, 40):
        timeline._clock.seek(float(t))
        qapp.processEvents()
    timeline.viewport().repaint()
    assert timeline.bars.paint_count == before


def test_measured_rows_may_overlap(qtbot) -> None:
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    measured = Schedule(
        op=[0, 1, 0],
        stage=[0, 0, 1],
        unit=[0, 0, 1],
        worker=[0, 0, 0],
        start=[0.0, 0.5, 1.0],
        end=[2.0, 1.5, 3.0],
        workers=(1, 1),
        n_ops=2,
        source="measured",
        time_unit="ms",
        unit_names=("copy", "kernel"),
        stage_names=("h2d", "run"),
    )
    view.set_schedules([measured])
    assert view.bar_count == 3
    assert "op 2 · h2d" in view.describe_at(1.0, view.groups[0].first_row)
    assert view.getPlotItem().getAxis("left")._tickLevels[0][0][1] == "copy"
    assert view.getPlotItem().getAxis("bottom").labelText == "time (ms)"
    view.set_schedules([simulate(load_preset("book"))])
    assert view.getPlotItem().getAxis("bottom").labelText == "time (s)"
    _ = Scenario
