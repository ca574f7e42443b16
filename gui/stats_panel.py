"""Stats: makespan per Schedule, speedup, bottleneck, "formula agrees", and a utilization
bar per worker — every number with a tooltip saying how it was obtained. The numbers come
from `engine.view_model.schedule_stats` (which reads `engine.metrics`)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from engine.scenario import Scenario
from engine.schedule import Schedule
from engine.view_model import StatLine, WorkerUse, comparison, schedule_stats
from gui.colours import LIGHT, Theme


class UtilizationBar(QWidget):
    """A thin horizontal bar filled to the worker's utilization, with the percentage."""

    def __init__(self, use: WorkerUse, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.use = use
        self._theme = theme
        self.setToolTip(use.how)
        self.setMinimumWidth(90)

    def sizeHint(self) -> QSize:
        return QSize(140, 18)

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
    """Rebuilt whenever the Schedules change (a few dozen small widgets at most)."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 8, 8, 8)
        self._body: QWidget | None = None
        self.lines: list[tuple[str, StatLine]] = []
        self._schedules: list[Schedule] = []
        self._scenario: Scenario | None = None

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.set_schedules(self._schedules, self._scenario)

    def set_schedules(self, schedules: list[Schedule], scenario: Scenario | None = None) -> None:
        self._schedules, self._scenario = list(schedules), scenario
        if self._body is not None:
            self._layout.removeWidget(self._body)
            self._body.hide()  # gone from the screen now, not at the next event loop pass
            self._body.deleteLater()
        body = QWidget(self)
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(3)
        self.lines = []
        row = 0
        headline = comparison(schedules)
        if headline is not None:
            row = self._line(grid, row, "", headline, big=True)
        for schedule in schedules:
            stats = schedule_stats(schedule, scenario if schedule.source == "simulated" else None)
            title = QLabel(f"<b>{stats.title}</b>", body)
            grid.addWidget(title, row, 0, 1, 2)
            row += 1
            for line in stats.lines:
                row = self._line(grid, row, stats.title, line)
            for use in stats.workers:
                name = QLabel(use.label, body)
                name.setToolTip(use.how)
                grid.addWidget(name, row, 0)
                grid.addWidget(UtilizationBar(use, self._theme, body), row, 1)
                row += 1
        grid.setColumnStretch(1, 1)
        self._layout.insertWidget(0, body)
        self._body = body

    def _line(
        self, grid: QGridLayout, row: int, group: str, line: StatLine, big: bool = False
    ) -> int:
        label = QLabel(line.label, self)
        value = QLabel(f"<b>{line.value}</b>" if big else line.value, self)
        value.setObjectName("headline" if big else "value")
        value.setWordWrap(True)
        for widget in (label, value):
            widget.setToolTip(line.how)
        grid.addWidget(label, row, 0)
        grid.addWidget(value, row, 1)
        self.lines.append((group, line))
        return row + 1

    def value_of(self, group: str, label: str) -> str:
        """The value text shown for ``label`` in ``group`` (tests read the panel this way)."""
        for g, line in self.lines:
            if g == group and line.label == label:
                return line.value
        raise KeyError(f"{group}/{label}")
