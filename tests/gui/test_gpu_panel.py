"""The GPU page on the CPU backend at a tiny size: progress, results, Schedules out,
cancel, a stale worker replaced, close while running, and errors shown inline; on a
stand-in experiment: the spread, the measured sequential run drawn, an efficiency above
100% explained, and stale results cleared after a failure."""

from __future__ import annotations

import logging
import re
import threading

import pytest
from gpu_stand_in import stand_in_result

import gui.gpu_panel
from engine.base.errors import PipeLabError
from engine.model.schedule import Schedule
from gpu.detect import Detection, DeviceInfo
from gpu.errors import Cancelled
from gpu.params import Progress
from gui.gpu_panel import STEPS, GpuPanel

REAL_EXPERIMENT = gui.gpu_panel.pipeline_experiment

NO_CUPY = Detection(
    "cpu", None, "CuPy is not installed (install the gpu extra: uv sync --extra gpu)"
)


@pytest.fixture
def panel(qtbot) -> GpuPanel:
    widget = GpuPanel(NO_CUPY)
    qtbot.addWidget(widget)
    widget.backend_box.setCurrentText("cpu")
    widget.size_box.setValue(1.0)
    widget.chunks_box.setValue(4)
    widget.repeats_box.setValue(1)
    widget.intensity_box.setValue(1)
    yield widget
    widget.shutdown()
    assert not widget.is_running()


def test_shows_why_there_is_no_gpu(panel: GpuPanel) -> None:
    text = panel.device_label.text()
    assert "CPU threads" in text and "uv sync --extra gpu" in text


def test_nothing_measured_shows_no_empty_plot_or_table(panel: GpuPanel) -> None:
    """Before any run the page says what will appear, with no empty axes or table."""
    assert panel.timeline.isHidden() and panel.table.isHidden()
    assert "Run an experiment" in panel.results.summary.text()


def test_shows_the_device(qtbot) -> None:
    device = DeviceInfo(0, "NVIDIA H200", (9, 0), 141 * 2**30, 132)
    widget = GpuPanel(Detection("cupy", device))
    qtbot.addWidget(widget)
    text = widget.device_label.text()
    assert "NVIDIA H200" in text and "compute capability 9.0" in text and "141.0 GiB" in text
    assert widget.size_box.value() == 256.0


def test_a_run_fills_the_table_and_emits_schedules(panel: GpuPanel, qtbot) -> None:
    progress: list[int] = []
    panel.progress.valueChanged.connect(progress.append)
    with qtbot.waitSignal(panel.schedules_ready, timeout=120_000) as caught:
        panel.run_button.click()
        assert panel.is_running() and not panel.run_button.isEnabled()
    sequential, measured, predicted = caught.args[0]
    assert all(isinstance(s, Schedule) for s in caught.args[0])
    assert [s.source for s in caught.args[0]] == ["measured", "measured", "simulated"]
    assert [s.policy for s in caught.args[0]] == ["sequential", "pipelined", "pipelined"]
    assert measured.n_ops == 4 and predicted.n_ops == 4 and sequential.n_ops == 4
    assert panel.schedules == [sequential, measured, predicted]  # drawn on the page
    assert panel.clock.end == pytest.approx(max(s.makespan for s in caught.args[0]))
    assert panel.clock.time_unit == "ms"
    assert panel.progress.value() == STEPS and len(progress) > 2
    labels = dict(panel.table_rows())
    # A time in its own unit: a real run at this size takes about a millisecond, so µs
    # or ms as the machine's speed falls (once 708 µs with two CPU-bound processes beside).
    assert re.search(r"\d (µs|ms|s)$", labels["pipelined (measured)"])
    assert "all correct" in labels["checked"]
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.is_running())
    with qtbot.waitSignal(panel.animate_requested, timeout=120_000) as animated:
        panel.animate_button.click()
    assert animated.args[0].schedules == (sequential, measured)
    assert animated.args[0].title.startswith("Measured on CPU threads")


