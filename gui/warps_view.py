"""The Warps view: one SM hiding memory latency with W warps, animated on the shared clock.

Reads everything from `engine.latency.warps` (the run, each warp's phase at the clock's time, the
narration, the utilization curve); it computes nothing itself. Parts, top to bottom:
controls (W, L, C, cycles, export), the SM's state now (a lane per warp and the issue
unit), the lanes' timeline with the clock's cursor (the future veiled), the narration, and
utilization against W (simulated points on the analytic curve, the knee marked).

The view drives the clock it is given: it loads its timeline (in cycles) into the clock
when shown (`activate`) and ignores the clock while hidden, so a clock may be shared; in
the app the Warps tab owns its clock. `set_theme` restyles the plots (their backgrounds,
axes, the veil over the future) for the light or the dark theme.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QHideEvent,
    QPainter,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.base.tolerance import time_tolerance
from engine.latency.warps import (
    COMPUTE,
    ISSUE_UNIT,
    MEMORY,
    PHASE_WORDS,
    WarpConfig,
    WarpPhase,
    WarpRun,
    WarpSnapshot,
    analytic_utilization,
    narrate_warps,
    ready_intervals,
    simulate_warps,
    utilization_curve,
    warp_state_at,
)
from gui.clock import Clock
from gui.colours import LIGHT, OP_COLOURS, Theme
from gui.theme import dress
from gui.timeline import TimeAxis
from gui.warps_export import export_warps

if TYPE_CHECKING:
    from gpu.occupancy import OccupancySweep

#: One colour per warp (op): the project's op palette.
WARP_COLOURS: tuple[str, ...] = OP_COLOURS
MEMORY_COLOUR = "#b9c4d3"
READY_FILL = "#fbe3c0"
READY_HATCH = "#c8741a"

#: The GUI's limits (the engine allows more; more lanes would not be readable).
GUI_MAX_WARPS = 64
GUI_MAX_CYCLES = 20_000


def warp_colour(warp: int) -> QColor:
    return QColor(WARP_COLOURS[warp % len(WARP_COLOURS)])


def _ink_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    luminance = 0.299 * colour.red() + 0.587 * colour.green() + 0.114 * colour.blue()
    return QColor("#1b1b1b") if luminance > 150 else QColor("#ffffff")


def _hatched(fill: str, hatch: str) -> tuple[QBrush, QBrush]:
    return QBrush(QColor(fill)), QBrush(QColor(hatch), Qt.BrushStyle.BDiagPattern)


def style_plot(plot: pg.PlotWidget, theme: Theme, labels: dict[str, str]) -> None:
    """Background, axes and axis labels (``labels``: axis name → text) in ``theme``."""
    plot.setBackground(theme.background)
    item = plot.getPlotItem()
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen(theme.muted))
        axis.setTextPen(pg.mkPen(theme.text))
    for name, text in labels.items():
        item.setLabel(name, text, color=theme.muted)


# -- the SM now: a lane per warp and the issue unit ------------------------------------------


class SmStatePanel(QWidget):
    """Each warp's phase at the clock's time (with how far it is into its burst or load, or
    how long it has waited), and which warp holds the issue unit. Painted in one pass."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._snapshot: WarpSnapshot | None = None
        self._config = WarpConfig()
        self.setMinimumWidth(250)

    def sizeHint(self) -> QSize:
        return QSize(280, 320)

    def set_snapshot(self, config: WarpConfig, snapshot: WarpSnapshot) -> None:
        self._config, self._snapshot = config, snapshot
        self.update()

    def _detail(self, warp: int) -> str:
        snap, config = self._snapshot, self._config
        assert snap is not None
        phase = WarpPhase(int(snap.phase[warp]))
        if phase == WarpPhase.COMPUTING:
            return f"computing {snap.fraction[warp] * config.compute:.0f}/{config.compute}"
        if phase == WarpPhase.MEMORY:
            left = (1 - snap.fraction[warp]) * config.latency
            return f"memory, {math.ceil(left - 1e-9)} cycles left"
        if phase == WarpPhase.READY:
            waited = snap.time - snap.ready_since[warp]
            return f"ready, waiting {waited:.0f} cycles"
        return PHASE_WORDS[phase]

    def paintEvent(self, event: object) -> None:
        snap = self._snapshot
        painter = QPainter(self)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.base())
        if snap is None:
            painter.end()
            return
        warps = len(snap.phase)
        rows = warps + 2  # a gap row, then the issue unit
        height = min(30.0, max(1.0, (self.height() - 8) / rows))
        label_width = 62.0
        bar_width = max(20.0, self.width() - label_width - 12)
        font = QFont(self.font())
        font.setPixelSize(int(min(13, max(7, height * 0.62))))
        painter.setFont(font)
        text = palette.text().color()
        show_text = height >= 11
        memory = QBrush(QColor(MEMORY_COLOUR))
        ready_fill, ready_hatch = _hatched(READY_FILL, READY_HATCH)
        for warp in range(warps):
            top = 4 + warp * height
            box = QRectF(label_width, top + 1, bar_width, height - 2)
            phase = int(snap.phase[warp])
            painter.setPen(Qt.PenStyle.NoPen)
            if phase == WarpPhase.COMPUTING:
                painter.setBrush(warp_colour(warp))
                painter.drawRect(box)
            elif phase == WarpPhase.MEMORY:
                painter.setBrush(memory)
                painter.drawRect(box)
                done = QRectF(box)
                done.setWidth(box.width() * float(snap.fraction[warp]))
                painter.setBrush(QColor("#8796ab"))
                painter.drawRect(done)
            elif phase == WarpPhase.READY:
                painter.setBrush(ready_fill)
                painter.drawRect(box)
                painter.setBrush(ready_hatch)
                painter.drawRect(box)
            painter.setPen(text)
            if show_text:
                label = QRectF(4, top, label_width - 8, height)
                painter.drawText(label, Qt.AlignmentFlag.AlignVCenter, f"warp {warp + 1}")
                if phase == WarpPhase.COMPUTING:
                    painter.setPen(_ink_on(warp_colour(warp)))
                elif phase != WarpPhase.WINDOW_ENDED:
                    painter.setPen(QColor("#1b1b1b"))
                room = box.adjusted(6, 0, -4, 0)
                detail = painter.fontMetrics().elidedText(
                    self._detail(warp), Qt.TextElideMode.ElideRight, int(room.width())
                )
                painter.drawText(room, Qt.AlignmentFlag.AlignVCenter, detail)
        top = 4 + (warps + 1) * height
        box = QRectF(label_width, top, bar_width, max(height, 14))
        painter.setPen(text)
        painter.drawText(
            QRectF(4, top, label_width - 8, box.height()), Qt.AlignmentFlag.AlignVCenter, "issue"
        )
        if snap.issuing >= 0:
            painter.setBrush(warp_colour(snap.issuing))
            words = f"→ warp {snap.issuing + 1}"
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            ended = WarpPhase.WINDOW_ENDED in snap.phase
            words = "window ended" if ended else "idle: no warp ready"
        painter.drawRect(box)
        painter.setPen(_ink_on(warp_colour(snap.issuing)) if snap.issuing >= 0 else text)
        painter.drawText(box.adjusted(6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, words)
        painter.end()


# -- the lanes' timeline -----------------------------------------------------------------------


class LanesPlot(pg.PlotWidget):
    """The run as lanes: warps on top (compute in the warp's colour, loads pale, stalls
    hatched), the issue unit below (the holder's colour). Bars are grouped by look, one
    `BarGraphItem` per group; the cursor and the veil over the future are light items."""

    def __init__(self, parent: QWidget | None = None) -> None:
        axis = TimeAxis()  # whole cycles with thousands separators, never "x1e+06"
        axis.set_span(0.0, "cycles")
        super().__init__(parent=parent, background=None, axisItems={"bottom": axis})
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setLabel("bottom", axis.title)
        view = plot.getViewBox()
        view.invertY(True)
        view.setMouseEnabled(x=True, y=False)
        view.setDefaultPadding(0.0)
        self._bars: list[pg.BarGraphItem] = []
        self.cursor = pg.InfiniteLine(
            pos=0.0, angle=90, movable=False, pen=pg.mkPen("#d1242f", width=2)
        )
        self.cursor.setZValue(10)
        plot.addItem(self.cursor, ignoreBounds=True)
        self.veil = pg.LinearRegionItem(
            values=(0.0, 1.0),
            movable=False,
            brush=pg.mkBrush(255, 255, 255, 150),
            pen=pg.mkPen(None),
        )
        self.veil.setZValue(5)
        plot.addItem(self.veil, ignoreBounds=True)
        self._end = 1.0

    def set_run(self, run: WarpRun) -> None:
        plot = self.getPlotItem()
        for item in self._bars:
            plot.removeItem(item)
        self._bars = []
        schedule, warps = run.schedule, run.config.warps
        issue_row = warps + 0.5
        rows = np.where(schedule.unit == ISSUE_UNIT, issue_row, schedule.worker.astype(float))
        compute = schedule.stage == COMPUTE
        groups: list[tuple[np.ndarray, np.ndarray, np.ndarray, list[QBrush]]] = []
        for colour in range(min(warps, len(WARP_COLOURS))):
            mask = compute & (schedule.op % len(WARP_COLOURS) == colour)
            groups.append(
                (
                    schedule.start[mask],
                    schedule.end[mask],
                    rows[mask],
                    [QBrush(warp_colour(colour))],
                )
            )
        memory = schedule.stage == MEMORY
        groups.append(
            (
                schedule.start[memory],
                schedule.end[memory],
                rows[memory],
                [QBrush(QColor(MEMORY_COLOUR))],
            )
        )
        warp, start, end = ready_intervals(run)
        groups.append((start, end, warp.astype(float), list(_hatched(READY_FILL, READY_HATCH))))
        for x0, x1, y, brushes in groups:
            if not len(x0):
                continue
            for brush in brushes:  # a hatch is a second pass over its fill
                item = pg.BarGraphItem(
                    x0=x0, x1=x1, y0=y - 0.38, y1=y + 0.38, brush=brush, pen=pg.mkPen(None)
                )
                plot.addItem(item)
                self._bars.append(item)
        step = max(1, math.ceil(warps / 16))
        ticks = [(float(k), f"warp {k + 1}") for k in range(0, warps, step)]
        plot.getAxis("left").setTicks([[*ticks, (issue_row, "issue unit")]])
        self._end = float(run.config.cycles)
        plot.setXRange(0, self._end, padding=0.01)
        plot.setYRange(-0.6, issue_row + 0.6, padding=0)
        self.set_time(self.cursor.value())

    @property
    def bar_items(self) -> list[pg.BarGraphItem]:
        return list(self._bars)

    def set_theme(self, theme: Theme) -> None:
        """The theme's background and axes; the future veiled in the background colour."""
        style_plot(self, theme, {"bottom": "cycle"})
        veil = QColor(theme.background)
        veil.setAlpha(150)
        self.veil.setBrush(pg.mkBrush(veil))
        self.veil.update()
        self.cursor.setPen(pg.mkPen(theme.cursor, width=2))

    def set_time(self, time: float) -> None:
        self.cursor.setValue(time)
        self.veil.setRegion((min(time, self._end), self._end))


# -- utilization against W -------------------------------------------------------------------


class UtilizationPlot(pg.PlotWidget):
    """Issue-unit utilization against the number of warps: the analytic curve
    min(1, W·C / (C + L)), the simulated steady state at each W, the knee, and this run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background=None)
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setLabel("bottom", "warps per SM (W)")
        plot.setLabel("left", "issue-unit utilization")
        plot.setMouseEnabled(x=False, y=False)
        plot.addLegend(offset=(-10, -40))
        self.curve = plot.plot(
            [], [], pen=pg.mkPen("#5b6270", width=2), name="model min(1, W·C/(C+L))"
        )
        self.points = pg.ScatterPlotItem(
            size=8, brush=pg.mkBrush("#4E79A7"), pen=pg.mkPen(None), name="simulated"
        )
        plot.addItem(self.points)
        self.current = pg.ScatterPlotItem(
            size=16, brush=pg.mkBrush(None), pen=pg.mkPen("#d1242f", width=2), name="this run"
        )
        plot.addItem(self.current)
        self.knee = pg.InfiniteLine(
            pos=1.0,
            angle=90,
            movable=False,
            pen=pg.mkPen("#1a7f37", width=1.5, style=Qt.PenStyle.DashLine),
            label="knee",
            labelOpts={"position": 0.15, "color": "#1a7f37"},
        )
        plot.addItem(self.knee, ignoreBounds=True)
        self.simulated = np.zeros(0)
        self.measured = pg.ScatterPlotItem(
            size=10, symbol="t", brush=pg.mkBrush("#F28E2B"), pen=pg.mkPen("#9c4f00")
        )
        plot.addItem(self.measured)
        self.measured_model = plot.plot(
            [], [], pen=pg.mkPen("#F28E2B", width=1.5, style=Qt.PenStyle.DashLine)
        )
        self._measured_top = 0
        self._measured_knee: float | None = None
        self._top = 8
        self._compute_latency = (10, 40)

    def set_theme(self, theme: Theme) -> None:
        """The theme's background, axes, legend text and model curve."""
        style_plot(
            self,
            theme,
            {"bottom": "warps per SM (W)", "left": "issue-unit utilization"},
        )
        self.curve.setPen(pg.mkPen(theme.muted, width=2))
        self.current.setPen(pg.mkPen(theme.cursor, width=2))
        self.knee.setPen(pg.mkPen(theme.done, width=1.5, style=Qt.PenStyle.DashLine))
        self.knee.label.setColor(theme.done)
        legend = self.getPlotItem().legend
        if legend is not None:
            legend.setLabelTextColor(theme.text)
            for _, label in legend.items:
                label.setText(label.text)  # setLabelTextColor only records the colour

    def set_measured(
        self, warps: np.ndarray, fraction: np.ndarray, knee: float, label: str
    ) -> None:
        """Overlay a hardware measurement: bandwidth as a fraction of its peak against
        warps per SM (from the occupancy sweep), and the model fitted to it (knee
        ``knee``, dashed), named ``label`` in the legend."""
        warps = np.asarray(warps, dtype=np.float64)
        self.measured.setData(warps, np.asarray(fraction, dtype=np.float64))
        legend = self.getPlotItem().legend
        if legend is not None:
            legend.removeItem(self.measured)
            legend.addItem(self.measured, label)
        self._measured_top = int(warps.max()) if len(warps) else 0
        self._measured_knee = knee
        self._refresh_axes()

    def set_run(self, run: WarpRun) -> None:
        config = run.config
        knee = config.knee
        top = int(min(GUI_MAX_WARPS, max(8, config.warps + 2, math.ceil(1.5 * knee))))
        self._top = top
        self._compute_latency = (config.compute, config.latency)
        warps = np.arange(1, top + 1)
        self.simulated = utilization_curve(config.compute, config.latency, warps)
        self.points.setData(warps.astype(float), self.simulated)
        self.current.setData([float(config.warps)], [self.simulated[config.warps - 1]])
        self.knee.setValue(knee)
        self._refresh_axes()

    def _refresh_axes(self) -> None:
        """The x range covers the simulated points and any measurement; curves follow it."""
        right = max(self._top, self._measured_top) + 0.5
        dense = np.linspace(0.0, right, 600)
        compute, latency = self._compute_latency
        self.curve.setData(dense, analytic_utilization(dense, compute, latency))
        if self._measured_knee is not None:
            fitted = analytic_utilization(dense, 1.0, self._measured_knee - 1.0)
            self.measured_model.setData(dense, fitted)
        knee = self.knee.value()
        shown = "" if knee <= right else " (beyond the chart)"
        self.knee.label.setFormat(f"knee W = {knee:.3g}{shown}")
        self.knee.setVisible(knee <= right)
        plot = self.getPlotItem()
        plot.setXRange(0, right, padding=0.02)
        plot.getAxis("bottom").setTickSpacing(major=max(1, int(right) // 16), minor=1)
        plot.setYRange(0, 1.08, padding=0)


# -- the view ------------------------------------------------------------------------------------


def _spin(low: int, high: int, value: int, suffix: str, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setSuffix(suffix)
    box.setToolTip(tip)
    box.setKeyboardTracking(False)  # re-simulate when typing is done, not on each digit
    return box


class WarpsView(QWidget):
    """The Warps view on a shared `Clock` (it never keeps time itself)."""

    def __init__(
        self,
        clock: Clock,
        parent: QWidget | None = None,
        config: WarpConfig | None = None,
        theme: Theme = LIGHT,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._active = False
        self._theme = theme
        config = config or WarpConfig(warps=4, compute=10, latency=40, cycles=300)
        self._run = simulate_warps(config)
        self._derived = Derived(self._run.schedule)  # (its event times, for the clock)

        self.warps_box = _spin(1, GUI_MAX_WARPS, config.warps, " warps", "W: warps on the SM")
        self.latency_box = _spin(0, 2000, config.latency, " cycles", "L: memory latency")
        self.compute_box = _spin(1, 500, config.compute, " cycles", "C: compute per burst")
        self.cycles_box = _spin(10, GUI_MAX_CYCLES, config.cycles, " cycles", "T: run length")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save this run's timeline as a figure: PNG, SVG or PDF")
        self.message = QLabel()
        dress(self.message, "message")
        self.summary = QLabel()
        self.key = QLabel(
            f'<span style="color:{WARP_COLOURS[0]}">■</span> computing (warp colour) &nbsp; '
            f'<span style="color:{MEMORY_COLOUR}">■</span> waiting for memory &nbsp; '
            f'<span style="color:{READY_HATCH}">▨</span> ready, not picked'
        )
        controls = QHBoxLayout()
        for text, box in (
            ("W", self.warps_box),
            ("L", self.latency_box),
            ("C", self.compute_box),
            ("run", self.cycles_box),
        ):
            controls.addWidget(QLabel(text))
            controls.addWidget(box)
        controls.addStretch(1)
        controls.addWidget(self.export_button)
        # The summary and the key get a line of their own: side by side with the controls
        # they would make the window wider than a 1600-pixel screen.
        legend = QHBoxLayout()
        legend.addWidget(self.summary, 1)
        legend.addWidget(self.key)

        self.state_panel = SmStatePanel()
        self.lanes = LanesPlot()
        self.narration = QLabel()
        self.narration.setWordWrap(True)
        narration_font = QFont(self.narration.font())
        narration_font.setPointSizeF(narration_font.pointSizeF() * 1.15)
        self.narration.setFont(narration_font)
        self.utilization = UtilizationPlot()

        grid = QGridLayout()
        grid.addWidget(self.state_panel, 0, 0)
        grid.addWidget(self.lanes, 0, 1)
        grid.addWidget(self.narration, 1, 0, 1, 2)
        grid.addWidget(self.utilization, 2, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(2, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addLayout(legend)
        layout.addWidget(self.message)
        layout.addLayout(grid, 1)
        self.message.hide()

        for box in (self.warps_box, self.latency_box, self.compute_box, self.cycles_box):
            box.valueChanged.connect(self._on_controls)
        self.export_button.clicked.connect(self._on_export_clicked)
        clock.time_changed.connect(self._on_time)
        self.lanes.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # where Enter in a field returns
        self.set_theme(theme)
        self._show_run()

    # -- what it shows ---------------------------------------------------------------------

    @property
    def run(self) -> WarpRun:
        return self._run

    @property
    def config(self) -> WarpConfig:
        return self._run.config

    @property
    def is_active(self) -> bool:
        return self._active

    @property
    def theme(self) -> Theme:
        return self._theme

    def set_theme(self, theme: Theme) -> None:
        """Restyle the plots; the SM panel and the words follow the app's palette."""
        self._theme = theme
        self.lanes.set_theme(theme)
        self.utilization.set_theme(theme)
        self.state_panel.update()

    def set_config(self, config: WarpConfig) -> None:
        """Simulate ``config`` and show it (the controls follow)."""
        for box, value in (
            (self.warps_box, config.warps),
            (self.latency_box, config.latency),
            (self.compute_box, config.compute),
            (self.cycles_box, config.cycles),
        ):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self._simulate(config)

    def show_measured(self, sweep: OccupancySweep) -> None:
        """Put a GPU occupancy sweep's measured points beside the model on the W plot."""
        device = sweep.device.split(" (")[0]
        if sweep.saturated:
            shape = f"knee ≈ {sweep.knee:.0f}"
        else:  # still rising at the largest W: the fitted knee is only a lower bound
            shape = f"not saturated by W = {int(max(sweep.warps))}"
        self.utilization.set_measured(
            sweep.warps,
            sweep.utilization,
            sweep.knee,
            f"measured on {device}: GB/s ÷ peak ({shape})",
        )

    def activate(self) -> None:
        """Load this view's run into the clock and follow it (done when shown)."""
        self._active = True
        self._clock.set_timeline(self._derived.events, end=float(self.config.cycles), unit="cycles")
        self._on_time(self._clock.time)

    def deactivate(self) -> None:
        """Stop following the clock (done when hidden); another view may now load it."""
        self._active = False

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.activate()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.deactivate()

    # -- reactions -----------------------------------------------------------------------------

    def _on_controls(self) -> None:
        try:
            config = WarpConfig(
                warps=self.warps_box.value(),
                compute=self.compute_box.value(),
                latency=self.latency_box.value(),
                cycles=self.cycles_box.value(),
            )
        except PipeLabError as error:
            self._show_message(str(error))
            return
        self._simulate(config)

    def _simulate(self, config: WarpConfig) -> None:
        try:
            self._run = simulate_warps(config)
        except PipeLabError as error:
            self._show_message(str(error))
            return
        self._derived = Derived(self._run.schedule)
        self.message.hide()
        self._show_run()
        if self._active:
            self.activate()

    def _show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def _show_run(self) -> None:
        run = self._run
        self.summary.setText(run.headline)
        self.lanes.set_run(run)
        self.utilization.set_run(run)
        self._show_time(self._clock.time if self._active else 0.0)

    def _on_time(self, time: float) -> None:
        if self._active:
            self._show_time(time)

    def _show_time(self, time: float) -> None:
        schedule = self._run.schedule
        time = min(max(time, 0.0), float(self.config.cycles))
        self.state_panel.set_snapshot(self.config, warp_state_at(schedule, time))
        self.lanes.set_time(time)
        # (the last event at or before the time, within the rounding tolerance)
        event = self._derived.events.last_through(time + time_tolerance(schedule.makespan))
        self.narration.setText(narrate_warps(schedule, event))

    # -- export --------------------------------------------------------------------------------

    def _on_export_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export the warp timeline", "warps.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        if not path:
            return
        try:
            self.export(path)
        except PipeLabError as error:
            self._show_message(str(error))

    def export(self, path: str | Path, width: int | None = None, **options: object) -> None:
        """Write this run's timeline to ``path`` (.png, .svg or .pdf) as a figure, the
        pipeline exports' own layout (`gui.warps_export`; ``width`` in px for PNG,
        ``options``: size, scale, theme, time, transparent)."""
        export_warps(self._run, path, width=width, **options)  # type: ignore[arg-type]
