"""The clock keeps a real time: a NaN from a caller never becomes "now", a new timeline is
clamped into before anyone hears of it, and the transport, hover and readouts survive the
extremes a scenario may hold (durations 0 or 1e-6 .. 1e9)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from engine.base.text import format_time
from engine.base.validation import MAX_DURATION, MIN_DURATION
from engine.model.scenario import Scenario, load_preset
from gui.clock import Clock
from gui.transport import SLIDER_STEPS, slider_position
from tests.gui.conftest import OFFSCREEN_ONLY


def test_seek_ignores_nan_and_clamps_infinities(qapp) -> None:
    clock = Clock()
    clock.set_timeline([1.0, 2.0], 5.0)
    seen: list[float] = []
    clock.time_changed.connect(seen.append)
    clock.seek(2.5)
    clock.seek(float("nan"))
    assert clock.time == 2.5 and seen == [2.5]
    clock.seek(float("inf"))
    assert clock.time == 5.0
    clock.seek(float("-inf"))
    assert clock.time == 0.0
    clock.seek(1e308)
    assert clock.time == 5.0
    clock.seek(10**400)  # an int no float can hold: ignored, not an OverflowError
    assert clock.time == 5.0


def test_a_shorter_timeline_is_clamped_into_before_it_is_announced(qapp) -> None:
    """Listeners of timeline_changed read `time`: they must find it inside the new run."""
    clock = Clock()
    clock.set_timeline([0.0, 1e6, 3e6])
    clock.to_end()
    heard: list[tuple[float, float]] = []
    clock.timeline_changed.connect(lambda: heard.append((clock.time, clock.end)))
    clock.time_changed.connect(lambda t: heard.append((t, clock.end)))
    clock.set_timeline([0.0, 1.0, 5.0])
    assert heard == [(5.0, 5.0), (5.0, 5.0)]


def test_a_timeline_with_non_finite_times_keeps_a_finite_end(qapp) -> None:
    clock = Clock()
    clock.set_timeline([0.0, 2.0, float("inf"), float("nan")], float("inf"))
    assert clock.end == 2.0 and np.isfinite(clock.events).all()


@pytest.mark.parametrize(
    ("time", "end", "step"),
    [
        (0.0, 5.0, 0),
        (5.0, 5.0, SLIDER_STEPS),
        (3e6, 5.0, SLIDER_STEPS),  # the old time of a longer run: clamped, no OverflowError
        (-1.0, 5.0, 0),
        (1e308, 1e-300, SLIDER_STEPS),  # the ratio overflows to inf
        (2.5, 0.0, 0),
        (float("nan"), 5.0, 0),
        (1e-6, 3e16, 0),
    ],
)
def test_slider_position_stays_in_range(time: float, end: float, step: int) -> None:
    assert slider_position(time, end) == step


def test_end_of_a_long_run_then_the_book_preset(window, qtbot) -> None:
    """Read = 1,000,000, End, pick the book preset: the transport slider once overflowed."""
    assert window.edit("read", 1_000_000.0)
    window.clock.to_end()
    assert window.clock.time > 1e6
    assert window.choose_preset("book")
    assert window.clock.time == window.clock.end == 9.0  # sequential and pipelined: 9 s
    assert window.transport.slider.value() == SLIDER_STEPS
    assert "9 s / 9 s" in window.transport.readout.text()


def _hover_everywhere(window) -> list[str]:
    """Move the mouse over a grid of points of the timeline (and just outside it)."""
    timeline = window.view.timeline
    rect = timeline.getPlotItem().getViewBox().sceneBoundingRect()
    texts = []
    for fx in np.linspace(-0.05, 1.05, 23):
        for fy in np.linspace(-0.05, 1.05, 9):
            position = QPointF(rect.left() + fx * rect.width(), rect.top() + fy * rect.height())
            timeline._on_mouse_moved(position)
            if 0 <= fx <= 1 and 0 <= fy <= 1:
                view = timeline.getPlotItem().getViewBox()
                point = view.mapSceneToView(position)
                texts.append(timeline.describe_at(point.x(), point.y()))
    return texts


EXTREMES = {
    "shortest": Scenario.uniform_ops(3, MIN_DURATION, MIN_DURATION, MIN_DURATION),
    "longest": Scenario.uniform_ops(3, MAX_DURATION, MAX_DURATION, MAX_DURATION),
    "both at once": Scenario([MIN_DURATION, MAX_DURATION], [0.0, MIN_DURATION], [MAX_DURATION, 0]),
    "zero and tiny": Scenario.uniform_ops(4, 0.0, MIN_DURATION, 0.0),
    "many long ops": Scenario.uniform_ops(20_000, MAX_DURATION, 1.0, MIN_DURATION),
}


@pytest.mark.parametrize("name", list(EXTREMES))
@pytest.mark.qt_log_ignore(OFFSCREEN_ONLY, r"^This plugin does not support raise\(\)$")
def test_every_view_survives_the_extremes(window, qtbot, name: str) -> None:
    """Hover, slider, stepping, readout and stats at the limits of the magnitude policy
    (pytest-qt fails the test on any exception raised inside a Qt slot)."""
    scenario = EXTREMES[name]
    assert window.apply_scenario(scenario), window.scenario_panel.message.text()
    clock = window.clock
    makespan = max(s.makespan for s in window.schedules)
    assert clock.end == pytest.approx(makespan) and np.isfinite(makespan)
    for time in (0.0, 0.5 * makespan, makespan, 2 * makespan, -1.0, float("nan")):
        clock.seek(time)
        assert 0 <= window.transport.slider.value() <= SLIDER_STEPS
        assert 0.0 <= clock.time <= clock.end
    clock.to_start()
    for _ in range(8):
        clock.step_forward()
    for _ in range(8):
        clock.step_back()
    assert clock.time == 0.0
    window.transport.slider.setValue(SLIDER_STEPS // 3)
    assert 0.0 <= clock.time <= clock.end
    texts = _hover_everywhere(window)
    assert any(texts), "hovering over the bars names a task somewhere"
    assert all("nan" not in text and "inf" not in text for text in texts)
    assert window.transport.readout.text()
    assert format_time(makespan) and "nan" not in format_time(makespan)
    clock.pause()


def test_the_form_shows_the_limit(window, qtbot) -> None:
    """A duration outside the policy typed into the form: one line naming field and limit,
    the scenario kept."""
    before = window.scenario
    assert not window.edit("read", 5e9)
    message = window.scenario_panel.message.text()
    assert "read" in message and "1e9" in message and "\n" not in message
    assert window.scenario is before
    assert not window.edit("compute", 1e-9)
    assert "1e-6" in window.scenario_panel.message.text()
    assert window.edit("read", 2.0) and not window.scenario_panel.message.isVisible()
    # The form holds every value the policy accepts (its range once stopped at 1e6).
    assert window.apply_scenario(EXTREMES["longest"])
    assert window.scenario_panel.durations["read"].value() == MAX_DURATION


def test_presets_load_in_the_clock(window, qtbot) -> None:
    for name in ("many-ops", "book"):
        assert window.choose_preset(name)
        assert window.clock.end == pytest.approx(max(s.makespan for s in window.schedules))
    assert load_preset("book").n_ops == 3