class BlockingExperiment:
    """Stands in for experiment 1: reports a chunk, then blocks until its cancel flag is set
    (as the real one checks it between chunks and compute passes) and ends as the real one
    ends when cancelled. Nothing depends on how fast the machine is: the test waits for
    events, and the 60 s waits are only a safety net against hanging forever."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.saw_cancel = threading.Event()

    def __call__(self, backend, params, cancel):
        if params.intensity == 1:  # a quick real run (see the stale-run test)
            return REAL_EXPERIMENT(backend, params, cancel)
        return self._blocked(cancel)

    def _blocked(self, cancel):
        yield Progress(0.1, "sequential: chunk 1 of 4")
        self.started.set()
        if not cancel.wait(timeout=60):
            raise RuntimeError("the panel never cancelled the run")
        self.saw_cancel.set()
        raise Cancelled()


@pytest.fixture
def blocking(monkeypatch: pytest.MonkeyPatch) -> BlockingExperiment:
    fake = BlockingExperiment()
    monkeypatch.setattr(gui.gpu_panel, "pipeline_experiment", fake)
    return fake


def test_cancel_stops_the_run(panel: GpuPanel, qtbot, blocking: BlockingExperiment) -> None:
    panel.intensity_box.setValue(200_000)
    panel.run_button.click()
    qtbot.waitUntil(blocking.started.is_set, timeout=60_000)
    qtbot.waitUntil(lambda: "chunk" in panel.status_label.text(), timeout=60_000)
    assert panel.is_running() and panel.cancel_button.isEnabled()
    with qtbot.waitSignal(panel.run_failed, timeout=60_000) as caught:
        panel.cancel_button.click()
    assert blocking.saw_cancel.is_set()
    assert "cancelled" in caught.args[0]
    assert "cancelled" in panel.status_label.text()
    assert not panel.is_running() and panel.run_button.isEnabled()


def test_an_ended_run_hands_its_buffers_back(
    panel: GpuPanel, qtbot, blocking: BlockingExperiment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data size (GiBs on CPU threads) is not kept for the app's next run once the
    experiment ends, done, failed or cancelled."""
    released: list[int] = []
    monkeypatch.setattr(gui.gpu_panel, "release_freed_memory", lambda: released.append(1))
    panel.intensity_box.setValue(200_000)
    panel.run_button.click()
    qtbot.waitUntil(blocking.started.is_set, timeout=60_000)
    assert released == []
    with qtbot.waitSignal(panel.run_failed, timeout=60_000):
        panel.cancel_button.click()
    assert released == [1] and not panel.is_running()


def test_a_new_run_replaces_a_stale_one(
    panel: GpuPanel, qtbot, blocking: BlockingExperiment
) -> None:
    panel.intensity_box.setValue(200_000)
    panel.run_button.click()
    qtbot.waitUntil(blocking.started.is_set, timeout=60_000)
    stale = panel._thread
    panel.intensity_box.setValue(1)
    panel.repeats_box.setValue(1)
    panel.start_run()  # what Run does while a run is going (the button is disabled then)
    assert stale is not None and not stale.is_running()
    assert blocking.saw_cancel.is_set()
    with qtbot.waitSignal(panel.schedules_ready, timeout=60_000):
        pass
    assert panel.result is not None and panel.result.intensity == 1


def test_closing_while_running_stops_the_thread(
    panel: GpuPanel, qtbot, blocking: BlockingExperiment
) -> None:
    panel.intensity_box.setValue(200_000)
    panel.run_button.click()
    qtbot.waitUntil(blocking.started.is_set, timeout=60_000)
    thread = panel._thread
    panel.close()
    assert thread is not None and not thread.is_running()
    assert blocking.saw_cancel.is_set()
    assert not panel.is_running()


