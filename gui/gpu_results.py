"""The GPU page's results: what a measurement found, drawn and explained.

Top: a summary — each measured run's spread over the repeats (min / median / max), the
model's makespan, and why the overlap efficiency is what it is (above 100% especially:
`gpu.measured.PipelineResult.efficiency_explanation`). Middle: the Gantt of the measured
sequential run, the measured pipelined run and the model's prediction on one time axis,
on the page's own clock (milliseconds), with each measured run's spread shaded over its
rows. Bottom: the table of every figure (`gpu.report`). It computes nothing itself.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.indexes.event_union import events_of
from engine.model.schedule import Schedule
from gpu.measured import PipelineResult, Spread
from gpu.report import spread_text
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.figure.rows import derived_list
from gui.theme import dress
from gui.timeline import TimelineView

#: Opacity of the band that shades a measured run's spread (min to max makespan).
SPREAD_ALPHA = 30
#: The time axis widens for the slowest repeat up to this many times the drawn runs' length.
SPREAD_ROOM = 1.5
#: The Gantt's minimum height is its rows' (a readable pitch apart, every title in its
#: room), up to this: three runs of three threads (9 rows, 3 titles) fit, and the page
#: still fits a 1280 × 720 screen; the table under it takes what is left, and scrolls.
GANTT_MOST_MINIMUM = 290
#: The key's words for the dashed boxes (the Gantt's legend has the idle hatches).
SPREAD_KEY = "spread: from the fastest to the slowest of the repeats (the bars are the median run)"
PLACEHOLDER = (
    "Run an experiment: the measured sequential and pipelined runs appear here on one "
    "time axis beside the model's prediction, with the spread over the repeats."
)


class GpuResults(QWidget):
    """Summary, Gantt and table of the last result (nothing after a failure)."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        self._theme = theme
        self._schedules: list[Schedule] = []
        self._spreads: list[Spread | None] = []
        self._bands: list[pg.BarGraphItem] = []
        self.title = ""
        self.summary = QLabel(PLACEHOLDER)
        dress(self.summary, "description")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setContentsMargins(8, 4, 8, 4)
        self.timeline = TimelineView(clock, theme, floor=160, most_minimum=GANTT_MOST_MINIMUM)
        self.timeline.layout_changed.connect(self._draw_spreads)  # the bands follow the rows
        self.timeline.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["", "value"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setMinimumHeight(90)
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.summary)
        top_layout.addWidget(self.timeline, 1)
        self.spread_key = SpreadKey(theme, self)
        top_layout.addWidget(self.spread_key)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.table)
        # The Gantt first (its minimum height is its rows'), then 3 : 2 of what is left.
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # see `home`
        self.timeline.setVisible(False)  # nothing measured yet: the placeholder says what comes
        self.table.setVisible(False)

    def home(self) -> QWidget:
        """Where the keyboard focus rests on the page: the Gantt, or (none drawn) the page
        itself, which takes no keys (the transport keys work there)."""
        return self.timeline if self._schedules else self

    @property
    def schedules(self) -> list[Schedule]:
        """The Schedules drawn: [measured sequential, measured pipelined, model], or []."""
        return list(self._schedules)

    def show_pipeline(self, result: PipelineResult, rows: list[tuple[str, str]]) -> None:
        """Draw and explain experiment 1's result; ``rows`` fill the table."""
        schedules = result.timeline_schedules
        self._spreads = [result.sequential_spread, result.pipelined_spread, None]
        self.title = (
            f"Measured on {result.backend}: sequential and pipelined, beside the model's prediction"
        )
        self._draw(schedules)
        self.summary.setText(summary_html(result))
        self.fill_table(rows)

    def show_rows(self, rows: list[tuple[str, str]], summary: str) -> None:
        """A result with no runs to draw (experiment 2): the table and one line."""
        self._spreads = []
        self.title = ""
        self._draw([])
        self.summary.setText(html.escape(summary))
        self.fill_table(rows)

    def clear(self, message: str = "") -> None:
        """Forget the shown result (a run failed: its figures would be stale)."""
        self._spreads = []
        self.title = ""
        self._draw([])
        self.summary.setText(html.escape(message) if message else PLACEHOLDER)
        self.fill_table([])

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.timeline.set_theme(theme)
        self.spread_key.set_theme(theme)
        self._draw_spreads()

    def fill_table(self, rows: list[tuple[str, str]]) -> None:
        self.table.setRowCount(len(rows))
        for index, (label, value) in enumerate(rows):
            self.table.setItem(index, 0, QTableWidgetItem(label))
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            self.table.setItem(index, 1, item)
        self.table.resizeColumnToContents(0)
        self.table.resizeRowsToContents()
        self.table.setVisible(bool(rows))  # an empty table says nothing either

    def table_rows(self) -> list[tuple[str, str]]:
        return [
            (_text(self.table.item(row, 0)), _text(self.table.item(row, 1)))
            for row in range(self.table.rowCount())
        ]

    # -- drawing ---------------------------------------------------------------------------

    def _draw(self, schedules: list[Schedule]) -> None:
        self._schedules = list(schedules)
        self.timeline.set_time_reach(self._reach())
        derived = derived_list(self._schedules)  # (held by the timeline while drawn)
        self.timeline.set_schedules(self._schedules, derived)
        self.timeline.setVisible(bool(self._schedules))  # an empty plot says nothing
        if self._schedules:
            events = events_of(derived)
            end = max(s.makespan for s in self._schedules)
            self.clock.set_timeline(events, end, self._schedules[0].time_unit)
        else:
            self.clock.set_timeline([0.0], 0.0)
        self._draw_spreads()

    def _draw_spreads(self) -> None:
        """A pale band over each measured run's rows from its fastest to its slowest
        repeat's makespan (the drawn run is the median one)."""
        plot = self.timeline.getPlotItem()
        for band in self._bands:
            plot.removeItem(band)
        self._bands = []
        colour = QColor(self._theme.muted)
        colour.setAlpha(SPREAD_ALPHA)
        edge = QColor(self._theme.muted)
        for group, spread in zip(self.timeline.groups, self._spreads, strict=False):
            if spread is None or spread.maximum <= spread.minimum:
                continue  # one run, or runs that all took as long: nothing to shade
            band = pg.BarGraphItem(
                x0=[spread.minimum],
                x1=[spread.maximum],
                y0=[group.first_row - 0.5],
                y1=[group.first_row + group.n_rows - 0.5],
                brush=pg.mkBrush(colour),
                pen=pg.mkPen(edge, width=1, style=Qt.PenStyle.DashLine),
            )
            band.setZValue(-1)
            band.setToolTip(f"{group.schedule.label}: {spread_text(spread)}")
            plot.addItem(band)
            self._bands.append(band)
        self.spread_key.setVisible(bool(self._bands))  # explained where it is drawn

    def _reach(self) -> float:
        """How far the time axis reaches: to the slowest repeat, so that its band shows,
        but at most `SPREAD_ROOM` times the drawn runs' length: one outlier must not
        squeeze the runs themselves into a corner (the summary gives its figure). The
        timeline keeps it through resizes and resets."""
        span = max((s.makespan for s in self._schedules), default=0.0)
        slowest = max((s.maximum for s in self._spreads if s is not None), default=0.0)
        return min(slowest, SPREAD_ROOM * span) if slowest > span > 0 else 0.0

    @property
    def spread_bands(self) -> list[pg.BarGraphItem]:
        return list(self._bands)


