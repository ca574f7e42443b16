"""The banner above the scenario form while an external run is shown (`gui.external_run`):
what is shown, in the run's own sentence, and the button back to the scenario. It renders
the app model's `external_changed`; the button reports `back_requested`."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from gui.elided_label import ElidedLabel
from gui.external_run import ExternalRun

BACK = "Back to the scenario"
#: Lines the run's sentence may take (a profile's file name can be long: elided beyond).
TEXT_LINES = 3


class ExternalBanner(QFrame):
    """Hidden while the form's scenario is shown; else its sentence and the way back."""

    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("externalBanner")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.text = ElidedLabel(parent=self, lines=TEXT_LINES)
        self.text.setObjectName("externalText")
        self.text.setAccessibleName("What is shown")
        self.note = QLabel("The form below describes the scenario, not this run.", self)
        self.note.setObjectName("description")
        self.note.setWordWrap(True)
        self.back = QPushButton(BACK, self)
        self.back.setToolTip("Show the scenario's runs again, as they were")
        self.back.clicked.connect(self.back_requested)
        layout.addWidget(self.text)
        layout.addWidget(self.note)
        layout.addWidget(self.back)
        self.hide()

    def show_external(self, external: ExternalRun | None) -> None:
        """Say what ``external`` is, or hide (None: the scenario's runs are shown)."""
        if external is None:
            self.hide()
            return
        self.text.setText(external.description)
        self.text.set_tip(external.title)
        self.show()
