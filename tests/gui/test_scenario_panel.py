"""The scenario form reports only what the user changed (a value the spin boxes can only
show rounded or clamped is not rewritten by leaving its field untouched); the ops table
edits, pastes and makes ops alike; the heading and description follow an edited run."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit

from engine.model.scenario import Scenario
from gui.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    return win


def test_leaving_an_untouched_duration_keeps_the_scenarios_finer_value(
    window: MainWindow,
) -> None:
    value = 0.1 + 0.2  # 0.30000000000000004: twelve digits show it as 0.3
    assert window.apply_scenario(Scenario.uniform_ops(3, 0.125, value, 2e6, name="fine"))
    panel = window.scenario_panel
    read, compute = panel.durations["read"], panel.durations["compute"]
    assert read.value() == 0.125 and read.text() == "0.125 s"  # no longer 0.13
    assert compute.text() == "0.3 s"
    for box in panel.durations.values():
        box.lineEdit().setText(box.text())  # what leaving a field does: read its text
        box.interpretText()
        box.editingFinished.emit()
    assert window.scenario.read[0] == 0.125
    assert window.scenario.compute[0] == value  # not rewritten as 0.3
    assert window.scenario.write[0] == 2e6
    read.setValue(0.5)  # a real edit still applies
    read.editingFinished.emit()
    assert window.scenario.read[0] == 0.5


@pytest.mark.parametrize(
    ("value", "text"),
    [(1e-6, "1e-6 s"), (2.5e-6, "2.5e-6 s"), (0.0, "0 s"), (1e9, "1e9 s"), (1234.5, "1234.5 s")],
)
def test_a_duration_field_shows_every_accepted_value(
    window: MainWindow, value: float, text: str
) -> None:
    """Durations are 0 or in [1e-6, 1e9] s: 1e-6 once showed as "0.00 s"."""
    assert window.apply_scenario(Scenario.uniform_ops(3, value, 1.0, 1.0, name="edge"))
    read = window.scenario_panel.durations["read"]
    assert read.text() == text and read.value() == value
    read.interpretText()
    read.editingFinished.emit()
    assert window.scenario.read[0] == value


def test_a_duration_field_takes_what_it_is_typed(window: MainWindow, qtbot) -> None:
    read = window.scenario_panel.durations["read"]
    for typed, value in (("2.5e-6", 2.5e-6), ("1e-6 s", 1e-6), ("0.125", 0.125), ("1e9", 1e9)):
        read.lineEdit().setText(typed)
        read.interpretText()
        read.editingFinished.emit()
        assert window.scenario.read[0] == value, typed
    read.lineEdit().setText("5e-7")  # the box takes it; the engine refuses it, with a reason
    read.interpretText()
    read.editingFinished.emit()
    assert window.scenario.read[0] == 1e9
    assert "1e-06" in window.scenario_panel.message.text() or "1e-6" in (
        window.scenario_panel.message.text()
    )


# -- the ops table ------------------------------------------------------------------------


def cell(window: MainWindow, op: int, stage: int) -> str:
    table = window.scenario_panel.table
    return str(table.model().data(table.model().index(op, stage)))


def test_editing_a_cell_changes_that_op_only(window: MainWindow) -> None:
    table = window.scenario_panel.table
    model = table.model()
    assert model.rowCount() == 3 and model.columnCount() == 3
    assert model.setData(model.index(1, 0), "2.5") is False  # a request, not a change
    assert window.scenario.read.tolist() == [1.0, 2.5, 1.0]
    assert cell(window, 1, 0) == "2.5"
    assert window.stats.value_of("pipelined", "makespan") == "6.5 s"
    label = window.scenario_panel.form.labelForField(window.scenario_panel.durations["read"])
    assert label.text() == "Read (varies)"


@pytest.mark.parametrize(
    ("typed", "value"),
    [("0.125", 0.125), ("0.001", 0.001), ("2.0000004", 2.0000004), ("1e-6 s", 1e-6), ("0", 0.0)],
)
def test_a_cell_keeps_every_digit_typed_into_it(
    window: MainWindow, qtbot, typed: str, value: float
) -> None:
    """Typed into the cell's own editor, as a user does (double-click, type, Enter): Qt's
    default editor was a two-decimal spin box (0.125 became 0.12, 0.001 became 0)."""
    table = window.scenario_panel.table
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(window)
    index = table.model().index(0, 0)
    table.setCurrentIndex(index)
    table.edit(index)
    editor = table.indexWidget(index)  # the cell's editor, where the keys go
    assert editor is not None
    QTest.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(editor, typed)
    QTest.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()  # the delegate commits on the next turn of the event loop
    assert window.scenario.read[0] == value
    assert cell(window, 0, 0) == typed.removesuffix(" s") or value == 1e-6


def test_pasting_a_column_from_a_spreadsheet_adds_ops(window: MainWindow) -> None:
    table = window.scenario_panel.table
    table.setCurrentIndex(table.model().index(0, 1))
    QGuiApplication.clipboard().setText("0.5\n1.5\n2\n1\n")
    QTest.keySequence(table, QKeySequence.StandardKey.Paste)
    assert window.scenario.n_ops == 4
    assert window.scenario.compute.tolist() == [0.5, 1.5, 2.0, 1.0]
    assert window.scenario.read.tolist() == [1.0] * 4
    assert table.model().rowCount() == 4 and cell(window, 3, 1) == "1"
    assert window.view.timeline.bar_count == 24


def test_pasting_a_block_and_filling_a_selection(window: MainWindow) -> None:
    table = window.scenario_panel.table
    table.setCurrentIndex(table.model().index(1, 1))
    table.paste_text("7\t8\n9\t10")
    assert window.scenario.durations.tolist() == [[1, 1, 1], [1, 7, 8], [1, 9, 10]]
    table.selectionModel().select(
        QItemSelection(table.model().index(0, 0), table.model().index(2, 0)),
        QItemSelectionModel.SelectionFlag.ClearAndSelect,
    )
    table.paste_text("3")
    assert window.scenario.read.tolist() == [3.0, 3.0, 3.0]
    table.selectAll()
    assert table.selected_text().splitlines()[1] == "3\t7\t8"


def test_a_bad_paste_says_which_cell_and_changes_nothing(window: MainWindow) -> None:
    before = window.schedules
    window.scenario_panel.table.paste_text("1\n2\nlots")
    message = window.scenario_panel.message
    assert not message.isHidden() and "row 3, column 1: 'lots'" in message.text()
    assert window.schedules == before
    window.scenario_panel.table.paste_text("-1")
    assert "0 or more" in message.text() and window.schedules == before


def test_make_all_alike_copies_the_selected_op(window: MainWindow) -> None:
    window.model.set_durations(0, 0, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], wait=True)
    assert not window.scenario.uniform
    table = window.scenario_panel.table
    table.setCurrentIndex(table.model().index(1, 2))
    window.scenario_panel.alike.click()
    assert window.scenario.uniform
    assert window.scenario.durations.tolist() == [[4.0, 5.0, 6.0]] * 3
    label = window.scenario_panel.form.labelForField(window.scenario_panel.durations["read"])
    assert label.text() == "Read"
    assert window.scenario_panel.durations["compute"].value() == 5.0


def test_the_uniform_fields_set_every_op(window: MainWindow) -> None:
    window.model.set_durations(0, 0, [[1, 2, 3], [4, 5, 6]], wait=True)
    box = window.scenario_panel.durations["write"]
    box.setValue(0.5)
    box.editingFinished.emit()
    assert window.scenario.write.tolist() == [0.5, 0.5, 0.5]
    assert window.scenario.read.tolist() == [1.0, 4.0, 1.0]  # each op keeps its own read
    assert [cell(window, op, 2) for op in range(3)] == ["0.5"] * 3


def test_after_an_edit_the_heading_and_description_follow_the_run(window: MainWindow) -> None:
    panel = window.scenario_panel
    assert window.title.text() == "The book example"
    assert "5 s pipelined" in panel.description.text()
    panel.ops.setValue(20)
    panel.ops.editingFinished.emit()
    panel.buffers.setValue(2)
    panel.buffers.editingFinished.emit()
    assert window.title.text() == "The book example with 20 ops, 2 slots"
    assert window.windowTitle() == "The book example with 20 ops, 2 slots"  # (+ " — PipeLab")
    assert panel.preset.currentText() == "(custom)"
    text = panel.description.text()
    assert "The book example" not in text and "5 s pipelined" not in text  # a new sentence
    assert text.startswith("20 ops, each read 1 s, compute 1 s, write 1 s; 2 slots")
    assert text in window.title.toolTip()  # (and the title, where the label cuts it)
    assert window.choose_preset("book")
    assert window.title.text() == "The book example"


def test_the_table_is_a_model_view_that_holds_a_million_ops(qtbot) -> None:
    from gui.ops_table import OpsTable
    from gui.scenario_edits import set_durations

    table = OpsTable()
    qtbot.addWidget(table)
    scenario = Scenario.uniform_ops(1_000_000, 1.0, 1.2, 0.8)
    table.ops.set_scenario(scenario)
    table.resize(300, 400)
    table.show()
    assert table.model().rowCount() == 1_000_000
    assert table.model().headerData(999_999, Qt.Orientation.Vertical) == "op 1000000"
    table.scrollToBottom()
    assert table.findChildren(QLineEdit) == []  # no widget per cell
    with qtbot.waitSignal(table.ops.block_edited) as edit:
        table.model().setData(table.model().index(999_999, 2), "2")
    assert edit.args == [999_999, 2, [[2.0]]]
    edited = set_durations(scenario, *edit.args)
    table.ops.set_scenario(edited)
    assert table.model().data(table.model().index(999_999, 2)) == "2"
    assert table.model().data(table.model().index(0, 2)) == "0.8"


def test_a_painted_cell_asks_once_and_reads_what_data_says(qtbot) -> None:
    """A view asks a cell for all its roles in one call (multiData), and each answer is
    what data() gives for that role."""
    from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan

    from gui.ops_table import OpsTable, OpsTableModel

    table = OpsTable()
    qtbot.addWidget(table)
    table.ops.set_scenario(Scenario.uniform_ops(50, 1.0, 1.2345678, 0.8))
    roles = [
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.EditRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.BackgroundRole,
    ]
    index = table.ops.index(3, 1)
    for role in roles:
        item = QModelRoleData(int(role))
        table.ops.multiData(index, QModelRoleDataSpan(item))
        assert item.data() == table.ops.data(index, role), role
    asked: list[int] = []

    class Counted(OpsTableModel):
        def data(self, index, role=Qt.ItemDataRole.DisplayRole):  # type: ignore[no-untyped-def]
            asked.append(int(role))
            return super().data(index, role)

        def multiData(self, index, span):  # type: ignore[no-untyped-def]
            asked.append(-1)
            super().multiData(index, span)

    counted = Counted(table)
    counted.set_scenario(Scenario.uniform_ops(50, 1.0, 1.2345678, 0.8))
    table.setModel(counted)
    table.resize(300, 200)
    table.show()
    qtbot.waitExposed(table)
    table.grab()
    assert asked and set(asked) == {-1}  # every cell in one call, never role by role


def test_a_field_whose_ops_differ_shows_their_range(window: MainWindow, qtbot) -> None:
    """Issue 25, item 5: "Compute (varies)" showed op 1's 1 s after op 2 was set to 3 s.
    The field shows the range; left untouched it changes nothing; a number typed over it
    (op 1's own included) sets every op; a cleared field puts the range back."""
    model = window.scenario_panel.table.model()
    model.setData(model.index(1, 1), "3")
    compute = window.scenario_panel.durations["compute"]
    assert compute.text() == "1–3 s"
    label = window.scenario_panel.form.labelForField(compute)
    assert label.text() == "Compute (varies)"
    compute.interpretText()  # what leaving the field does
    compute.editingFinished.emit()
    assert window.scenario.compute.tolist() == [1.0, 3.0, 1.0]
    window.show()
    window.activateWindow()
    compute.setFocus()
    qtbot.waitUntil(compute.hasFocus)
    compute.lineEdit().selectAll()
    qtbot.keyClick(compute, Qt.Key.Key_Backspace)
    qtbot.keyClick(compute, Qt.Key.Key_Return)
    assert compute.text() == "1–3 s" and window.scenario.compute.tolist() == [1.0, 3.0, 1.0]
    compute.setFocus()  # (Return handed the focus on)
    qtbot.waitUntil(compute.hasFocus)
    compute.lineEdit().selectAll()
    qtbot.keyClicks(compute, "1")
    qtbot.keyClick(compute, Qt.Key.Key_Return)
    assert window.scenario.compute.tolist() == [1.0, 1.0, 1.0]
    assert compute.text() == "1 s" and label.text() == "Compute"


def test_a_range_of_milliseconds_is_written_in_milliseconds(window: MainWindow) -> None:
    window.model.set_durations(0, 0, [[0.001, 1, 1], [0.0025, 1, 1], [0.002, 1, 1]], wait=True)
    read = window.scenario_panel.durations["read"]
    assert read.text() == "1–2.5 ms"
    read.setValue(0.5)  # a value set (arrows, the wheel) replaces the range too
    read.editingFinished.emit()
    assert window.scenario.read.tolist() == [0.5] * 3 and read.text() == "0.5 s"
