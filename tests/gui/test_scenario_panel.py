"""The scenario form reports only what the user changed: a value the spin boxes can only
show rounded (or clamped) is not rewritten by leaving its field untouched."""

from __future__ import annotations

import pytest

from engine.scenario import Scenario
from gui.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    return win


def test_leaving_an_untouched_duration_keeps_the_scenarios_finer_value(
    window: MainWindow,
) -> None:
    assert window.apply_scenario(Scenario.uniform_ops(3, 0.125, 1.0, 2e6, name="fine"))
    read, write = window.scenario_panel.durations["read"], window.scenario_panel.durations["write"]
    assert read.value() == pytest.approx(0.13)  # the box can only show it rounded
    read.editingFinished.emit()  # focus leaves the field, nothing typed
    write.editingFinished.emit()  # shown clamped to the box's maximum
    assert window.scenario.read[0] == 0.125
    assert window.scenario.write[0] == 2e6
    read.setValue(0.5)  # a real edit still applies
    read.editingFinished.emit()
    assert window.scenario.read[0] == 0.5
