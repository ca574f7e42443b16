"""File → Export: choose the format, the size (a column, a page or a slide, or a width in
pixels), rows per worker or per op, the cursor, the caption, the theme and the assembly
line, and see a preview of exactly what will be written (it draws the export's own
layout). Errors show a message; the app stays up and nothing half-written is left."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.errors import PipeLabError
from engine.schedule import Schedule
from engine.view_model import format_time
from gui.errors import warn
from gui.export import ANIMATIONS, DEFAULT_WIDTH, MAX_WIDTH, MIN_WIDTH, RASTER, export, preview

FORMATS = (
    (".png", "PNG image"),
    (".svg", "SVG (vector, text stays text)"),
    (".pdf", "PDF (vector, fonts embedded)"),
    (".gif", "Animated GIF"),
    (".webp", "Animated WebP"),
    (".json", "Chrome trace JSON"),
)
SIZES = (
    ("column", "Column (3.5 in)"),
    ("page", "Page (7 in)"),
    ("slide", "Slide (13.33 in)"),
    ("pixels", "Width in pixels"),
)
PREVIEW_BOX = (560, 360)


class ExportDialog(QDialog):
    """The export's options and a preview; `write` exports to a path."""

    def __init__(
        self,
        schedules: list[Schedule],
        title: str = "",
        time: float = 0.0,
        rows: str = "workers",
        with_assembly: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export the timeline")
        self._schedules = list(schedules)
        self._title = title
        self._time = time
        self.format = QComboBox()
        for suffix, words in FORMATS:
            self.format.addItem(words, suffix)
        self.size_box = QComboBox()
        for key, words in SIZES:
            self.size_box.addItem(words, key)
        self.size_box.setCurrentIndex(self.size_box.findData("pixels"))  # PNG first, as the CLI
        self.width_px = QSpinBox()
        self.width_px.setRange(MIN_WIDTH, MAX_WIDTH)
        self.width_px.setValue(DEFAULT_WIDTH)
        self.width_px.setSuffix(" px")
        self.retina = QCheckBox("2× pixels (retina)")
        self.rows = QComboBox()
        self.rows.addItem("One row per worker", "workers")
        self.rows.addItem("One row per op (staircase)", "ops")
        self.rows.setCurrentIndex(1 if rows == "ops" else 0)
        unit = schedules[0].time_unit if schedules else "s"
        self.cursor_box = QCheckBox(f"Cursor at t = {format_time(time, unit)}")
        self.caption = QCheckBox("Headline caption (two runs)")
        self.caption.setChecked(True)
        self.assembly = QCheckBox("Assembly line above the Gantt")
        self.assembly.setChecked(with_assembly)
        self.theme = QComboBox()
        self.theme.addItem("Light", "light")
        self.theme.addItem("Dark", "dark")
        self.transparent = QCheckBox("Transparent background")
        self.preview_image = QLabel()
        self.preview_image.setMinimumSize(*PREVIEW_BOX)
        self.preview_image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.summary = QLabel()
        self.summary.setObjectName("export-summary")

        form = QFormLayout()
        form.addRow("Format", self.format)
        size_row = QHBoxLayout()
        size_row.addWidget(self.size_box, 1)
        size_row.addWidget(self.width_px)
        size_row.addWidget(self.retina)
        form.addRow("Size", size_row)
        form.addRow("Rows", self.rows)
        form.addRow("Theme", self.theme)
        for box in (self.cursor_box, self.caption, self.assembly, self.transparent):
            form.addRow("", box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText("Export…")
        buttons.accepted.connect(self._choose_file)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview_image, 1)
        layout.addWidget(self.summary)
        layout.addWidget(buttons)
        for combo in (self.format, self.size_box, self.rows, self.theme):
            combo.currentIndexChanged.connect(self._changed)
        for check in (self.retina, self.cursor_box, self.caption, self.assembly, self.transparent):
            check.toggled.connect(self._changed)
        self.width_px.valueChanged.connect(self._changed)
        self._sync()
        self.update_preview()

    # -- options ------------------------------------------------------------------------

    @property
    def suffix(self) -> str:
        return str(self.format.currentData())

    def options(self) -> dict[str, object]:
        """The keyword arguments of `gui.export.export` the dialog's controls say."""
        suffix = self.suffix
        size = str(self.size_box.currentData())
        options: dict[str, object] = {
            "rows": self.rows.currentData(),
            "theme": self.theme.currentData(),
            "caption": self.caption.isChecked(),
            "title": self._title,
            "time": self._time if self.cursor_box.isChecked() else None,
            "with_assembly": self.assembly.isChecked() and suffix != ".svg",
        }
        if suffix in RASTER:
            if size == "pixels":
                options["width"] = self.width_px.value()
            else:
                options["size"] = size
            options["scale"] = 2.0 if self.retina.isChecked() else 1.0
        elif size != "pixels":
            options["size"] = size
        if suffix not in ANIMATIONS:
            options["transparent"] = self.transparent.isChecked()
        return options

    def _sync(self) -> None:
        """Enable only the controls that mean something for the chosen format."""
        suffix = self.suffix
        raster, figure = suffix in RASTER, suffix != ".json"
        model = self.size_box.model()
        pixels_item = model.item(self.size_box.findData("pixels"))  # type: ignore[attr-defined]
        pixels_item.setEnabled(raster)
        if not raster and self.size_box.currentData() == "pixels":
            # Vector formats have no pixels: a page, their default in the CLI too.
            self.size_box.setCurrentIndex(self.size_box.findData("page"))
        self.width_px.setEnabled(raster and self.size_box.currentData() == "pixels")
        self.retina.setEnabled(raster)
        for control in (self.size_box, self.rows, self.theme, self.cursor_box, self.caption):
            control.setEnabled(figure)
        self.assembly.setEnabled(figure and suffix not in ANIMATIONS and suffix != ".svg")
        self.assembly.setToolTip(
            "SVG keeps shapes and text only: export the assembly line as PDF or PNG"
            if suffix == ".svg"
            else ""
        )
        self.transparent.setEnabled(figure and suffix not in ANIMATIONS)

    def _changed(self) -> None:
        self._sync()
        self.update_preview()

    def update_preview(self) -> None:
        """Draw what will be written, and say its format and size."""
        if self.suffix == ".json":
            tasks = sum(len(s) for s in self._schedules)
            self.preview_image.setPixmap(QPixmap())
            self.preview_image.setText("Chrome trace: open it in Perfetto or chrome://tracing")
            self.summary.setText(f"JSON, {tasks:,} tasks, one track per worker")
            return
        try:
            image, words = preview(self._schedules, self.suffix, PREVIEW_BOX, **self.options())
        except PipeLabError as error:
            self.preview_image.setPixmap(QPixmap())
            self.preview_image.setText(str(error))
            self.summary.setText("")
            return
        self.preview_image.setPixmap(QPixmap.fromImage(image))
        self.summary.setText(words)

    # -- writing ------------------------------------------------------------------------

    def write(self, path: str | Path) -> bool:
        """Export to ``path`` with the dialog's options; an error shows a message."""
        options = self.options()
        if Path(path).suffix.lower() != self.suffix:
            # The file name chose another format: keep only what every format takes.
            for key in ("width", "scale", "transparent"):
                options.pop(key, None)
        try:
            export(self._schedules, path, **options)  # type: ignore[arg-type]
        except PipeLabError as error:
            warn(self, "Cannot export", str(error))
            return False
        return True

    def _choose_file(self) -> None:
        suffix = self.suffix
        words = dict(FORMATS)[suffix]
        path, _ = QFileDialog.getSaveFileName(
            self, "Export", f"timeline{suffix}", f"{words} (*{suffix})"
        )
        if path and self.write(path):
            self.accept()
