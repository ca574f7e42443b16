"""The Warps view, offscreen: opens, follows the shared clock, re-simulates, exports."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.latency.warps import WarpConfig, WarpPhase
from gui.clock import Clock
from gui.warps_view import WARP_COLOURS, WarpsView


@pytest.fixture
def clock(qtbot):
    return Clock()


@pytest.fixture
def view(qtbot, clock):
    widget = WarpsView(clock, config=WarpConfig(warps=4, compute=10, latency=40, cycles=300))
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.activate()
    return widget


def test_opens_on_its_run_and_loads_the_clock(view, clock):
    assert view.is_active
    assert clock.end == 300
    assert np.array_equal(clock.events, np.asarray(Derived(view.run.schedule).events))
    assert view.narration.text() == "cycle 0: all 4 warps are ready; the SM issues from warp 1"
    assert "80.0% (model 80.0%)" in view.summary.text()
    assert "knee W = 5" in view.summary.text()


def test_steps_with_the_clock_and_back(view, clock):
    first = view.narration.text()
    clock.step_forward()
    assert clock.time == 10
    assert view.narration.text() == (
        "cycle 10: warp 1 stalls on memory; the SM switches to warp 2, ready for 10 cycles"
    )
    assert view.lanes.cursor.value() == 10
    snapshot = view.state_panel._snapshot
    assert snapshot is not None and snapshot.issuing == 1
    assert snapshot.phase[0] == WarpPhase.MEMORY
    for _ in range(5):
        clock.step_forward()
    for _ in range(6):
        clock.step_back()
    assert clock.time == 0 and view.narration.text() == first


def test_playing_moves_the_cursor_and_the_veil(view, clock):
    clock.play()
    clock.advance(2.0)  # 300 cycles play in 12 s at 1×: 50 cycles
    clock.pause()
    assert clock.time == pytest.approx(50)
    assert view.lanes.cursor.value() == pytest.approx(50)
    assert view.lanes.veil.getRegion() == pytest.approx((50, 300))
    assert view.narration.text().startswith("cycle 50: warp 1's load returns")
    clock.seek(45)
    snapshot = view.state_panel._snapshot
    assert snapshot is not None and snapshot.issuing == -1 and snapshot.loads_in_flight == 4


def test_a_hidden_view_leaves_the_clock_alone(qtbot, clock):
    other = WarpsView(clock, config=WarpConfig(warps=2, compute=5, latency=5, cycles=50))
    qtbot.addWidget(other)
    assert not other.is_active
    clock.set_timeline([0.0, 1.0, 2.0], end=2.0)
    before = other.narration.text()
    clock.seek(1.5)
    assert other.narration.text() == before
    assert clock.end == 2.0


def test_controls_resimulate(view, clock):
    view.warps_box.setValue(8)
    assert view.config.warps == 8
    assert view.run.schedule.workers == (8, 1)
    assert "100.0% (model 100.0%)" in view.summary.text()
    assert clock.end == 300
    assert np.array_equal(clock.events, np.asarray(Derived(view.run.schedule).events))
    view.latency_box.setValue(70)  # knee (10 + 70) / 10 = 8
    assert view.config.latency == 70
    assert view.utilization.knee.value() == pytest.approx(8)
    assert view.utilization.simulated[:8] == pytest.approx(np.arange(1, 9) / 8)
    view.compute_box.setValue(20)
    view.cycles_box.setValue(1000)
    assert (view.config.compute, view.config.cycles) == (20, 1000)
    assert clock.end == 1000


def test_bars_are_grouped_not_one_item_per_task(view):
    view.set_config(WarpConfig(warps=64, compute=2, latency=300, cycles=20_000))
    assert len(view.run.schedule) > 10_000
    assert len(view.lanes.bar_items) <= len(WARP_COLOURS) + 3
    assert view.warps_box.value() == 64


def test_exports_a_png_that_shows_the_run(view, tmp_path):
    """The PNG is the figure of the run (1600 px by default), not a grab of the widgets."""
    target = tmp_path / "warps.png"
    view.export(target)
    image = QImage(str(target))
    assert not image.isNull() and image.width() == 1600
    assert image.width() != view.width()
    # The picture has the warps' colours in it (not a blank grab).
    small = image.scaled(300, 100)
    colours = {small.pixelColor(x, y).name() for x in range(300) for y in range(100)}
    first_warp = QColor(WARP_COLOURS[0])
    near = [
        c
        for c in colours
        if abs(QColor(c).red() - first_warp.red()) < 12
        and abs(QColor(c).green() - first_warp.green()) < 12
        and abs(QColor(c).blue() - first_warp.blue()) < 12
    ]
    assert near
    assert [p.name for p in tmp_path.iterdir()] == ["warps.png"]


def test_exports_the_figure_as_svg_pdf_and_scaled_png(view, tmp_path):
    """SVG and PDF are the pipeline exports' figure: text labels per warp and for the
    issue unit, a page wide (7 in), no embedded picture, no non-scaling strokes (Qt's
    SVG generator wrote both, and librsvg drew slanted polygons)."""
    from xml.etree import ElementTree

    view.export(tmp_path / "warps.svg")
    view.export(tmp_path / "warps.pdf", size="column")
    view.export(tmp_path / "small.png", width=600)
    svg = (tmp_path / "warps.svg").read_text()
    assert "<image" not in svg and "non-scaling-stroke" not in svg
    root = ElementTree.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    labels = {"warp 1", "warp 2", "warp 3", "warp 4", "issue unit"}
    assert labels <= set(texts) and "issue unit busy 80.0% (model 80.0%); knee W = 5" in texts
    assert root.get("width") == "504pt"
    pdf = (tmp_path / "warps.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/MediaBox [0 0 252" in pdf
    assert QImage(str(tmp_path / "small.png")).width() == 600


def test_bad_export_targets_are_refused(view, tmp_path):
    with pytest.raises(PipeLabError, match=r"export as \.png, \.svg or \.pdf"):
        view.export(tmp_path / "warps.txt")
    with pytest.raises(PipeLabError, match="does not exist"):
        view.export(tmp_path / "missing" / "warps.png")
    assert list(tmp_path.iterdir()) == []


def test_export_button_reports_problems_inline(view, tmp_path, monkeypatch):
    from gui import warps_view

    target = str(tmp_path / "nowhere" / "x.png")
    monkeypatch.setattr(
        warps_view.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (target, ""))
    )
    view.export_button.click()
    assert view.message.isVisibleTo(view)
    assert "does not exist" in view.message.text()
    # The view is still there and still works.
    view.warps_box.setValue(5)
    assert not view.message.isVisibleTo(view)
    ok = str(tmp_path / "ok.png")
    monkeypatch.setattr(
        warps_view.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (ok, ""))
    )
    view.export_button.click()
    assert not QImage(ok).isNull()


# The offscreen platform warns that it cannot propagate size hints when a window shows.
@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_showing_activates_and_hiding_releases_the_clock(qtbot, clock):
    widget = WarpsView(clock, config=WarpConfig(warps=3, compute=4, latency=8, cycles=60))
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.is_active and clock.end == 60
    widget.hide()
    assert not widget.is_active


def test_a_measured_sweep_sits_beside_the_model(view):
    from gpu.occupancy import OccupancyPoint, OccupancySweep, launch_shape

    points = tuple(
        OccupancyPoint(launch_shape(w, 4), milliseconds=1.0, bytes_read=int(1e6 * g),
                       sm_warps_min=w, sm_warps_max=w)
        for w, g in ((1, 100.0), (8, 800.0), (32, 2000.0), (64, 2000.0))
    )  # fmt: skip
    sweep = OccupancySweep("Stand-in GPU (sm_90, 1 GiB, 4 SMs)", 4, 16, points)
    view.show_measured(sweep)
    xs, ys = view.utilization.measured.getData()
    assert xs.tolist() == [1, 8, 32, 64]
    assert ys.tolist() == pytest.approx([0.05, 0.4, 1.0, 1.0])
    assert view.utilization.getPlotItem().viewRange()[0][1] >= 64
    # The fitted model (knee = peak / bandwidth per warp = 2000 / 100 = 20) is drawn dashed.
    fx, fy = view.utilization.measured_model.getData()
    assert np.interp(10.0, fx, fy) == pytest.approx(0.5, abs=0.01)
    assert np.interp(30.0, fx, fy) == pytest.approx(1.0)
    view.warps_box.setValue(6)  # re-simulating keeps the measurement in view
    assert view.utilization.getPlotItem().viewRange()[0][1] >= 64


def _legend_labels(view) -> list[str]:
    legend = view.utilization.getPlotItem().legend
    return [label.text for _, label in legend.items]


def test_a_sweep_still_rising_at_its_largest_w_names_no_knee(view):
    from gpu.occupancy import OccupancyPoint, OccupancySweep, launch_shape

    points = tuple(
        OccupancyPoint(launch_shape(w, 4), milliseconds=1.0, bytes_read=int(1e6 * g),
                       sm_warps_min=w, sm_warps_max=w)
        for w, g in ((1, 100.0), (8, 800.0), (32, 3200.0), (64, 6400.0))
    )  # fmt: skip
    rising = OccupancySweep("Stand-in GPU (sm_90, 1 GiB, 4 SMs)", 4, 16, points)
    assert not rising.saturated
    view.show_measured(rising)
    label = next(t for t in _legend_labels(view) if t.startswith("measured"))
    assert "not saturated by W = 64" in label and "knee" not in label

    points = tuple(
        OccupancyPoint(launch_shape(w, 4), milliseconds=1.0, bytes_read=int(1e6 * g),
                       sm_warps_min=w, sm_warps_max=w)
        for w, g in ((1, 100.0), (8, 800.0), (32, 2000.0), (64, 2000.0))
    )  # fmt: skip
    saturating = OccupancySweep("Stand-in GPU (sm_90, 1 GiB, 4 SMs)", 4, 16, points)
    view.show_measured(saturating)
    label = next(t for t in _legend_labels(view) if t.startswith("measured"))
    assert "knee ≈ 20" in label


REAL_WINDOW = """
import json, sys
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from engine.latency.warps import WarpConfig
from engine.analysis.derived import Derived
from gui.clock import Clock
from gui.warps_view import WarpsView
clock = Clock()
view = WarpsView(clock, config=WarpConfig(warps=8, compute=10, latency=40, cycles=300))
view.resize(1400, 900)
view.show()
for _ in range(20):
    app.processEvents()
