"""The GPU panel on the CPU backend at a tiny size: progress, results, Schedules out,
cancel, a stale worker replaced, close while running, and errors shown inline."""

from __future__ import annotations

import logging
import threading

import pytest

import gui.gpu_panel
from engine.schedule import Schedule
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
    with qtbot.waitSignal(panel.schedules_ready, timeout=20_000) as caught:
        panel.run_button.click()
        assert panel.is_running() and not panel.run_button.isEnabled()
    measured, predicted = caught.args[0]
    assert isinstance(measured, Schedule) and isinstance(predicted, Schedule)
    assert measured.source == "measured" and predicted.source == "simulated"
    assert measured.n_ops == 4 and predicted.n_ops == 4
    assert panel.progress.value() == STEPS and len(progress) > 2
    labels = dict(panel.table_rows())
    assert labels["pipelined (measured)"].endswith("ms")
    assert "all correct" in labels["checked"]
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.is_running())
    with qtbot.waitSignal(panel.animate_requested, timeout=1000) as animated:
        panel.animate_button.click()
    assert animated.args[0] is measured


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
    with qtbot.waitSignal(panel.run_failed, timeout=1000) as caught:
        panel.run_button.click()
    assert "chunks need at least" in caught.args[0]
    assert caught.args[0] == panel.status_label.text()
    assert not panel.is_running() and panel.run_button.isEnabled()


def test_cupy_requested_without_cupy_says_why(panel: GpuPanel, qtbot) -> None:
    panel.backend_box.setCurrentText("cupy")
    with qtbot.waitSignal(panel.run_failed, timeout=1000) as caught:
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
    with qtbot.waitSignal(widget.occupancy_ready, timeout=10_000) as caught:
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
    with qtbot.waitSignal(widget.tiles_ready, timeout=10_000) as caught:
        widget.tiles_button.click()
    assert caught.args[0] == "result"
    assert dict(widget.table_rows())["headline"].startswith("3-stage")
    assert "91%" in widget.status_label.text()
    widget.shutdown()
