"""The Pipeline tab's heading: what the shown run is ("The book example with 2 slots"), how it
compares with the pinned ones ("2 slots: 6 s · 3 slots: 5 s (1 s faster)"), and a light
"updating…" while a newer run is being computed. It renders the app model's news
(`gui.app_model.AppModel`: `shown_changed`, `busy_changed`); it decides nothing."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.text import unbreakable_values
from gui.elided_label import ElidedLabel
from gui.runs import Shown


class RunHeading(QWidget):
    """Title, busy word and comparison line of the shown run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 12, 0)
        self.title = ElidedLabel(parent=self)
        self.title.setObjectName("title")
        line.addWidget(self.title, 1)
        self.busy = QLabel("updating…", self)
        self.busy.setObjectName("description")
        self.busy.setToolTip("The new run is being computed; the last one stays shown")
        self.busy.hide()
        line.addWidget(self.busy)
        layout.addLayout(line)
        self.comparison = QLabel(self)
        self.comparison.setObjectName("description")
        self.comparison.setContentsMargins(12, 0, 12, 4)
        self.comparison.setWordWrap(True)
        self.comparison.hide()
        layout.addWidget(self.comparison)

    def show_run(self, shown: Shown) -> None:
        """The shown run's title (its scenario's description as the tooltip, the whole
        title too when it is cut) and, with pins, its comparison with them."""
        self.title.setText(shown.title)
        scenario = shown.current.scenario
        self.title.set_tip(
            scenario.description if scenario is not None else shown.current.description
        )
        lines = (html.escape(unbreakable_values(line)) for line in shown.comparisons)
        self.comparison.setText("<br>".join(lines))
        self.comparison.setVisible(bool(shown.comparisons))

    def set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)


def figure_title(shown: Shown | None) -> str:
    """An exported figure's title: the run's, and with pins the comparison (a figure says
    what it compares)."""
    if shown is None:
        return ""
    if not shown.comparisons:
        return shown.title
    return f"{shown.title} · " + " · ".join(shown.comparisons)
