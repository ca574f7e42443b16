"""The one clock that owns "now". Every view listens to it; nothing else keeps time.

It plays, pauses, steps to the next or previous event, jumps to either end and scrubs. Its
timer and its wall-clock source are injected, so tests advance it without sleeping.

A clock also knows the unit its times are in (s, ms, cycles): a time is never a bare
number. In the app each tab owns one clock (the Pipeline's runs in seconds, the Warps
view's cycles, the GPU page's milliseconds), so each tab keeps its own "now" in its own
unit; the transport bar and the keys drive the open tab's clock.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from PySide6.QtCore import QObject, QTimer, Signal

from engine.base.tolerance import time_tolerance
from engine.indexes.event_union import EventUnion

SPEEDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: Wall-clock seconds a whole run takes to play at 1× when it is long (see `Clock.rate`).
PLAY_SECONDS = 12.0
TICK_MS = 16


class Clock(QObject):
    """Current time on the schedules' clock, with transport controls.

    Parameters
    ----------
    timer
        Drives playback (a QTimer by default). Tests may pass one they never start and call
        `advance` instead.
    wall
        Seconds since some origin (``time.monotonic`` by default).
    """

    time_changed = Signal(float)
    playing_changed = Signal(bool)
    speed_changed = Signal(float)
    timeline_changed = Signal()

    def __init__(
        self,
        parent: QObject | None = None,
        timer: QTimer | None = None,
        wall: Callable[[], float] = _time.monotonic,
    ) -> None:
        super().__init__(parent)
        self._timer = timer if timer is not None else QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_tick)
        self._wall = wall
        self._last_wall = 0.0
        self._time = 0.0
        self._end = 0.0
        self._events = EventUnion([np.zeros(1)])
        self._speed = 1.0
        self._rate = 1.0
        self._unit = "s"

    # -- what it plays -----------------------------------------------------------------

    def set_timeline(
        self,
        events: npt.ArrayLike | EventUnion,
        end: float | None = None,
        unit: str | None = None,
    ) -> None:
        """Event times to step through (sorted, unique; 0 is added) — an array, or an
        `EventUnion` of several Schedules' event times (each starting at 0) —, the end of the
        run and the unit of its times (None keeps the current one).

        Keeps the current time, clamped to the new range.
        """
        if unit is not None:
            self._unit = unit
        if isinstance(events, EventUnion):
            union = events
        else:
            times = np.asarray(events, dtype=np.float64).reshape(-1)
            times = times if np.isfinite(times).all() else times[np.isfinite(times)]
            if not (len(times) and times[0] == 0.0 and bool((times[1:] > times[:-1]).all())):
                times = np.unique(np.concatenate([[0.0], times]))  # else: already as needed
            union = EventUnion([times])
        self._events = union
        last = union.last
        self._end = last if end is None or not math.isfinite(end) else max(float(end), last)
        # Short runs (the textbook's seconds) play in real time; long or tiny ones
        # (a thousand ops, a measured run in milliseconds) play in about PLAY_SECONDS.
        self._rate = 1.0 if 1.0 <= self._end <= 2 * PLAY_SECONDS else self._end / PLAY_SECONDS
        # Clamp before telling anyone: a listener of timeline_changed reads `time` and must
        # find it inside the new run (a time of 3e6 on a 5 s run overflowed the slider).
        self._time = min(max(self._time, 0.0), self._end)
        self.timeline_changed.emit()
        self._set_time(self._time, force=True)

    @property
    def events(self) -> EventUnion:
        """The times it steps through (``len`` counts them; ``np.asarray`` lists them)."""
        return self._events

    @property
    def time_unit(self) -> str:
        """The unit of this clock's times ("s", "ms", "cycles", …)."""
        return self._unit

    def set_time_unit(self, unit: str) -> None:
        """Say which unit the times are in (listeners of timeline_changed re-read it)."""
        if unit != self._unit:
            self._unit = unit
            self.timeline_changed.emit()

    @property
    def end(self) -> float:
        return self._end

    @property
    def rate(self) -> float:
        """Schedule time per wall-clock second at 1×."""
        return self._rate

    # -- state ------------------------------------------------------------------------

    @property
    def time(self) -> float:
        return self._time

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    @property
    def speed(self) -> float:
        return self._speed

    def event_index(self) -> int:
        """Index of the last event at or before now."""
        return max(0, self._events.count_through(self._time + self._tolerance()) - 1)

    # -- transport ----------------------------------------------------------------------

    def play(self) -> None:
        if self.playing:
            return
        if self._time >= self._end - self._tolerance():
            self._set_time(0.0)
        self._last_wall = self._wall()
        self._timer.start()
        self.playing_changed.emit(True)

    def pause(self) -> None:
        if not self.playing:
            return
        self._timer.stop()
        self.playing_changed.emit(False)

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def step_forward(self) -> None:
        """Pause and go to the first event after now (or stay at the end)."""
        self.pause()
        later = self._events.first_after(self._time + self._tolerance())
        self._set_time(later if later is not None else self._end)

    def step_back(self) -> None:
        """Pause and go to the last event before now (or stay at 0)."""
        self.pause()
        earlier = self._events.last_before(self._time - self._tolerance())
        self._set_time(earlier if earlier is not None else 0.0)

    def to_start(self) -> None:
        self.pause()
        self._set_time(0.0)

    def to_end(self) -> None:
        self.pause()
        self._set_time(self._end)

    def seek(self, time: float) -> None:
        """Scrub to ``time`` (clamped, ±inf too); playback, if on, goes on from there. NaN
        is not a time: it is ignored (it would otherwise pass both clamps and reach every
        view)."""
        try:
            value = float(time)
        except (TypeError, ValueError, OverflowError):  # 10**400, or not a number at all
            return
        if value != value:
            return
        self._set_time(min(max(value, 0.0), self._end))

    def set_speed(self, speed: float) -> None:
        speed = float(min(max(speed, SPEEDS[0]), SPEEDS[-1]))
        if speed != self._speed:
            self._speed = speed
            self.speed_changed.emit(speed)

    def faster(self) -> None:
        bigger = [s for s in SPEEDS if s > self._speed]
        self.set_speed(bigger[0] if bigger else SPEEDS[-1])

    def slower(self) -> None:
        smaller = [s for s in SPEEDS if s < self._speed]
        self.set_speed(smaller[-1] if smaller else SPEEDS[0])

    def advance(self, wall_seconds: float) -> None:
        """Move on by ``wall_seconds`` of playback at the current speed; stop at the end."""
        target = self._time + wall_seconds * self._speed * self._rate
        if target >= self._end:
            self._set_time(self._end)
            self.pause()
        else:
            self._set_time(target)

    # -- internals ------------------------------------------------------------------------

    def _on_tick(self) -> None:
        now = self._wall()
        elapsed, self._last_wall = now - self._last_wall, now
        self.advance(max(0.0, elapsed))

    def _tolerance(self) -> float:
        return time_tolerance(self._end)

    def _set_time(self, value: float, force: bool = False) -> None:
        if value != self._time or force:
            self._time = value
            self.time_changed.emit(value)
