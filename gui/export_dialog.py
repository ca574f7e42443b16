"""File → Export: the figure's title, the format, the size (a column, a page or a slide,
or a width in pixels), rows per worker or per op, the cursor, the caption, the theme and
the assembly line, beside a preview of exactly what will be written (it draws the export's
own layout) at a size where its labels can be read. Errors show a message; the app stays
up and nothing half-written is left. A written file is confirmed with where it went
(`gui.export_notice`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QHideEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.analysis.derived import Derived
from engine.base.errors import PipeLabError
from engine.base.text import format_time
from engine.model.schedule import Schedule
from gui.errors import warn
from gui.export import Preview, export, preview
from gui.export_formats import (
    BY_SUFFIX,
    DEFAULT_SIZE,
    DEFAULT_WIDTH,
    FORMATS,
    MAX_WIDTH,
    MIN_WIDTH,
    SIZES,
    THEMES,
    ExportFormat,
)
from gui.export_notice import confirm_written
from gui.figure.rows import derived_list

#: The size list: each physical width of `gui.export_formats.SIZES`, then pixels (images).
SIZE_CHOICES = (
    *((key, f"{key.capitalize()} ({inches:g} in)") for key, inches in SIZES.items()),
    ("pixels", "Width in pixels"),
)
#: The dialog's size where the screen has room (it fits 1024 × 700 screens), and the
#: least room the preview keeps.
DIALOG_SIZE = (1200, 760)
PREVIEW_MIN = (420, 260)
#: Pixels the figure's body text takes in the preview: at least enough to read the row
#: and bar labels (the preview scrolls when the figure is then wider than it), at most
#: so much that a column-wide figure still looks like one.
READABLE_TEXT = (10.0, 16.0)
#: The most pixels a preview image takes (a figure thousands of rows tall).
MAX_PREVIEW_PIXELS = 40_000_000
#: A pause in typing the title this long (ms) lays the preview out again: a million ops
#: take a quarter of a second to lay out, too long to wait after every key.
RETITLE_MS = 300


def preview_pixels(figure_width: float, text: float, room: float, whole: bool = False) -> float:
    """Pixels per point for a preview ``room`` pixels wide of a figure ``figure_width``
    points wide with body text of ``text`` points: fill the room, within `READABLE_TEXT`
    (``whole``: the whole width in the room, however small its text then is)."""
    low, high = READABLE_TEXT
    fit = room / figure_width
    return min(fit if whole else max(fit, low / text), high / text)


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
        *,
        run_titles: Sequence[str] = (),
        derived: Sequence[Derived] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export the timeline")
        self._schedules = list(schedules)
        self._derived = derived_list(self._schedules, derived)  # (held while open)
        self._run_titles = tuple(run_titles)
        self._time = time
        self._preview: Preview | None = None
        self._pixels = 0.0  # the preview's pixels per point
        self.title_field = QLineEdit(title)
        self.title_field.setPlaceholderText("No title")
        self.title_field.setClearButtonEnabled(True)
        self.title_field.setCursorPosition(0)  # a long title shows its start
        self.title_field.setToolTip("The figure's title (the scenario's name unless changed)")
        self.format = QComboBox()
        for form in FORMATS:
            self.format.addItem(form.choice, form.suffix)
        self.size_box = QComboBox()
        for key, words in SIZE_CHOICES:
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
        for name in THEMES:
            self.theme.addItem(name.capitalize(), name)
        self.transparent = QCheckBox("Transparent background")
        self.preview_image = QLabel()
        self.preview_image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview_area = QScrollArea()
        self.preview_area.setWidget(self.preview_image)
        self.preview_area.setWidgetResizable(True)
        self.preview_area.setMinimumSize(*PREVIEW_MIN)
        self.summary = QLabel()
        self.summary.setObjectName("export-summary")
        self.whole_width = QCheckBox("Preview the whole width")
        self.whole_width.setToolTip(
            "Shrink the preview to the room it has, labels and all (else it scrolls)"
        )
        self.whole_width.toggled.connect(self._draw_preview)
        self._lay_out()
        for combo in (self.format, self.size_box, self.rows, self.theme):
            combo.currentIndexChanged.connect(self._changed)
        for check in (self.retina, self.cursor_box, self.caption, self.assembly, self.transparent):
            check.toggled.connect(self._changed)
        self.width_px.valueChanged.connect(self._changed)
        self._retitle = QTimer(self)
        self._retitle.setObjectName("export title typed")
        self._retitle.setSingleShot(True)
        self._retitle.setInterval(RETITLE_MS)
        self._retitle.timeout.connect(self.update_preview)
        self.title_field.textChanged.connect(lambda _text: self._retitle.start())
        self.title_field.editingFinished.connect(self._title_done)
        self._sync()
        self._fit_to_screen()
        self.update_preview()

    def _lay_out(self) -> None:
        """The options in a column on the left, the preview filling the rest."""
        form = QFormLayout()
        form.addRow("Title", self.title_field)
        form.addRow("Format", self.format)
        form.addRow("Size", self.size_box)
        width_row = QHBoxLayout()
        width_row.addWidget(self.width_px)
        width_row.addWidget(self.retina)
        form.addRow("Width", width_row)
        form.addRow("Rows", self.rows)
        form.addRow("Theme", self.theme)
        for box in (self.cursor_box, self.caption, self.assembly, self.transparent):
            form.addRow("", box)
        options = QWidget()
        options.setLayout(form)
        options.setMaximumWidth(380)
        under = QHBoxLayout()
        under.addWidget(self.summary, 1)
        under.addWidget(self.whole_width)
        shown = QVBoxLayout()
        shown.addWidget(self.preview_area, 1)
        shown.addLayout(under)
        body = QHBoxLayout()
        body.addWidget(options, 0, Qt.AlignmentFlag.AlignTop)
        body.addLayout(shown, 1)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setText("Export…")
        buttons.accepted.connect(self._choose_file)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)

    def _fit_to_screen(self) -> None:
        """`DIALOG_SIZE`, or the screen's free room less a margin where it is smaller."""
        screen = (self.parentWidget() or self).screen()
        room = screen.availableGeometry()
        width = min(DIALOG_SIZE[0], room.width() - 24)
        height = min(DIALOG_SIZE[1], room.height() - 40)  # (the title bar)
        self.resize(max(width, self.minimumSizeHint().width()), height)

    # -- options ------------------------------------------------------------------------

    @property
    def suffix(self) -> str:
        return str(self.format.currentData())

    @property
    def export_format(self) -> ExportFormat:
        """The chosen format's entry in `gui.export_formats.FORMATS`."""
        return BY_SUFFIX[self.suffix]

    def options(self) -> dict[str, object]:
        """The keyword arguments of `gui.export.export` the dialog's controls say."""
        form = self.export_format
        size = str(self.size_box.currentData())
        options: dict[str, object] = {
            "rows": self.rows.currentData(),
            "theme": self.theme.currentData(),
            "caption": self.caption.isChecked(),
            "title": self.title_field.text().strip(),
            "run_titles": self._run_titles,
            "time": self._time if self.cursor_box.isChecked() else None,
            "with_assembly": self.assembly.isChecked() and form.assembly,
        }
        if form.raster:
            if size == "pixels":
                options["width"] = self.width_px.value()
            else:
                options["size"] = size
            options["scale"] = 2.0 if self.retina.isChecked() else 1.0
        elif size != "pixels":
            options["size"] = size
        if form.transparent:
            options["transparent"] = self.transparent.isChecked()
        return options

    def _sync(self) -> None:
        """Enable only the controls that mean something for the chosen format."""
        form = self.export_format
        raster, figure = form.raster, form.figure
        model = self.size_box.model()
        pixels_item = model.item(self.size_box.findData("pixels"))  # type: ignore[attr-defined]
        pixels_item.setEnabled(raster)
        if not raster and self.size_box.currentData() == "pixels":
            # Vector formats have no pixels: a page, their default in the CLI too.
            self.size_box.setCurrentIndex(self.size_box.findData(DEFAULT_SIZE))
        self.width_px.setEnabled(raster and self.size_box.currentData() == "pixels")
        self.retina.setEnabled(raster)
        for control in (
            self.title_field,
            self.size_box,
            self.rows,
            self.theme,
            self.cursor_box,
            self.caption,
        ):
            control.setEnabled(figure)
        # (an animation always draws the assembly line)
        self.assembly.setEnabled(form.assembly and not form.animation)
        self.assembly.setToolTip(
            f"{form.name} keeps shapes and text only: export the assembly line as PDF or PNG"
            if figure and not form.assembly
            else ""
        )
        self.transparent.setEnabled(form.transparent)

    def _changed(self) -> None:
        self._sync()
        self.update_preview()

    def _title_done(self) -> None:
        """Enter or leaving the field: the preview takes the title now, if it has not."""
        if self._retitle.isActive():
            self._retitle.stop()
            self.update_preview()

    def hideEvent(self, event: QHideEvent) -> None:
        self._retitle.stop()  # nothing left to preview
        super().hideEvent(event)

    def update_preview(self) -> None:
        """Lay out what will be written, draw it, and say its format and size."""
        self._preview = None
        if not self.export_format.figure:
            tasks = sum(len(s) for s in self._schedules)
            self._show_words("Chrome trace: open it in Perfetto or chrome://tracing")
            self.summary.setText(f"JSON, {tasks:,} tasks, one track per worker")
            return
        try:
            self._preview = preview(
                self._schedules,
                self.suffix,
                derived=self._derived,
                **self.options(),
            )
        except PipeLabError as error:
            self._show_words(str(error))
            self.summary.setText("")
            return
        self.summary.setText(self._preview.words)
        self._draw_preview()

    def _show_words(self, words: str) -> None:
        self.preview_image.setPixmap(QPixmap())
        self.preview_image.setWordWrap(True)
        self.preview_image.setText(words)

    def _draw_preview(self) -> None:
        """The laid-out figure drawn as wide as the preview's room, its labels readable
        (`preview_pixels`), sharp on a high-density screen."""
        shown = self._preview
        if shown is None:
            return
        figure = shown.figure
        room = self.preview_area.viewport().width() - 2
        pixels = preview_pixels(figure.width, shown.text, room, self.whole_width.isChecked())
        ratio = self.devicePixelRatioF()
        area = figure.width * figure.height * (pixels * ratio) ** 2
        if area > MAX_PREVIEW_PIXELS:
            pixels *= (MAX_PREVIEW_PIXELS / area) ** 0.5
        image = shown.draw(pixels * ratio)
        image.setDevicePixelRatio(ratio)
        self.preview_image.setPixmap(QPixmap.fromImage(image))
        self._pixels = pixels

    @property
    def preview_text_pixels(self) -> float:
        """How many (logical) pixels tall the preview draws the figure's body text (0
        without a figure drawn)."""
        if self._preview is None or self.preview_image.pixmap().isNull():
            return 0.0
        return self._pixels * self._preview.text

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._draw_preview()  # (the layout, already made, only drawn again to the room)

    # -- writing ------------------------------------------------------------------------

    def write(self, path: str | Path) -> bool:
        """Export to ``path`` with the dialog's options; an error shows a message."""
        self._title_done()  # (the preview shows what was written)
        options = self.options()
        if Path(path).suffix.lower() != self.suffix:
            # The file name chose another format: keep only what every format takes.
            for key in ("width", "scale", "transparent"):
                options.pop(key, None)
        try:
            export(self._schedules, path, derived=self._derived, **options)  # type: ignore[arg-type]
        except PipeLabError as error:
            warn(self, "Cannot export", str(error))
            return False
        return True

    def _choose_file(self) -> None:
        form = self.export_format
        path, _ = QFileDialog.getSaveFileName(
            self, "Export", f"timeline{form.suffix}", form.file_filter
        )
        if path and self.write(path):
            self.accept()
            confirm_written(self.parentWidget() or self, path)
