"""Scenario controls: preset (with its description), ops, durations, buffers, workers per
unit, and the view (sequential / pipelined / both). The panel only reports edits; the
window applies them and calls `show_scenario` back (also to undo a rejected edit)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.scenario import MAX_OPS, MAX_WORKERS, Scenario, load_preset, preset_names
from engine.validation import MAX_DURATION

VIEWS = ("both", "sequential", "pipelined")
VIEW_WORDS = {
    "both": "both: sequential vs pipelined",
    "sequential": "sequential only",
    "pipelined": "pipelined only",
}


class ScenarioPanel(QWidget):
    """Form for the scenario. Emits ``edited(field, value)`` and ``preset_chosen(name)``."""

    edited = Signal(str, object)
    preset_chosen = Signal(str)
    view_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        form = QFormLayout()
        outer.addLayout(form)
        self.preset = QComboBox(self)
        self.preset.addItem("(custom)", "")
        for name in preset_names():
            scenario = load_preset(name)
            self.preset.addItem(scenario.name, name)
            self.preset.setItemData(self.preset.count() - 1, scenario.description, 3)
        self.preset.activated.connect(self._on_preset)
        form.addRow("Preset", self.preset)
        self.description = QLabel(self)
        self.description.setWordWrap(True)
        self.description.setObjectName("description")
        form.addRow(self.description)
        self.ops = QSpinBox(self)
        self.ops.setRange(1, MAX_OPS)
        self.ops.setGroupSeparatorShown(True)
        self.ops.setToolTip("Number of ops (each is read, computed, written)")
        form.addRow("Ops", self.ops)
        self.durations: dict[str, QDoubleSpinBox] = {}
        for stage in ("read", "compute", "write"):
            box = QDoubleSpinBox(self)
            box.setRange(0.0, MAX_DURATION)  # the engine's policy decides the rest
            box.setDecimals(2)
            box.setSingleStep(0.25)
            box.setSuffix(" s")
            box.setToolTip(f"{stage} time of every op (editing it makes all ops alike)")
            form.addRow(stage.capitalize(), box)
            self.durations[stage] = box
        self.buffers = QSpinBox(self)
        self.buffers.setRange(0, MAX_OPS)
        self.buffers.setSpecialValueText("unlimited")
        self.buffers.setToolTip(
            "Shared-memory slots (B). An op holds one from its read to its write. "
            "1 = sequential, 2 = double buffering, 0 = unlimited."
        )
        form.addRow("Buffers", self.buffers)
        self.workers: dict[str, QSpinBox] = {}
        for unit in ("load", "compute", "store"):
            box = QSpinBox(self)
            box.setRange(1, MAX_WORKERS)
            box.setToolTip(f"Workers of the {unit} unit")
            form.addRow(f"{unit.capitalize()} workers", box)
            self.workers[unit] = box
        self.view = QComboBox(self)
        for view in VIEWS:
            self.view.addItem(VIEW_WORDS[view], view)
        self.view.setToolTip("Which policies to show on the clock")
        self.view.activated.connect(lambda i: self.view_chosen.emit(VIEWS[i]))
        form.addRow("View", self.view)
        self.message = QLabel(self)
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.hide()
        outer.addWidget(self.message)
        outer.addStretch(1)
        self._connect()

    def _connect(self) -> None:
        self.ops.editingFinished.connect(lambda: self._emit("ops", self.ops.value()))
        for stage, box in self.durations.items():
            box.editingFinished.connect(lambda s=stage, b=box: self._emit(s, b.value()))
        self.buffers.editingFinished.connect(lambda: self._emit("buffers", self.buffers.value()))
        for unit, box in self.workers.items():
            box.editingFinished.connect(lambda u=unit, b=box: self._emit(f"{u}_workers", b.value()))
        self._shown: dict[str, Any] = {}

    def _emit(self, field: str, value: Any) -> None:
        shown = self._shown.get(field)
        box = self.durations.get(field)
        if box is not None and shown is not None:
            # The box rounds to its decimals (0.125 shows as 0.13): leaving it untouched
            # must not turn the scenario's own value into the rounded one.
            shown = _displayed(box, shown)
        if shown != value:
            self.edited.emit(field, value)

    def _on_preset(self, index: int) -> None:
        name = self.preset.itemData(index)
        if name:
            self.preset_chosen.emit(name)

    def show_scenario(self, scenario: Scenario, preset: str, view: str) -> None:
        """Fill the form from ``scenario`` (no signals) and remember what is shown.

        Only fields whose value differs are touched: the field the user just edited keeps
        its text and cursor, and an edit costs no needless relayout of the form.
        """
        widgets = [self.preset, self.ops, self.buffers, self.view]
        widgets += list(self.durations.values()) + list(self.workers.values())
        for widget in widgets:
            widget.blockSignals(True)
        index = max(0, self.preset.findData(preset) if preset else 0)
        if self.preset.currentIndex() != index:
            self.preset.setCurrentIndex(index)
        text = scenario.description or scenario.name
        if not scenario.uniform:
            text += " (ops have their own durations; editing one makes them all alike)"
        if self.description.text() != text:
            self.description.setText(text)
        _set_value(self.ops, scenario.n_ops)
        for stage, box in self.durations.items():
            _set_value(box, float(getattr(scenario, stage)[0]))
        _set_value(self.buffers, scenario.buffers)
        for unit, k in zip(("load", "compute", "store"), scenario.workers, strict=True):
            _set_value(self.workers[unit], k)
        if self.view.currentIndex() != VIEWS.index(view):
            self.view.setCurrentIndex(VIEWS.index(view))
        for widget in widgets:
            widget.blockSignals(False)
        self._shown = {"ops": scenario.n_ops, "buffers": scenario.buffers}
        self._shown |= {s: float(getattr(scenario, s)[0]) for s in self.durations}
        self._shown |= {
            f"{u}_workers": k
            for u, k in zip(("load", "compute", "store"), scenario.workers, strict=True)
        }

    def show_message(self, text: str) -> None:
        """Show (or, with "", hide) the inline message under the form."""
        self.message.setText(text)
        self.message.setVisible(bool(text))


def _displayed(box: QDoubleSpinBox, value: float) -> float:
    """The value ``box`` shows for ``value``: clamped to its range, rounded to its decimals."""
    return box.valueFromText(box.textFromValue(min(max(value, box.minimum()), box.maximum())))


def _set_value(box: QSpinBox | QDoubleSpinBox, value: float) -> None:
    """Set a spin box unless it shows that value already (keeps the user's text and cursor;
    a typed value that differs, e.g. one the window rejected, is put back)."""
    if box.value() != value or box.cleanText() != box.textFromValue(value):
        box.setValue(value)  # type: ignore[arg-type]
