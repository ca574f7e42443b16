"""File → Export: the dialog's controls become the export's options, its default title is
the command line's for the same run, the preview draws the export's own layout at a size
where its labels can be read, a pinned comparison puts the two runs compared together,
a written file is confirmed with where it went, and errors show a message and leave no
file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from cli.main import main as command_line
from engine.model.scenario import load_preset
from engine.model.scheduler import simulate
from gui.export_dialog import DIALOG_SIZE, READABLE_TEXT, ExportDialog


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
    assert not pixmap.isNull() and dialog.preview_text_pixels >= READABLE_TEXT[0]
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


def svg_texts(path: Path, cls: str) -> list[str]:
    """The words of an SVG's texts of class ``cls``, in the file's order."""
    return re.findall(rf'<text[^>]*class="{cls}"[^>]*>([^<]*)</text>', path.read_text())


def test_the_default_title_is_the_command_lines_for_the_same_run(window, tmp_path) -> None:
    """The app called an edited book example "custom: 3 ops, 2 slots" where the command
    line called the same run "The book example with 2 slots"."""
    window.edit("buffers", 2)
    dialog = window.export_dialog()
    assert dialog.title_field.text() == "The book example with 2 slots"
    by_app, by_command = tmp_path / "app.svg", tmp_path / "command.svg"
    choose(dialog.format, ".svg")
    assert dialog.write(by_app)
    status = command_line(
        ["export", "--preset", "book", "--buffers", "2", "--out", str(by_command)]
    )
    assert status == 0
    assert svg_texts(by_app, "title") == svg_texts(by_command, "title")
    assert svg_texts(by_app, "title") == ["The book example with 2 slots"]
    assert by_app.read_text() == by_command.read_text()  # the same run, the same figure


def test_the_title_field_is_the_exported_title(dialog: ExportDialog, tmp_path: Path) -> None:
    assert dialog.title_field.text() == "The book example"
    choose(dialog.format, ".svg")
    dialog.title_field.setText("  Slots decide the pace ")
    assert dialog.options()["title"] == "Slots decide the pace"
    dialog.title_field.editingFinished.emit()  # (Enter): the preview draws it
    assert [t.text for t in dialog._preview.figure.texts("title")] == ["Slots decide the pace"]
    assert dialog.write(tmp_path / "titled.svg")
    assert svg_texts(tmp_path / "titled.svg", "title") == ["Slots decide the pace"]
    assert "<title>Slots decide the pace</title>" in (tmp_path / "titled.svg").read_text()
    dialog.title_field.clear()
    assert dialog.write(tmp_path / "untitled.svg")
    assert svg_texts(tmp_path / "untitled.svg", "title") == []
    choose(dialog.format, ".json")
    assert not dialog.title_field.isEnabled()  # a trace has no title


def test_run_labels_carry_the_slots(dialog: ExportDialog, tmp_path: Path) -> None:
    choose(dialog.format, ".svg")
    assert dialog.write(tmp_path / "book.svg")
    assert svg_texts(tmp_path / "book.svg", "run-title") == [
        "sequential · 3 ops · 1 slot",
        "pipelined · 3 ops · unlimited slots",
    ]


def test_a_pinned_comparison_puts_the_compared_runs_together(window, tmp_path) -> None:
    """Pinned runs came first, above the sequential run: the pinned pipelined run and the
    pipelined run it is compared with were apart, both headed "pipelined · 3 ops"."""
    window.edit("buffers", 2)
    window.scenario_panel.pin.click()
    window.edit("buffers", 3)
    dialog = window.export_dialog()
    choose(dialog.format, ".svg")
    assert dialog.write(tmp_path / "pinned.svg")
    assert svg_texts(tmp_path / "pinned.svg", "run-title") == [
        "sequential · 3 ops · 1 slot",
        "pinned pipelined · 3 ops · 2 slots",
        "pipelined · 3 ops · 3 slots",
    ]
    window.edit("read", 2)  # now the pinned run differs in two ways; the title says both
    dialog = window.export_dialog()
    choose(dialog.format, ".svg")
    assert dialog.write(tmp_path / "two.svg")
    titles = svg_texts(tmp_path / "two.svg", "run-title")
    assert titles[-2:] == [
        "pinned pipelined · 3 ops · 2 slots · read 1 s",
        "pipelined · 3 ops · 3 slots · read 2 s",
    ]


def test_a_written_file_is_confirmed_with_its_folder(window, tmp_path, monkeypatch) -> None:
    target = tmp_path / "figure.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    dialog = window.export_dialog()
    dialog._choose_file()  # (what the Export… button does)
    assert target.exists() and dialog.result() == dialog.DialogCode.Accepted
    (notice,) = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
    assert notice.isVisible() and not notice.isModal()
    assert notice.text() == "Wrote figure.png"
    assert notice.informativeText() == f"in {tmp_path.resolve()}"
    (opener,) = [b for b in notice.buttons() if b.text() == "Open folder"]
    opener.click()
    assert [Path(url.toLocalFile()) for url in opened] == [tmp_path.resolve()]


def test_a_failed_write_confirms_nothing(window, tmp_path, monkeypatch) -> None:
    target = tmp_path / "missing" / "figure.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: QMessageBox.StandardButton.Ok)
    dialog = window.export_dialog()
    dialog._choose_file()
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]


def test_the_preview_is_readable_and_the_dialog_fits_a_small_screen(window) -> None:
    dialog = window.export_dialog()
    dialog.resize(*DIALOG_SIZE)  # what it takes on a 1280 × 800 screen
    dialog.show()
    assert dialog.preview_text_pixels >= READABLE_TEXT[0]  # the default: PNG, 1,600 px
    assert dialog.preview_area.viewport().width() >= 700
    assert dialog.preview_area.viewport().height() >= 500
    choose(dialog.format, ".pdf")  # a page fills the room, larger than the minimum
    assert dialog.preview_text_pixels > READABLE_TEXT[0]
    hint = dialog.minimumSizeHint()
    assert hint.width() <= 1000 and hint.height() <= 640  # 1024 × 700, less a title bar
    dialog.close()


def test_the_preview_can_show_the_whole_width(window) -> None:
    dialog = window.export_dialog()
    dialog.resize(*DIALOG_SIZE)
    dialog.show()
    room = dialog.preview_area.viewport().width()
    assert dialog.preview_image.pixmap().width() > room  # readable: it scrolls
    dialog.whole_width.setChecked(True)
    assert dialog.preview_image.pixmap().width() <= room
    assert dialog.preview_text_pixels < READABLE_TEXT[0]
    dialog.close()
