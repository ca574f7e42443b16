"""The main window: opens on the book example, steps and plays on one clock, re-simulates
on edits, rejects bad input with a message and keeps its state, remembers its settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gui.clock import Clock
from gui.main_window import MainWindow


class FakeWall:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def snapshot(win: MainWindow) -> tuple:
    """What the views show: clock time, narration, readout, cursor, assembly-line pixels."""
    image = win.view.assembly.grab().toImage()
    return (
        win.clock.time,
        win.view.narration.text(),
        win.transport.readout.text(),
        win.view.timeline.cursor.value(),
        win.transport.slider.value(),
        bytes(image.constBits()),
    )


def test_opens_on_the_book_example(window: MainWindow) -> None:
    assert window.scenario.name == "The book example"
    assert [s.policy for s in window.schedules] == ["sequential", "pipelined"]
    assert [s.makespan for s in window.schedules] == [9.0, 5.0]
    assert window.view.timeline.bar_count == 18
    assert window.clock.time == 0.0
    assert "nothing has started" not in window.view.narration.text()  # reads starts at 0
    assert "starts reading op 1" in window.view.narration.text()
    assert window.stats.value_of("", "speedup") == "1.8×"
    assert len(window.view.assembly.station_rects()) == 2
    assert all(len(lane) == 3 for lane in window.view.assembly.station_rects())


def test_steps_forward_then_back_return_exactly_the_first_state(window: MainWindow) -> None:
    window.clock.step_forward()
    window.clock.step_forward()
    first = snapshot(window)
    n = 7
    seen = set()
    for _ in range(n):
        window.clock.step_forward()
        seen.add(window.clock.time)
        assert snapshot(window)[0] > first[0]
    assert len(seen) == n  # every step moved to a new event
    for _ in range(n):
        window.clock.step_back()
    assert snapshot(window) == first


def test_playing_with_an_injected_timer_reaches_the_end(qtbot) -> None:
    timer, wall = QTimer(), FakeWall()
    clock = Clock(timer=timer, wall=wall)
    win = MainWindow(clock=clock)
    qtbot.addWidget(win)
    clock.play()
    assert clock.playing
    ticks = 0
    while clock.playing and ticks < 1000:
        wall.now += 0.25
        timer.timeout.emit()
        ticks += 1
    assert not clock.playing
    assert clock.time == clock.end == 9.0
    assert "all 3 ops are done; the run took 9 s" in win.view.narration.text()
    assert "done in 5 s" in win.view.narration.text() or "took 5 s" in win.view.narration.text()
    assert ticks == 36  # 9 s of schedule at 1× (real time) in quarter-second ticks


def test_editing_a_parameter_updates_the_timeline_and_the_stats(window: MainWindow) -> None:
    window.clock.seek(4.0)
    spin = window.scenario_panel.ops
    spin.setValue(5)
    spin.editingFinished.emit()
    assert window.scenario.n_ops == 5
    assert window.view.timeline.bar_count == 30
    assert window.stats.value_of("sequential", "makespan") == "15 s"
    assert window.stats.value_of("pipelined", "makespan") == "7 s"
    assert window.stats.value_of("", "speedup") == "2.14×"
    assert window.clock.time == 4.0  # the cursor time is kept
    window.edit("compute", 3.0)
    assert window.stats.value_of("pipelined", "makespan") == "17 s"  # 5 + 4·3
    assert window.stats.value_of("pipelined", "formula").endswith("✓ agrees")
    window.edit("compute", 1.0)
    window.edit("ops", 1)
    assert window.clock.time == window.clock.end == 3.0  # clamped to the shorter run


def test_a_bad_value_shows_a_message_and_keeps_the_state(window: MainWindow) -> None:
    before = window.schedules
    assert not window.edit("ops", 2_000_000)
    assert window.scenario_panel.message.isVisibleTo(window)
    assert "at most 1,000,000 ops" in window.scenario_panel.message.text()
    assert window.schedules == before and window.scenario.n_ops == 3
    assert window.scenario_panel.ops.value() == 3  # the form shows the kept state again
    assert not window.edit("read", -1.0)
    assert "0 or more" in window.scenario_panel.message.text()
    assert window.edit("read", 2.0)
    assert not window.scenario_panel.message.isVisibleTo(window)


def test_opening_a_bad_scenario_file_shows_a_message_and_keeps_the_scenario(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[defaults]\ncount = "three"\n')
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: messages.append(text))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(bad), ""))
    before = window.schedules
    window._open_dialog()
    assert len(messages) == 1 and "count" in messages[0] and "line 3" in messages[0]
    assert window.scenario.name == "The book example"
    assert window.schedules == before


def test_view_modes_and_presets(window: MainWindow) -> None:
    window.set_view_mode("pipelined")
    assert [s.policy for s in window.schedules] == ["pipelined"]
    assert window.view.timeline.bar_count == 9
    assert window.choose_preset("two-load-units")
    assert window.schedules[0].workers == (2, 1, 1)
    assert window.view.timeline.bar_count == 24
    assert "second load unit" in window.scenario_panel.description.text()


def test_settings_are_remembered(qtbot, tmp_path: Path) -> None:
    first = MainWindow()
    qtbot.addWidget(first)
    first.set_theme("dark")
    first.set_view_mode("sequential")
    first.edit("ops", 4)
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    assert second._theme_choice == "dark" and second.theme.name == "dark"
    assert second.view_mode == "sequential"
    from gui.app import initial_scenario

    scenario, _ = initial_scenario(None, None)
    assert scenario.n_ops == 4  # the last scenario comes back
    second.set_theme("light")


def test_add_panel_and_show_schedules(window: MainWindow) -> None:
    from PySide6.QtWidgets import QLabel

    from engine.scenario import load_preset
    from engine.scheduler import simulate

    dock = window.add_panel(QLabel("a panel"), "GPU")
    assert dock.windowTitle() == "GPU"
    measured = simulate(load_preset("memory-bound")).with_meta(
        source="measured", label="measured", time_unit="ms"
    )
    window.show_schedules([measured], "measured run")
    assert window.title.text() == "measured run"
    assert window.view.timeline.bar_count == len(measured)
    assert "ms" in window.transport.readout.text()


def test_shortcuts_drive_the_clock(window: MainWindow, qtbot) -> None:
    from PySide6.QtCore import Qt

    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=2000)
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert window.clock.time == 1.0
    qtbot.keyClick(window, Qt.Key.Key_End)
    assert window.clock.time == 9.0
    qtbot.keyClick(window, Qt.Key.Key_Left)
    assert window.clock.time == 8.0
    qtbot.keyClick(window, Qt.Key.Key_Home)
    assert window.clock.time == 0.0
    qtbot.keyClick(window, Qt.Key.Key_Plus)
    assert window.clock.speed == 2.0
    qtbot.keyClick(window, Qt.Key.Key_Minus)
    assert window.clock.speed == 1.0
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.clock.playing
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert not window.clock.playing


def test_about_names_the_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from gui.about import about_text

    text = about_text()
    assert "Qt" in text and "pyqtgraph" in text and "numpy" in text
    assert "cupy" not in sys.modules  # read from metadata, never imported