def test_a_crashing_experiment_is_logged_and_shown(
    panel: GpuPanel, qtbot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An unexpected error in the worker: one line in the panel, the traceback in the log."""

    def broken(backend, params, cancel):
        yield Progress(0.0, "starting")
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(gui.gpu_panel, "pipeline_experiment", broken)
    with caplog.at_level(logging.ERROR, logger="gui.gpu_panel"):
        with qtbot.waitSignal(panel.run_failed, timeout=60_000) as caught:
            panel.run_button.click()
        qtbot.waitUntil(lambda: not panel.is_running(), timeout=60_000)
    assert caught.args[0] == "the run failed: ZeroDivisionError: division by zero"
    assert any(record.exc_info for record in caplog.records), "the traceback is logged"


def test_bad_parameters_show_inline(panel: GpuPanel, qtbot) -> None:
    panel.size_box.setValue(0.001)
    panel.chunks_box.setValue(4096)
    with qtbot.waitSignal(panel.run_failed, timeout=120_000) as caught:
        panel.run_button.click()
    assert "chunks need at least" in caught.args[0]
    assert caught.args[0] == panel.status_label.text()
    assert not panel.is_running() and panel.run_button.isEnabled()


def test_cupy_requested_without_cupy_says_why(panel: GpuPanel, qtbot) -> None:
    panel.backend_box.setCurrentText("cupy")
    with qtbot.waitSignal(panel.run_failed, timeout=120_000) as caught:
        panel.run_button.click()
    assert "CuPy is not installed" in caught.args[0]


def test_occupancy_sweep_needs_a_device(panel: GpuPanel) -> None:
    assert not panel.occupancy_button.isEnabled()
    assert "CUDA device" in panel.occupancy_button.toolTip()


def test_occupancy_sweep_result_goes_out(qtbot, monkeypatch) -> None:
    """The sweep runs on the worker thread and its result is handed on (a stand-in sweep
    here: the real one needs a GPU and is tested with the gpu marker)."""
    import gpu.occupancy

    class Sweep:
        peak_gbps, knee, saturated = 3000.0, 12.5, True

    def fake_sweep(cancel=None):
        yield gpu.occupancy.Progress(0.5, "half")
        return Sweep()

    monkeypatch.setattr(gpu.occupancy, "sweep_occupancy", fake_sweep)
    device = DeviceInfo(0, "NVIDIA H200", (9, 0), 141 * 2**30, 132)
    widget = GpuPanel(Detection("cupy", device))
    qtbot.addWidget(widget)
    assert widget.occupancy_button.isEnabled()
    with qtbot.waitSignal(widget.occupancy_ready, timeout=120_000) as caught:
        widget.occupancy_button.click()
    assert caught.args[0].knee == 12.5
    assert "knee ≈ 12.5" in widget.status_label.text()
    widget.shutdown()


def test_a_speedup_below_one_reads_as_slower() -> None:
    from gui.gpu_panel import speedup_words

    assert speedup_words(1.8) == "pipelined 1.80× faster than sequential"
    assert speedup_words(0.5) == "pipelined 2.00× slower than sequential (speedup 0.50×)"
    assert "faster" not in speedup_words(0.16)


def test_kernel_sweep_needs_cp_async(qtbot) -> None:
    old = DeviceInfo(0, "Tesla V100", (7, 0), 16 * 2**30, 80)
    widget = GpuPanel(Detection("cupy", old, "", "cp.async needs sm_80 or newer"))
    qtbot.addWidget(widget)
    assert not widget.tiles_button.isEnabled() and widget.occupancy_button.isEnabled()


def test_kernel_sweep_fills_the_table(qtbot, monkeypatch) -> None:
    """Experiment 2 runs on the worker thread and its rows fill the table (a stand-in
    result here: the real sweep needs a GPU and is tested with the gpu marker)."""
    import gpu.report
    import gpu.tiles

    def fake_run_tiles(params=None, cancel=None):
        yield gpu.tiles.Progress(0.5, "half")
        return "result"

    monkeypatch.setattr(gpu.tiles, "run_tiles", fake_run_tiles)
    monkeypatch.setattr(
        gpu.report,
        "tile_rows",
        lambda result: [("device", "H200"), ("headline", "3-stage at intensity 8: 91%")],
    )
    device = DeviceInfo(0, "NVIDIA H200", (9, 0), 141 * 2**30, 132)
    widget = GpuPanel(Detection("cupy", device))
    qtbot.addWidget(widget)
    assert widget.tiles_button.isEnabled()
    with qtbot.waitSignal(widget.tiles_ready, timeout=120_000) as caught:
        widget.tiles_button.click()
    assert caught.args[0] == "result"
    assert dict(widget.table_rows())["headline"].startswith("3-stage")
    assert "91%" in widget.status_label.text()
    widget.shutdown()


# -- a stand-in experiment: what the page shows of a result --------------------------------


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Experiment 1 replaced: it returns ``outcome["result"]`` or raises ``outcome["error"]``."""
    outcome: dict[str, object] = {"result": stand_in_result()}

    def experiment(backend, params, cancel):
        yield Progress(0.5, "half way")
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["result"]

    monkeypatch.setattr(gui.gpu_panel, "pipeline_experiment", experiment)
    return outcome


def test_a_result_shows_its_spread_and_draws_the_sequential_run(
    panel: GpuPanel, qtbot, stand_in
) -> None:
    from gui.colours import OP_COLOURS

    with qtbot.waitSignal(panel.run_finished, timeout=120_000):
        panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.is_running())
    summary = panel.results.summary.text()
    assert "min 8.5 ms, median 9 ms, max 12.2 ms over 3 runs" in summary
    rows = dict(panel.table_rows())
    assert rows["sequential spread"].startswith("min 8.5 ms, median 9 ms")
    groups = panel.timeline.groups
    assert [g.schedule.policy for g in groups] == ["sequential", "pipelined", "pipelined"]
    assert groups[0].schedule.source == "measured"
    assert len(panel.results.spread_bands) == 1  # the pipelined runs all took 5 ms
    band = panel.results.spread_bands[0]
    assert band.opts["x0"][0] == 8.5 and band.opts["x1"][0] == 12.25
    # The sequential run is drawn: op 2's compute (4–5 ms) on its compute row is op 2's
    # colour in the page's pixels (beside its label, at the bar's middle).
    panel.resize(1200, 800)
    panel.show()
    qtbot.waitExposed(panel)
    view = panel.timeline.getPlotItem().getViewBox()
    compute_row = groups[0].first_row + 1
    scene = view.mapViewToScene(pg_point(4.12, compute_row))
    pixel = panel.timeline.mapFromScene(scene)
    image = panel.timeline.grab().toImage()
    colour = image.pixelColor(pixel.x(), pixel.y()).name()
    assert colour == OP_COLOURS[1].lower()