class SpreadKey(QWidget):
    """The legend entry of the dashed spread boxes: a small box drawn as they are, and
    what it means (under the Gantt, shown while boxes are drawn)."""

    SWATCH = (28, 14)

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 0, 8, 2)
        self.swatch = QLabel(self)
        self.text = QLabel(SPREAD_KEY, self)
        dress(self.text, "description")
        self.text.setWordWrap(True)
        layout.addWidget(self.swatch)
        layout.addWidget(self.text, 1)
        self.set_theme(theme)
        self.hide()

    def set_theme(self, theme: Theme) -> None:
        width, height = self.SWATCH
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(round(width * ratio), round(height * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        fill = QColor(theme.muted)
        fill.setAlpha(SPREAD_ALPHA)
        painter = QPainter(pixmap)
        painter.setBrush(fill)
        painter.setPen(pg.mkPen(QColor(theme.muted), width=1, style=Qt.PenStyle.DashLine))
        painter.drawRect(QRectF(1.5, 1.5, width - 3, height - 3))
        painter.end()
        self.swatch.setPixmap(pixmap)


def summary_html(result: PipelineResult) -> str:
    """Spread per measured run, the model, and why the efficiency is what it is."""
    unit = result.pipelined.time_unit
    lines = []
    for name, spread in (
        ("sequential (measured)", result.sequential_spread),
        ("pipelined (measured)", result.pipelined_spread),
    ):
        lines.append(f"<b>{name}</b>: {html.escape(spread_text(spread))}")
    efficiency = result.overlap_efficiency
    why = str(result.efficiency_explanation()["text"])
    lines.append(
        f"<b>model</b>: {result.predicted.makespan:.3g} {unit} · model ÷ measured "
        f"<b>{efficiency:.0%}</b>"
    )
    lines.append(f"<b>why</b>: {html.escape(why)}")
    return "<br>".join(lines)


def _text(item: QTableWidgetItem | None) -> str:
    return "" if item is None else str(item.text())
