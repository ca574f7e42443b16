"""A list of Schedules shown on one clock: the assembly line, the narration lines and the
Gantt timeline, stacked in a splitter. The main window has one; panels may make more.

A tick costs O(log n) here: the narration is looked up by event index (binary search) and
only re-narrated when that index changes; nothing that scans every task runs per tick.
While another view drives the shared clock (the Warps tab) the view is inactive: it keeps
its Schedules and gives the clock their timeline back when activated."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from engine.schedule import Schedule
from engine.timeline import narrate
from gui.assembly import AssemblyLineView
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.timeline import TimelineView


class ScheduleView(QWidget):
    """Assembly line + narration + timeline for a list of Schedules, driven by ``clock``."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        self._schedules: list[Schedule] = []
        self._tolerances: list[float] = []  # per Schedule: event times closer are one
        self._events: np.ndarray = np.zeros(1)
        self._end = 0.0
        self._active = True
        self._narrated: list[int] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("schedule-splitter")
        self.splitter.setChildrenCollapsible(False)
        top = QWidget(self.splitter)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(2)
        self.assembly = AssemblyLineView(clock, theme, top)
        top_layout.addWidget(self.assembly, 1)
        self.narration_box = _FixedLabelBox(top)
        self.narration = self.narration_box.label
        self.narration.setObjectName("narration")
        self.narration.setWordWrap(True)
        self.narration.setTextFormat(Qt.TextFormat.RichText)
        top_layout.addWidget(self.narration_box)
        self.timeline = TimelineView(clock, theme, self.splitter)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.timeline)
        self.timeline.setMinimumHeight(200)
        self.splitter.setSizes([520, 400])
        layout.addWidget(self.splitter)
        clock.time_changed.connect(self._on_time)

    @property
    def schedules(self) -> list[Schedule]:
        return list(self._schedules)

    def set_schedules(
        self,
        schedules: list[Schedule],
        events: np.ndarray | None = None,
        end: float | None = None,
        animated: list[Schedule] | None = None,
    ) -> None:
        """Show these Schedules; the clock steps through all their events together.

        ``events`` (their merged event times) and ``end`` (the longest makespan) may come
        precomputed, off the GUI thread (see `gui.runs.Shown`). ``animated``: the ones the
        assembly line shows (default: all; each gets a lane, so many would crowd it)."""
        self._schedules = list(schedules)
        spans = [s.makespan for s in self._schedules]
        self._tolerances = [1e-9 * max(1.0, span) for span in spans]
        if self._schedules:
            self._events = (
                events
                if events is not None
                else _sorted_union([s.event_times for s in self._schedules])
            )
            self._end = end if end is not None else max(spans)
        self._narrated = []
        self.narration_box.label.setText("")
        self.assembly.set_schedules(list(animated) if animated is not None else self._schedules)
        self.timeline.set_schedules(self._schedules)
        if self._schedules and self._active:
            self.clock.set_timeline(self._events, self._end)
        self._on_time(self.clock.time)
        self.narration_box.reset()

    @property
    def active(self) -> bool:
        return self._active

    def set_active(self, active: bool) -> None:
        """Drive the shared clock (True) or leave it to another view; on activation the
        clock gets this view's timeline back (its Schedules are kept, not set again)."""
        if active == self._active:
            return
        self._active = active
        if active and self._schedules:
            self.clock.set_timeline(self._events, self._end)
            self._narrated = []
            self._on_time(self.clock.time)

    def set_theme(self, theme: Theme) -> None:
        self.assembly.set_theme(theme)
        self.timeline.set_theme(theme)

    def narration_lines(self) -> list[str]:
        """For each Schedule, the narration of its latest event at or before now."""
        indices = self._event_indices(self.clock.time)
        return [
            narrate(s, float(s.event_times[max(0, index - 1)]))
            for s, index in zip(self._schedules, indices, strict=True)
        ]

    def _event_indices(self, time: float) -> list[int]:
        """Per Schedule: how many of its event times are at or before ``time``."""
        return [
            int(np.searchsorted(s.event_times, time + tolerance, "right"))
            for s, tolerance in zip(self._schedules, self._tolerances, strict=True)
        ]

    def _on_time(self, time: float) -> None:
        if not self._active:
            return  # another view drives the clock: its times are not this run's
        indices = self._event_indices(time)
        if indices == self._narrated:
            return  # the narration only changes at event times
        self._narrated = indices
        rows = []
        for s, line in zip(self._schedules, self.narration_lines(), strict=True):
            name = s.label or s.policy
            rows.append(f"<b>{name}</b> — {line}")
        self.narration_box.set_text("<br>".join(rows))


class _FixedLabelBox(QWidget):
    """Holds a word-wrapped QLabel at a fixed size that follows this box's width.

    A QLabel whose text changes asks its parent's layout to recompute on every change
    (about a millisecond here, at every event the clock passes); a label of fixed size
    does not. The box changes its own height only when the new text needs more or fewer
    lines, which is rare.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        # A fixed-size label reports its fixed size as its height for any width, so the
        # height a text needs is measured on a twin that is never shown or sized.
        self._twin = QLabel()
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._fit()

    def set_text(self, text: str) -> None:
        """Show ``text``; the box grows for a longer text but does not shrink back, so the
        views above it keep their size while the clock plays (see `reset`)."""
        if text != self.label.text():
            self.label.setText(text)
            self._fit(shrink=False)

    def reset(self) -> None:
        """Fit the current text exactly (new Schedules)."""
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit()  # the stylesheet sets the label's font and padding

    def _fit(self, shrink: bool = True) -> None:
        twin, label = self._twin, self.label
        if twin.objectName() != label.objectName():
            twin.setObjectName(label.objectName())  # the stylesheet's padding and font
            twin.style().unpolish(twin)
            twin.style().polish(twin)
        twin.setWordWrap(label.wordWrap())
        twin.setTextFormat(label.textFormat())
        twin.setText(label.text())
        twin.ensurePolished()
        width = max(1, self.width())
        height = max(1, twin.heightForWidth(width))
        if not shrink:
            height = max(height, self.height())
        if self.label.size() != QSize(width, height):
            self.label.setFixedSize(width, height)
        if self.height() != height:
            self.setFixedHeight(height)


def _sorted_union(arrays: list[np.ndarray]) -> np.ndarray:
    """The sorted, unique union of sorted arrays (a stable sort merges sorted runs in
    linear time, where np.unique would sort from scratch)."""
    if len(arrays) == 1:
        return arrays[0]
    merged = np.sort(np.concatenate(arrays), kind="stable")
    return merged[np.concatenate([[True], np.diff(merged) > 0])]