clock.seek(45)  # warp 5 holds the issue unit; warps 1-4 wait on memory; 6-8 are ready
for _ in range(5):
    app.processEvents()
app.primaryScreen().grabWindow(view.winId()).save(sys.argv[1] + "/window.png")
def rect(widget):
    x, y = widget.mapTo(view, QPoint(0, 0)).toTuple()
    return [x, y, widget.width(), widget.height()]
json.dump({"platform": app.platformName(), "state": rect(view.state_panel),
           "lanes": rect(view.lanes)}, open(sys.argv[1] + "/layout.json", "w"))
view.close()
"""


@pytest.mark.xvfb
def test_real_window_shows_the_sm_state_and_lanes(tmp_path):
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from PIL import Image

    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (apt install xvfb xauth)")
    root = Path(__file__).resolve().parents[2]
    script = tmp_path / "warps_window.py"
    script.write_text(REAL_WINDOW)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(root))
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, str(script),
         str(tmp_path)],
        cwd=root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    layout = json.loads((tmp_path / "layout.json").read_text())
    assert layout["platform"] == "xcb"
    image = Image.open(tmp_path / "window.png").convert("RGB")

    def colours(box):
        x, y, w, h = box
        return {c for _, c in image.crop((x, y, x + w, y + h)).getcolors(maxcolors=1 << 20)}

    green = (0x59, 0xA1, 0x4F)  # warp 5's colour: it is computing, and holds the issue unit
    assert green in colours(layout["state"])
    lanes = colours(layout["lanes"])
    # Warps 1-5 have computed by cycle 45: their bars are in full colour. Warp 6 has not:
    # its bars lie in the future, under the veil, so its full colour is nowhere yet.
    for warp in WARP_COLOURS[:5]:
        assert QColor(warp).getRgb()[:3] in lanes
    assert QColor(WARP_COLOURS[5]).getRgb()[:3] not in lanes


def test_the_cycle_axis_reads_whole_cycles(view) -> None:
    """Long runs read "1,500,000", never pyqtgraph's "1.5 (x1e+06)"."""
    axis = view.lanes.getPlotItem().getAxis("bottom")
    assert axis.tickStrings([0.0, 500_000.0, 1_500_000.0], 1.0, 500_000.0) == [
        "0",
        "500,000",
        "1,500,000",
    ]
    assert axis.labelText == "cycle"


def test_at_the_end_of_the_window_warps_are_still_running_not_done(view, clock) -> None:
    """Warps loop forever: when the simulated window ends, none has finished."""
    clock.seek(clock.end)
    panel = view.state_panel
    details = [panel._detail(w) for w in range(4)]
    assert details == ["still running"] * 4
    assert not any("done" in d for d in details)
