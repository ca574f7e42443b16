"""Stats: makespan per Schedule, speedup (or the comparison with pinned runs), bottleneck,
"formula agrees", and a utilization bar per worker — every number with a tooltip saying how
it was obtained. The numbers come from `engine.analysis.stats.schedule_stats` (which reads
`engine.analysis.metrics`), computed off the GUI thread by the app model and handed over whole
(`set_stats`); `set_schedules` computes them here, for callers without a model."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import cast

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from engine.analysis.stats import ScheduleStats, StatLine, WorkerUse, comparison, schedule_stats
from engine.base.text import unbreakable_values
from engine.model.scenario import Scenario
from engine.model.schedule import Schedule
from gui.colours import LIGHT, Theme
from gui.figure.rows import derived_for
from gui.runs import Shown
from gui.theme import dress


class UtilizationBar(QWidget):
    """A thin horizontal bar filled to the worker's utilization, with the percentage."""

    def __init__(self, use: WorkerUse, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.use = use
        self._theme = theme
        self.setToolTip(use.how)
        self.setMinimumWidth(90)
        # Its own height, whatever the dock's: a tall dock must not make bars 80 px thick.
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(140, 18)

    def set_use(self, use: WorkerUse) -> None:
        """Show another value (repaints only if it changed)."""
        if use != self.use:
            self.use = use
            self.setToolTip(use.how)
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        rect = QRectF(self.rect()).adjusted(0, 3, -44, -3)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._theme.colour("idle"))
        painter.drawRoundedRect(rect, 3, 3)
        painter.setBrush(self._theme.colour("accent"))
        filled = QRectF(rect.left(), rect.top(), rect.width() * self.use.utilization, rect.height())
        painter.drawRoundedRect(filled, 3, 3)
        painter.setPen(self._theme.colour("text"))
        text_rect = QRectF(rect.right() + 4, 0, 40, self.height())
        painter.drawText(
            text_rect, int(Qt.AlignmentFlag.AlignVCenter), f"{self.use.utilization:.0%}"
        )
        painter.end()


