"""A list of Schedules shown on one clock: the assembly line, the narration lines and the
Gantt timeline, stacked in a splitter. The main window has one; panels may make more.

In little room the assembly line keeps its minimum size (it reports it: figures, chips and
slots never shrink below theirs; it compacts its layout first), the narration gets shorter
(at most about a fifth of the view's height, then it scrolls) and the Gantt keeps the
height its rows need (`TimelineView.minimum_height`: rows a readable pitch apart, every
title in its room); the splitter shares the rest between the assembly line and the Gantt,
and shares it again when runs are pinned or unpinned (five runs' rows in the height of two
left bars some 4 px tall, too thin for their op labels).

Where the assembly line's lanes at their least size would leave the Gantt too little
height for its op labels (`TimelineView.labelled_height`: three runs pinned beside both
policies at 1280 × 800 left bars 4-6 px tall, unlabelled), the assembly line animates the
last Schedule alone (the current run's pipelined one, that the pins are compared with):
a lane is some 140 px, and the Gantt keeps every run's rows and labels.

A tick costs O(log n) here: the narration is looked up by event index (binary search) and
only re-narrated when that index changes; nothing that scans every task runs per tick.
While another view drives the shared clock (the Warps tab) the view is inactive: it keeps
its Schedules and gives the clock their timeline back when activated."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from engine.analysis.derived import Derived
from engine.analysis.timeline import narrate
from engine.base.tolerance import time_tolerance
from engine.indexes.event_union import EventUnion, events_of
from engine.model.schedule import Schedule
from gui.assembly import AssemblyLineView
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.figure.rows import derived_list
from gui.narration_box import NarrationBox
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
        self._groups = 0  # how many Schedules the split was last shared for
        self._pinned: list[bool] = []  # per Schedule: a pinned run's (its narration is cut first)
        self._derived: list[Derived] = []  # each Schedule's (its run's), held while shown
        self._animated: list[Derived] = []  # the lanes asked for (`lanes_for` may drop some)
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
        self.narration_box = NarrationBox(top)
        self.narration = self.narration_box.label
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
        pinned: list[bool] | None = None,
        derived: list[Derived] | None = None,
    ) -> None:
        """Show these Schedules; the clock steps through all their events together.

        ``events`` (their event times together) and ``end`` (the longest makespan) may come
        precomputed, off the GUI thread (see `gui.runs.Shown`). ``animated``: the ones the
        assembly line shows (default: all; each gets a lane, so many would crowd it).
        ``pinned``: per Schedule, whether it is a pinned run's (its narration is cut to a
        line first where room is short). ``derived``: each Schedule's `Derived` (its run's;
        a new one each when not given), which every part of the view reads."""
        self._pinned = list(pinned) if pinned is not None else [False] * len(schedules)
        self._schedules = list(schedules)
        self._derived = derived_list(self._schedules, derived)
        spans = [s.makespan for s in self._schedules]
        self._tolerances = [time_tolerance(span) for span in spans]
        if self._schedules:
            self._events = events if events is not None else events_of(self._derived)
            self._end = end if end is not None else max(spans)
        self._narrated = []
        self.narration_box.label.setText("")
        self._animated = (
            [d for a in animated for d in self._derived if d.schedule is a]
            if animated is not None
            else list(self._derived)
        )
        groups = len(self._schedules)
        self.timeline.set_schedules(self._schedules, self._derived)
        self._set_lanes(self.lanes_for(self.height()))
        if groups != self._groups and self.isVisible() and not self._split_pending:
            self.share_split()  # runs pinned or unpinned: the Gantt's rows get their room
        self._groups = groups
        if self._schedules and self._active:
            self.clock.set_timeline(self._events, self._end, self._schedules[0].time_unit)
        self._on_time(self.clock.time)
        self.narration_box.reset()

    def show_run(self, shown: Shown) -> None:
        """The app model's shown runs (`AppModel.shown_changed`): pinned and current runs,
        their event times (an `EventUnion`) and end computed on the worker thread."""
        current = shown.current.schedules
        pinned = [not any(s is c for c in current) for s in shown.schedules]
        self.set_schedules(
            list(shown.schedules),
            shown.events,
            shown.end,
            list(shown.animated),
            pinned,
            list(shown.derived),
        )

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

    def lanes_for(self, height: int) -> list[Derived]:
        """The Schedules the assembly line animates in a view ``height`` pixels tall, each
        as its `Derived`: every one asked for where their lanes at least size, the
        narration's least height and the Gantt's `labelled_height` fit; else the last one
        alone."""
        animated = self._animated
        if len(animated) <= 1 or height <= 0:
            return animated
        top = (
            self.assembly.minimum_for(animated).height()
            + self._top_layout.spacing()
            + self.narration_box.floor()
        )
        if top + self.timeline.labelled_height() <= height:
            return animated
        return animated[-1:]

    def _fit_lanes(self) -> bool:
        """Give the assembly line the lanes that fit the view's height now; True if they
        changed."""
        lanes = self.lanes_for(self.height())
        shown = self.assembly.derived
        if len(lanes) == len(shown) and all(a is b for a, b in zip(lanes, shown, strict=True)):
            return False
        self._set_lanes(lanes)
        return True

    def _set_lanes(self, lanes: list[Derived]) -> None:
        self.assembly.set_schedules([d.schedule for d in lanes], lanes)

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
        top = min(top, total - gantt)
        # The narration's lines come before rows wider apart than their labels need.
        top = max(top, min(comfortable, total - self.timeline.labelled_height()))
        top = max(top, self._top.minimumSizeHint().height())
        self.splitter.setSizes([top, total - top])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.narration_box.set_cap(round(NARRATION_SHARE * event.size().height()))
        lanes_changed = self._fit_lanes()
        if self._split_pending and self.isVisible():
            self._split_pending = False
            total = sum(self.splitter.sizes())
            if abs(total - self._saved_total) > SPLIT_KEPT * total:
                self.share_split()
        elif lanes_changed and self.isVisible():
            self.share_split()  # a lane came or went: the Gantt gets (or gives) its height

    def narration_lines(self) -> list[str]:
        """For each Schedule, the narration of its latest event at or before now."""
        time = self.clock.time
        return [
            narrate(d, d.events.last_through(time + tolerance))
            for d, tolerance in zip(self._derived, self._tolerances, strict=True)
        ]

    def _event_indices(self, time: float) -> list[int]:
        """Per Schedule: how many of its event times are at or before ``time``."""
        return [
            d.events.count_through(time + tolerance)
            for d, tolerance in zip(self._derived, self._tolerances, strict=True)
        ]

    def _on_time(self, time: float) -> None:
        if not self._active:
            return  # another view drives the clock: its times are not this run's
        indices = self._event_indices(time)
        if indices == self._narrated:
            return  # the narration only changes at event times
        self._narrated = indices
        rows = [
            (s.label or s.policy, line)
            for s, line in zip(self._schedules, self.narration_lines(), strict=True)
        ]
        self.narration_box.set_rows(rows, self._pinned)
