"""The Scenario form edits a pipeline shape (issue 28): its stages, units and pools (add,
remove, rename, reorder), the op count and each op's time per stage. Each accepted edit is
simulated again (sequential and pipelined) to the closed forms of the presets; a refused
edit says the engine's one line, keeps the run on screen and puts the widget back; a
rename keeps every reference; Save writes a file that opens to the same runs; a book
preset gives the book's form back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QSpinBox

from engine.model.shape_file import ShapedScenario, load_any_preset, read_scenario
from gui.app_model import AppModel
from gui.duration_box import DurationBox
from gui.main_window import MainWindow
from gui.shape_editor import ShapeEditor
from gui.shape_edits import ShapeEdit, apply_edit, save_shape


@pytest.fixture
def shaped(window: MainWindow) -> Iterator[MainWindow]:
    """The window on the ping-pong preset (12 tiles: 26.5 s pipelined, 54 s one at a
    time), chosen as a user does: in the preset list."""
    combo = window.scenario_panel.preset
    index = combo.findData("hopper-ping-pong")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert window.model.shape is not None
    yield window


def editor(window: MainWindow) -> ShapeEditor:
    return window.scenario_panel.shape_editor


def makespans(window: MainWindow) -> list[float]:
    return [s.makespan for s in window.schedules]


def choose(combo: object, index: int) -> None:
    assert isinstance(combo, QComboBox)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def spin(box: object, value: int) -> None:
    assert isinstance(box, QSpinBox)
    box.setValue(value)
    box.editingFinished.emit()


def type_time(box: object, text: str) -> None:
    assert isinstance(box, DurationBox)
    box.lineEdit().setText(text)
    box.interpretText()
    box.editingFinished.emit()


def test_the_form_shows_the_shape_in_place_of_the_book_s_fields(shaped: MainWindow) -> None:
    panel, shape = shaped.scenario_panel, editor(shaped)
    assert panel.shows_shape and not shape.isHidden()
    assert all(panel.durations[s].isHidden() for s in ("read", "compute", "write"))
    assert panel.buffers.isHidden()
    stages = shape.stages
    assert [stages.item(r, 0).text() for r in range(3)] == ["load", "mma", "epilogue"]
    assert [stages.cellWidget(r, 1).currentText() for r in range(3)] == [
        "TMA",
        "tensor cores",
        "consumers",
    ]
    assert [stages.cellWidget(r, 2).text() for r in range(3)] == ["1 s", "2 s", "1.5 s"]
    assert [shape.units.cellWidget(r, 1).value() for r in range(3)] == [1, 1, 2]
    pools = shape.pools
    assert [pools.item(r, 0).text() for r in range(2)] == ["smem stages", "consumer warpgroups"]
    assert [pools.cellWidget(r, 1).value() for r in range(2)] == [4, 2]
    assert [pools.cellWidget(r, 2).currentText() for r in range(2)] == ["load", "mma"]
    assert [pools.cellWidget(r, 3).currentText() for r in range(2)] == ["mma", "epilogue"]
    table = panel.table.model()
    assert (table.rowCount(), table.columnCount()) == (12, 3)
    headers = [table.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    assert headers == ["load (s)", "mma (s)", "epilogue (s)"]
    assert panel.ops.value() == 12
    assert makespans(shaped) == [54.0, 26.5]


def test_one_consumer_warpgroup_is_the_cooperative_kernel(shaped: MainWindow) -> None:
    """The pools table: consumer warpgroups 2 → 1 gives load + n·(mma + epilogue)."""
    spin(editor(shaped).pools.cellWidget(1, 1), 1)
    assert makespans(shaped) == [54.0, 1.0 + 12 * (2.0 + 1.5)]  # 43 s
    cooperative = load_any_preset("hopper-cooperative")
    assert isinstance(cooperative, ShapedScenario)
    assert makespans(shaped)[-1] == cooperative.simulate().makespan
    spin(editor(shaped).pools.cellWidget(1, 1), 0)  # unlimited: the MMA binds again
    assert makespans(shaped)[-1] == 26.5


def test_the_stages_units_ops_and_cells_each_simulate_again(shaped: MainWindow) -> None:
    stages = editor(shaped).stages
    type_time(stages.cellWidget(1, 2), "3")  # mma 3 s in every op: load + n·mma + epilogue
    assert makespans(shaped) == [12 * 5.5, 1.0 + 12 * 3.0 + 1.5]
    spin(editor(shaped).units.cellWidget(1, 1), 2)  # two tensor cores: the pool of 2 binds
    assert shaped.model.shape is not None and shaped.model.shape.shape.workers == (1, 2, 2)
    assert makespans(shaped)[-1] == shaped.model.shape.simulate().makespan
    assert makespans(shaped)[-1] < 1.0 + 12 * 3.0 + 1.5
    spin(editor(shaped).units.cellWidget(1, 1), 1)
    shaped.scenario_panel.ops.setValue(24)
    shaped.scenario_panel.ops.editingFinished.emit()
    assert makespans(shaped) == [24 * 5.5, 1.0 + 24 * 3.0 + 1.5]
    model = shaped.scenario_panel.table.model()
    model.setData(model.index(0, 1), "4")  # op 1's mma only: one second more
    assert makespans(shaped)[-1] == 1.0 + 4.0 + 23 * 3.0 + 1.5
    assert stages.cellWidget(1, 2).text() == "3–4 s"  # the stage's field shows the range
    shaped.scenario_panel.alike.click()  # every op as op 1 (no row chosen)
    assert makespans(shaped)[-1] == 1.0 + 24 * 4.0 + 1.5
    choose(stages.cellWidget(2, 1), 1)  # the epilogue on the tensor cores, too
    shape = shaped.model.shape
    assert shape is not None and shape.shape.stage_units == (0, 1, 1)
    assert makespans(shaped)[-1] == shape.simulate().makespan
    assert makespans(shaped)[-1] >= 24 * (4.0 + 1.5)  # one tensor core runs both


def test_renaming_keeps_every_reference(shaped: MainWindow) -> None:
    shape = editor(shaped)
    shape.units.item(1, 0).setText("SM90 tensor cores")
    model = shaped.model.shape
    assert model is not None and model.shape.units[1] == "SM90 tensor cores"
    assert shape.stages.cellWidget(1, 1).currentText() == "SM90 tensor cores"
    assert shaped.schedules[-1].unit_names[1] == "SM90 tensor cores"
    shape.stages.item(1, 0).setText("wgmma")
    model = shaped.model.shape
    assert model is not None and model.shape.stages == ("load", "wgmma", "epilogue")
    assert shape.pools.cellWidget(0, 3).currentText() == "wgmma"  # smem stages: load → wgmma
    assert shape.pools.cellWidget(1, 2).currentText() == "wgmma"
    assert shape.units.item(1, 2).text() == "wgmma"  # what the unit runs
    header = shaped.scenario_panel.table.model().headerData(1, Qt.Orientation.Horizontal)
    assert header == "wgmma (s)"
    assert makespans(shaped) == [54.0, 26.5]  # a name changes no time
    assert shaped.schedules[-1].stage_names == ("load", "wgmma", "epilogue")
    assert shaped.model.shape.name.endswith("(edited)")  # type: ignore[union-attr]


def test_add_remove_and_reorder_stages(shaped: MainWindow) -> None:
    shape = editor(shaped)
    shape.stages.setCurrentCell(2, 0)
    shape.stage_add.click()  # a stage after the epilogue: 1 s on the consumers
    edited = shaped.model.shape
    assert edited is not None
    assert edited.shape.stages == ("load", "mma", "epilogue", "stage 4")
    assert edited.shape.stage_units[3] == 2 and edited.times[0].tolist() == [1, 2, 1.5, 1]
    assert shape.stages.currentRow() == 3  # the new stage is the one selected
    assert shaped.scenario_panel.table.model().columnCount() == 4
    shape.stage_up.click()  # before the epilogue: the pool taken at mma now ends there
    edited = shaped.model.shape
    assert edited is not None and edited.shape.stages == ("load", "mma", "stage 4", "epilogue")
    assert edited.times[0].tolist() == [1, 2, 1, 1.5]  # its times go with it
    warpgroups = edited.shape.pools[1]
    assert (warpgroups.first, warpgroups.last) == (1, 3)
    assert shape.stages.currentRow() == 2
    assert makespans(shaped) == [edited.simulate("sequential").makespan, edited.simulate().makespan]
    shape.stage_remove.click()
    edited = shaped.model.shape
    assert edited is not None and edited.shape.stages == ("load", "mma", "epilogue")
    assert makespans(shaped) == [54.0, 26.5]
    for _ in range(5):
        shape.stage_add.click()
    assert len(shaped.model.shape.shape.stages) == 8  # type: ignore[union-attr]
    assert not shape.stage_add.isEnabled()  # (a ninth is refused, see below)


def test_units_and_pools_are_added_and_removed(shaped: MainWindow, tmp_path: Path) -> None:
    shape = editor(shaped)
    shape.unit_add.click()
    edited = shaped.model.shape
    assert edited is not None and edited.shape.units[-1] == "unit 4"
    assert shape.units.item(3, 2).text() == "no stage"
    choose(shape.stages.cellWidget(2, 1), 3)  # the epilogue on the new unit (1 worker)
    assert shaped.model.shape.shape.stage_units == (0, 1, 3)  # type: ignore[union-attr]
    shape.units.setCurrentCell(2, 0)
    shape.unit_remove.click()  # "consumers", which now runs nothing
    edited = shaped.model.shape
    assert edited is not None and edited.shape.units == ("TMA", "tensor cores", "unit 4")
    assert edited.shape.stage_units == (0, 1, 2)
    assert shape.stages.cellWidget(2, 1).currentText() == "unit 4"
    shape.pools.setCurrentCell(0, 0)
    shape.pool_remove.click()
    assert [p.name for p in shaped.model.shape.shape.pools] == ["consumer warpgroups"]  # type: ignore[union-attr]
    shape.pool_add.click()  # 2 slots from the first stage to the last
    pools = shaped.model.shape.shape.pools  # type: ignore[union-attr]
    assert [(p.name, p.size, p.first, p.last) for p in pools][-1] == ("pool 2", 2, 0, 2)
    assert makespans(shaped)[-1] == shaped.model.shape.simulate().makespan  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (ShapeEdit("pool_from", 0, 2), "pool 'smem stages' must be taken at a stage no later"),
        (ShapeEdit("move_stage", 1, -1), "pool 'smem stages' must be taken at a stage no later"),
        (ShapeEdit("remove_unit", 0), "stage 'load' runs on unit 'TMA': put it on another"),
        (ShapeEdit("remove_stage", 0), "pool 'smem stages' is taken at stage 'load'"),
        (ShapeEdit("unit_name", 1, "TMA"), "two units are named 'TMA'"),
        (ShapeEdit("stage_name", 0, "  "), "a stage needs a name"),
        (ShapeEdit("unit_workers", 0, 0), "unit 'TMA''s workers"),
        (ShapeEdit("stage_time", 1, -1.0), "mma time"),
    ],
)
def test_a_bad_edit_says_why_and_keeps_the_run(
    shaped: MainWindow, edit: ShapeEdit, message: str
) -> None:
    before, shape = shaped.model.run, shaped.model.shape
    assert not shaped.edit_shape(edit)
    text = shaped.scenario_panel.message.text()
    assert message in text and "\n" not in text
    assert shaped.model.run is before and shaped.model.shape is shape
    assert makespans(shaped) == [54.0, 26.5]


def test_a_refused_widget_edit_is_put_back(shaped: MainWindow) -> None:
    shape = editor(shaped)
    choose(shape.pools.cellWidget(0, 2), 2)  # smem stages taken at the epilogue, freed at mma
    assert "must be taken at a stage no later" in shaped.scenario_panel.message.text()
    assert shape.pools.cellWidget(0, 2).currentText() == "load"
    shape.units.item(0, 0).setText("consumers")
    assert shape.units.item(0, 0).text() == "TMA"
    assert "two units are named 'consumers'" in shaped.scenario_panel.message.text()
    model = shaped.model.shape
    assert model is not None
    for _ in range(5):
        model = apply_edit(model, ShapeEdit("add_stage"))
    with pytest.raises(Exception, match="1 to 8 stages"):
        apply_edit(model, ShapeEdit("add_stage"))
    spin(shape.pools.cellWidget(1, 1), 1)  # a good edit clears the message
    assert not shaped.scenario_panel.message.isVisible()
    assert makespans(shaped)[-1] == 43.0


def test_save_writes_a_file_that_opens_to_the_same_runs(shaped: MainWindow, tmp_path: Path) -> None:
    shape = editor(shaped)
    spin(shape.pools.cellWidget(1, 1), 1)
    shape.stages.item(1, 0).setText("wgmma")
    shape.unit_add.click()  # a unit no stage runs on: left out of the file
    path = tmp_path / "edited.toml"
    assert shaped.save_scenario_file(path)
    again = read_scenario(path)
    assert isinstance(again, ShapedScenario)
    edited = shaped.model.shape
    assert edited is not None
    assert again.shape.units == ("TMA", "tensor cores", "consumers")
    assert again.shape.stages == edited.shape.stages and again.shape.pools == edited.shape.pools
    assert np.array_equal(again.times, edited.times) and again.name == edited.name
    assert shaped.open_file(path)
    assert makespans(shaped) == [54.0, 43.0]
    assert shaped.model.shape is not None and shaped.model.shape.name == again.name


def test_back_to_the_book_gives_the_book_form(shaped: MainWindow) -> None:
    spin(editor(shaped).pools.cellWidget(1, 1), 1)
    combo = shaped.scenario_panel.preset
    index = combo.findData("book")
    choose(combo, index)
    panel = shaped.scenario_panel
    assert shaped.model.shape is None and not panel.shows_shape
    assert editor(shaped).isHidden() and not panel.durations["read"].isHidden()
    assert panel.table.model().headerData(0, Qt.Orientation.Horizontal) == "read (s)"
    assert panel.ops.value() == 3 and panel.table.model().columnCount() == 3
    assert makespans(shaped) == [9.0, 5.0]
    assert shaped.edit("buffers", 2)  # the book's fields edit the book again
    assert makespans(shaped) == [9.0, 6.0]


def test_views_and_pins_work_on_a_shape(shaped: MainWindow) -> None:
    shaped.set_view_mode("pipelined")
    assert [s.policy for s in shaped.schedules] == ["pipelined"]
    assert shaped.pin()
    spin(editor(shaped).pools.cellWidget(1, 1), 1)
    assert makespans(shaped) == [26.5, 43.0]  # the pin beside the edited run
    shaped.set_view_mode("both")
    assert sorted(makespans(shaped)) == [26.5, 43.0, 54.0]  # the pin, and both runs now
    assert shaped.model.pins[0].schedules[0].makespan == 26.5


def test_a_big_shape_runs_on_the_worker_and_a_failure_puts_it_back(
    qapp: object,
    manual_runner,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.base.errors import PipeLabError
    from engine.model.scenario import load_preset

    model = AppModel(load_preset("book"), "book", runner=manual_runner, inline_ops=0)
    model.start()
    ping_pong = load_any_preset("hopper-ping-pong")
    assert isinstance(ping_pong, ShapedScenario)
    assert model.open_shape(ping_pong)
    assert model.busy and model.shape is ping_pong
    manual_runner.finish()
    assert [s.makespan for s in model.run.schedules] == [54.0, 26.5]  # type: ignore[union-attr]
    shown = model.run
    assert model.edit_shape(ShapeEdit("pool_size", 1, 1))

    def fails(self: ShapedScenario, policy: str | None = None) -> None:
        raise PipeLabError("the pipeline stops: some op never gets its slot")

    monkeypatch.setattr(ShapedScenario, "simulate", fails)
    manual_runner.finish()
    assert model.run is shown and model.shape is ping_pong  # the form goes back
    assert "never gets its slot" in model.error
    model.shutdown()


def test_save_leaves_out_units_that_run_no_stage(tmp_path: Path) -> None:
    ping_pong = load_any_preset("hopper-ping-pong")
    assert isinstance(ping_pong, ShapedScenario)
    spare = apply_edit(ping_pong, ShapeEdit("add_unit"))
    spare = apply_edit(spare, ShapeEdit("stage_unit", 0, 3))  # load on the new unit
    save_shape(spare, tmp_path / "s.toml")
    again = read_scenario(tmp_path / "s.toml")
    assert isinstance(again, ShapedScenario)
    assert again.shape.units == ("tensor cores", "consumers", "unit 4")
    assert again.simulate().makespan == spare.simulate().makespan


def test_the_delete_key_removes_the_selected_row(shaped: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    pools = editor(shaped).pools
    pools.setCurrentCell(1, 0)
    qtbot.keyClick(pools, Qt.Key.Key_Delete)
    shape = shaped.model.shape
    assert shape is not None and [p.name for p in shape.shape.pools] == ["smem stages"]
    assert makespans(shaped)[-1] == 26.5  # the tensor cores still bind


def test_eight_stages_of_long_names_fit_a_narrow_form(shaped: MainWindow) -> None:
    """At 1280×800 the Scenario dock is about 510 px wide: the editor never asks for more
    (names are elided, the ops table scrolls sideways)."""
    for _ in range(5):
        assert shaped.edit_shape(ShapeEdit("add_stage"))
    assert shaped.edit_shape(ShapeEdit("stage_name", 0, "s" * 200))
    assert shaped.edit_shape(ShapeEdit("unit_name", 0, "u" * 200))
    assert shaped.edit_shape(ShapeEdit("pool_name", 0, "p" * 200))
    assert shaped.scenario_panel.minimumSizeHint().width() <= 450
    stages = editor(shaped).stages
    assert stages.height() >= 8 * stages.row_height  # every stage in view, no scrolling


def test_a_removed_row_s_field_leaving_edits_nothing(shaped: MainWindow) -> None:
    """A field of a row that goes (its focus lost on the way out) asks for no edit."""
    pools = editor(shaped).pools
    gone = pools.cellWidget(1, 1)
    assert isinstance(gone, QSpinBox)
    pools.setCurrentCell(1, 0)
    editor(shaped).pool_remove.click()
    gone.setValue(1)
    gone.editingFinished.emit()
    assert shaped.model.error == "" and not shaped.scenario_panel.message.isVisible()
    assert len(shaped.model.shape.shape.pools) == 1  # type: ignore[union-attr]


def test_closing_on_a_shape_opens_it_again_next_time(shaped: MainWindow) -> None:
    """The settings keep the shape being edited, edits and preset name with it, and the
    book-shaped scenario under it (the shape's preset name is not the book scenario's)."""
    from gui.app import _shape_preset, initial_scenario

    shaped.save_settings()
    assert _shape_preset(None, None) == "hopper-ping-pong"
    shaped.model.edit_shape(ShapeEdit("pool_size", 1, 1), wait=True)
    shaped.save_settings()
    scenario, preset, shape = initial_scenario(None, None)
    assert preset == "" and scenario.n_ops == 3 and scenario.name == "The book example"
    assert shape is not None and shape.shape.pools[1].size == 1
    assert shape.simulate("pipelined").makespan == 43.0
    assert _shape_preset(None, None) == ""  # (edited: no longer the preset)
    shaped.choose_preset("book")
    shaped.save_settings()
    assert initial_scenario(None, None)[2] is None
