"""The main window: opens on the book example, steps and plays on one clock, re-simulates
on edits, rejects bad input with a message and keeps its state, remembers its settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
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

    scenario, _, _ = initial_scenario(None, None)
    assert scenario.n_ops == 4  # the last scenario comes back
    second.set_theme("light")


def test_add_panel_and_show_schedules(window: MainWindow) -> None:
    from PySide6.QtWidgets import QLabel

    from engine.model.scenario import load_preset
    from engine.model.scheduler import simulate

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
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=120_000)
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


# -- the app model behind the window ---------------------------------------------------------


@pytest.fixture
def slow_window(qtbot, manual_runner):  # type: ignore[no-untyped-def]
    """The book example, with every edit after the first run left to a manual runner."""
    from engine.model.scenario import load_preset
    from gui.app_model import AppModel

    model = AppModel(load_preset("book"), "book", runner=manual_runner, inline_ops=0)
    win = MainWindow(model=model)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_a_busy_edit_keeps_the_last_run_shown_and_usable(
    slow_window: MainWindow, manual_runner
) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication

    win = slow_window
    spin = win.scenario_panel.ops
    spin.setValue(50)
    spin.editingFinished.emit()
    assert win.scenario.n_ops == 50  # the model has the edit…
    assert win.view.timeline.bar_count == 18  # …the screen still shows the last run
    assert win.busy.isVisibleTo(win) and QApplication.overrideCursor() is None
    assert win.view.cursor().shape() == Qt.CursorShape.BusyCursor
    win.clock.step_forward()  # the shown run still plays
    assert win.clock.time == 1.0
    spin.setValue(60)
    spin.editingFinished.emit()
    manual_runner.finish()
    assert win.view.timeline.bar_count == 6 * 60 and not win.busy.isVisibleTo(win)
    assert win.view.cursor().shape() == Qt.CursorShape.ArrowCursor
    manual_runner.finish()  # the 50-op run comes last: stale, dropped
    assert win.view.timeline.bar_count == 6 * 60
    assert win.title.text() == "The book example with 60 ops"


def test_switching_tabs_redraws_nothing_and_keeps_the_pipeline_clock(
    window: MainWindow, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    calls: list[object] = []
    monkeypatch.setattr(window.view.timeline, "set_schedules", calls.append)
    changes: list[float] = []
    window.clock.time_changed.connect(changes.append)
    window.show_warps()
    assert window.clock.end == 9.0
    window.tabs.setCurrentIndex(0)
    assert window.clock.end == 9.0 and calls == [] and changes == []


def test_pin_edit_compare_unpin_in_the_window(window: MainWindow, tmp_path: Path) -> None:
    window.set_view_mode("pipelined")
    window.edit("buffers", 2)
    window.scenario_panel.pin.click()
    assert window.scenario_panel.unpin.isEnabled()
    assert "Pinned: The book example with 2 slots" in window.scenario_panel.pinned.text()
    window.edit("buffers", 3)
    assert [s.label for s in window.schedules] == ["pinned pipelined · 2 slots", "pipelined"]
    assert (
        window.comparison.text().replace("\u00a0", " ")
        == "2 slots: 6 s · 3 slots: 5 s (1 s faster)"
    )
    assert window.stats.value_of("", "pipelined vs pinned").endswith("(1 s faster)")
    assert window.clock.end == 6.0  # one clock for both
    assert len(window.view.assembly.station_rects()) == 2
    out = tmp_path / "trace.json"
    assert window.export_to(out)  # the export shows what is shown: pinned and current
    import json

    events = json.loads(out.read_text())["traceEvents"]
    names = [e["args"]["name"] for e in events if e["name"] == "process_name"]
    assert "pinned pipelined · 2 slots (simulated)" in names
    assert "pipelined (simulated)" in names
    assert window.choose_preset("memory-bound")  # a pin survives a preset switch
    assert len(window.schedules) == 2 and "pinned" in window.schedules[0].label
    window.scenario_panel.unpin.click()
    assert len(window.schedules) == 1 and not window.comparison.isVisibleTo(window)
    assert not window.scenario_panel.unpin.isEnabled()
    assert window.clock.end == window.schedules[0].makespan


# -- bad files and stray exceptions -----------------------------------------------------------


BAD_FILES = {
    "bad TOML": b'name = "x"\n[defaults\ncount = 3\n',
    "deep nesting": b"a = " + b"[" * 100_000 + b"]" * 100_000,
    "deep tables": b"x = " + b"{a=" * 5000 + b"1" + b"}" * 5000,
    "binary junk": bytes(range(256)) * 40,
    "empty": b"",
    "not a scenario": b'[defaults]\ncount = "three"\n',
    "too many ops for the app": b"[defaults]\ncount = 2000000\n",
}


@pytest.mark.parametrize("kind", [*BAD_FILES, "a folder", "missing"])
def test_file_open_of_any_bad_file_shows_one_line_and_keeps_the_run(
    window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    if kind == "a folder":
        path = tmp_path
    elif kind == "missing":
        path = tmp_path / "nowhere.toml"
    else:
        path = tmp_path / "bad.toml"
        path.write_bytes(BAD_FILES[kind])
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: messages.append(text))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    before, scenario = window.schedules, window.scenario
    window._open_dialog()
    assert len(messages) == 1 and messages[0] and "\n" not in messages[0]
    assert "Traceback" not in messages[0] and len(messages[0]) < 300
    assert window.schedules == before and window.scenario is scenario


def test_no_exception_escapes_a_slot(window: MainWindow, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    import sys

    import gui.scenario_edits
    from engine.base.errors import PipeLabError
    from gui.errors import install_excepthook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    install_excepthook(window.show_error)

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug in an edit")

    monkeypatch.setattr(gui.scenario_edits, "edit_field", broken)
    before = window.schedules
    window.scenario_panel.edited.emit("read", 2.0)  # the slot raises inside Qt's emit
    message = window.scenario_panel.message.text()
    assert message.startswith("something went wrong (ZeroDivisionError: a bug in an edit)")
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
    assert window.schedules == before

    def refused(*args: object, **kwargs: object) -> None:
        raise PipeLabError("refused in a slot")

    monkeypatch.setattr(window.model, "pin", refused)
    caplog.clear()
    window.scenario_panel.pin_requested.disconnect()
    window.scenario_panel.pin_requested.connect(window.model.pin)
    window.scenario_panel.pin.click()
    assert window.scenario_panel.message.text() == "refused in a slot"
    assert not caplog.records  # a PipeLabError is a message, not a bug


def test_closing_during_a_background_run_leaves_no_thread_behind(qtbot) -> None:  # type: ignore[no-untyped-def]
    from engine.model.scenario import load_preset
    from gui.app_model import AppModel

    model = AppModel(load_preset("book"), "book", inline_ops=0)  # a real worker thread
    win = MainWindow(model=model)
    qtbot.addWidget(win)
    win.scenario_panel.ops.setValue(40)
    win.scenario_panel.ops.editingFinished.emit()
    assert model.busy
    win.close()  # returns at once: the worker is told to stop, never joined
    runner = model._runner
    qtbot.waitUntil(lambda: not runner.running, timeout=60_000)
    # (the autouse fixtures then check that no QThread, QTimer or Python thread is left)


# -- screens: the window's least size, the narration's height, the docks' first layout -----


def test_the_window_fits_a_1280x720_screen_before_it_is_shown(qtbot) -> None:
    """The narration once measured its text at a width of a hundred pixels before the
    window was shown and asked for a window taller than a laptop's screen."""
    win = MainWindow()
    qtbot.addWidget(win)
    least = win.minimumSizeHint()
    assert least.width() <= 1280 - 8 and least.height() <= 720 - 36 - 40  # frame, a panel
    box = win.view.narration_box
    assert box.height() <= 4 * box.label.fontMetrics().lineSpacing() + 24