class StatsPanel(QWidget):
    """The stats of the Schedules shown. When only the numbers change (an edited duration)
    the labels and bars are updated in place; a new shape (other lines, other workers)
    builds the grid again. Rows keep their natural height at the top: a dock taller than
    the stats leaves the room under them empty (a stretch at the end of the layout)."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 8, 8, 8)
        self._layout.addStretch(1)  # the body goes above it (`_build`)
        self._body: QWidget | None = None
        self.lines: list[tuple[str, StatLine]] = []
        self._headlines: list[StatLine] = []
        self._stats: list[ScheduleStats] = []
        self._shape: list[tuple[str, ...]] = []
        self._widgets: list[tuple[QWidget, ...]] = []  # one entry per row of `_shape`
        self.rebuilds = 0  # how often the grid was built (tests: edits update in place)

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._shape = []  # the bars take the theme when built
        self._show(self._rows(self._headlines, self._stats))

    def set_schedules(self, schedules: list[Schedule], scenario: Scenario | None = None) -> None:
        """Compute the stats of ``schedules`` here and show them (each from a `Derived`
        made for this once: nothing is kept)."""
        headline = comparison(schedules)
        stats = [
            schedule_stats(derived_for(s), scenario if s.source == "simulated" else None)
            for s in schedules
        ]
        self.set_stats([headline] if headline is not None else [], stats)

    def show_run(self, shown: Shown) -> None:
        """The app model's shown runs (`AppModel.shown_changed`): their stats, computed on
        the worker thread with the run."""
        self.set_stats(shown.headlines, shown.stats)

    def set_stats(self, headlines: Sequence[StatLine], stats: Sequence[ScheduleStats]) -> None:
        """Show stats computed elsewhere: the headline lines, then each Schedule's."""
        self._headlines, self._stats = list(headlines), list(stats)
        self._show(self._rows(self._headlines, self._stats))

    def _show(self, rows: list[tuple[str, str, str, object]]) -> None:
        shape: list[tuple[str, ...]] = [tuple(map(str, row[:3])) for row in rows]
        if shape != self._shape:
            self._build(rows)
            self._shape = shape
        else:
            self._update(rows)
        self.lines = [
            (row[1], cast(StatLine, row[3])) for row in rows if row[0] in ("headline", "line")
        ]

    @staticmethod
    def _rows(
        headlines: Sequence[StatLine], all_stats: Sequence[ScheduleStats]
    ) -> list[tuple[str, str, str, object]]:
        """(kind, group, label, content) per grid row: the headlines, a title, a stat line
        or a worker's utilization."""
        rows: list[tuple[str, str, str, object]] = []
        for headline in headlines:
            rows.append(("headline", "", headline.label, headline))
        for stats in all_stats:
            rows.append(("title", stats.title, stats.title, stats.title))
            rows += [("line", stats.title, line.label, line) for line in stats.lines]
            rows += [("worker", stats.title, use.label, use) for use in stats.workers]
        return rows

    def _build(self, rows: list[tuple[str, str, str, object]]) -> None:
        self.rebuilds += 1
        if self._body is not None:
            self._layout.removeWidget(self._body)
            self._body.hide()  # gone from the screen now, not at the next event loop pass
            self._body.deleteLater()
        body = QWidget(self)
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(3)
        self._widgets = []
        for row, (kind, _, _, content) in enumerate(rows):
            if kind == "title":
                title = QLabel(f"<b>{html.escape(str(content))}</b>", body)
                title.setWordWrap(True)  # measured runs have long names
                grid.addWidget(title, row, 0, 1, 2)
                self._widgets.append((title,))
            elif kind == "worker":
                assert isinstance(content, WorkerUse)
                name = QLabel(content.label, body)
                name.setToolTip(content.how)
                bar = UtilizationBar(content, self._theme, body)
                grid.addWidget(name, row, 0)
                grid.addWidget(bar, row, 1)
                self._widgets.append((name, bar))
            else:
                assert isinstance(content, StatLine)
                big = kind == "headline"
                label = QLabel(content.label, body)
                value = QLabel(_value_text(content, big), body)
                if big:
                    dress(value, "headline")
                value.setWordWrap(True)
                for widget in (label, value):
                    widget.setToolTip(content.how)
                grid.addWidget(label, row, 0)
                grid.addWidget(value, row, 1)
                self._widgets.append((label, value))
        grid.setColumnStretch(1, 1)
        self._layout.insertWidget(0, body)
        self._body = body

    def _update(self, rows: list[tuple[str, str, str, object]]) -> None:
        """Same rows as shown: change only the texts, tooltips and bars that differ."""
        for (kind, _, _, content), widgets in zip(rows, self._widgets, strict=True):
            if kind == "worker":
                assert isinstance(content, WorkerUse)
                name, bar = widgets
                assert isinstance(bar, UtilizationBar)
                if name.toolTip() != content.how:
                    name.setToolTip(content.how)
                bar.set_use(content)
            elif kind in ("line", "headline"):
                assert isinstance(content, StatLine)
                label, value = widgets
                assert isinstance(value, QLabel)
                text = _value_text(content, kind == "headline")
                if value.text() != text:
                    value.setText(text)
                if value.toolTip() != content.how:
                    label.setToolTip(content.how)
                    value.setToolTip(content.how)

    def value_of(self, group: str, label: str) -> str:
        """The value text shown for ``label`` in ``group`` (tests read the panel this way)."""
        for g, line in self.lines:
            if g == group and line.label == label:
                return line.value
        raise KeyError(f"{group}/{label}")


def _value_text(line: StatLine, big: bool) -> str:
    """A stat's value as its label shows it: wrapped between values, never inside one
    ("3 slots: 5 s" broke as "5 / s")."""
    value = unbreakable_values(line.value)
    return f"<b>{html.escape(value)}</b>" if big else value
