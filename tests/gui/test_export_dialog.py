"""File → Export: the dialog's controls become the export's options, the preview draws
the export's own layout, and errors show a message and leave no file."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtWidgets import QMessageBox

from engine.scenario import load_preset
from engine.scheduler import simulate
from gui.export_dialog import ExportDialog


@pytest.fixture
def dialog(qtbot):
    scenario = load_preset("book")
    schedules = [simulate(scenario, "sequential"), simulate(scenario, "pipelined")]
    box = ExportDialog(schedules, "The book example", time=2.5, rows="ops")
    qtbot.addWidget(box)
    return box


def choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))


def test_controls_become_the_export_options(dialog: ExportDialog) -> None:
    assert dialog.options()["rows"] == "ops"  # the Gantt's current rows
    assert dialog.options()["time"] is None  # no cursor unless asked
    dialog.cursor_box.setChecked(True)
    choose(dialog.format, ".pdf")
    choose(dialog.size_box, "slide")
    choose(dialog.theme, "dark")
    dialog.caption.setChecked(False)
    options = dialog.options()
    assert options["time"] == 2.5 and options["size"] == "slide" and options["theme"] == "dark"
    assert options["caption"] is False and "width" not in options
    choose(dialog.format, ".png")
    choose(dialog.size_box, "pixels")
    dialog.width_px.setValue(900)
    dialog.retina.setChecked(True)
    options = dialog.options()
    assert options["width"] == 900 and options["scale"] == 2.0 and "size" not in options


def test_svg_cannot_take_the_assembly_line(dialog: ExportDialog) -> None:
    dialog.assembly.setChecked(True)
    choose(dialog.format, ".svg")
    assert not dialog.assembly.isEnabled() and dialog.options()["with_assembly"] is False
    assert not dialog.size_box.model().item(3).isEnabled()  # no width in pixels for vectors


def test_preview_is_what_will_be_written(dialog: ExportDialog, tmp_path: Path) -> None:
    choose(dialog.format, ".png")
    choose(dialog.size_box, "pixels")
    dialog.width_px.setValue(800)
    dialog.update_preview()
    pixmap = dialog.preview_image.pixmap()
    assert not pixmap.isNull() and pixmap.width() <= 560
    words = dialog.summary.text()
    assert words.startswith("PNG, 800 × ")
    assert dialog.write(tmp_path / "t.png")
    image = Image.open(tmp_path / "t.png")
    assert f"{image.width} × {image.height:,} px" in words
    choose(dialog.format, ".pdf")
    choose(dialog.size_box, "column")
    dialog.update_preview()
    assert dialog.summary.text().startswith("PDF, 3.5 × ")


def test_errors_show_a_message_and_write_nothing(dialog, tmp_path: Path, monkeypatch) -> None:
    messages: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: messages.append(text))
    assert not dialog.write(tmp_path / "missing" / "t.png")
    assert "does not exist" in messages[0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".svg", ".pdf"])
def test_a_vector_format_leaves_the_pixel_width_for_a_page(dialog, suffix) -> None:
    """The dialog opens on PNG with a width in pixels; choosing SVG or PDF left the size box
    showing the disabled "Width in pixels" (it reselected the same item)."""
    assert dialog.size_box.currentData() == "pixels"
    choose(dialog.format, suffix)
    assert dialog.size_box.currentData() == "page"
    assert dialog.size_box.currentText() == "Page (7 in)"
    assert dialog.options()["size"] == "page" and not dialog.width_px.isEnabled()
    assert dialog.summary.text().startswith(f"{suffix[1:].upper()}, 7 × ")
