"""The Pipeline tab's heading: what the shown run is ("The book example with 2 slots"), the
lesson of the run where the eye lands first ("sequential 9 s → pipelined 5 s, 1.8× faster ·
bottleneck: …", `lesson_line`), how it compares with the pinned ones ("2 slots: 6 s · 3
slots: 5 s (1 s faster)"), and a light "updating…" while a newer run is being computed. It
renders the app model's news (`gui.app_model.AppModel`: `shown_changed`, `busy_changed`); it
decides nothing."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.analysis.metrics import speedup
from engine.base.text import format_time, number_text, unbreakable_values
from gui.elided_label import ElidedLabel
from gui.runs import Run, Shown
from gui.theme import dress


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
        dress(self.title, "title")
        line.addWidget(self.title, 1)
        # The lesson's numbers on the title's line, where the eye lands first (no extra
        # height: the window's least height stays put); cut with "…" in a narrow window,
        # whole on hover.
        self.lesson = ElidedLabel(parent=self)
        dress(self.lesson, "headline")
        self.lesson.setContentsMargins(12, 0, 0, 0)
        self.lesson.hide()
        line.addWidget(self.lesson, 1)  # (a share of the spare room: its hint stops at 480 px)
        self.busy = QLabel("updating…", self)
        dress(self.busy, "description")
        self.busy.setToolTip("The new run is being computed; the last one stays shown")
        self.busy.hide()
        line.addWidget(self.busy)
        layout.addLayout(line)
        self.comparison = QLabel(self)
        dress(self.comparison, "description")
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
        lesson, why = lesson_line(shown)
        self.lesson.setText(lesson)
        self.lesson.set_tip(
            "The current run's makespans, how much faster pipelining is, and what binds "
            f"the last run{f' ({why})' if why else ''}. The Stats dock says how each was "
            "obtained."
        )
        self.lesson.setVisible(bool(lesson))
        # One paragraph, wrapped where the width ends rather than a line per pin: three
        # pins took three lines of the height the Gantt's rows need at 1280 × 800.
        lines = (html.escape(unbreakable_values(line)) for line in shown.comparisons)
        self.comparison.setText("; ".join(lines))
        self.comparison.setVisible(bool(shown.comparisons))

    def set_busy(self, busy: bool) -> None:
        self.busy.setVisible(busy)


def lesson_line(shown: Shown) -> tuple[str, str]:
    """The current run's lesson in one line: its makespans ("sequential 9 s → pipelined
    5 s, 1.8× faster") and what binds its last Schedule ("· bottleneck: buffer slots"),
    from the engine's stats; and the bottleneck's why ("each op holds the only slot for
    3 s: one op every 3 s"), for the tooltip."""
    run = shown.current
    schedules = run.schedules
    if not schedules:
        return "", ""
    imported = _imported_lesson(run)
    if imported is not None:
        return imported
    spans = [f"{s.label or s.policy} {format_time(s.makespan, s.time_unit)}" for s in schedules]
    line = " → ".join(spans)
    first, last = schedules[0], schedules[-1]
    if len(schedules) > 1 and first.makespan > 0 and last.makespan > 0:
        factor = speedup(first, last)
        if abs(factor - 1) < 0.005:
            line += ", no faster"
        elif factor > 1:
            line += f", {number_text(factor)}× faster"
        else:
            line += f", {number_text(1 / factor)}× slower"
    why = ""
    if run.results.get("stats"):
        lines = run.stats[-1].lines
        neck = next((x.value for x in lines if x.label == "bottleneck"), "")
        if neck:
            what, _, why = neck.partition(": ")
            line += f" · bottleneck: {what}"
    return unbreakable_values(line), why


def _imported_lesson(run: Run) -> tuple[str, str] | None:
    """A recorded profile's lesson (its first device's stats, `gpu.profile.stats`): how much
    of the copying was hidden and what perfect overlap could save; None for other runs.
    Devices are not compared with each other: their lanes are side by side, not a
    before and after."""
    if not run.results.get("stats"):
        return None
    values = {line.label: line for line in run.stats[0].lines}
    if "copies hidden" not in values:
        return None
    line = (
        f"measured {values['makespan'].value} · copies {values['copies hidden'].value} hidden · "
        f"headroom {values['headroom'].value} · bottleneck: {values['bottleneck'].value}"
    )
    return unbreakable_values(line), values["bottleneck"].how


def figure_title(shown: Shown | None) -> str:
    """An exported figure's title: the run's, and with pins the comparison (a figure says
    what it compares)."""
    if shown is None:
        return ""
    if not shown.comparisons:
        return shown.title
    return f"{shown.title} · " + " · ".join(shown.comparisons)
