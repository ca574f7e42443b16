"""A list of Schedules shown on one clock: the assembly line, the narration lines and the
Gantt timeline, stacked in a splitter. The main window has one; panels may make more.

In little room the assembly line keeps its minimum size (it reports it: figures, chips and
slots never shrink below theirs; it compacts its layout first), the narration gets shorter
(at most about a fifth of the view's height, then it scrolls) and the Gantt keeps the
height its rows need (`TimelineView.minimum_height`: rows a readable pitch apart, every
title in its room); the splitter shares the rest between the assembly line and the Gantt.

A tick costs O(log n) here: the narration is looked up by event index (binary search) and
only re-narrated when that index changes; nothing that scans every task runs per tick.
While another view drives the shared clock (the Warps tab) the view is inactive: it keeps
its Schedules and gives the clock their timeline back when activated."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QByteArray, QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QScrollArea, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from engine.event_union import EventUnion, events_of, schedule_events
from engine.schedule import Schedule
from engine.timeline import narrate
from engine.tolerance import time_tolerance
from gui.assembly import AssemblyLineView
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.narration_label import NarrationLabel
from gui.runs import Shown
from gui.timeline import TimelineView

#: The Gantt's least height with no rows (with rows: what they need, see `share_split`).
TIMELINE_MIN_HEIGHT = 140
#: The assembly line and the narration's share of the height at first (the Gantt: the rest).
ASSEMBLY_SHARE = 0.6
#: A restored split is kept when saved at a height within this share of the view's now.
SPLIT_KEPT = 0.2
#: The narration takes at most this share of the view's height (then it scrolls).
NARRATION_SHARE = 0.15
#: The width the narration is measured at before the view is shown (it has none yet).
NOMINAL_WIDTH = 900

FloatArray = npt.NDArray[np.float64]


class ScheduleView(QWidget):
    """Assembly line + narration + timeline for a list of Schedules, driven by ``clock``."""

    def __init__(self, clock: Clock, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        self._schedules: list[Schedule] = []
        self._tolerances: list[float] = []  # per Schedule: event times closer are one
        self._events = EventUnion([np.zeros(1)])
        self._end = 0.0
        self._active = True
        self._narrated: list[int] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setObjectName("schedule-splitter")
        self.splitter.setChildrenCollapsible(False)
        top = self._top = QWidget(self.splitter)
        top_layout = self._top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.setSpacing(2)
        self.assembly = AssemblyLineView(clock, theme, top)
        top_layout.addWidget(self.assembly, 1)
        self.narration_box = _FixedLabelBox(top)
        self.narration = self.narration_box.label
        self.narration.setObjectName("narration")
        top_layout.addWidget(self.narration_box)
        self.timeline = TimelineView(clock, theme, self.splitter, floor=TIMELINE_MIN_HEIGHT)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.timeline)
        # Extra height goes 3 : 2 to the assembly line and the Gantt (a fixed split made
        # for one screen would crush the Gantt on a laptop and waste a 4K screen).
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([520, 400])
        self._split_pending = True  # shared by `ASSEMBLY_SHARE` once the view has a height
        self._saved_total = 0  # the height a restored split was saved at (0: none)
        layout.addWidget(self.splitter)
        clock.time_changed.connect(self._on_time)

    @property
    def schedules(self) -> list[Schedule]:
        return list(self._schedules)

    def set_schedules(
        self,
        schedules: list[Schedule],
        events: EventUnion | None = None,
        end: float | None = None,
        animated: list[Schedule] | None = None,
    ) -> None:
        """Show these Schedules; the clock steps through all their events together.

        ``events`` (their event times together) and ``end`` (the longest makespan) may come
        precomputed, off the GUI thread (see `gui.runs.Shown`). ``animated``: the ones the
        assembly line shows (default: all; each gets a lane, so many would crowd it)."""
        self._schedules = list(schedules)
        spans = [s.makespan for s in self._schedules]
        self._tolerances = [time_tolerance(span) for span in spans]
        if self._schedules:
            self._events = events if events is not None else events_of(self._schedules)
            self._end = end if end is not None else max(spans)
        self._narrated = []
        self.narration_box.label.setText("")
        self.assembly.set_schedules(list(animated) if animated is not None else self._schedules)
        self.timeline.set_schedules(self._schedules)
        if self._schedules and self._active:
            self.clock.set_timeline(self._events, self._end, self._schedules[0].time_unit)
        self._on_time(self.clock.time)
        self.narration_box.reset()

    def show_run(self, shown: Shown) -> None:
        """The app model's shown runs (`AppModel.shown_changed`): pinned and current runs,
        their event times (an `EventUnion`) and end computed on the worker thread."""
        self.set_schedules(list(shown.schedules), shown.events, shown.end, list(shown.animated))

    def set_busy(self, busy: bool) -> None:
        """While a newer run is computed: the busy (not wait) cursor over the shown one,
        which stays usable."""
        if busy:
            self.setCursor(Qt.CursorShape.BusyCursor)
        else:
            self.unsetCursor()

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
            self.clock.set_timeline(self._events, self._end, self._schedules[0].time_unit)
            self._narrated = []
            self._on_time(self.clock.time)

    def set_theme(self, theme: Theme) -> None:
        self.assembly.set_theme(theme)
        self.timeline.set_theme(theme)

    def restore_split(self, state: QByteArray) -> bool:
        """Put back a saved splitter state (else the first height is shared by
        `share_split`). A split saved at a rather different height (a 4K screen, now a
        laptop's) is shared afresh once the view has its height: squeezed in proportion,
        it would leave the narration or the Gantt under their own needs."""
        restored = bool(self.splitter.restoreState(state))
        if restored:
            self._saved_total = sum(self.splitter.sizes())
        return restored

    def share_split(self) -> None:
        """Give the assembly line and narration `ASSEMBLY_SHARE` of the height, the Gantt
        the rest. Where that is short (a laptop) the Gantt first gets the height its rows
        want, then the narration its lines, the assembly line compacting instead; each
        keeps its minimum."""
        total = sum(self.splitter.sizes()) or self.height()
        gantt = self.timeline.wanted_height()
        comfortable = (
            self.assembly.minimum_size().height()
            + self.narration_box.sizeHint().height()
            + self._top_layout.spacing()
        )
        top = max(round(ASSEMBLY_SHARE * total), min(comfortable, total - gantt))
        top = max(min(top, total - gantt), self._top.minimumSizeHint().height())
        self.splitter.setSizes([top, total - top])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.narration_box.set_cap(round(NARRATION_SHARE * event.size().height()))
        if self._split_pending and self.isVisible():
            self._split_pending = False
            total = sum(self.splitter.sizes())
            if abs(total - self._saved_total) > SPLIT_KEPT * total:
                self.share_split()

    def narration_lines(self) -> list[str]:
        """For each Schedule, the narration of its latest event at or before now."""
        time = self.clock.time
        return [
            narrate(s, schedule_events(s).last_through(time + tolerance))
            for s, tolerance in zip(self._schedules, self._tolerances, strict=True)
        ]

    def _event_indices(self, time: float) -> list[int]:
        """Per Schedule: how many of its event times are at or before ``time``."""
        return [
            schedule_events(s).count_through(time + tolerance)
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


class _FixedLabelBox(QScrollArea):
    """Holds a word-wrapped `NarrationLabel` at a fixed size that follows this box's width.

    A QLabel whose text changes asks its parent's layout to recompute on every change
    (about a millisecond here, at every event the clock passes); a label of fixed size
    does not. The box asks for the height its text needs (its size hint and maximum) only
    when the new text needs more or fewer lines, which is rare, and never beyond its cap
    (`set_cap`): a longer text scrolls. Where room is short (a 1280 × 720 screen) the
    layout may give it less, down to `floor`: the text scrolls then too. The label
    measures a text's height with the layout it then paints (`NarrationLabel.height_for`):
    one layout per text.

    Until the box is shown it has no real width; it measures the text at a nominal width
    then (measured at its default width of a hundred pixels, two lines of narration
    asked for a window taller than a laptop's screen).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidgetResizable(False)
        self.label = NarrationLabel()
        self.setWidget(self.label)
        self._cap: int | None = None  # the most height the box takes (None: the floor)
        self._wanted = 0  # the height the text asks for (within the cap)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._wanted)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), min(self._wanted, self.floor()))

    def set_text(self, text: str) -> None:
        """Show ``text``; the box grows for a longer text but does not shrink back, so the
        views above it keep their size while the clock plays (see `reset`)."""
        if text != self.label.text():
            self.label.setText(text)
            self._fit(shrink=False)

    def reset(self) -> None:
        """Fit the current text exactly (new Schedules)."""
        self._fit()

    def set_cap(self, height: int) -> None:
        """Take at most ``height`` pixels (never less than `floor`); more text scrolls."""
        if height != self._cap:
            self._cap = height
            self._fit()

    def floor(self) -> int:
        """The least height the cap may be: two and a half lines of the label's font."""
        label = self.label
        label.polish_as_named()
        margins = label.contentsMargins()
        lines = label.fontMetrics().lineSpacing() * 5 // 2
        return lines + margins.top() + margins.bottom()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize() != event.size():
            self._fit()  # a new width wraps anew; a new height may bring the scroll bar

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit()  # the stylesheet sets the label's font and padding

    def _fit(self, shrink: bool = True) -> None:
        label = self.label
        width = max(1, self.width() if self.isVisible() else max(self.width(), NOMINAL_WIDTH))
        cap = max(self.floor(), self._cap or 0)
        needed = max(1, label.height_for(width))
        height = min(needed, cap)
        if not shrink:
            height = min(max(height, self._wanted), cap)
        shown = min(height, self.height()) if self.isVisible() else height
        if needed > shown:  # it scrolls: the scroll bar takes some of the width
            width = max(1, width - self.verticalScrollBar().sizeHint().width())
            needed = max(1, label.height_for(width))
        if label.size() != QSize(width, needed):
            label.setFixedSize(width, needed)
        if height != self._wanted:
            self._wanted = height
            self.setMaximumHeight(height)
            self.updateGeometry()
