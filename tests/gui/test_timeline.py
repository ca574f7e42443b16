"""The Gantt: bars in one item, hover text, the cursor follows and drives the clock, and
moving the cursor never repaints the bars; rows per op; density where bars are thinner
than a pixel, bars again when zoomed in."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor

from engine.errors import PipeLabError
from engine.scenario import Scenario, load_preset
from engine.schedule import Schedule
from engine.scheduler import simulate
from gui.clock import Clock
from gui.colours import LIGHT, OP_COLOURS, density_colours
from gui.timeline import TimelineView, add_rows_menu


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
    bottom = view.groups[0].first_row + 2
    assert [w for _, w in view.row_axis.labels(-0.45, bottom, 300)] == ["copy", "kernel"]
    assert view.getPlotItem().getAxis("bottom").labelText == "time (ms)"
    view.set_schedules([simulate(load_preset("book"))])
    assert view.getPlotItem().getAxis("bottom").labelText == "time (s)"


def test_rows_per_op_show_the_staircase(timeline: TimelineView) -> None:
    timeline.set_rows("ops")
    assert timeline.rows == "ops" and timeline.bar_count == 18
    group = timeline.groups[1]  # pipelined
    assert group.n_rows == 3
    text = timeline.describe_at(1.5, group.first_row + 1)  # op 2 reads from 1 s to 2 s
    assert "op 2 · read" in text
    last = timeline.groups[-1]
    words = [w for _, w in timeline.row_axis.labels(-0.45, last.first_row + 3, 400)]
    assert words == ["op 1", "op 2", "op 3"] * 2
    timeline.set_rows("workers")
    assert timeline.groups[0].n_rows == 3
    with pytest.raises(PipeLabError):
        timeline.set_rows("stages")


def test_density_when_zoomed_out_and_bars_when_zoomed_in(qtbot) -> None:
    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    view.resize(900, 400)
    view.show()
    qtbot.waitExposed(view)
    schedule = simulate(Scenario.uniform_ops(100_000, 1.0, 1.2, 0.8, buffers=3), "pipelined")
    view.set_schedules([schedule])
    qtbot.waitUntil(lambda: len(view.bars.last_plan) == 1)
    bars, runs = view.bars.last_plan[0]
    assert bars == 0 and 0 < runs < 3 * 900  # a few shaded runs per row, no bar per task
    image = view.grab().toImage()
    ramp = {c.rgb() for c in density_colours(LIGHT)}
    ops = {QColor(c).rgb() for c in OP_COLOURS}
    colours = {image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(image.height())}
    assert colours & ramp and not colours & ops  # shades of busy, no op-colour noise
    painted = view.bars.paint_count
    view.getPlotItem().getViewBox().setXRange(1000.0, 1030.0, padding=0)
    qtbot.waitUntil(lambda: view.bars.paint_count > painted and len(view.bars.last_plan) == 1)
    bars, runs = view.bars.last_plan[0]
    assert 50 < bars < 200 and runs == 0  # about 30 s × 3 rows of 1 s ops: bars again


def test_rows_menu_switches_the_gantt(qtbot) -> None:
    from PySide6.QtWidgets import QMenu

    clock = Clock()
    view = TimelineView(clock)
    qtbot.addWidget(view)
    menu = QMenu()
    group = add_rows_menu(menu, view)
    per_op = next(a for a in group.actions() if "op" in a.text().replace("&", ""))
    per_op.trigger()
    assert view.rows == "ops"
