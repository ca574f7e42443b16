"""The transport bar: to start, previous event, play/pause, next event, to end; speed; a
scrub slider; the time readout. It only talks to the `Clock`."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QToolButton, QWidget

from engine.view_model import format_time
from gui.clock import SPEEDS, Clock
from gui.icons import icon

SLIDER_STEPS = 10_000


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
    """Buttons, speed, slider and readout for one `Clock`."""

    def __init__(self, clock: Clock, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self._time_unit = "s"
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.buttons: dict[str, QToolButton] = {}
        actions = (
            ("to-start", "To the start (Home)", clock.to_start),
            ("previous", "Previous event (←)", clock.step_back),
            ("play", "Play / pause (Space)", clock.toggle),
            ("next", "Next event (→)", clock.step_forward),
            ("to-end", "To the end (End)", clock.to_end),
        )
        for name, tip, slot in actions:
            button = QToolButton(self)
            button.setToolTip(tip)
            button.setAutoRaise(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            layout.addWidget(button)
            self.buttons[name] = button
        self.speed = QComboBox(self)
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed.setToolTip("Playback speed (+ / −)")
        for value in SPEEDS:
            self.speed.addItem(f"{value:g}×", value)
        self.speed.setCurrentIndex(SPEEDS.index(clock.speed))
        self.speed.currentIndexChanged.connect(lambda i: clock.set_speed(SPEEDS[i]))
        layout.addWidget(self.speed)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slider.setToolTip("Scrub through the run")
        self.slider.valueChanged.connect(self._on_slider)
        layout.addWidget(self.slider, 1)
        self.readout = QLabel(self)
        self.readout.setObjectName("readout")
        self.readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.readout)
        clock.time_changed.connect(self._on_time)
        clock.timeline_changed.connect(self._on_timeline)
        clock.playing_changed.connect(self._on_playing)
        clock.speed_changed.connect(self._on_speed)
        self.set_icon_colour(QColor("#1f2328"))
        self._on_timeline()

    def set_time_unit(self, unit: str) -> None:
        self._time_unit = unit
        self._on_timeline()

    def _on_timeline(self) -> None:
        self._fit_readout()
        self._on_time(self._clock.time)

    def _fit_readout(self) -> None:
        """Fix the readout's size to its widest text for this run: a label whose size may
        change makes the whole bar lay itself out again at every tick."""
        self.readout.ensurePolished()
        metrics = self.readout.fontMetrics()
        widest = f"0.0001234 {self._time_unit}"  # the longest text format_time gives
        events = f"{len(self._clock.events):,}"
        text = f"{widest} / {widest}  ·  event {events} of {events}"
        margins = self.readout.contentsMargins()
        width = metrics.horizontalAdvance(text) + margins.left() + margins.right() + 8
        height = max(self.readout.sizeHint().height(), metrics.height())
        self.readout.setFixedSize(max(190, width), height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_readout()  # the stylesheet gives the readout its font

    def set_icon_colour(self, colour: QColor) -> None:
        self._icon_colour = QColor(colour)
        for name, button in self.buttons.items():
            button.setIcon(icon(name, colour))
        self._on_playing(self._clock.playing)

    def _on_playing(self, playing: bool) -> None:
        self.buttons["play"].setIcon(icon("pause" if playing else "play", self._icon_colour))

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
        self.readout.setText(
            f"{format_time(time, self._time_unit)} / {format_time(end, self._time_unit)}"
            f"  ·  event {self._clock.event_index() + 1} of {events}"
        )

    def _on_slider(self, value: int) -> None:
        self._clock.seek(self._clock.end * value / SLIDER_STEPS)
