"""The Gantt timeline: a pyqtgraph plot of one or more Schedules on one time axis.

One row per worker (or per op: the textbook staircase), rows grouped per Schedule; bars in
op colours over hatched idle rows, and density where bars are thinner than a pixel; each
makespan marked; the clock's cursor (drag it to scrub); zoom and pan along time (and along
the ops, one row per op); a tooltip naming the task under the mouse, or the wait and its
reason; a legend line for the wait reasons' hatches (the exported figures' own legend).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QAction, QActionGroup, QFont
from PySide6.QtWidgets import QGraphicsItem, QMenu, QToolTip, QWidget

from engine.schedule import Schedule
from engine.text import axis_scale, axis_title, span_text, tick_text, time_text
from engine.view_model import describe_task, task_at
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.figure.rows import check_rows, describe_wait, idle_spans, reasons_present, row_count
from gui.timeline_items import (
    BarsItem,
    LegendItem,
    MarksItem,
    RowAxis,
    RowGroup,
    layout_groups,
)

#: Pixels above the first group's top row kept for its title (12 px bold text, 6 px gap).
TITLE_ROOM = 22.0


class TimeAxis(pg.AxisItem):
    """The time axis: tick values in one SI scale for the whole run (the prefix of its
    longest makespan: "time (ms)"), as many decimals as the tick step needs, thousands
    separators, never scientific notation (`engine.text.tick_text`)."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.enableAutoSIPrefix(False)  # the scale is ours: one SI prefix for the whole run
        self.scale_of_times = axis_scale(0.0)

    def set_span(self, span: float, unit: str) -> None:
        self.scale_of_times = axis_scale(span, unit)
        self.picture = None
        self.update()

    @property
    def title(self) -> str:
        return axis_title(self.scale_of_times)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [tick_text(v * scale, spacing * scale, self.scale_of_times) for v in values]


class _TimeFormat:
    """The cursor label's format: "t = 2.5 s" in the one time formatter."""

    def __init__(self) -> None:
        self.unit = "s"

    def format(self, value: float) -> str:
        return time_text(value, self.unit)


