"""The Gantt timeline: a pyqtgraph plot of one or more Schedules on one time axis.

One row per worker (or per op: the textbook staircase), rows grouped per Schedule; bars in
op colours over hatched idle rows, and density where bars are thinner than a pixel; each
makespan marked; the clock's cursor (drag it to scrub); zoom and pan along time (and along
the ops, one row per op); a tooltip naming the task under the mouse, or the wait and its
reason; a legend line for the wait reasons' hatches (the exported figures' own legend).
"""

from __future__ import annotations

import math
from typing import Protocol, cast

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QSize, Signal
from PySide6.QtGui import QAction, QActionGroup, QFont, QHelpEvent
from PySide6.QtWidgets import QGraphicsItem, QMenu, QToolTip, QWidget

from engine.analysis.derived import Derived
from engine.analysis.view_model import describe_task, task_at
from engine.base.text import axis_scale, axis_title, span_text, tick_text, time_text
from engine.model.schedule import Schedule
from engine.reasons.pool_waits import slot_words
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.figure.rows import (
    check_rows,
    derived_list,
    describe_wait,
    idle_spans_in,
    reasons_present,
    row_count,
)
from gui.timeline_items import (
    BarsItem,
    LegendItem,
    MarksItem,
    RowAxis,
    RowGroup,
    layout_groups,
    ticks_drawn,
)
from gui.timeline_rows import (
    CURSOR_ROOM,
    LABEL_PITCH,
    MIN_GAP,
    MIN_PITCH,
    TITLE_ROOM,
    RowFit,
    fit_rows,
    rows_height,
)

__all__ = [
    "TITLE_ROOM",
    "RowsHolder",
    "TimeAxis",
    "TimelineView",
    "add_rows_menu",
    "check_rows_action",
]

#: The least height the Gantt asks for with no rows to show (its axis stays readable).
FLOOR_HEIGHT = 140
#: The Gantt asks for rows `gui.timeline_rows.MIN_PITCH` pixels apart (`wanted_height`)
#: but its minimum size is at most this (nine workers in three runs must not fill the
#: screen; on a 1280 × 720 screen with a panel the whole window must still fit).
MOST_MINIMUM = 196
#: What the plot adds to the view's height beside the time axis and the legend.
PLOT_MARGINS = 4.0
#: The width the legend is measured at before the view is shown (it has none yet).
NOMINAL_WIDTH = 900.0