def test_a_long_narration_scrolls_instead_of_taking_the_view(window: MainWindow, qtbot) -> None:
    from gui.schedule_view import NARRATION_SHARE

    box = window.view.narration_box
    box.set_text("<br>".join(f"line {i}: the load unit waits for a slot" for i in range(30)))
    cap = max(box.floor(), round(NARRATION_SHARE * window.view.height()))
    assert box.height() <= cap
    assert box.label.height() > box.height()  # the rest is a scroll away
    assert box.verticalScrollBar().maximum() > 0


def test_a_short_window_puts_the_docks_in_tabs_a_tall_one_stacks_them(
    qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QRect

    import gui.window_geometry

    short = MainWindow()
    qtbot.addWidget(short)
    assert short.height() < short.stacked_height()
    assert set(short.tabifiedDockWidgets(short.scenario_dock)) == {
        short.stats_dock,
        short.help_dock,
    }
    monkeypatch.setattr(gui.window_geometry, "first_geometry", lambda _: QRect(0, 0, 1600, 1300))
    tall = MainWindow()
    qtbot.addWidget(tall)
    assert tall.height() >= tall.stacked_height()
    assert tall.tabifiedDockWidgets(tall.scenario_dock) == []
    assert tall.tabifiedDockWidgets(tall.stats_dock) == [tall.help_dock]
