"""Exports of what the app shows, with the app's own widgets, usable headless.

PNG (width in pixels, text drawn at that size), SVG (QSvgGenerator), PDF (QPdfWriter),
an animated GIF of the assembly line and the cursor over the whole run (Pillow), and the
Chrome trace (engine.writers). Every file is written atomically; an unknown suffix, a
missing folder or too many GIF frames raise a one-line PipeLabError before anything is
written.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QMarginsF,
    QPoint,
    QRect,
    QSize,
    QSizeF,
    Qt,
)
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter, QPdfWriter
from PySide6.QtWidgets import QApplication, QGraphicsItem, QLabel, QLayout, QVBoxLayout, QWidget

from engine.atomic import write_atomic
from engine.errors import PipeLabError
from engine.schedule import Schedule
from engine.writers import to_trace
from gui.assembly import AssemblyLineView
from gui.clock import Clock
from gui.colours import LIGHT, Theme
from gui.timeline import TimelineView

SUFFIXES = (".png", ".svg", ".pdf", ".gif", ".json")
#: Most frames a GIF may have, and its frames per second of playback.
MAX_FRAMES = 300
GIF_FPS = 10
ROW_PIXELS = 30
PNG_QUALITY = 80
AXES = ("left", "bottom")
LANE_PIXELS = 250


def check_target(path: str | Path) -> str:
    """The export format of ``path`` (its suffix); PipeLabError if unknown or unwritable."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in SUFFIXES:
        raise PipeLabError(
            f"{target}: unknown export format {suffix or '(no suffix)'!r} "
            f"(use one of {', '.join(SUFFIXES)})"
        )
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise PipeLabError(f"{target}: folder {folder} does not exist")
    return suffix


class ExportFigure(QWidget):
    """Title, optional assembly line, and the timeline, laid out at a given pixel width."""

    def __init__(
        self,
        schedules: list[Schedule],
        width: int,
        time: float,
        with_assembly: bool,
        theme: Theme,
        title: str,
        vector: bool = False,
    ) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), theme.colour("background"))
        palette.setColor(self.foregroundRole(), theme.colour("text"))
        self.setPalette(palette)
        self.clock = Clock(self)
        layout = QVBoxLayout(self)
        # No size constraints on the (never shown) window: the offscreen platform warns
        # about every constraint it cannot pass on.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        heading = QLabel(title or " vs ".join(s.label or s.policy for s in schedules), self)
        heading.setStyleSheet(f"font-size: 16px; font-weight: bold; color: {theme.text};")
        layout.addWidget(heading)
        self.assembly: AssemblyLineView | None = None
        height = 40
        if with_assembly:
            self.assembly = AssemblyLineView(self.clock, theme, self)
            self.assembly.set_schedules(schedules)
            self.assembly.setFixedHeight(LANE_PIXELS * len(schedules))
            layout.addWidget(self.assembly)
            height += LANE_PIXELS * len(schedules) + 4
        self.timeline = TimelineView(self.clock, theme, self)
        self.timeline.set_schedules(schedules)
        rows = sum(s.n_workers for s in schedules)
        timeline_height = 70 + ROW_PIXELS * rows + 40 * len(schedules)
        self.timeline.setFixedHeight(timeline_height)
        layout.addWidget(self.timeline)
        height += timeline_height + 12
        self.timeline.cursor.label.setVisible(False)
        # An export draws once: the on-screen pixel caches would only cost a copy (and turn
        # vector output into pictures of the axes).
        plot = self.timeline.getPlotItem()
        for item in (self.timeline.bars, self.timeline.marks, *map(plot.getAxis, AXES)):
            item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self.timeline.bars.hatch = not vector
        self.clock.set_timeline(
            sorted({float(t) for s in schedules for t in s.event_times}),
            max((s.makespan for s in schedules), default=0.0),
        )
        self.clock.seek(time)
        self.resize(QSize(width, height))
        # Lay out without painting: the one full render is `render_image` (or the vector
        # writer's); painting the window here too would draw every bar twice.
        self.setUpdatesEnabled(False)
        self.show()
        app = QApplication.instance()
        for _ in range(2):  # layout, then the plot's own deferred geometry updates
            app.processEvents()
        self.timeline.reset_view()
        app.processEvents()
        self.setUpdatesEnabled(True)

    def render_image(self) -> QImage:
        image = QImage(self.size(), QImage.Format.Format_RGB32)
        image.fill(self.palette().color(self.backgroundRole()))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.render(painter, QPoint(0, 0))
        painter.end()
        return image


def _qt_bytes(write: object) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    write(buffer)  # type: ignore[operator]
    buffer.close()
    return bytes(data.data())


