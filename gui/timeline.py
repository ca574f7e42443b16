"""The Gantt timeline: a pyqtgraph plot of one or more Schedules on one time axis.

One row per worker, rows grouped per Schedule; bars in op colours over hatched idle rows;
each makespan marked; the clock's cursor (drag it to scrub); zoom and pan along time; a
tooltip naming the task under the mouse.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGraphicsItem, QToolTip, QWidget

from engine.schedule import Schedule
from engine.view_model import describe_task, format_time, idle_intervals, task_at
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.timeline_items import BarsItem, MarksItem, RowGroup, layout_groups


class TimelineView(pg.PlotWidget):
    """A Gantt chart of Schedules whose cursor follows (and drives) a `Clock`."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background=theme.background)
        self._clock = clock
        self._theme = theme
        self._groups: list[RowGroup] = []
        self._idle_cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._ticks: list[tuple[float, str]] | None = None
        self._limits: tuple[float, float, float, float] | None = None
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.showGrid(x=True, y=False, alpha=0.25)
        view = plot.getViewBox()
        view.invertY(True)
        view.setMouseEnabled(x=True, y=False)
        view.setDefaultPadding(0.0)
        self.bars = BarsItem(theme)
        self.marks = MarksItem(theme)
        for name in ("left", "bottom"):  # axes draw the grid: keep them out of cursor moves
            plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # Major and minor time ticks only (pyqtgraph draws three levels by default): each
        # level's grid lines cost about 2.5 ms whenever the time range changes.
        plot.getAxis("bottom").setStyle(maxTickLevel=1)
        plot.addItem(self.bars)
        plot.addItem(self.marks)
        self.cursor = pg.InfiniteLine(
            pos=0.0, angle=90, movable=True, label="{value:.4g}", labelOpts={"position": 0.96}
        )
        self.cursor.setZValue(10)
        plot.addItem(self.cursor, ignoreBounds=True)
        self.cursor.sigDragged.connect(self._on_cursor_dragged)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        clock.time_changed.connect(self._on_time)
        self.set_theme(theme)

    # -- content -----------------------------------------------------------------------

    def set_schedules(self, schedules: list[Schedule]) -> None:
        """Draw these Schedules as row groups (top to bottom) on one time scale."""
        self._groups = layout_groups(schedules)
        self._idle_cache.clear()
        self.bars.set_groups(self._groups)
        self.marks.set_groups(self._groups)
        ticks = []
        for group in self._groups:
            s = group.schedule
            ticks += [(group.first_row + row, s.row_label(row)) for row in range(s.n_workers)]
        if ticks != self._ticks:  # new ticks redraw the axis and its grid: only on change
            self._ticks = ticks
            self.getPlotItem().getAxis("left").setTicks([ticks, []])
        if self._time_label() != self.getPlotItem().getAxis("bottom").labelText:
            self._set_time_label()
        self.reset_view()
        self._on_time(self._clock.time)

    @property
    def groups(self) -> list[RowGroup]:
        return list(self._groups)

    @property
    def bar_count(self) -> int:
        """How many task bars are drawn (all Schedules together)."""
        return self.bars.bar_count

    def reset_view(self) -> None:
        """Show every Schedule from t = 0 to the longest makespan."""
        if not self._groups:
            return
        span = max(g.schedule.makespan for g in self._groups) or 1.0
        last = self._groups[-1]
        bottom = last.first_row + last.schedule.n_workers - 0.4
        view = self.getPlotItem().getViewBox()
        limits = (-0.05 * span, 1.08 * span, span * 1e-6, 1.13 * span)
        if limits != self._limits:
            self._limits = limits
            view.setLimits(xMin=limits[0], xMax=limits[1], minXRange=limits[2], maxXRange=limits[3])
        view.setRange(xRange=(-0.01 * span, 1.04 * span), yRange=(-0.45, bottom), padding=0.0)

    # -- theme ---------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.setBackground(theme.background)
        plot = self.getPlotItem()
        font = QFont()
        font.setPixelSize(12)
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            axis.setPen(pg.mkPen(theme.muted))
            axis.setTextPen(pg.mkPen(theme.text))
            axis.setStyle(tickFont=font)
        self._set_time_label()
        self.cursor.setPen(pg.mkPen(theme.cursor, width=2))
        self.cursor.setHoverPen(pg.mkPen(theme.cursor, width=4))
        self.cursor.label.setColor(theme.cursor)
        self.cursor.label.fill = pg.mkBrush(theme.background)
        self.bars.set_theme(theme)
        self.marks.set_theme(theme)

    def _time_label(self) -> str:
        unit = self._groups[0].schedule.time_unit if self._groups else "s"
        return "cycle" if unit == "cycles" else f"time ({unit})"

    def _set_time_label(self) -> None:
        self.getPlotItem().setLabel("bottom", self._time_label(), color=self._theme.muted)

    # -- the clock -----------------------------------------------------------------------

    def _on_time(self, time: float) -> None:
        if not self.cursor.moving and self.cursor.value() != time:
            self.cursor.setValue(time)

    def _on_cursor_dragged(self) -> None:
        self._clock.seek(float(self.cursor.value()))

    # -- hover ---------------------------------------------------------------------------

    def describe_at(self, x: float, y: float) -> str:
        """Tooltip text for the point (x = time, y = row coordinate): the task there, or
        the idle interval, or "" when nothing is there."""
        for index, group in enumerate(self._groups):
            s = group.schedule
            row = round(y - group.first_row)
            if not 0 <= row < s.n_workers:
                continue
            task = task_at(s, row, x)
            if task >= 0:
                return describe_task(s, task)
            if index not in self._idle_cache:
                self._idle_cache[index] = idle_intervals(s)
            rows, starts, ends = self._idle_cache[index]
            hit = np.flatnonzero((rows == row) & (starts <= x) & (x < ends))
            if len(hit):
                a, b = float(starts[hit[0]]), float(ends[hit[0]])
                unit = s.time_unit
                return (
                    f"{s.row_label(row)} idle ({s.label or s.policy})\n"
                    f"from {format_time(a, unit)} to {format_time(b, unit)} "
                    f"({format_time(b - a, unit)})"
                )
        return ""

    def _on_mouse_moved(self, position: QPointF) -> None:
        view = self.getPlotItem().getViewBox()
        if not view.sceneBoundingRect().contains(position):
            QToolTip.hideText()
            return
        point = view.mapSceneToView(position)
        text = self.describe_at(point.x(), point.y())
        if text:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(position)) + _OFFSET, text, self)
        else:
            QToolTip.hideText()

    def leaveEvent(self, event: object) -> None:
        QToolTip.hideText()
        super().leaveEvent(event)


_OFFSET = QPoint(14, 14)
