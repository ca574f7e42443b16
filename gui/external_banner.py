"""The banner above the scenario form while an external run is shown (`gui.external_run`):
what is shown, in the run's own sentence, and the button back to the scenario. It renders
the app model's `external_changed`; the button reports `back_requested`."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.elided_label import ElidedLabel
from gui.external_run import ExternalRun
from gui.theme import dress, rule_colour

BACK = "Back to the scenario"
#: Lines the run's sentence may take (a profile's file name can be long: elided beyond).
TEXT_LINES = 3


class ExternalBanner(QFrame):
    """Hidden while the form's scenario is shown; else its sentence and the way back."""

    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        dress(self, "externalBanner")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.text = ElidedLabel(parent=self, lines=TEXT_LINES)
        dress(self.text, "externalText")
        self.text.setAccessibleName("What is shown")
        self.note = QLabel("The form below describes the scenario, not this run.", self)
        dress(self.note, "description")
        self.note.setWordWrap(True)
        self.back = QPushButton(BACK, self)
        self.back.setToolTip("Show the scenario's runs again, as they were")
        self.back.clicked.connect(self.back_requested)
        layout.addWidget(self.text)
        layout.addWidget(self.note)
        layout.addWidget(self.back)
        self.hide()

    def paintEvent(self, event: QPaintEvent) -> None:
        """A thin rounded frame in the role's rule colour."""
        colour = rule_colour(self)
        if colour is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(colour)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.end()

    def show_external(self, external: ExternalRun | None) -> None:
        """Say what ``external`` is, or hide (None: the scenario's runs are shown)."""
        if external is None:
            self.hide()
            return
        self.text.setText(external.description)
        self.text.set_tip(external.title)
        self.show()
