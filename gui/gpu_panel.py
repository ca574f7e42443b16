"""The GPU page (the window's third tab): run experiment 1 (CuPy streams, or CPU threads)
with progress and cancel, and experiment 2 and the occupancy sweep on a CUDA device.

Across the top, always in view: which backend runs and on what device (or why CuPy can't,
with the install hint), the progress bar fed by the experiment's generator running in a
worker thread, and the status line. Below: the parameters and buttons on the left, the
results on the right (`gui.gpu_results`: the spread, the measured sequential and pipelined
runs beside the model on the page's own clock, the explanation, the table). A failed run
clears the results: figures of an older run would read as this one's.

It computes nothing itself: gpu/ measures, engine/ models. The main window connects
`animate_requested` (an `gui.external_run.ExternalRun` of the measured sequential and
pipelined runs, for the assembly line on the Pipeline tab) and `occupancy_ready` (for the
Warps tab).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.base.errors import PipeLabError
from engine.model.schedule import Schedule
from gpu.cores import Cores, cpu_warning, this_machine
from gpu.detect import Detection, detect, resolve_backend
from gpu.experiments import default_params, pipeline_experiment, run_to_end
from gpu.measured import PipelineResult
from gpu.params import MIB, Progress
from gpu.report import measured_description, measured_title, pipeline_rows
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.external_run import ExternalRun
from gui.gpu_results import GpuResults
from gui.memory import release_freed_memory
from gui.theme import dress

_log = logging.getLogger(__name__)

ExperimentFactory = Callable[[threading.Event], Generator[Progress, None, PipelineResult]]
#: Progress bar steps.
STEPS = 1000
READY = "Ready: set the parameters and press Run."


class ExperimentThread(QObject):
    """Runs one experiment generator on a Python worker thread.

    A plain `threading.Thread` (not a QThread): Python knows it, joins it, and the test
    suite's leaked-thread check sees it end. Its signals are emitted from the worker and,
    the panel living on the GUI thread, are queued there.
    """

    progressed = Signal(float, str)
    succeeded = Signal(object)
    failed = Signal(str)

    def __init__(self, factory: ExperimentFactory, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel_event = threading.Event()
        self._factory = factory
        self._worker = threading.Thread(target=self._run, name="pipelab-experiment", daemon=True)

    def start(self) -> None:
        self._worker.start()

    def is_running(self) -> bool:
        return self._worker.is_alive()

    def wait(self) -> None:
        if self._worker.ident is not None:
            self._worker.join()

    def _run(self) -> None:
        def report(progress: Progress) -> None:
            self.progressed.emit(progress.fraction, progress.message)

        try:
            result = run_to_end(self._factory(self.cancel_event), report)
        except PipeLabError as error:
            self.failed.emit(str(error))
        except MemoryError:
            self.failed.emit("out of memory: use a smaller size")
        except Exception as error:  # shown in the panel; the app stays up
            _log.exception("the experiment failed")  # the traceback, for a bug report
            self.failed.emit(f"the run failed: {type(error).__name__}: {error}")
        else:
            self.succeeded.emit(result)

    def stop(self) -> None:
        """Ask the experiment to stop and wait for the thread (it checks between chunks)."""
        self.cancel_event.set()
        self.wait()


class GpuPanel(QWidget):
    """Backend and device, progress and status; parameters, Run / Cancel; the results.
    ``clock`` is the page's own (one is made when not given)."""

    schedules_ready = Signal(list)  # the Schedules drawn: [sequential, pipelined, model]
    #: An `ExternalRun` of [measured sequential, measured pipelined], named for the window.
    animate_requested = Signal(object)
    run_finished = Signal(object)  # the PipelineResult
    run_failed = Signal(str)
    occupancy_ready = Signal(object)  # a gpu.occupancy.OccupancySweep, for the Warps view
    tiles_ready = Signal(object)  # a gpu.tiles.TileResult (experiment 2)

    def __init__(
        self,
        detection: Detection | None = None,
        parent: QWidget | None = None,
        clock: Clock | None = None,
        theme: Theme = LIGHT,
        cores: Cores | None = None,
    ) -> None:
        super().__init__(parent)
        self.detection = detection or detect()
        self.cores = cores if cores is not None else this_machine()
        self.result: PipelineResult | None = None
        self._thread: ExperimentThread | None = None
        self.clock = clock if clock is not None else Clock(self)
        if self.clock.parent() is None:
            self.clock.setParent(self)

        self.device_label = QLabel(self._device_text())
        self.device_label.setWordWrap(True)
        # Before a run on CPU threads: whether this machine can show the overlap at all.
        self.cores_note = QLabel()
        dress(self.cores_note, "message")
        self.cores_note.setWordWrap(True)
        self.cores_note.setAccessibleName("Can this machine show pipelining?")
        self.backend_box = QComboBox()
        self.backend_box.addItems(["auto", "cupy", "cpu"])
        self.size_box = QDoubleSpinBox()
        self.size_box.setRange(0.001, 65536.0)
        self.size_box.setDecimals(3)
        self.size_box.setSuffix(" MiB")
        self.size_box.setValue(default_params(self.detection.backend).size_bytes / MIB)
        self.chunks_box = _spin(1, 4096, 16)
        self.streams_box = _spin(1, 64, 3)
        self.intensity_box = _spin(0, 1_000_000, 0)
        self.intensity_box.setSpecialValueText("auto")
        self.intensity_box.setToolTip(
            "multiply-adds per element; auto: compute ≈ one copy on a GPU, ≈ 1.5 × both "
            "copies on CPU threads (then two cores suffice)"
        )
        self.repeats_box = _spin(1, 1000, 5)

        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.animate_button = QPushButton("Animate this run")
        self.animate_button.setEnabled(False)
        self.occupancy_button = QPushButton("Occupancy sweep")
        self.occupancy_button.setToolTip(
            "Warp latency hiding on this GPU: memory bandwidth as the warps per SM rise, "
            "drawn on the Warps tab beside the model's curve (needs a CUDA device)"
        )
        self.occupancy_button.setEnabled(self.detection.backend == "cupy")
        self.tiles_button = QPushButton("Kernel sweep")
        self.tiles_button.setToolTip(
            "Experiment 2: a tiled kernel reading global → shared memory, synchronous vs "
            "cp.async-pipelined with 2 and 3 stages, over an intensity sweep, against a "
            "device-to-device copy (needs a CUDA device, sm_80 or newer)"
        )
        self.tiles_button.setEnabled(self._tiles_possible())
        self.progress = QProgressBar()
        self.progress.setRange(0, STEPS)
        self.progress.setAccessibleName("Progress of the run")
        self.status_label = QLabel(READY)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("Status")
        self.results = GpuResults(self.clock, theme)
        self.timeline = self.results.timeline
        self.table = self.results.table

        form = QFormLayout()
        form.addRow("backend", self.backend_box)
        form.addRow("data size", self.size_box)
        form.addRow("chunks", self.chunks_box)
        form.addRow("streams / buffers", self.streams_box)
        form.addRow("intensity", self.intensity_box)
        form.addRow("repeats", self.repeats_box)
        buttons = QGridLayout()  # experiment 1 on the first rows, the CUDA-only ones below
        buttons.addWidget(self.run_button, 0, 0)
        buttons.addWidget(self.cancel_button, 0, 1)
        buttons.addWidget(self.animate_button, 1, 0, 1, 2)
        buttons.addWidget(self.occupancy_button, 2, 0)
        buttons.addWidget(self.tiles_button, 2, 1)
        controls = QWidget()
        controls_layout = QVBoxLayout(controls)
        controls_layout.addLayout(form)
        controls_layout.addLayout(buttons)
        controls_layout.addStretch(1)
        scroll = QScrollArea()  # a short window scrolls the form, never the status
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setWidget(controls)
        scroll.setMinimumWidth(controls.minimumSizeHint().width() + 16)
        scroll.setMaximumWidth(460)
        self.body = QSplitter(Qt.Orientation.Horizontal, self)
        self.body.setChildrenCollapsible(False)
        self.body.addWidget(scroll)
        self.body.addWidget(self.results)
        self.body.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 0)
        layout.addWidget(self.device_label)  # these are always in view
        layout.addWidget(self.cores_note)
        layout.addWidget(self.progress)
        layout.addWidget(self.status_label)
        layout.addWidget(self.body, 1)

        self.run_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.animate_button.clicked.connect(self._animate)
        self.occupancy_button.clicked.connect(self.start_occupancy_sweep)
        self.tiles_button.clicked.connect(self.start_tile_sweep)
        self.backend_box.currentTextChanged.connect(self._show_cores_note)
        self._show_cores_note()

    # -- what it shows ---------------------------------------------------------------------

    @property
    def schedules(self) -> list[Schedule]:
        """The Schedules drawn on the page (the last run's), or [] (none, or it failed)."""
        return self.results.schedules

    @property
    def title(self) -> str:
        return self.results.title

    def set_theme(self, theme: Theme) -> None:
        self.results.set_theme(theme)

    # -- running ---------------------------------------------------------------------------

    def is_running(self) -> bool:
        """A run is under way until the panel has taken its result (or failure): its worker
        may already have ended, with the outcome still queued for the GUI thread."""
        return self._thread is not None

    def start_run(self) -> None:
        """Start a run with the current parameters (stopping a stale one first)."""
        self._stop_thread()
        try:
            backend, _ = resolve_backend(self.backend_box.currentText(), self.detection)
            intensity = self.intensity_box.value() or None
            params = default_params(
                backend,
                size_bytes=int(self.size_box.value() * MIB),
                chunks=self.chunks_box.value(),
                streams=self.streams_box.value(),
                intensity=intensity,
                repeats=self.repeats_box.value(),
            )
        except PipeLabError as error:
            self._show_failure(str(error))
            return
        self._launch(
            lambda cancel: pipeline_experiment(backend, params, cancel),
            self._on_success,
            f"running on {backend}…",
        )

    def start_occupancy_sweep(self) -> None:
        """Measure bandwidth against warps per SM on the CUDA device (see gpu.occupancy)."""
        self._stop_thread()
        from gpu.occupancy import sweep_occupancy  # imports nothing heavy until it runs

        self._launch(
            lambda cancel: sweep_occupancy(cancel=cancel),
            self._on_occupancy,
            "occupancy sweep running…",
        )

    def start_tile_sweep(self) -> None:
        """Experiment 2 on the CUDA device: the results fill the table (see gpu.tiles)."""
        self._stop_thread()
        from gpu.tile_result import TileParams
        from gpu.tiles import run_tiles

        self._launch(
            lambda cancel: run_tiles(TileParams(), cancel),
            self._on_tiles,
            "kernel sweep running…",
        )

    def _tiles_possible(self) -> bool:
        found = self.detection
        return found.backend == "cupy" and not found.async_copy_reason

    def _launch(
        self, factory: Callable[[threading.Event], Any], on_success: Any, message: str
    ) -> None:
        thread = ExperimentThread(factory, self)
        thread.progressed.connect(self._on_progress)
        thread.succeeded.connect(on_success)
        thread.failed.connect(self._on_failure)
        self._thread = thread
        self.progress.setValue(0)
        self.status_label.setText(message)
        self._set_running(True)
        thread.start()

    def cancel_run(self) -> None:
        if self._thread is not None:
            self._thread.cancel_event.set()
            self.status_label.setText("cancelling…")

    def shutdown(self) -> None:
        """Stop and wait for the worker thread (call before the panel goes away)."""
        self._stop_thread()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def _stop_thread(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            for signal in (thread.progressed, thread.succeeded, thread.failed):
                signal.disconnect()
            thread.stop()
            thread.deleteLater()
            self._set_running(False)

    # -- results from the worker (queued onto the GUI thread) ----------------------------------

    def _current(self) -> bool:
        """Signals from a stale worker (already replaced) are ignored."""
        return self.sender() is self._thread

    def _on_progress(self, fraction: float, message: str) -> None:
        if self._current():
            self.progress.setValue(round(max(0.0, min(1.0, fraction)) * STEPS))
            self.status_label.setText(message)

    def _on_success(self, result: PipelineResult) -> None:
        if not self._current():
            return
        self._finish_thread()
        self.show_result(result)

    def show_result(self, result: PipelineResult) -> None:
        """Show experiment 1's ``result``: status, drawing, explanation and table."""
        self.result = result
        self.progress.setValue(STEPS)
        self.status_label.setText(
            f"done: {speedup_words(result.speedup)} (model {result.predicted_speedup:.2f}×)"
        )
        self.results.show_pipeline(result, pipeline_rows(result))
        self.animate_button.setEnabled(True)
        self.run_finished.emit(result)
        self.schedules_ready.emit(self.results.schedules)

    def _on_occupancy(self, sweep: Any) -> None:
        if not self._current():
            return
        self._finish_thread()
        self.progress.setValue(STEPS)
        shape = (
            f"knee ≈ {sweep.knee:.1f} warps per SM"
            if sweep.saturated
            else "not saturated: still rising at the largest W, so no knee"
        )
        self.status_label.setText(
            f"occupancy sweep done: peak {sweep.peak_gbps:.0f} GB/s, {shape} (see the Warps tab)"
        )
        self.occupancy_ready.emit(sweep)

    def _on_tiles(self, result: Any) -> None:
        if not self._current():
            return
        self._finish_thread()
        from gpu.report import HEADLINE, tile_rows

        self.progress.setValue(STEPS)
        rows = tile_rows(result)
        claim = dict(rows).get(HEADLINE, "no pipelined variant ran")
        self.status_label.setText(f"kernel sweep done: the claim rests on {claim}")
        self.result = None
        self.animate_button.setEnabled(False)
        self.results.show_rows(
            rows, f"Experiment 2 (the 'claims' row says which row carries which claim): {claim}"
        )
        self.tiles_ready.emit(result)

    def _on_failure(self, message: str) -> None:
        if not self._current():
            return
        self._finish_thread()
        self._show_failure(message)

    def _finish_thread(self) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.wait()
            thread.deleteLater()
            # Its buffers (the data size, up to GiBs on CPU threads) go back at once: the app
            # keeps freed memory for its next run otherwise (`hold_freed_memory`).
            release_freed_memory()
        self._set_running(False)

    def _show_failure(self, message: str) -> None:
        """The message in the status line; the last results go (they were another run's)."""
        self.progress.setValue(0)
        self.status_label.setText(message)
        self.result = None
        self.animate_button.setEnabled(False)
        self.results.clear(f"No results: {message}")
        self.run_failed.emit(message)

    def _animate(self) -> None:
        if self.result is not None:
            result = self.result
            self.animate_requested.emit(
                ExternalRun(
                    (result.sequential, result.pipelined),
                    measured_title(result),
                    measured_description(result),
                )
            )

    # -- widgets ---------------------------------------------------------------------------

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.occupancy_button.setEnabled(not running and self.detection.backend == "cupy")
        self.tiles_button.setEnabled(not running and self._tiles_possible())
        for box in (
            self.backend_box,
            self.size_box,
            self.chunks_box,
            self.streams_box,
            self.intensity_box,
            self.repeats_box,
        ):
            box.setEnabled(not running)

    def _show_cores_note(self) -> None:
        """Say, before a run on CPU threads, when this machine's cores cannot show the
        pipeline winning (nothing for a run on the GPU, or with cores enough)."""
        try:
            backend, _ = resolve_backend(self.backend_box.currentText(), self.detection)
        except PipeLabError:
            backend = ""
        text = cpu_warning(self.cores) if backend == "cpu" else ""
        self.cores_note.setText(text)
        self.cores_note.setVisible(bool(text))

    def _device_text(self) -> str:
        found = self.detection
        if found.device is not None:
            device = found.device
            text = (
                f"CuPy on {device.name}: compute capability {device.capability_text}, "
                f"{device.memory_bytes / 2**30:.1f} GiB, {device.multiprocessors} SMs"
            )
            if found.async_copy_reason:
                text += f" ({found.async_copy_reason})"
            return text
        return f"No GPU: runs on CPU threads. {found.reason}".strip()

    def table_rows(self) -> list[tuple[str, str]]:
        """What the results table shows (for tests and copy/paste)."""
        return self.results.table_rows()


def speedup_words(speedup: float) -> str:
    """The measured speedup in words that stay true below 1 (on a busy 2-core machine the
    pipelined CPU run can be the slower one): never "0.16× faster"."""
    if speedup >= 1 or speedup <= 0:
        return f"pipelined {speedup:.2f}× faster than sequential"
    return f"pipelined {1 / speedup:.2f}× slower than sequential (speedup {speedup:.2f}×)"


def _spin(low: int, high: int, value: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    return box