def test_the_spread_stays_in_view_through_resizes(panel: GpuPanel, qtbot, stand_in) -> None:
    """At 1280 × 800 the pipelined spread (to 75.9 ms) was cut at 72 ms: a resize put
    back the runs' own time range. The slowest repeat (12.25 ms) stays in view, and the
    bands follow the rows when a resize moves them."""
    with qtbot.waitSignal(panel.run_finished, timeout=120_000):
        panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.is_running())
    panel.show()
    qtbot.waitExposed(panel)
    view = panel.timeline.getPlotItem().getViewBox()
    for height in (640, 800, 1000):
        panel.resize(1200, height)
        qtbot.waitUntil(lambda h=height: panel.height() == h)
        assert view.viewRange()[0][1] >= 12.25, height
        (band,) = panel.results.spread_bands
        group = panel.timeline.groups[0]
        assert band.opts["y0"][0] == group.first_row - 0.5
    panel.timeline.reset_view()
    assert view.viewRange()[0][1] >= 12.25


def pg_point(x: float, y: float):  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_an_efficiency_above_100_percent_is_explained(panel: GpuPanel, qtbot, stand_in) -> None:
    stand_in["result"] = stand_in_result(side_by_side=0.8)  # stages faster side by side
    with qtbot.waitSignal(panel.run_finished, timeout=120_000) as caught:
        panel.run_button.click()
    result = caught.args[0]
    assert result.overlap_efficiency > 1.02
    summary = panel.results.summary.text()
    assert f"{result.overlap_efficiency:.0%}" in summary
    assert "faster than the model predicted" in summary
    assert "faster beside the others than alone" in summary


def test_a_failed_run_clears_the_last_results(panel: GpuPanel, qtbot, stand_in) -> None:
    with qtbot.waitSignal(panel.run_finished, timeout=120_000):
        panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.is_running())
    assert panel.schedules and panel.table_rows() and panel.animate_button.isEnabled()
    stand_in["error"] = PipeLabError("the stand-in broke")
    with qtbot.waitSignal(panel.run_failed, timeout=120_000):
        panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.is_running())
    assert panel.result is None and panel.schedules == [] and panel.table_rows() == []
    assert not panel.animate_button.isEnabled() and not panel.results.spread_bands
    assert panel.timeline.bar_count == 0 and panel.clock.end == 0.0
    assert panel.status_label.text() == "the stand-in broke"
    assert "No results: the stand-in broke" in panel.results.summary.text()


def test_the_status_and_the_install_hint_stay_in_view_in_a_short_page(panel: GpuPanel, qtbot):
    panel.resize(900, 420)
    panel.show()
    qtbot.waitExposed(panel)
    for widget in (panel.device_label, panel.progress, panel.status_label):
        corner = widget.mapTo(panel, widget.rect().bottomRight())
        assert widget.isVisible() and panel.rect().contains(corner)
    assert "CuPy is not installed" in panel.device_label.text()
    assert "uv sync --extra gpu" in panel.device_label.text()
    assert panel.status_label.text()  # says it is ready before any run


def test_a_run_is_under_way_until_its_result_is_taken(panel: GpuPanel, qtbot, stand_in) -> None:
    """A quick run's worker may end before the GUI thread looks: the panel still counts the
    run as under way (buttons as while running) until it has taken the queued result."""
    panel.run_button.click()
    panel._thread.wait()  # the worker has ended; its result waits in the event queue
    assert panel.is_running() and not panel.run_button.isEnabled()
    with qtbot.waitSignal(panel.run_finished, timeout=120_000):
        pass
    assert not panel.is_running() and panel.run_button.isEnabled()
