"""Scenario controls: preset (with its description), ops, durations for every op, buffers,
workers per unit, the view (sequential / pipelined / both), the ops table (each op's own
durations), and pinning a run to compare later runs with. When the scenario is a pipeline
shape, the shape editor (`gui.shape_editor`: stages, units, pools) takes the place of the
book's durations, buffers and workers, and the ops table has a column per stage.

The panel only reports what the user did (its signals) and shows what it is told
(`show_change`, `show_view_mode`, `show_message`, `show_pins`): the app model decides. A
change it is shown touches only the widgets whose value differs, so the field just edited
keeps its text and cursor.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.base.text import span_text
from engine.model.scenario import MAX_OPS, MAX_WORKERS, Scenario, preset_names
from engine.model.schedule import STAGES, UNITS
from engine.model.shape_file import preset_titles
from gui.app_model import ScenarioChange, ShapeChange
from gui.duration_box import DurationBox
from gui.elided_label import ElidedLabel
from gui.ops_table import OpsTable
from gui.runs import VIEW_MODES as VIEWS
from gui.runs import Run
from gui.theme import dress

if TYPE_CHECKING:
    from gui.shape_editor import ShapeEditor

#: Lines the scenario's description, the pinned runs' names and a message may take in the
#: form (each is elided beyond, in full in its tooltip).
DESCRIPTION_LINES = 4
PINNED_LINES = 3
MESSAGE_LINES = 5

#: The ops table's tooltip: the book's (False) and a pipeline shape's (True).
OPS_TIPS = {
    False: "Read, compute and write time of each op. Edit a cell, or paste a column or a "
    "block copied from a spreadsheet (Ctrl+V at the first cell); pasting past the last op "
    "adds ops.",
    True: "Each op's time in each stage (a column per stage). Edit a cell, or paste a "
    "column or a block copied from a spreadsheet (Ctrl+V at the first cell); pasting past "
    "the last op adds ops.",
}

VIEW_WORDS = {
    "both": "both: sequential vs pipelined",
    "sequential": "sequential only",
    "pipelined": "pipelined only",
}


class ScenarioPanel(QWidget):
    """Form, ops table and pin buttons for the scenario.

    Signals: ``edited(field, value)`` (a form field), ``ops_edited(first_op, first_stage,
    block)`` (table cells), ``alike_requested(op)``, ``preset_chosen(name)``,
    ``view_chosen(mode)``, ``pin_requested()``, ``unpin_requested()``,
    ``shape_edited(ShapeEdit)`` (the shape editor).
    """

    edited = Signal(str, object)
    ops_edited = Signal(int, int, object)
    alike_requested = Signal(int)
    preset_chosen = Signal(str)
    view_chosen = Signal(str)
    pin_requested = Signal()
    unpin_requested = Signal()
    shape_edited = Signal(object)  # gui.shape_edits.ShapeEdit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 8, 8, 8)
        self.form = form = QFormLayout()
        outer.addLayout(form)
        self.preset = QComboBox(self)
        self.preset.addItem("(custom)", "")
        books = preset_names()
        for name, title, description in preset_titles():  # pipeline shapes last
            self.preset.addItem(title, name)
            self.preset.setItemData(self.preset.count() - 1, description, 3)
            if name == books[-1]:
                self.preset.insertSeparator(self.preset.count())
        # Its width is the form's, whatever the presets' names (a long shape's name would
        # widen the window); the list shows each name whole.
        self.preset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.preset.setMinimumContentsLength(12)
        self.preset.view().setMinimumWidth(self.preset.view().sizeHintForColumn(0))
        self.preset.activated.connect(self._on_preset)
        form.addRow("Preset", self.preset)
        self.description = ElidedLabel(parent=self, lines=DESCRIPTION_LINES)
        dress(self.description, "description")
        form.addRow(self.description)
        self.ops = QSpinBox(self)
        self.ops.setRange(1, MAX_OPS)
        self.ops.setGroupSeparatorShown(True)
        self.ops.setToolTip("Number of ops (each is read, computed, written)")
        form.addRow("Ops", self.ops)
        self.durations: dict[str, DurationBox] = {}
        for stage in STAGES:
            box = DurationBox(self)
            box.setToolTip(
                f"{stage} time of every op in seconds: 0, or 1e-6 to 1e9 (the other stages "
                "keep each op's own)"
            )
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
        for unit in UNITS:
            workers = QSpinBox(self)
            workers.setRange(1, MAX_WORKERS)
            workers.setToolTip(f"Workers of the {unit} unit")
            form.addRow(f"{unit.capitalize()} workers", workers)
            self.workers[unit] = workers
        self._shape_editor: ShapeEditor | None = None  # (built when a shape first opens)
        self._shape_row = form.rowCount()  # (its row: under the workers)
        self._book_rows: list[QWidget] = [*self.durations.values(), self.buffers]
        self._book_rows += list(self.workers.values())
        self._shape_shown = False
        self.view = QComboBox(self)
        for view in VIEWS:
            self.view.addItem(VIEW_WORDS[view], view)
        self.view.setToolTip("Which policies to show on the clock")
        self.view.activated.connect(lambda i: self.view_chosen.emit(VIEWS[i]))
        form.addRow("View", self.view)

        ops_row = QHBoxLayout()
        ops_row.addWidget(QLabel("<b>Each op</b>", self))
        ops_row.addStretch(1)
        self.alike = QPushButton("Make all alike", self)
        self.alike.setToolTip("Every op takes the durations of the selected op (else op 1)")
        self.alike.clicked.connect(self._on_alike)
        ops_row.addWidget(self.alike)
        outer.addLayout(ops_row)
        self.table = OpsTable(self)
        self.table.setMinimumHeight(6 * 22)
        self.table.ops.block_edited.connect(self.ops_edited)
        self.table.paste_failed.connect(self.show_message)
        outer.addWidget(self.table, 1)

        pin_row = QHBoxLayout()
        self.pin = QPushButton("Pin this run", self)
        self.pin.setToolTip(
            "Keep the current run on the clock as a reference: later edits are shown "
            "beside it, with the difference"
        )
        self.pin.clicked.connect(self.pin_requested)
        self.unpin = QPushButton("Unpin", self)
        self.unpin.setToolTip("Remove the pinned runs")
        self.unpin.clicked.connect(self.unpin_requested)
        self.unpin.setEnabled(False)
        pin_row.addWidget(self.pin)
        pin_row.addWidget(self.unpin)
        outer.addLayout(pin_row)
        self.pinned = ElidedLabel(parent=self, lines=PINNED_LINES)
        dress(self.pinned, "description")
        self.pinned.hide()
        outer.addWidget(self.pinned)
        self.message = ElidedLabel(parent=self, lines=MESSAGE_LINES)
        dress(self.message, "message")
        self.message.hide()
        outer.addWidget(self.message)
        self._shown: dict[str, Any] = {}
        self._connect()

    def _connect(self) -> None:
        self.ops.editingFinished.connect(lambda: self._emit("ops", self.ops.value()))
        for stage, duration in self.durations.items():
            duration.editingFinished.connect(lambda s=stage, b=duration: self._emit(s, b.value()))
        self.buffers.editingFinished.connect(lambda: self._emit("buffers", self.buffers.value()))
        for unit, box in self.workers.items():
            box.editingFinished.connect(lambda u=unit, b=box: self._emit(f"{u}_workers", b.value()))

    def _emit(self, field: str, value: Any) -> None:
        shown = self._shown.get(field)
        box = self.durations.get(field)
        if box is not None and box.shows_range:
            return  # left untouched: each op keeps its own duration
        if box is not None and shown is not None:
            # The box shows twelve significant digits (0.1 + 0.2 reads 0.3): leaving it
            # untouched must not turn the scenario's own value into the one shown.
            shown = _displayed(box, shown)
        if shown != value or (box is not None and box.replaces_range):
            self.edited.emit(field, value)

    def tab_chain(self) -> list[QWidget]:
        """The form's controls in the order Tab visits them: top to bottom."""
        chain: list[QWidget] = [self.preset, self.ops, *self.durations.values(), self.buffers]
        chain += [*self.workers.values()]
        chain += self._shape_editor.tab_chain() if self._shape_editor is not None else []
        chain += [self.view, self.alike, self.table]
        return [*chain, self.pin, self.unpin]

    @property
    def shape_editor(self) -> ShapeEditor:
        """The shape editor (stages, units, pools), under the book's fields, hidden until a
        pipeline shape is the scenario; built then, not at start-up (its module and three
        tables, about 15 ms the first screen does not need)."""
        if self._shape_editor is None:
            from gui.shape_editor import ShapeEditor

            editor = ShapeEditor(self)
            editor.edited.connect(self.shape_edited)
            self.form.insertRow(self._shape_row, editor)
            self.form.setRowVisible(editor, False)
            chain = [self.workers[UNITS[-1]], *editor.tab_chain(), self.view]
            for first, second in itertools.pairwise(chain):  # (its place in the Tab order)
                QWidget.setTabOrder(first, second)
            self._shape_editor = editor
        return self._shape_editor

    def _on_preset(self, index: int) -> None:
        name = self.preset.itemData(index)
        if name:
            self.preset_chosen.emit(name)

    def _on_alike(self) -> None:
        current = self.table.currentIndex()
        self.alike_requested.emit(current.row() if current.isValid() else 0)

    # -- what the model says -------------------------------------------------------------------

    def show_change(self, change: ScenarioChange) -> None:
        """Show a new or edited scenario: widgets whose value differs, the description,
        and the ops table when the ops changed."""
        scenario = change.scenario
        widgets = [self.preset, self.ops, self.buffers, *self.durations.values()]
        widgets += list(self.workers.values())
        for widget in widgets:
            widget.blockSignals(True)
        index = max(0, self.preset.findData(change.preset) if change.preset else 0)
        if self.preset.currentIndex() != index:
            self.preset.setCurrentIndex(index)
        text = scenario.description or scenario.name
        if self.description.text() != text:
            self.description.setText(text)
        _set_value(self.ops, scenario.n_ops)
        for stage, box in self.durations.items():
            values = getattr(scenario, stage)
            _set_value(box, float(values[0]))
            low, high = float(values.min()), float(values.max())
            varies = low != high
            box.show_range(span_text(low, high) if varies else None)
            label = self.form.labelForField(box)
            if isinstance(label, QLabel):
                label.setText(f"{stage.capitalize()}{' (varies)' if varies else ''}")
        _set_value(self.buffers, scenario.buffers)
        for unit, k in zip(UNITS, scenario.workers, strict=True):
            _set_value(self.workers[unit], k)
        for widget in widgets:
            widget.blockSignals(False)
        if change.fields & {"all", "ops", "durations", *STAGES}:
            self.table.ops.set_scenario(scenario)
        self._shown = {"ops": scenario.n_ops, "buffers": scenario.buffers}
        self._shown |= {s: float(getattr(scenario, s)[0]) for s in STAGES}
        self._shown |= {f"{u}_workers": k for u, k in zip(UNITS, scenario.workers, strict=True)}

    @property
    def shows_shape(self) -> bool:
        """Whether the form shows the shape editor (the scenario is a pipeline shape)."""
        return self._shape_shown

    def show_shape(self, change: ShapeChange) -> None:
        """A pipeline shape is the scenario (or, ``change.shape`` None, no longer is): the
        shape editor in place of the book's fields, the ops table a column per stage."""
        scenario = change.shape
        if (scenario is not None) != self._shape_shown:
            self._shape_shown = scenario is not None
            for widget in self._book_rows:
                self.form.setRowVisible(widget, not self._shape_shown)
            self.form.setRowVisible(self.shape_editor, self._shape_shown)
            self.ops.setToolTip(
                "Number of ops (each runs every stage in order)"
                if self._shape_shown
                else "Number of ops (each is read, computed, written)"
            )
            self.table.setToolTip(OPS_TIPS[self._shape_shown])
        if scenario is None:
            return
        self.preset.blockSignals(True)
        index = max(0, self.preset.findData(change.preset) if change.preset else 0)
        if self.preset.currentIndex() != index:
            self.preset.setCurrentIndex(index)
        self.preset.blockSignals(False)
        text = scenario.description or scenario.name
        if self.description.text() != text:
            self.description.setText(text)
        self.ops.blockSignals(True)
        _set_value(self.ops, scenario.n_ops)
        self.ops.blockSignals(False)
        self.shape_editor.show_shape(scenario)
        times = scenario.times
        columns = tuple(times[:, i] for i in range(times.shape[1]))
        self.table.ops.set_columns(columns, scenario.shape.stages)
        self._shown = {"ops": scenario.n_ops}

    def show_scenario(self, scenario: Scenario, preset: str, view: str) -> None:
        """Fill the whole form from ``scenario`` (and the view)."""
        self.show_change(ScenarioChange(scenario, preset, frozenset({"all"})))
        self.show_view_mode(view)

    def show_view_mode(self, view: str) -> None:
        if self.view.currentIndex() != VIEWS.index(view):
            self.view.blockSignals(True)
            self.view.setCurrentIndex(VIEWS.index(view))
            self.view.blockSignals(False)

    def restore_field(self, field: str, message: str = "") -> None:
        """Put back the value shown before a refused edit of ``field``."""
        if self._shape_shown and field != "ops":
            self.shape_editor.restore()
            return
        boxes: dict[str, QSpinBox | QDoubleSpinBox] = {"ops": self.ops, "buffers": self.buffers}
        boxes |= self.durations
        boxes |= {f"{u}_workers": box for u, box in self.workers.items()}
        box = boxes.get(field)
        if box is not None and field in self._shown:
            box.blockSignals(True)
            box.setValue(self._shown[field])
            box.blockSignals(False)
        if isinstance(box, DurationBox):
            box.show_range_again()

    def show_message(self, text: str) -> None:
        """Show (or, with "", hide) the inline message under the form."""
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def show_pins(self, pins: tuple[Run, ...]) -> None:
        self.unpin.setEnabled(bool(pins))
        self.unpin.setText("Unpin all" if len(pins) > 1 else "Unpin")
        names = [p.title.removeprefix("pinned: ") for p in pins]
        self.pinned.setText("Pinned: " + "; ".join(names) if names else "")
        self.pinned.setVisible(bool(pins))


def _displayed(box: QDoubleSpinBox, value: float) -> float:
    """The value ``box`` shows for ``value``: clamped to its range, in the digits it shows."""
    return box.valueFromText(box.textFromValue(min(max(value, box.minimum()), box.maximum())))


def _set_value(box: QSpinBox | QDoubleSpinBox, value: float) -> None:
    """Set a spin box unless it shows that value already (keeps the user's text and cursor;
    a typed value that differs, e.g. one the window rejected, is put back)."""
    if isinstance(box, QSpinBox):
        if box.value() != value or box.cleanText() != box.textFromValue(int(value)):
            box.setValue(int(value))
    elif box.value() != value or box.cleanText() != box.textFromValue(value):
        box.setValue(value)
