"""The main window with its Warps tab and GPU dock: one clock, one view driving it at a time,
measured runs shown beside the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from gpu.detect import Detection
from gui.main_window import PIPELINE_TAB, WARPS_TAB, MainWindow


def test_warps_tab_is_built_on_demand_and_takes_the_clock(window: MainWindow) -> None:
    assert window.warps_view is None  # start-up does not pay for it
    warps = window.show_warps()
    assert window.tabs.currentIndex() == WARPS_TAB
    assert window.clock.end == warps.config.cycles
    assert "cycles" in window.transport.readout.text()
    before = warps.narration.text()
    window.clock.step_forward()
    window.clock.step_forward()
    assert warps.narration.text() != before
    window.tabs.setCurrentIndex(PIPELINE_TAB)
    assert window.clock.end == 9.0  # the pipeline's run drives the clock again
    assert not warps.is_active


def test_editing_the_scenario_on_the_warps_tab_returns_to_the_pipeline(window: MainWindow) -> None:
    window.show_warps()
    assert window.edit("ops", 4)
    assert window.tabs.currentIndex() == PIPELINE_TAB
    assert window.clock.end == 12.0  # sequential: 4 ops × 3 s


def test_export_on_the_warps_tab_exports_the_warps_view(window: MainWindow, tmp_path: Path) -> None:
    window.show_warps()
    out = tmp_path / "warps.png"
    assert window.export_to(out, width=1000)
    image = QImage(str(out))
    assert image.width() == 1000 and not image.isNull()


def test_gpu_dock_runs_on_cpu_and_shows_measured_beside_the_model(
    window: MainWindow, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gui.gpu_panel as gpu_panel

    monkeypatch.setattr(
        gpu_panel, "detect", lambda: Detection("cpu", None, "CuPy is not installed")
    )
    assert window.gpu_panel is None
    window.gpu_dock.show()
    panel = window.gpu_panel
    assert panel is not None and window.gpu_dock.widget() is panel
    panel.backend_box.setCurrentText("cpu")
    panel.size_box.setValue(1.0)
    panel.chunks_box.setValue(4)
    panel.repeats_box.setValue(1)
    panel.intensity_box.setValue(1)
    with qtbot.waitSignal(panel.schedules_ready, timeout=30_000):
        panel.run_button.click()
    shown = window.schedules
    assert [s.source for s in shown] == ["measured", "simulated"]
    assert window.title.text().startswith("Measured")
    assert window.clock.end == pytest.approx(max(s.makespan for s in shown))
    window.tabs.setCurrentIndex(WARPS_TAB)
    panel.animate_button.click()
    assert window.tabs.currentIndex() == PIPELINE_TAB
    assert [s.source for s in window.schedules] == ["measured"]
    assert window.clock.playing
    window.clock.pause()


def test_an_occupancy_sweep_lands_on_the_warps_tab(window: MainWindow, monkeypatch) -> None:
    import numpy as np

    import gui.gpu_panel as gpu_panel
    from gpu.detect import DeviceInfo

    device = DeviceInfo(0, "NVIDIA H200", (9, 0), 141 * 2**30, 132)
    monkeypatch.setattr(gpu_panel, "detect", lambda: Detection("cupy", device))
    window.gpu_dock.show()
    assert window.gpu_panel is not None

    class Sweep:
        warps = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
        utilization = np.array([0.1, 0.2, 0.4, 0.8, 1.0])
        knee = 10.0
        saturated = True
        device = "NVIDIA H200 (sm_90)"

    window.gpu_panel.occupancy_ready.emit(Sweep())
    assert window.tabs.currentIndex() == WARPS_TAB
    assert window.warps_view is not None
    xs, ys = window.warps_view.utilization.measured.getData()
    assert list(xs) == [1, 2, 4, 8, 16] and ys[-1] == 1.0
