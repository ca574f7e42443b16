"""The keyboard: the transport keys work whatever has focus, right after typing in a field
too (Enter or Escape leaves it); a focused field, table, combo box or button keeps the
keys it needs; icon-only controls have accessible names and take focus from Tab; Ctrl+Q
quits."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QApplication, QWidget

from gui.main_window import MainWindow

Key = Qt.Key


@pytest.fixture
def active(window: MainWindow, qtbot) -> MainWindow:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=120_000)
    return window


def focus(widget: QWidget, qtbot) -> None:  # type: ignore[no-untyped-def]
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(widget.hasFocus, timeout=120_000)


def press(widget: QWidget, key: Key, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A key press where the app sends it: to the focused widget."""
    target = QApplication.focusWidget() or widget
    qtbot.keyClick(target, key)


def test_right_after_start_the_keys_step_the_clock(active: MainWindow, qtbot) -> None:
    assert QApplication.focusWidget() is active.view.timeline  # not the tab bar
    press(active, Key.Key_Right, qtbot)
    assert active.clock.time == 1.0 and active.tabs.currentIndex() == 0


def test_enter_leaves_a_field_and_the_transport_keys_work_again(active: MainWindow, qtbot):
    ops = active.scenario_panel.ops
    focus(ops, qtbot)
    ops.lineEdit().selectAll()
    qtbot.keyClicks(ops, "5")
    press(ops, Key.Key_Right, qtbot)  # the field keeps the arrows while typing
    press(ops, Key.Key_Space, qtbot)  # …and Space
    assert active.clock.time == 0.0 and not active.clock.playing
    press(ops, Key.Key_Return, qtbot)
    assert active.scenario.n_ops == 5  # committed
    assert not ops.hasFocus() and active.view.timeline.hasFocus()
    press(active, Key.Key_Right, qtbot)
    assert active.clock.time == 1.0
    press(active, Key.Key_End, qtbot)
    assert active.clock.time == active.clock.end
    press(active, Key.Key_Home, qtbot)
    assert active.clock.time == 0.0
    press(active, Key.Key_Plus, qtbot)
    assert active.clock.speed == 2.0
    press(active, Key.Key_Space, qtbot)
    assert active.clock.playing
    active.clock.pause()


def test_escape_leaves_a_field_and_puts_its_value_back(active: MainWindow, qtbot) -> None:
    read = active.scenario_panel.durations["read"]
    focus(read, qtbot)
    read.lineEdit().selectAll()
    qtbot.keyClicks(read, "7")
    press(read, Key.Key_Escape, qtbot)
    assert read.value() == 1.0 and read.text() == "1 s"
    assert active.scenario.read.tolist() == [1.0, 1.0, 1.0]  # nothing was applied
    assert active.view.timeline.hasFocus()
    press(active, Key.Key_Right, qtbot)
    assert active.clock.time == 1.0


def test_a_duration_field_keeps_home_end_and_minus_while_typing(active: MainWindow, qtbot):
    read = active.scenario_panel.durations["read"]
    focus(read, qtbot)
    read.lineEdit().selectAll()
    qtbot.keyClicks(read, "2e")
    press(read, Key.Key_Minus, qtbot)  # the exponent's sign, not "slower"
    qtbot.keyClicks(read, "6")
    press(read, Key.Key_Home, qtbot)
    press(read, Key.Key_End, qtbot)
    assert active.clock.speed == 1.0 and active.clock.time == 0.0
    press(read, Key.Key_Return, qtbot)
    assert active.scenario.read[0] == 2e-6


def test_the_ops_table_keeps_its_arrows(active: MainWindow, qtbot) -> None:
    table = active.scenario_panel.table
    table.setCurrentIndex(table.model().index(0, 0))
    focus(table, qtbot)
    press(table, Key.Key_Down, qtbot)
    press(table, Key.Key_Right, qtbot)
    assert (table.currentIndex().row(), table.currentIndex().column()) == (1, 1)
    press(table, Key.Key_End, qtbot)
    assert active.clock.time == 0.0  # the table moved, the clock did not
    press(table, Key.Key_Space, qtbot)  # a table needs no Space: the clock plays
    assert active.clock.playing
    active.clock.pause()
    press(table, Key.Key_Escape, qtbot)  # and Escape leaves it
    assert active.view.timeline.hasFocus()


