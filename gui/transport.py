"""The transport bar: to start, previous event, play/pause, next event, to end; speed; a
scrub slider; the time readout. It only talks to a `Clock`: the open tab's (each tab owns
one, see `gui.clock`), so `set_clock` hands the bar from one tab's clock to another's.

Every control has an accessible name and takes focus from the keyboard (Tab), not from a
mouse click: clicking a button leaves the focus where it was, so Space still plays."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMetaObject, QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QToolButton, QWidget

from engine.base.text import format_time
from gui.clock import SPEEDS, Clock
from gui.icons import icon
from gui.theme import dress

SLIDER_STEPS = 10_000

#: (icon name, accessible name, tooltip, the Clock method it calls)
BUTTONS: tuple[tuple[str, str, str, str], ...] = (
    ("to-start", "To the start", "To the start (Home)", "to_start"),
    ("previous", "Previous event", "Previous event (←)", "step_back"),
    ("play", "Play or pause", "Play / pause (Space)", "toggle"),
    ("next", "Next event", "Next event (→)", "step_forward"),
    ("to-end", "To the end", "To the end (End)", "to_end"),
)


def slider_position(time: float, end: float) -> int:
    """The slider step for ``time`` in a run of length ``end``, always in [0, SLIDER_STEPS]
    (QSlider takes a 32-bit int: a time beyond the end must never reach it unclamped)."""
    if not end > 0:
        return 0
    fraction = time / end
    if not math.isfinite(fraction):
        return SLIDER_STEPS if fraction > 0 else 0
    return round(SLIDER_STEPS * min(1.0, max(0.0, fraction)))


class TransportBar(QWidget):
    """Buttons, speed, slider and readout for one `Clock` at a time."""

    def __init__(self, clock: Clock, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._connections: list[QMetaObject.Connection] = []
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.buttons: dict[str, QToolButton] = {}
        for name, accessible, tip, method in BUTTONS:
            button = QToolButton(self)
            button.setToolTip(tip)
            button.setAccessibleName(accessible)
            button.setAutoRaise(True)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            button.clicked.connect(self._calls(method))
            layout.addWidget(button)
            self.buttons[name] = button
        self.speed = QComboBox(self)
        self.speed.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.speed.setToolTip("Playback speed (+ / −)")
        self.speed.setAccessibleName("Playback speed")
        for value in SPEEDS:
            self.speed.addItem(f"{value:g}×", value)
        self.speed.currentIndexChanged.connect(lambda i: self._clock.set_speed(SPEEDS[i]))
        layout.addWidget(self.speed)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.slider.setToolTip("Scrub through the run")
        self.slider.setAccessibleName("Time")
        self.slider.setAccessibleDescription(
            "Where the clock is in the run; the arrow keys step from event to event"
        )
        self.slider.valueChanged.connect(self._on_slider)
        layout.addWidget(self.slider, 1)
        self.readout = QLabel(self)
        dress(self.readout, "readout")
        self.readout.setAccessibleName("Time now")
        self.readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.readout)
        self._icon_colour = QColor("#1f2328")
        self.set_clock(clock)
        self.set_icon_colour(self._icon_colour)

    @property
    def clock(self) -> Clock:
        return self._clock

    def set_clock(self, clock: Clock) -> None:
        """Drive and show ``clock`` from now on (the previous clock keeps its time)."""
        for connection in self._connections:
            QObject.disconnect(connection)
        self._clock = clock
        self._connections = [
            clock.time_changed.connect(self._on_time),
            clock.timeline_changed.connect(self._on_timeline),
            clock.playing_changed.connect(self._on_playing),
            clock.speed_changed.connect(self._on_speed),
        ]
        self._on_speed(clock.speed)
        self._on_playing(clock.playing)
        self._on_timeline()

    def set_time_unit(self, unit: str) -> None:
        """Say the clock's times are in ``unit`` (the clock itself records it)."""
        self._clock.set_time_unit(unit)
        self._on_timeline()

    @property
    def time_unit(self) -> str:
        return self._clock.time_unit

    def _calls(self, method: str) -> Callable[[], None]:
        return lambda: getattr(self._clock, method)()

    def _on_timeline(self) -> None:
        self._fit_readout()
        self._on_time(self._clock.time)

    def _fit_readout(self) -> None:
        """Fix the readout's size to its widest text for this run: a label whose size may
        change makes the whole bar lay itself out again at every tick."""
        metrics = self.readout.fontMetrics()
        # format_time gives 3 significant digits below 1,000 of a unit ("88.8 ms") and the
        # whole number above, so no time of this run is wider than the wider of those two.
        unit = self.time_unit
        end = format_time(self._clock.end, unit)
        samples = (end, format_time(88.8, "ms"), format_time(88.8e-3, "ms"), f"88.8 {unit}")
        widest = max(metrics.horizontalAdvance(sample) for sample in samples)
        events = f"{len(self._clock.events):,}"
        rest = metrics.horizontalAdvance(f" / {end}  ·  event {events} of {events}")
        margins = self.readout.contentsMargins()
        width = widest + rest + margins.left() + margins.right() + 8
        height = max(self.readout.sizeHint().height(), metrics.height())
        self.readout.setFixedSize(max(190, width), height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_readout()  # the readout's font may have changed with the bar's

    def set_icon_colour(self, colour: QColor) -> None:
        """Icons in ``colour`` (the theme's text colour), rendered for every common device
        pixel ratio (`gui.icons.icon`): sharp at 200% scaling."""
        self._icon_colour = QColor(colour)
        for name, button in self.buttons.items():
            button.setIcon(icon(name, colour))
        self._on_playing(self._clock.playing)

    def _on_playing(self, playing: bool) -> None:
        self.buttons["play"].setIcon(icon("pause" if playing else "play", self._icon_colour))
        self.buttons["play"].setAccessibleName("Pause" if playing else "Play")

    def _on_speed(self, speed: float) -> None:
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(SPEEDS.index(speed) if speed in SPEEDS else 2)
        self.speed.blockSignals(False)

    def _on_time(self, time: float) -> None:
        end = self._clock.end
        self.slider.blockSignals(True)
        self.slider.setValue(slider_position(time, end))
        self.slider.blockSignals(False)
        events = len(self._clock.events)
        unit = self.time_unit
        self.readout.setText(
            f"{format_time(time, unit)} / {format_time(end, unit)}"
            f"  ·  event {self._clock.event_index() + 1:,} of {events:,}"
        )

    def _on_slider(self, value: int) -> None:
        self._clock.seek(self._clock.end * value / SLIDER_STEPS)