class TimelineView(pg.PlotWidget):
    """A Gantt chart of Schedules whose cursor follows (and drives) a `Clock`, with a
    legend line under it for the hatches of the wait reasons shown."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        self.row_axis = RowAxis()
        self.time_axis = TimeAxis()
        super().__init__(
            parent=parent,
            background=theme.background,
            axisItems={"left": self.row_axis, "bottom": self.time_axis},
        )
        self._clock = clock
        self._theme = theme
        self._rows = "workers"
        self._schedules: list[Schedule] = []
        self._groups: list[RowGroup] = []
        self._limits: tuple[float, ...] | None = None
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.showGrid(x=True, y=False, alpha=0.25)
        view = plot.getViewBox()
        view.invertY(True)
        view.setMouseEnabled(x=True, y=False)
        view.setDefaultPadding(0.0)
        view.sigResized.connect(self._on_view_resized)
        self.bars = BarsItem(theme)
        self.marks = MarksItem(theme)
        self.legend = LegendItem(theme)
        plot.layout.addItem(self.legend, 4, 0, 1, 3)  # under the time axis, full width
        for name in ("left", "bottom"):  # axes draw the grid: keep them out of cursor moves
            plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        # Major and minor time ticks only (pyqtgraph draws three levels by default): each
        # level's grid lines cost about 2.5 ms whenever the time range changes.
        plot.getAxis("bottom").setStyle(maxTickLevel=1)
        plot.addItem(self.bars)
        plot.addItem(self.marks)
        self._cursor_format = _TimeFormat()
        self.cursor = pg.InfiniteLine(
            pos=0.0, angle=90, movable=True, label="", labelOpts={"position": 0.96}
        )
        self.cursor.label.format = self._cursor_format  # pyqtgraph calls .format(value=…)
        self.cursor.label.valueChanged()
        self.cursor.setZValue(10)
        plot.addItem(self.cursor, ignoreBounds=True)
        self.cursor.sigDragged.connect(self._on_cursor_dragged)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        clock.time_changed.connect(self._on_time)
        self.set_theme(theme)

    # -- content -----------------------------------------------------------------------

    def set_schedules(self, schedules: list[Schedule]) -> None:
        """Draw these Schedules as row groups (top to bottom) on one time scale."""
        self._schedules = list(schedules)
        self._groups = layout_groups(self._schedules, self._rows, self._gap_rows())
        self.bars.set_groups(self._groups)
        self.marks.set_groups(self._groups)
        self.row_axis.set_groups(self._groups)
        unit = self._schedules[0].time_unit if self._schedules else "s"
        span = max((s.makespan for s in self._schedules), default=0.0)
        self.time_axis.set_span(span, unit)
        if unit != self._cursor_format.unit:
            self._cursor_format.unit = unit
            self.cursor.label.valueChanged()
        self.legend.set_reasons(self._reasons(), self._rows)
        if self._time_label() != self.getPlotItem().getAxis("bottom").labelText:
            self._set_time_label()
        self.reset_view()
        self._on_time(self._clock.time)

    def _reasons(self) -> set[str]:
        """The wait reasons in the shown runs' rows (computed on the worker thread when the
        app made the run: `gui.runs.warm_gantt`)."""
        return {r for s in self._schedules if len(s) for r in reasons_present(s, self._rows)}

    def _gap_rows(self) -> float | None:
        """One row per op: room for each group's title, about 30 pixels, in rows at the
        plot's current height with every op shown (None: the default 1.2 rows)."""
        if self._rows != "ops" or not self._schedules:
            return None
        height = max(150.0, float(self.getPlotItem().getViewBox().height() or self.height()))
        total = sum(row_count(s, "ops") for s in self._schedules)
        per_row = max(1e-9, (height - 30.0 * len(self._schedules)) / (total + 1))
        return max(1.2, 30.0 / per_row)

    @property
    def rows(self) -> str:
        """ "workers" (one row per worker) or "ops" (one row per op)."""
        return self._rows

    def set_rows(self, rows: str) -> None:
        """Give each worker (``workers``) or each op (``ops``) a row; one row per op can
        be zoomed and panned vertically too."""
        check_rows(rows)
        if rows == self._rows:
            return
        self._rows = rows
        self.getPlotItem().getViewBox().setMouseEnabled(x=True, y=rows == "ops")
        self.set_schedules(self._schedules)

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
        top, bottom = self._y_range()
        self._set_limits((-0.05 * span, 1.08 * span, span * 1e-6, 1.13 * span, top, bottom))
        view = self.getPlotItem().getViewBox()
        view.setRange(xRange=(-0.01 * span, 1.04 * span), yRange=(top, bottom), padding=0.0)

    def _y_range(self) -> tuple[float, float]:
        """Rows from above the first group's title to below the last row. The title is
        drawn in pixels above its group: in a short view, where rows are only a few pixels
        tall, the top reaches up far enough in rows to leave it TITLE_ROOM pixels."""
        last = self._groups[-1]
        bottom = last.first_row + last.n_rows - 0.4
        title_line = self._groups[0].first_row - 0.5  # the title sits above this, in pixels
        height = float(self.getPlotItem().getViewBox().height())
        top = -0.45
        if height > 2 * TITLE_ROOM:
            # (title_line - top) rows must cover TITLE_ROOM of `height` px over (bottom - top)
            top = min(top, (title_line * height - TITLE_ROOM * bottom) / (height - TITLE_ROOM))
        self.marks.set_top(top)
        return top, bottom

    def _set_limits(self, limits: tuple[float, ...]) -> None:
        if limits == self._limits:
            return
        self._limits = limits
        self.getPlotItem().getViewBox().setLimits(
            xMin=limits[0],
            xMax=limits[1],
            minXRange=limits[2],
            maxXRange=limits[3],
            yMin=limits[4],
            yMax=limits[5],
            minYRange=3.0,
        )

    def _on_view_resized(self) -> None:
        """The rows keep filling the view's height (only time zooms and pans), with room
        for the first title at the new height."""
        if not self._groups or self._limits is None:
            return
        top, bottom = self._y_range()
        self._set_limits((*self._limits[:4], top, bottom))
        self.getPlotItem().getViewBox().setYRange(top, bottom, padding=0.0)

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
        self.row_axis.fit_width()
        self._set_time_label()
        self.cursor.setPen(pg.mkPen(theme.cursor, width=2))
        self.cursor.setHoverPen(pg.mkPen(theme.cursor, width=4))
        self.cursor.label.setColor(theme.cursor)
        self.cursor.label.fill = pg.mkBrush(theme.background)
        self.bars.set_theme(theme)
        self.marks.set_theme(theme)
        self.legend.set_theme(theme)

    def _time_label(self) -> str:
        return self.time_axis.title

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
        the wait there and its reason in the engine's words, or "" when nothing is (also
        off any number: a view squeezed to nothing maps the mouse to NaN or infinity)."""
        if not (math.isfinite(x) and math.isfinite(y)):
            return ""
        for group in self._groups:
            s = group.schedule
            row = round(y - group.first_row)
            if not 0 <= row < group.n_rows:
                continue
            task = self._task_at(group, row, x)
            if task >= 0:
                return describe_task(s, task)
            spans = idle_spans(s, group.rows)
            hit = spans.at(row, x)
            if hit < 0:
                continue
            period = span_text(float(spans.start[hit]), float(spans.end[hit]), s.time_unit)
            why = describe_wait(s, group.rows, hit)
            run = s.label or s.policy
            if group.rows == "ops":
                return f"{why} ({run})" if why else f"op {row + 1} waits {period} ({run})"
            head = f"{s.row_label(row)} idle {period} ({run})"
            return f"{head}\n{why}" if why else head
        return ""

    @staticmethod
    def _task_at(group: RowGroup, row: int, time: float) -> int:
        s = group.schedule
        if group.rows == "workers":
            return task_at(s, row, time)
        tasks = s.op_task_index[row] if s.is_pipeline else np.flatnonzero(s.op == row)
        hits = [int(t) for t in tasks if s.start[t] <= time < s.end[t]]
        return hits[-1] if hits else -1

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


def add_rows_menu(menu: QMenu, timeline: TimelineView) -> QActionGroup:
    """A "Gantt rows" submenu of ``menu``: one row per worker, or one per op."""
    submenu = menu.addMenu("Gantt &rows")
    group = QActionGroup(submenu)
    for mode, words in (("workers", "One row per &worker"), ("ops", "One row per &op")):
        action = QAction(words, submenu, checkable=True)
        action.setChecked(timeline.rows == mode)
        action.triggered.connect(lambda _=False, m=mode: timeline.set_rows(m))
        group.addAction(action)
        submenu.addAction(action)
    return group