def _png(figure: ExportFigure) -> bytes:
    # zlib level 1 (Qt maps quality 80 to it): a few times faster than the default level
    # and, on flat-coloured charts, barely bigger.
    return _qt_bytes(lambda buffer: figure.render_image().save(buffer, "PNG", PNG_QUALITY))


def _svg(figure: ExportFigure) -> bytes:
    from PySide6.QtSvg import QSvgGenerator

    def write(buffer: QBuffer) -> None:
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(figure.size())
        generator.setViewBox(QRect(0, 0, figure.width(), figure.height()))
        generator.setResolution(96)
        generator.setTitle("PipeLab timeline")
        painter = QPainter(generator)
        figure.render(painter, QPoint(0, 0))
        painter.end()

    return _qt_bytes(write)


def _pdf(figure: ExportFigure) -> bytes:
    def write(buffer: QBuffer) -> None:
        writer = QPdfWriter(buffer)
        writer.setResolution(72)  # one widget pixel = one point
        size = QPageSize(QSizeF(figure.width(), figure.height()), QPageSize.Unit.Point)
        writer.setPageLayout(
            QPageLayout(size, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0))
        )
        writer.setTitle("PipeLab timeline")
        painter = QPainter(writer)
        figure.render(painter, QPoint(0, 0))
        painter.end()

    return _qt_bytes(write)


def gif_frame_times(schedules: list[Schedule], fps: int = GIF_FPS) -> list[float]:
    """The times a GIF shows: the run played as the app plays it at 1× (see Clock.rate),
    ``fps`` frames a second, first and last frame at 0 and the end."""
    clock = Clock()
    end = max((s.makespan for s in schedules), default=0.0)
    clock.set_timeline([end], end)
    seconds = end / clock.rate if clock.rate > 0 else 0.0
    count = max(2, math.ceil(seconds * fps) + 1)
    clock.deleteLater()
    if count > MAX_FRAMES:
        raise PipeLabError(
            f"this GIF would need {count} frames ({seconds:.3g} s at {fps} fps), more than "
            f"the cap of {MAX_FRAMES}: lower the frame rate"
        )
    return [end * i / (count - 1) for i in range(count)]


def _gif(figure: ExportFigure, times: list[float], fps: int) -> bytes:
    from PIL import Image

    frames: list[Image.Image] = []
    for time in times:
        figure.clock.seek(time)
        image = figure.render_image().convertToFormat(QImage.Format.Format_RGB888)
        raw = bytes(image.constBits())
        frame = Image.frombuffer(
            "RGB", (image.width(), image.height()), raw, "raw", "RGB", image.bytesPerLine(), 1
        )
        # One palette for all frames, from the first (it shows every op colour already):
        # far faster than quantizing each frame on its own, and no palette flicker.
        if frames:
            frames.append(frame.quantize(palette=frames[0], dither=Image.Dither.NONE))
        else:
            frames.append(frame.quantize(colors=128, method=Image.Quantize.MEDIANCUT))
    stream = io.BytesIO()
    frames[0].save(
        stream,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=round(1000 / fps),
        loop=0,
        disposal=1,
    )
    return stream.getvalue()


def export(
    schedules: list[Schedule],
    path: str | Path,
    *,
    width: int = 1600,
    time: float = 0.0,
    with_assembly: bool = False,
    theme: Theme = LIGHT,
    title: str = "",
    fps: int = GIF_FPS,
) -> None:
    """Write ``schedules`` to ``path`` in the format its suffix names (see module doc).

    A GIF always includes the assembly line (it is the point of the animation).
    """
    suffix = check_target(path)
    if not schedules:
        raise PipeLabError("nothing to export: no schedules are shown")
    if suffix == ".json":
        write_atomic(path, to_trace(schedules).encode("utf-8"))
        return
    if not 200 <= width <= 10_000:
        raise PipeLabError(f"export width must be between 200 and 10,000 px, not {width}")
    if fps < 1 or fps > 50:
        raise PipeLabError(f"GIF frame rate must be between 1 and 50, not {fps}")
    times = gif_frame_times(schedules, fps) if suffix == ".gif" else []
    if QApplication.instance() is None:
        raise PipeLabError("exporting images needs a QApplication (run through the CLI)")
    figure = ExportFigure(
        schedules,
        width,
        time,
        with_assembly or suffix == ".gif",
        theme,
        title,
        vector=suffix in (".svg", ".pdf"),
    )
    try:
        if suffix == ".png":
            data = _png(figure)
        elif suffix == ".svg":
            data = _svg(figure)
        elif suffix == ".pdf":
            data = _pdf(figure)
        else:
            data = _gif(figure, times, fps)
    finally:
        figure.close()
        figure.deleteLater()
    write_atomic(path, data)
