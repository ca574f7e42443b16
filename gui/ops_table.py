"""The ops table: read, compute and write time of every op (a pipeline shape's: a column
per stage), editable per cell, with paste of
a column or a block copied from a spreadsheet (tab- and newline-separated) and copy back.

A model/view pair (Qt's QAbstractTableModel over the scenario's own arrays), so a million
ops cost what the visible rows cost: no widget per cell, no copy of the durations. The
table never changes its scenario itself: it asks (``block_edited``) and shows whatever
scenario it is given next.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import numpy as np
from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QItemSelectionRange,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from engine.base.errors import PipeLabError
from engine.model.scenario import Scenario
from engine.model.schedule import STAGES
from gui.duration_box import DurationBox, duration_text
from gui.scenario_edits import parse_block

ROW_PIXELS = 22
#: The least width of a stage's column.
MIN_COLUMN_PIXELS = 72
#: The most cells a copy puts on the clipboard (a million rows would be tens of MB).
COPY_LIMIT = 300_000

Index = QModelIndex | QPersistentModelIndex


_DISPLAY, _EDIT = int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.EditRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _cell(value: float, role: int) -> object:
    """What a cell holding ``value`` says for ``role`` (None: nothing)."""
    if role == _DISPLAY:
        return duration_text(value)  # the form's digits: a typed 2.0000004 reads so
    if role == _EDIT:
        return value
    if role == _ALIGNMENT:
        return _RIGHT
    return None


class OpsTableModel(QAbstractTableModel):
    """One row per op, one column per stage, over a Scenario's duration arrays (or a
    pipeline shape's times, a column per stage)."""

    block_edited = Signal(int, int, object)  # first op, first stage, rows of floats

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._columns: tuple[np.ndarray, ...] = tuple(np.zeros(0) for _ in STAGES)
        self._names: tuple[str, ...] = STAGES

    def set_scenario(self, scenario: Scenario) -> None:
        """Show ``scenario``'s durations (same op count: the cells change in place)."""
        self.set_columns(tuple(getattr(scenario, s) for s in STAGES), STAGES)

    def set_columns(self, columns: tuple[np.ndarray, ...], names: tuple[str, ...]) -> None:
        """Show per-op times, a column per stage named in ``names`` (the same stages and
        op count: the cells change in place; else the table is laid out anew)."""
        if names == self._names and len(columns[0]) == len(self._columns[0]):
            self._columns = columns
            if len(columns[0]):
                last = self.index(len(columns[0]) - 1, len(names) - 1)
                self.dataChanged.emit(self.index(0, 0), last)
        else:
            self.beginResetModel()
            self._columns, self._names = columns, names
            self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._columns[0])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def value(self, op: int, stage: int) -> float:
        return float(self._columns[stage][op])

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        return _cell(self.value(index.row(), index.column()), int(role))

    def multiData(self, index: Index, roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:
        """Every role a view asks of a cell, in one call: a delegate asks seven per cell
        it paints (font, alignment, colours, check state, icon, text), each a call from
        Qt into Python (about 2 ms for the rows in view; they repaint at every edit)."""
        value = self.value(index.row(), index.column()) if index.isValid() else None
        items: Iterable[QModelRoleData] = (
            (roleDataSpan,)
            if isinstance(roleDataSpan, QModelRoleData)
            else cast(Iterable[QModelRoleData], roleDataSpan)  # a span iterates its items
        )
        for item in items:
            answer = _cell(value, item.role()) if value is not None else None
            if answer is None:
                item.clearData()
            else:
                item.setData(answer)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == Qt.ItemDataRole.ToolTipRole and horizontal:
            return f"{self._names[section]}: each op's time in seconds"
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if horizontal:
            return f"{self._names[section]} (s)"
        return f"op {section + 1}"

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return flags | Qt.ItemFlag.ItemIsEditable if index.isValid() else flags

    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """An edited cell becomes a request; the cell shows the new value once the
        scenario it is given next has it (a refused value never shows)."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        self.block_edited.emit(index.row(), index.column(), [[number]])
        return False


class DurationDelegate(QStyledItemDelegate):
    """Cells are edited in the form's own duration field (`DurationBox`): every digit
    typed is kept, "0.125 s" is read. Qt's default editor for a float cell is a spin box
    of two decimals: 0.125 became 0.12, 0.001 became 0."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        box = DurationBox(parent)
        box.setFrame(False)
        box.setButtonSymbols(DurationBox.ButtonSymbols.NoButtons)
        return box

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        cast(DurationBox, editor).setValue(float(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        box = cast(DurationBox, editor)
        box.interpretText()  # what is typed, even if the box has not read it yet
        model.setData(index, box.value(), Qt.ItemDataRole.EditRole)


class OpsTable(QTableView):
    """The table view: cell editing, Ctrl+V pastes a block at the current cell (one value
    fills every selected cell), Ctrl+C copies the selection as tab-separated text."""

    paste_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ops = OpsTableModel(self)
        self.setModel(self.ops)
        self.setItemDelegate(DurationDelegate(self))
        self.setObjectName("ops-table")
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        for header in (self.verticalHeader(), self.horizontalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(ROW_PIXELS)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # A shape's eight stages in a narrow form: columns keep a readable width (the
        # table scrolls sideways), and names too long for theirs end in "…".
        self.horizontalHeader().setMinimumSectionSize(MIN_COLUMN_PIXELS)
        self.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setToolTip(
            "Read, compute and write time of each op. Edit a cell, or paste a column or a "
            "block copied from a spreadsheet (Ctrl+V at the first cell); pasting past the last "
            "op adds ops."
        )

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Paste):
            self.paste_text(QGuiApplication.clipboard().text())
        elif event.matches(QKeySequence.StandardKey.Copy):
            QGuiApplication.clipboard().setText(self.selected_text())
        else:
            super().keyPressEvent(event)

    def _ranges(self) -> list[QItemSelectionRange]:
        selection = self.selectionModel().selection()
        return [selection.at(i) for i in range(selection.count())]

    def anchor(self) -> tuple[int, int]:
        """Top-left cell of the selection, else the current cell, else the first."""
        selected = self._ranges()
        if selected:
            return (min(r.top() for r in selected), min(r.left() for r in selected))
        current = self.currentIndex()
        return (current.row(), current.column()) if current.isValid() else (0, 0)

    def paste_text(self, text: str) -> None:
        """Paste ``text`` (cells from a spreadsheet) at `anchor`."""
        try:
            block = parse_block(text)
        except PipeLabError as error:
            self.paste_failed.emit(str(error))
            return
        top, left = self.anchor()
        ranges = self._ranges()
        if len(block) == 1 and len(block[0]) == 1 and len(ranges) == 1:
            area = ranges[0]  # one value into a selected rectangle: fill it
            block = [[block[0][0]] * area.width() for _ in range(area.height())]
        self.ops.block_edited.emit(top, left, block)

    def selected_text(self) -> str:
        """The selected cells' bounding rectangle as tab-separated lines."""
        ranges = self._ranges()
        if not ranges:
            return ""
        top, bottom = min(r.top() for r in ranges), max(r.bottom() for r in ranges)
        left, right = min(r.left() for r in ranges), max(r.right() for r in ranges)
        rows = min(bottom - top + 1, COPY_LIMIT // (right - left + 1))
        return "\n".join(
            "\t".join(f"{self.ops.value(op, s):.12g}" for s in range(left, right + 1))
            for op in range(top, top + rows)
        )
