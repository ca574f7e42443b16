"""The main window with its Warps and GPU tabs: each tab owns its clock (its own time, in its
own unit) and its side panels, the transport drives the open tab's clock, and measured runs
land on the GPU page (and, animated, on the Pipeline tab)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from engine.base.text import format_time
from gpu.detect import Detection
from gui.main_window import GPU_TAB, PIPELINE_TAB, WARPS_TAB, MainWindow

NO_CUPY = Detection("cpu", None, "CuPy is not installed")


@pytest.fixture
def no_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    import gui.gpu_panel as gpu_panel

    monkeypatch.setattr(gpu_panel, "detect", lambda: NO_CUPY)


def test_warps_tab_is_built_on_demand_with_its_own_clock(window: MainWindow) -> None:
    assert window.warps_view is None  # start-up does not pay for it
    warps = window.show_warps()
    assert window.tabs.currentIndex() == WARPS_TAB
    assert window.active_clock is window.warps_clock
    assert window.warps_clock.end == warps.config.cycles
    assert window.clock.end == 9.0  # the Pipeline tab's clock keeps its run
    assert "cycles" in window.transport.readout.text()
    before = warps.narration.text()
    window.transport.buttons["next"].click()
    window.transport.buttons["next"].click()
    assert warps.narration.text() != before and window.clock.time == 0.0
    window.tabs.setCurrentIndex(PIPELINE_TAB)
    assert window.active_clock is window.clock and window.transport.clock is window.clock


def test_each_tab_keeps_its_own_time_in_its_own_unit(window: MainWindow, no_cupy) -> None:
    """9 s on Pipeline stays 9 s; cycle 50 on Warps stays cycle 50 (it once moved the
    Pipeline tab to its end, and 9 s became 9 ms)."""
    window.clock.to_end()
    assert "9 s / 9 s" in window.transport.readout.text()
    window.show_warps()
    window.warps_clock.seek(50.0)
    assert window.transport.readout.text().startswith("50 cycles / 300 cycles")
    window.show_gpu()
    assert window.transport.readout.text().startswith("0 s / 0 s")  # zero reads "0 s" in any unit
    window.tabs.setCurrentIndex(PIPELINE_TAB)
    assert window.clock.time == 9.0 and window.clock.time_unit == "s"
    assert window.transport.readout.text().startswith("9 s / 9 s")
    window.tabs.setCurrentIndex(WARPS_TAB)
    assert window.warps_clock.time == 50.0
    assert window.warps_view is not None and window.warps_view.lanes.cursor.value() == 50.0
    assert window.transport.readout.text().startswith("50 cycles / 300 cycles")


def test_leaving_a_tab_pauses_its_clock(window: MainWindow) -> None:
    window.clock.play()
    window.show_warps()
    assert not window.clock.playing and window.clock.time == 0.0


def test_editing_the_scenario_on_the_warps_tab_stays_there(window: MainWindow) -> None:
    window.show_warps()
    window.warps_clock.seek(30.0)
    assert window.edit("ops", 4)
    assert window.tabs.currentIndex() == WARPS_TAB and window.warps_clock.time == 30.0
    assert window.clock.end == 12.0  # sequential: 4 ops × 3 s, on the Pipeline's clock
    window.tabs.setCurrentIndex(PIPELINE_TAB)
    assert window.view.timeline.bar_count == 24


def test_each_tab_shows_only_its_own_side_panels(window: MainWindow, no_cupy) -> None:
    docks = (window.scenario_dock, window.stats_dock, window.help_dock)
    window.help_dock.close()  # the user's choice on the Pipeline tab
    shown = [d.isVisibleTo(window) for d in docks]
    assert shown[0] and not shown[2]
    for tab in (WARPS_TAB, GPU_TAB):
        window.tabs.setCurrentIndex(tab)
        assert not any(d.isVisibleTo(window) for d in docks)
        assert not window.scenario_dock.toggleViewAction().isEnabled()
    window.tabs.setCurrentIndex(PIPELINE_TAB)
    assert [d.isVisibleTo(window) for d in docks] == shown  # as they were
    assert window.scenario_dock.toggleViewAction().isEnabled()


def test_closing_on_another_tab_keeps_the_pipeline_docks(qtbot) -> None:
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.show_warps()
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.tabs.currentIndex() == PIPELINE_TAB
    assert second.scenario_dock.isVisibleTo(second)


def test_export_on_the_warps_tab_exports_the_warps_view(window: MainWindow, tmp_path: Path) -> None:
    window.show_warps()
    out = tmp_path / "warps.png"
    assert window.export_to(out, width=1000)
    image = QImage(str(out))
    assert image.width() == 1000 and not image.isNull()


def test_gpu_tab_runs_on_cpu_draws_measured_beside_the_model_and_animates(
    window: MainWindow, qtbot, no_cupy, tmp_path: Path
) -> None:
    assert window.gpu_panel is None  # built (and CuPy probed) only when opened
    pipeline_before = window.schedules
    panel = window.show_gpu()
    assert window.tabs.currentIndex() == GPU_TAB and window.active_clock is window.gpu_clock
    assert panel.clock is window.gpu_clock
    panel.backend_box.setCurrentText("cpu")
    panel.size_box.setValue(1.0)
    panel.chunks_box.setValue(4)
    panel.repeats_box.setValue(1)
    panel.intensity_box.setValue(1)
    # Real work on CPU threads: the timeouts only guard against a hang, never time it.
    with qtbot.waitSignal(panel.run_finished, timeout=600_000):
        panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=600_000)
    assert window.tabs.currentIndex() == GPU_TAB  # a finished run does not pull you away
    assert [s.source for s in panel.schedules] == ["measured", "measured", "simulated"]
    assert window.schedules == pipeline_before  # the Pipeline tab still shows the scenario
    assert window.gpu_clock.end == pytest.approx(max(s.makespan for s in panel.schedules))
    assert window.gpu_clock.time_unit == "ms"  # the GPU tab's clock keeps its own unit
    assert format_time(window.gpu_clock.end, "ms") in window.transport.readout.text()
    out = tmp_path / "measured.json"
    assert window.export_to(out)  # on the GPU tab an export writes the measured runs
    assert "measured" in out.read_text()
    panel.animate_button.click()
    assert window.tabs.currentIndex() == PIPELINE_TAB
    assert [s.source for s in window.schedules] == ["measured", "measured"]
    assert [s.policy for s in window.schedules] == ["sequential", "pipelined"]
    assert window.clock.playing
    window.clock.pause()


def test_an_occupancy_sweep_lands_on_the_warps_tab(window: MainWindow, monkeypatch) -> None:
    import numpy as np

    import gui.gpu_panel as gpu_panel
    from gpu.detect import DeviceInfo

    device = DeviceInfo(0, "NVIDIA H200", (9, 0), 141 * 2**30, 132)
    monkeypatch.setattr(gpu_panel, "detect", lambda: Detection("cupy", device))
    panel = window.show_gpu()

    class Sweep:
        warps = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
        utilization = np.array([0.1, 0.2, 0.4, 0.8, 1.0])
        knee = 10.0
        saturated = True
        device = "NVIDIA H200 (sm_90)"

    panel.occupancy_ready.emit(Sweep())
    assert window.tabs.currentIndex() == WARPS_TAB
    assert window.warps_view is not None
    xs, ys = window.warps_view.utilization.measured.getData()
    assert list(xs) == [1, 2, 4, 8, 16] and ys[-1] == 1.0


def _background(widget) -> str:  # type: ignore[no-untyped-def]
    """The colour of a widget's top-left pixel (its background)."""
    return widget.grab().toImage().pixelColor(3, 3).name()


def test_a_theme_round_trip_reaches_every_tab(window: MainWindow, qtbot, no_cupy) -> None:
    from gui.colours import DARK, LIGHT

    warps = window.show_warps()
    panel = window.show_gpu()
    views = {
        "pipeline timeline": lambda: window.view.timeline,
        "assembly line": lambda: window.view.assembly,
        "warps lanes": lambda: warps.lanes,
        "warps utilization": lambda: warps.utilization,
        "gpu timeline": lambda: panel.timeline,
    }
    panel.results._draw(window.schedules)  # something on the page's Gantt to show
    for tab in (PIPELINE_TAB, WARPS_TAB, GPU_TAB):
        window.tabs.setCurrentIndex(tab)
        for theme in ("dark", "light", "dark", "light"):
            window.set_theme(theme)
            expected = (DARK if theme == "dark" else LIGHT).background
            for name, view in views.items():
                assert _background(view()) == expected, f"{name} on tab {tab} in {theme}"
    window.set_theme("dark")
    veil = warps.lanes.veil.brush.color()
    assert veil.name() == DARK.background  # the future is veiled in the background colour
    window.set_theme("light")