def test_a_clicked_button_leaves_the_focus_where_it_was(active: MainWindow, qtbot) -> None:
    focus(active.view.timeline, qtbot)
    qtbot.mouseClick(active.scenario_panel.pin, Qt.MouseButton.LeftButton)
    assert active.model.pins  # the click pinned
    assert active.view.timeline.hasFocus()
    press(active, Key.Key_Space, qtbot)  # plays; it does not pin again
    assert active.clock.playing and len(active.model.pins) == 1
    active.clock.pause()


def test_a_button_reached_with_tab_keeps_space(active: MainWindow, qtbot) -> None:
    pin = active.scenario_panel.pin
    focus(pin, qtbot)
    press(pin, Key.Key_Space, qtbot)
    assert active.model.pins and not active.clock.playing


def test_the_keys_drive_the_open_tabs_clock(active: MainWindow, qtbot) -> None:
    active.show_warps()
    press(active, Key.Key_Right, qtbot)
    assert active.warps_clock.time == 10.0 and active.clock.time == 0.0
    warps = active.warps_view
    assert warps is not None
    focus(warps.warps_box, qtbot)
    warps.warps_box.lineEdit().selectAll()
    qtbot.keyClicks(warps.warps_box, "6")
    press(warps.warps_box, Key.Key_Return, qtbot)
    assert warps.config.warps == 6 and warps.lanes.hasFocus()
    press(active, Key.Key_End, qtbot)
    assert active.warps_clock.time == 300.0


def test_enter_in_the_gpu_form_returns_the_keys_before_any_run(
    active: MainWindow, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gui.gpu_panel
    from gpu.detect import Detection

    monkeypatch.setattr(gui.gpu_panel, "detect", lambda: Detection("cpu", None, "no CuPy"))
    panel = active.show_gpu()
    focus(panel.chunks_box, qtbot)
    panel.chunks_box.lineEdit().selectAll()
    qtbot.keyClicks(panel.chunks_box, "8")
    press(panel.chunks_box, Key.Key_Return, qtbot)
    assert panel.chunks_box.value() == 8 and not panel.chunks_box.hasFocus()
    assert QApplication.focusWidget() is panel.results  # no Gantt yet: the page itself
    press(active, Key.Key_Plus, qtbot)
    assert active.gpu_clock.speed == 2.0 and active.clock.speed == 1.0


def test_transport_controls_have_names_and_take_focus_from_tab(window: MainWindow) -> None:
    bar = window.transport
    for name, button in bar.buttons.items():
        assert button.accessibleName(), name
        assert button.focusPolicy() == Qt.FocusPolicy.TabFocus
    assert bar.slider.accessibleName() == "Time"
    assert bar.slider.focusPolicy() == Qt.FocusPolicy.TabFocus
    assert bar.speed.accessibleName() == "Playback speed"
    assert bar.buttons["play"].accessibleName() == "Play"
    window.clock.play()
    assert bar.buttons["play"].accessibleName() == "Pause"
    window.clock.pause()


def test_tab_goes_from_the_gantt_through_the_transport_to_the_form(
    active: MainWindow, qtbot
) -> None:
    focus(active.view.timeline, qtbot)
    seen = []
    for _ in range(10):
        active.focusNextChild()
        seen.append(QApplication.focusWidget())
    bar, panel = active.transport, active.scenario_panel
    expected = [*bar.buttons.values(), bar.speed, bar.slider, panel.preset, panel.ops]
    assert seen[: len(expected)] == expected


def test_transport_icons_are_drawn_for_the_device_pixel_ratio(window: MainWindow) -> None:
    icon = window.transport.buttons["next"].icon()
    for ratio in (1.0, 2.0):
        pixmap = icon.pixmap(QSize(24, 24), ratio)
        assert pixmap.devicePixelRatio() == ratio
        assert pixmap.width() == round(24 * ratio)  # rendered at that size, not scaled up


def test_ctrl_q_quits(active: MainWindow, qtbot) -> None:
    focus(active.scenario_panel.ops, qtbot)  # from a field too
    qtbot.keyClick(active.scenario_panel.ops, Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not active.isVisible()


def test_tab_goes_from_ops_through_the_shape_editor_to_the_view(active: MainWindow, qtbot) -> None:
    """The shape editor is built when a shape first opens, in its place in the Tab order:
    after Ops come its buttons and tables, then the View."""
    assert active.choose_preset("hopper-ping-pong")
    panel = active.scenario_panel
    focus(panel.ops, qtbot)
    seen = []
    for _ in range(30):
        active.focusNextChild()
        seen.append(QApplication.focusWidget())
    editor = panel.shape_editor.tab_chain()
    first = next(w for w in editor if w.isVisibleTo(active) and w.isEnabled())
    assert seen[0] is first
    assert panel.view in seen and seen.index(panel.view) > 1
