"""The Scenario form's editor of a pipeline shape: three small tables, each with its
buttons: Stages (name, unit, time of every op; add, remove, move up and down), Units (name,
workers, the stages it runs; add, remove) and Pools (name, slots, from and to stage; add,
remove).

Like the rest of the form it only reports what the user did (``edited``, a
`gui.shape_edits.ShapeEdit`) and shows the shape it is given (`show_shape`); a refused
edit is put back (`restore`). Names are edited in their cell; units, stages, workers,
slots and times in the widgets the cells hold (always in view: a combo box says it is
one). Renaming a unit or a stage renames it everywhere it is chosen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.base.text import span_text
from engine.model.scenario import MAX_OPS, MAX_WORKERS
from engine.model.shape import MAX_STAGES
from engine.model.shape_file import ShapedScenario
from gui.duration_box import DurationBox
from gui.shape_edits import MAX_POOLS, ShapeEdit, idle_units

#: Extra height of a table beyond its rows: its header's and its frame's.
_FRAME = 4


class ShapeTable(QTableWidget):
    """A short table that is as tall as its rows (the form scrolls, not the table); its
    first column (the names) stretches, the others fit their widgets. A widget in a cell
    that gets the focus makes its row the current one (what the buttons act on); Delete
    asks to remove that row (``delete_pressed``)."""

    delete_pressed = Signal()

    def __init__(
        self,
        headers: list[str],
        tips: list[str],
        stretch: tuple[int, ...] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(0, len(headers), parent)
        self.setHorizontalHeaderLabels(headers)
        for column, tip in enumerate(tips):
            label = self.horizontalHeaderItem(column)
            if label is not None:
                label.setToolTip(tip)
        self.verticalHeader().hide()
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in stretch:  # (text columns: elided, never wider than the form)
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(48)
        self.row_height = max(26, QComboBox().sizeHint().height() + 2)
        self.verticalHeader().setDefaultSectionSize(self.row_height)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.fit_rows()

    def fit_rows(self) -> None:
        """As tall as its rows (one row's height when it has none)."""
        rows = max(1, self.rowCount())
        self.setFixedHeight(
            self.horizontalHeader().sizeHint().height() + rows * self.row_height + _FRAME
        )

    def name_item(self, row: int, text: str) -> None:
        """Row ``row``'s name cell shows ``text`` (created when missing)."""
        item = self.item(row, 0)
        if item is None:
            item = QTableWidgetItem()
            self.setItem(row, 0, item)
        if item.text() != text:
            item.setText(text)
        item.setToolTip(f"{text} (double-click or type to rename)")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        editing = self.state() == QAbstractItemView.State.EditingState
        if event.key() == Qt.Key.Key_Delete and not editing and self.currentRow() >= 0:
            self.delete_pressed.emit()
        else:
            super().keyPressEvent(event)

    def place(self, row: int, column: int, widget: QWidget) -> None:
        widget.installEventFilter(self)
        self.setCellWidget(row, column, widget)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FocusIn and isinstance(watched, QWidget):
            index = self.indexAt(watched.geometry().center())
            if index.isValid() and index.row() != self.currentRow():
                self.setCurrentCell(index.row(), index.column())
        return super().eventFilter(watched, event)


def _combo(names: tuple[str, ...], tip: str) -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    combo.setToolTip(tip)
    combo.addItems(list(names))
    return combo


def _set_choices(combo: QComboBox, names: tuple[str, ...], current: int) -> None:
    combo.blockSignals(True)
    if tuple(combo.itemText(i) for i in range(combo.count())) != names:
        combo.clear()
        combo.addItems(list(names))
        combo.view().setMinimumWidth(combo.view().sizeHintForColumn(0) + 8)
    combo.setCurrentIndex(current)
    combo.setToolTip(names[current] if 0 <= current < len(names) else "")
    combo.blockSignals(False)


def _spin(low: int, high: int, tip: str, unlimited: bool = False) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setGroupSeparatorShown(True)
    box.setToolTip(tip)
    box.setFrame(False)
    if unlimited:
        box.setSpecialValueText("unlimited")
    return box


def _set_spin(box: QSpinBox, value: int) -> None:
    if box.value() != value or box.cleanText() != box.textFromValue(value):
        box.blockSignals(True)
        box.setValue(value)
        box.blockSignals(False)


class ShapeEditor(QWidget):
    """Stages, units and pools of a `ShapedScenario`, editable; see the module."""

    edited = Signal(object)  # ShapeEdit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scenario: ShapedScenario | None = None
        self._select: tuple[QTableWidget, int] | None = None  # the row to make current
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.stages = ShapeTable(
            ["Stage", "Unit", "Time, every op"],
            [
                "Each op runs the stages in order, top to bottom (1 to 8)",
                "The unit whose workers run the stage",
                "The stage's time in every op (the ops table below gives each op its own)",
            ],
            stretch=(1,),
        )
        self.stage_add = self._button("Add", "A stage after the selected one (1 s, same unit)")
        self.stage_remove = self._button("Remove", "Remove the selected stage")
        self.stage_up = self._button(
            "Up", "Move the selected stage one earlier", Qt.ArrowType.UpArrow
        )
        self.stage_down = self._button(
            "Down", "Move the selected stage one later", Qt.ArrowType.DownArrow
        )
        self._section(
            layout, "Stages", self.stages, self.stage_add, self.stage_remove, self.stage_up,
            self.stage_down,
        )  # fmt: skip
        self.units = ShapeTable(
            ["Unit", "Workers", "Runs"],
            [
                "A unit of identical workers (TMA, tensor cores, a copy engine…)",
                "How many stages of different ops the unit runs at once",
                "The stages on this unit (a unit that runs none is left out when saved)",
            ],
            stretch=(2,),
        )
        self.unit_add = self._button("Add", "A unit of one worker (choose it for a stage)")
        self.unit_remove = self._button("Remove", "Remove the selected unit (no stage on it)")
        self._section(layout, "Units", self.units, self.unit_add, self.unit_remove)
        self.pools = ShapeTable(
            ["Pool", "Slots", "From", "To"],
            [
                "Buffers an op holds while it is between two stages",
                "How many ops may hold a slot at once (0: unlimited)",
                "An op takes a slot before this stage starts",
                "…and gives it back when this stage ends",
            ],
            stretch=(1, 2, 3),  # (a narrow dock: every column gives way, none falls off)
        )
        self.pool_add = self._button("Add", "A pool of 2 slots from the first stage to the last")
        self.pool_remove = self._button("Remove", "Remove the selected pool")
        self._section(layout, "Pools", self.pools, self.pool_add, self.pool_remove)
        self._connect()

    # -- building ----------------------------------------------------------------------------

    def _button(self, text: str, tip: str, arrow: Qt.ArrowType | None = None) -> QToolButton:
        """A button as wide as its word (a push button's style minimum would make the
        Stages row wider than the dock at 1280×800); ``arrow``: an arrow in its place."""
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        if arrow is not None:
            button.setArrowType(arrow)
        return button

    def _section(
        self, layout: QVBoxLayout, title: str, table: QTableWidget, *buttons: QToolButton
    ) -> None:
        row = QHBoxLayout()
        row.setSpacing(4)
        row.addWidget(QLabel(f"<b>{title}</b>", self))
        row.addStretch(1)
        for button in buttons:
            row.addWidget(button)
        layout.addLayout(row)
        table.setParent(self)
        layout.addWidget(table)

    def _connect(self) -> None:
        self.stage_add.clicked.connect(lambda: self._add(self.stages, "add_stage"))
        self.stage_remove.clicked.connect(lambda: self._on_row(self.stages, "remove_stage"))
        self.stage_up.clicked.connect(lambda: self._move(-1))
        self.stage_down.clicked.connect(lambda: self._move(1))
        self.unit_add.clicked.connect(lambda: self._add(self.units, "add_unit"))
        self.unit_remove.clicked.connect(lambda: self._on_row(self.units, "remove_unit"))
        self.pool_add.clicked.connect(lambda: self._add(self.pools, "add_pool"))
        self.pool_remove.clicked.connect(lambda: self._on_row(self.pools, "remove_pool"))
        for table, what in ((self.stages, "stage"), (self.units, "unit"), (self.pools, "pool")):
            table.delete_pressed.connect(lambda t=table, w=what: self._on_row(t, f"remove_{w}"))
            table.itemChanged.connect(lambda item, w=what: self._on_name(item, w))
            table.currentCellChanged.connect(lambda *_: self._enable())

    def tab_chain(self) -> list[QWidget]:
        """Its tables and buttons in the order Tab visits them."""
        return [
            self.stage_add, self.stage_remove, self.stage_up, self.stage_down, self.stages,
            self.unit_add, self.unit_remove, self.units,
            self.pool_add, self.pool_remove, self.pools,
        ]  # fmt: skip

    # -- what the user did -----------------------------------------------------------------------

    def _emit(self, what: str, index: int = -1, value: Any = None) -> None:
        self.edited.emit(ShapeEdit(what, index, value))

    def _add(self, table: QTableWidget, what: str) -> None:
        row = table.currentRow()
        if what == "add_stage":
            self._select = (table, row + 1 if row >= 0 else table.rowCount())
            self._emit(what, row)
        else:
            self._select = (table, table.rowCount())
            self._emit(what)

    def _on_row(self, table: QTableWidget, what: str) -> None:
        row = table.currentRow()
        if row >= 0:
            self._select = (table, max(0, min(row, table.rowCount() - 2)))
            self._emit(what, row)

    def _move(self, step: int) -> None:
        row = self.stages.currentRow()
        if row >= 0:
            self._select = (self.stages, row + step)
            self._emit("move_stage", row, step)

    def _on_name(self, item: QTableWidgetItem, what: str) -> None:
        if item.column() == 0 and self._scenario is not None:
            names = self._names(what)
            row = item.row()
            if row < len(names) and item.text() != names[row]:
                self._emit(f"{what}_name", row, item.text())

    def _names(self, what: str) -> tuple[str, ...]:
        assert self._scenario is not None
        shape = self._scenario.shape
        if what == "stage":
            return shape.stages
        if what == "unit":
            return shape.units
        return tuple(p.name for p in shape.pools)

    def _on_time(self, row: int, box: DurationBox) -> None:
        if self._scenario is None or self.stages.cellWidget(row, 2) is not box:
            return  # (a removed row's field, losing the focus on its way out)
        if box.shows_range:
            return  # left untouched: each op keeps its own time
        shown = float(self._scenario.times[0, row])
        typed = box.value()
        if box.replaces_range or box.valueFromText(box.textFromValue(shown)) != typed:
            self._emit("stage_time", row, typed)

    def _on_spin(self, what: str, row: int, box: QSpinBox, shown: Callable[[], int]) -> None:
        table = self.units if what == "unit_workers" else self.pools
        if table.cellWidget(row, 1) is not box:
            return  # (a removed row's field, losing the focus on its way out)
        if self._scenario is not None and box.value() != shown():
            self._emit(what, row, box.value())

    # -- what the model says ---------------------------------------------------------------

    def show_shape(self, scenario: ShapedScenario) -> None:
        """Show ``scenario``'s stages, units and pools (widgets whose value is the same are
        left alone: the one being edited keeps its text)."""
        self._scenario = scenario
        for table in (self.stages, self.units, self.pools):
            table.blockSignals(True)
        try:
            self._show_stages(scenario)
            self._show_units(scenario)
            self._show_pools(scenario)
        finally:
            for table in (self.stages, self.units, self.pools):
                table.blockSignals(False)
        if self._select is not None:
            chosen, row = self._select
            self._select = None
            if 0 <= row < chosen.rowCount():
                chosen.setCurrentCell(row, 0)
        self._enable()

    def restore(self) -> None:
        """Put back what the shape says over a refused edit (a name, a number, a choice)."""
        self._select = None
        if self._scenario is not None:
            for row in range(self.stages.rowCount()):
                box = self.stages.cellWidget(row, 2)
                if isinstance(box, DurationBox):
                    box.show_range_again()
            self.show_shape(self._scenario)

    def _rows(self, table: ShapeTable, n: int) -> None:
        if table.rowCount() != n:
            table.setRowCount(n)
            table.fit_rows()

    def _show_stages(self, scenario: ShapedScenario) -> None:
        shape, table = scenario.shape, self.stages
        self._rows(table, len(shape.stages))
        for row, (name, unit) in enumerate(zip(shape.stages, shape.stage_units, strict=True)):
            table.name_item(row, name)
            combo = table.cellWidget(row, 1)
            if not isinstance(combo, QComboBox):
                combo = _combo(shape.units, "")
                combo.activated.connect(lambda i, r=row: self._emit("stage_unit", r, i))
                table.place(row, 1, combo)
            _set_choices(combo, shape.units, unit)
            box = table.cellWidget(row, 2)
            if not isinstance(box, DurationBox):
                box = DurationBox()
                box.setFrame(False)
                box.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
                box.setMinimumWidth(86)
                box.setToolTip(f"{name}'s time in every op, in seconds")
                box.editingFinished.connect(lambda r=row, b=box: self._on_time(r, b))
                table.place(row, 2, box)
            values = scenario.times[:, row]
            low, high = float(np.min(values)), float(np.max(values))
            box.blockSignals(True)
            box.setValue(float(values[0]))
            box.show_range(span_text(low, high) if low != high else None)
            box.blockSignals(False)
            box.setToolTip(f"{name}'s time in every op, in seconds")

    def _show_units(self, scenario: ShapedScenario) -> None:
        shape, table = scenario.shape, self.units
        self._rows(table, len(shape.units))
        idle = idle_units(shape)
        for row, (name, k) in enumerate(zip(shape.units, shape.workers, strict=True)):
            table.name_item(row, name)
            box = table.cellWidget(row, 1)
            if not isinstance(box, QSpinBox):
                box = _spin(1, MAX_WORKERS, "Workers of this unit")
                box.editingFinished.connect(
                    lambda r=row, b=box: self._on_spin(
                        "unit_workers", r, b, lambda: self._shape_value("workers", r)
                    )
                )
                table.place(row, 1, box)
            _set_spin(box, k)
            runs = ", ".join(
                s for s, u in zip(shape.stages, shape.stage_units, strict=True) if u == row
            )
            item = table.item(row, 2)
            if item is None:
                item = QTableWidgetItem()
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                table.setItem(row, 2, item)
            item.setText(runs if name not in idle else "no stage")
            item.setToolTip(runs or f"no stage runs on {name}: it is left out when saved")

    def _show_pools(self, scenario: ShapedScenario) -> None:
        shape, table = scenario.shape, self.pools
        self._rows(table, len(shape.pools))
        for row, pool in enumerate(shape.pools):
            table.name_item(row, pool.name)
            box = table.cellWidget(row, 1)
            if not isinstance(box, QSpinBox):
                box = _spin(0, MAX_OPS, "Slots of this pool (0: unlimited)", unlimited=True)
                box.editingFinished.connect(
                    lambda r=row, b=box: self._on_spin(
                        "pool_size", r, b, lambda: self._shape_value("size", r)
                    )
                )
                table.place(row, 1, box)
            _set_spin(box, pool.size)
            for column, what, stage in ((2, "pool_from", pool.first), (3, "pool_to", pool.last)):
                combo = table.cellWidget(row, column)
                if not isinstance(combo, QComboBox):
                    combo = _combo(shape.stages, "")
                    combo.activated.connect(lambda i, r=row, w=what: self._emit(w, r, i))
                    table.place(row, column, combo)
                _set_choices(combo, shape.stages, stage)

    def _shape_value(self, what: str, row: int) -> int:
        """A unit's workers or a pool's size as the shape shown has them."""
        assert self._scenario is not None
        shape = self._scenario.shape
        if what == "workers":
            return shape.workers[row] if row < len(shape.workers) else -1
        return shape.pools[row].size if row < len(shape.pools) else -1

    def _enable(self) -> None:
        """Buttons that would do nothing (or only be refused) are greyed out."""
        shape = self._scenario.shape if self._scenario is not None else None
        n = len(shape.stages) if shape is not None else 0
        row = self.stages.currentRow()
        self.stage_add.setEnabled(0 < n < MAX_STAGES)
        self.stage_remove.setEnabled(n > 1 and row >= 0)
        self.stage_up.setEnabled(row > 0)
        self.stage_down.setEnabled(0 <= row < n - 1)
        units = len(shape.units) if shape is not None else 0
        self.unit_add.setEnabled(0 < units < MAX_STAGES)
        self.unit_remove.setEnabled(units > 1 and self.units.currentRow() >= 0)
        pools = len(shape.pools) if shape is not None else 0
        self.pool_add.setEnabled(shape is not None and pools < MAX_POOLS)
        self.pool_remove.setEnabled(pools > 0 and self.pools.currentRow() >= 0)