class TimeAxis(pg.AxisItem):
    """The time axis: tick values in one SI scale for the whole run (the prefix of its
    longest makespan: "time (ms)"), as many decimals as the tick step needs, thousands
    separators, never scientific notation (`engine.base.text.tick_text`)."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.enableAutoSIPrefix(False)  # the scale is ours: one SI prefix for the whole run
        self.scale_of_times = axis_scale(0.0)

    def set_span(self, span: float, unit: str) -> None:
        scale = axis_scale(span, unit)
        if scale == self.scale_of_times and ticks_drawn(self):
            return  # the same tick words (a new range redraws them itself)
        self.scale_of_times = scale
        self.picture = None
        self.update()

    @property
    def title(self) -> str:
        return axis_title(self.scale_of_times)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [tick_text(v * scale, spacing * scale, self.scale_of_times) for v in values]


class _TimeFormat:
    """The cursor label's format: "2.5 s", in the time axis's own scale ("0 ms" on a ms
    axis, never "0 s"; "0.5 ms" rather than "500 µs")."""

    def __init__(self) -> None:
        self.unit = "s"
        self.scale = axis_scale(0.0)

    def format(self, value: float) -> str:
        if self.scale.unit in ("", "cycles"):
            return time_text(value, self.unit)
        return f"{self.scale.number(value)} {self.scale.unit}"


class TimelineView(pg.PlotWidget):
    """A Gantt chart of Schedules whose cursor follows (and drives) a `Clock`, with a
    legend line under it for the hatches of the wait reasons shown.

    Its minimum size hint follows its rows (`minimum_height`): containers give it room
    for rows `MIN_PITCH` pixels apart, every title and the cursor's label (up to
    ``most_minimum`` pixels; `wanted_height` has no such cap). Rows fill the view's
    height, refitted on every resize (`gui.timeline_rows.fit_rows`); `layout_changed`
    says when the rows moved (items drawn over them follow)."""

    layout_changed = Signal()

    def __init__(
        self,
        clock: Clock,
        theme: Theme = LIGHT,
        parent: QWidget | None = None,
        floor: int = FLOOR_HEIGHT,
        most_minimum: int = MOST_MINIMUM,
    ) -> None:
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
        self._derived: list[Derived] = []  # each Schedule's (its run's), held while shown
        self._groups: list[RowGroup] = []
        self._limits: tuple[float, ...] | None = None
        self._fit = RowFit(gap=MIN_GAP, pitch=0.0, bottom=0.1)
        self._reach = 0.0  # the time axis reaches at least this far (`set_time_reach`)
        self._floor = floor
        self._most_minimum = most_minimum
        self._minimum = floor
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
        # The label sits in the band under the last row (`CURSOR_ROOM`), off the bars.
        label_font = QFont()
        label_font.setPixelSize(11)
        self.cursor.label.setFont(label_font)
        self.cursor.label.textItem.document().setDocumentMargin(1.0)
        self.cursor.label.valueChanged()
        self.cursor.setZValue(10)
        plot.addItem(self.cursor, ignoreBounds=True)
        self.cursor.sigDragged.connect(self._on_cursor_dragged)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        clock.time_changed.connect(self._on_time)
        self.set_theme(theme)

    # -- content -----------------------------------------------------------------------

    def set_schedules(
        self, schedules: list[Schedule], derived: list[Derived] | None = None
    ) -> None:
        """Draw these Schedules as row groups (top to bottom) on one time scale.
        ``derived``: each one's `Derived` (its run's; a new one each when not given)."""
        self._derived = derived_list(schedules, derived)
        self._schedules = list(schedules)
        self._fit = self._fit_rows()
        self._lay_out()
        unit = self._schedules[0].time_unit if self._schedules else "s"
        span = max((s.makespan for s in self._schedules), default=0.0)
        self.time_axis.set_span(span, unit)
        if (unit, self.time_axis.scale_of_times) != (
            self._cursor_format.unit,
            self._cursor_format.scale,
        ):
            self._cursor_format.unit = unit
            self._cursor_format.scale = self.time_axis.scale_of_times
            # Set, not `valueChanged()`: that does nothing while the label is hidden (a
            # view not drawn yet).
            self.cursor.label.setText(self._cursor_format.format(self.cursor.value()))
        self.legend.set_reasons(self._reasons(), self._rows, slot_words(*self._schedules))
        if self._time_label() != self.getPlotItem().getAxis("bottom").labelText:
            self._set_time_label()
        self.reset_view()
        self._update_minimum()
        self._on_time(self._clock.time)

    def _lay_out(self) -> None:
        """Stack the row groups with the current fit's gaps; the items follow."""
        self._groups = layout_groups(self._derived, self._rows, self._fit.gap)
        self.bars.set_groups(self._groups)
        self.marks.set_groups(self._groups)
        self.row_axis.set_groups(self._groups)
        self.row_axis.set_row_pitch(self._fit.pitch)
        self.layout_changed.emit()

    def _fit_rows(self) -> RowFit:
        """The rows' share of the view's height now (before the view has one: a guess)."""
        height = float(self.getPlotItem().getViewBox().height())
        if height <= 1.0:
            height = max(150.0, self.height() - self._chrome())
        n_rows = sum(row_count(s, self._rows) for s in self._schedules)
        return fit_rows(height, n_rows, len(self._schedules))

    @property
    def row_fit(self) -> RowFit:
        """How the rows share the view's height now (pitch in pixels, gaps in rows)."""
        return self._fit

    # -- size ----------------------------------------------------------------------------

    def _chrome(self) -> float:
        """Pixels of the plot beside its view: the time axis and the legend (as wide as
        the view, or before it is shown as wide as a laptop's would be)."""
        width = float(self.width()) if self.isVisible() else NOMINAL_WIDTH
        legend = self.legend.height_for(width)
        return float(self.time_axis.maximumHeight()) + legend + PLOT_MARGINS

    def wanted_height(self, pitch: float = MIN_PITCH) -> int:
        """The height at which the rows are ``pitch`` pixels apart with all titles and
        the cursor's band in their room (at least the floor)."""
        n_rows = sum(g.n_rows for g in self._groups)
        needed = rows_height(n_rows, len(self._groups), pitch) + self._chrome() if n_rows else 0.0
        return max(self._floor, math.ceil(needed))

    def labelled_height(self) -> int:
        """The least height at which every bar carries its op label (rows `LABEL_PITCH`
        pixels apart): what containers give the Gantt before any comfort elsewhere."""
        return self.wanted_height(LABEL_PITCH)

    def minimum_height(self) -> int:
        """`wanted_height`, but at most ``most_minimum`` (and at least the floor): what
        the minimum size hint says. Containers give the wanted height where they can."""
        return max(self._floor, min(self.wanted_height(), self._most_minimum))

    def _update_minimum(self) -> None:
        minimum = self.minimum_height()
        if minimum != self._minimum:
            self._minimum = minimum
            self.updateGeometry()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(hint.width(), self._minimum)

    def _reasons(self) -> set[str]:
        """The wait reasons in the shown runs' rows (computed on the worker thread when the
        app made the run: `gui.runs.warm_gantt`)."""
        return {r for d in self._derived if len(d.schedule) for r in reasons_present(d, self._rows)}

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
        self.set_schedules(self._schedules, self._derived)

    @property
    def groups(self) -> list[RowGroup]:
        return list(self._groups)

    @property
    def bar_count(self) -> int:
        """How many task bars are drawn (all Schedules together)."""
        return self.bars.bar_count

    def set_time_reach(self, time: float) -> None:
        """Let the time axis reach ``time`` too, beyond the runs' makespans (a measured
        run's slowest repeat), at every reset and resize; 0 for the runs alone."""
        if time != self._reach:
            self._reach = time
            self.reset_view()

    def reset_view(self) -> None:
        """Show every Schedule from t = 0 to the longest makespan (or the reach)."""
        if not self._groups:
            return
        span = max(max(g.schedule.makespan for g in self._groups), self._reach) or 1.0
        top, bottom = self._y_range()
        self._set_limits((-0.05 * span, 1.08 * span, span * 1e-6, 1.13 * span, top, bottom))
        self.marks.set_right(1.08 * span)
        view = self.getPlotItem().getViewBox()
        view.setRange(xRange=(-0.01 * span, 1.04 * span), yRange=(top, bottom), padding=0.0)
        self._place_cursor_label()

    def _y_range(self) -> tuple[float, float]:
        """Rows from the top (the first title's band) to the cursor's band under the
        last row."""
        last = self._groups[-1]
        return 0.0, last.first_row + last.n_rows - 0.5 + self._fit.bottom

    def _place_cursor_label(self) -> None:
        """The cursor's time label in the band under the last row."""
        height = float(self.getPlotItem().getViewBox().height())
        if height > CURSOR_ROOM:
            self.cursor.label.setPosition(1.0 - 0.5 * CURSOR_ROOM / height)

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
        """The rows keep filling the view's height (only time zooms and pans), with every
        title and the cursor's label in their room at the new height."""
        if not self._groups or self._limits is None:
            return
        fit = self._fit_rows()
        moved = not math.isclose(fit.gap, self._fit.gap, rel_tol=1e-6)
        self._fit = fit
        if moved:
            self._lay_out()
        else:
            self.row_axis.set_row_pitch(fit.pitch)
        top, bottom = self._y_range()
        self._set_limits((*self._limits[:4], top, bottom))
        self.getPlotItem().getViewBox().setYRange(top, bottom, padding=0.0)
        self._place_cursor_label()
        self._update_minimum()

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
        self.time_axis.setStyle(tickFont=font)
        self.row_axis.apply_font()  # its size follows the rows' pitch
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
            spans = idle_spans_in(group.derived, group.rows, x, x, range(row, row + 1))
            hit = spans.at(row, x)
            if hit < 0:
                continue
            period = span_text(float(spans.start[hit]), float(spans.end[hit]), s.time_unit)
            why = describe_wait(group.derived, group.rows, spans, hit)
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

    def viewportEvent(self, event: QEvent | None) -> bool:
        """The view shows its own tooltip as the mouse moves. Once the pointer rests, Qt
        asks for one (`QEvent.ToolTip`, in the active window): the scene would answer
        that no item has one and hide it. The view answers, with the same text."""
        if event is not None and event.type() == QEvent.Type.ToolTip:
            self._on_mouse_moved(self.mapToScene(cast(QHelpEvent, event).pos()))
            return True
        return bool(super().viewportEvent(event))

    def leaveEvent(self, event: object) -> None:
        QToolTip.hideText()
        super().leaveEvent(event)


_OFFSET = QPoint(14, 14)


class RowsHolder(Protocol):
    """Whatever holds the rows mode a menu sets: the app's model (`gui.app_model.AppModel`),
    or a lone `TimelineView`."""

    @property
    def rows(self) -> str: ...

    def set_rows(self, rows: str) -> None: ...


def add_rows_menu(menu: QMenu, holder: RowsHolder) -> QActionGroup:
    """A "Gantt rows" submenu of ``menu``: one row per worker, or one per op, set on
    ``holder``; each action's data is its mode (`check_rows_action` follows the holder)."""
    submenu = menu.addMenu("Gantt &rows")
    group = QActionGroup(submenu)
    for mode, words in (("workers", "One row per &worker"), ("ops", "One row per &op")):
        action = QAction(words, submenu, checkable=True)
        action.setData(mode)
        action.setChecked(holder.rows == mode)
        action.triggered.connect(lambda _=False, m=mode: holder.set_rows(m))
        group.addAction(action)
        submenu.addAction(action)
    return group


def check_rows_action(group: QActionGroup, rows: str) -> None:
    """Check the action of ``group`` (`add_rows_menu`'s) for ``rows``."""
    for action in group.actions():
        action.setChecked(action.data() == rows)
