"""The one table of export formats and options (`gui.export_formats`) is what the command
line, the export dialog, the Warps tab and the export itself offer: each reads its
formats, sizes, rows, themes and limits from it, so a format in the table is a format
everywhere, with the same name and the same abilities."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from cli.main import commands
from cli.main import main as command_line
from cli.parser import build_parser
from engine.base.errors import PipeLabError
from engine.model.scenario import load_preset
from engine.model.scheduler import simulate
from gui import colours, export
from gui.export_dialog import ExportDialog
from gui.export_formats import (
    DEFAULT_WIDTH,
    FORMATS,
    MAX_WIDTH,
    MIN_WIDTH,
    ROWS,
    SIZES,
    SUFFIXES,
    THEMES,
    WARPS_FORMATS,
    file_filters,
)
from gui.figure.layout import SIZE_TEXT
from gui.figure.rows import ROW_MODES

FIGURES = [f for f in FORMATS if f.figure]


def book() -> list:
    scenario = load_preset("book")
    return [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]


def export_options() -> dict[str, argparse.Action]:
    parser = build_parser(commands())
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {a.dest: a for a in subparsers.choices["export"]._actions}


def test_the_command_line_offers_what_the_table_declares() -> None:
    options = export_options()
    assert tuple(options["size"].choices) == tuple(SIZES)
    assert tuple(options["rows"].choices) == ROWS
    assert tuple(options["theme"].choices) == THEMES
    help_text = options["out"].help
    assert all(suffix in help_text for suffix in SUFFIXES), help_text
    size_help = options["size"].help
    assert all(f"{inches:g}" in size_help for inches in SIZES.values()), size_help


def test_the_command_line_refuses_a_suffix_by_listing_the_table(tmp_path: Path, capsys) -> None:
    assert command_line(["export", "--preset", "book", "--out", str(tmp_path / "t.bmp")]) == 2
    assert f"(use one of {', '.join(SUFFIXES)})" in capsys.readouterr().err


@pytest.mark.parametrize("width", [MIN_WIDTH - 1, MAX_WIDTH + 1])
def test_the_command_line_takes_the_tables_width_limits(width: int, tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "t.png")
    assert command_line(["export", "--preset", "book", "--out", out, "--width", str(width)]) == 2
    assert "--width" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_the_dialog_lists_what_the_table_declares(qtbot) -> None:
    dialog = ExportDialog(book(), "The book example")
    qtbot.addWidget(dialog)

    def items(combo) -> list:
        return [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]

    assert items(dialog.format) == [(f.choice, f.suffix) for f in FORMATS]
    assert [key for _, key in items(dialog.size_box)] == [*SIZES, "pixels"]
    assert [key for _, key in items(dialog.theme)] == list(THEMES)
    assert (dialog.width_px.minimum(), dialog.width_px.maximum()) == (MIN_WIDTH, MAX_WIDTH)
    assert dialog.width_px.value() == DEFAULT_WIDTH


@pytest.mark.parametrize("form", FORMATS, ids=lambda f: f.suffix)
def test_the_dialog_enables_what_each_format_supports(qtbot, form) -> None:
    dialog = ExportDialog(book(), "The book example")
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData(form.suffix))
    assert dialog.transparent.isEnabled() is form.transparent
    assert dialog.assembly.isEnabled() is (form.assembly and not form.animation)
    assert dialog.retina.isEnabled() is form.raster
    assert dialog.size_box.isEnabled() is form.figure
    assert ("transparent" in dialog.options()) is form.transparent


@pytest.mark.parametrize("form", FORMATS, ids=lambda f: f.suffix)
def test_the_dialogs_file_filter_is_the_tables(qtbot, monkeypatch, form) -> None:
    dialog = ExportDialog(book(), "The book example")
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData(form.suffix))
    asked: list[tuple] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: asked.append(a) or ("", ""))
    dialog._choose_file()
    assert asked[0][2:] == (f"timeline{form.suffix}", form.file_filter)


def test_every_figure_format_has_a_writer_and_its_kind() -> None:
    assert set(export.FIGURE_WRITERS) == {f.suffix for f in FIGURES}
    schedules = book()
    for form in FIGURES:
        plan = export.plan_export(schedules, form.suffix)
        assert plan.raster is form.raster and plan.assembly is form.animation, form


def test_the_export_refuses_what_a_format_cannot_hold(tmp_path: Path) -> None:
    for form in FIGURES:
        path = tmp_path / f"t{form.suffix}"
        if not form.transparent:
            with pytest.raises(PipeLabError, match="background is for PNG, SVG and PDF"):
                export.export(book(), path, transparent=True)
        if not form.assembly:
            with pytest.raises(PipeLabError, match=f"{form.name} cannot hold the assembly line"):
                export.export(book(), path, with_assembly=True)
    assert not list(tmp_path.iterdir())


def test_the_options_beside_the_table_agree_with_it() -> None:
    assert tuple(colours.THEMES) == THEMES
    assert set(SIZE_TEXT) == set(SIZES)
    assert ROW_MODES == ROWS


def test_the_warps_tab_offers_the_tables_warp_formats() -> None:
    from gui.main_window import WARPS_EXPORT_FILTERS
    from gui.warps_export import EXPORT_SUFFIXES

    assert [f.suffix for f in WARPS_FORMATS] == list(EXPORT_SUFFIXES) == [".png", ".svg", ".pdf"]
    assert file_filters(WARPS_FORMATS) == WARPS_EXPORT_FILTERS
    # The words the Warps tab's file dialog has always shown.
    assert WARPS_EXPORT_FILTERS == "PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"
