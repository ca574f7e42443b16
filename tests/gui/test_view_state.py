"""The state the views show lives in the app model (issue 27 item 6): the Gantt's rows and
whether image exports include the assembly line are the model's, the menus are bound to
them, and an export reads the model's Schedules (with their Derived) and rows, not the
view's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gui.export
from gui.main_window import MainWindow
from gui.settings import settings


def _rows_action(window: MainWindow, mode: str) -> Any:
    return next(a for a in window._rows_actions.actions() if a.data() == mode)


def test_the_rows_are_the_models_and_the_gantt_and_the_menu_follow(
    window: MainWindow, qtbot: Any
) -> None:
    model = window.model
    assert model.rows == "workers" and window.view.timeline.rows == "workers"
    with qtbot.waitSignal(model.rows_changed) as changed:
        model.set_rows("ops")
    assert changed.args == ["ops"]
    assert window.view.timeline.rows == "ops"
    assert _rows_action(window, "ops").isChecked()
    assert not _rows_action(window, "workers").isChecked()
    with qtbot.assertNotEmitted(model.rows_changed):
        model.set_rows("ops")  # no change, no news
    model.set_rows("stages")  # refused: said, and nothing changes
    assert model.rows == "ops" and "stages" in model.error


def test_the_rows_menu_sets_the_models_rows(window: MainWindow) -> None:
    _rows_action(window, "ops").trigger()
    assert window.model.rows == "ops" and window.view.timeline.rows == "ops"
    _rows_action(window, "workers").trigger()
    assert window.model.rows == "workers" and window.view.timeline.rows == "workers"


def test_with_assembly_is_the_models_and_the_menu_follows(window: MainWindow) -> None:
    model = window.model
    assert not model.with_assembly
    window._with_assembly.trigger()  # the File menu's check box
    assert model.with_assembly
    model.set_with_assembly(False)
    assert not window._with_assembly.isChecked()
    model.set_with_assembly(True)
    window.save_settings()
    assert settings().value("export/with_assembly") == "true"


@pytest.fixture
def exported(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[Any], dict[str, Any]]]:
    """What `gui.export.export` was called with (nothing is written)."""
    calls: list[tuple[list[Any], dict[str, Any]]] = []

    def record(schedules: list[Any], path: Any, **options: Any) -> None:
        calls.append((list(schedules), options))

    monkeypatch.setattr(gui.export, "export", record)
    return calls


def test_an_export_draws_the_models_runs_rows_and_assembly(
    window: MainWindow, exported: list[tuple[list[Any], dict[str, Any]]], tmp_path: Path
) -> None:
    model = window.model
    model.set_rows("ops")
    model.set_with_assembly(True)
    shown = model.shown
    assert shown is not None
    window.view.set_schedules([])  # the view shows nothing: the export still has the runs
    assert window.export_to(tmp_path / "timeline.png", width=800)
    schedules, options = exported[-1]
    assert schedules == list(shown.schedules)
    assert options["derived"] == list(shown.derived)  # each with its run's Derived
    assert options["rows"] == "ops"
    assert options["with_assembly"]
    assert window.export_to(tmp_path / "timeline.png", rows="workers", with_assembly=False)
    _, options = exported[-1]
    assert options["rows"] == "workers" and not options["with_assembly"]  # told: as told


def test_the_export_dialog_starts_from_the_models_rows_and_assembly(window: MainWindow) -> None:
    window.model.set_rows("ops")
    window.model.set_with_assembly(True)
    dialog = window.export_dialog()
    try:
        assert dialog.rows.currentData() == "ops"
        assert dialog.assembly.isChecked()
    finally:
        dialog.deleteLater()
