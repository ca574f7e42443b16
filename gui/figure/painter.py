"""The QPainter back end: draws a `Figure` onto an image (PNG, animation frames, the export
dialog's preview) or a PDF page.

On an image, rectangles are snapped to whole device pixels and drawn without antialiasing
(crisp edges, and antialiasing is what makes thousands of bars slow); text, lines and
hatching are antialiased. On a PDF page everything stays in points, as vector shapes and
real text in an embedded (subset) font.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pyqtgraph.Qt import internals
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from gui.figure.fonts import figure_font, text_width
from gui.figure.model import Embed, Figure, FloatArray, Group, Hatch, Item, Line, Rects, Text

#: Draws an `Embed` (the assembly line) into its rectangle, in figure points.
EmbedPainter = Callable[[QPainter, Embed], None]
#: Image resolution recorded while painting: one figure point is one logical unit.
DOTS_PER_METER_72DPI = round(72 / 0.0254)


def new_image(figure: Figure, scale: float) -> QImage:
    """An empty image for ``figure`` at ``scale`` pixels per point (transparent where the
    figure has no background)."""
    width, height = round(figure.width * scale), round(figure.height * scale)
    image = QImage(max(1, width), max(1, height), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDotsPerMeterX(DOTS_PER_METER_72DPI)
    image.setDotsPerMeterY(DOTS_PER_METER_72DPI)
    image.fill(QColor(figure.background) if figure.background else Qt.GlobalColor.transparent)
    return image


def render_image(figure: Figure, scale: float, embed: EmbedPainter | None = None) -> QImage:
    """``figure`` drawn on a new image, ``scale`` pixels per point."""
    image = new_image(figure, scale)
    painter = QPainter(image)
    paint_figure(painter, figure, scale, embed)
    painter.end()
    return image


def paint_figure(
    painter: QPainter, figure: Figure, pixels: float | None, embed: EmbedPainter | None = None
) -> None:
    """Draw ``figure``. ``pixels``: device pixels per point on an image (rectangles snap to
    them), or None on a vector device whose units are points (PDF at 72 dpi)."""
    painter.save()
    if pixels is not None:
        painter.scale(pixels, pixels)
    if figure.background:
        painter.fillRect(QRectF(0, 0, figure.width, figure.height), QColor(figure.background))
    _Painter(painter, pixels, embed).items(figure.items)
    painter.restore()


class _Painter:
    def __init__(self, painter: QPainter, pixels: float | None, embed: EmbedPainter | None):
        self.p = painter
        self.pixels = pixels
        self.embed = embed

    def items(self, items: tuple[Item, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                self.items(item.items)
            elif isinstance(item, Rects):
                self.rects(item)
            elif isinstance(item, Hatch):
                self.hatch(item)
            elif isinstance(item, Line):
                self.line(item)
            elif isinstance(item, Text):
                self.text(item)
            elif isinstance(item, Embed) and self.embed is not None:
                self.p.save()
                self.embed(self.p, item)
                self.p.restore()

    def rects(self, item: Rects) -> None:
        if not len(item):
            return
        p = self.p
        x, y, w, h = item.x, item.y, item.w, item.h
        p.save()
        if self.pixels is not None:
            # Snap to device pixels (the world transform is a scale and a shift).
            t = p.worldTransform()
            sx, sy, dx, dy = t.m11(), t.m22(), t.dx(), t.dy()
            left, top = np.rint(x * sx + dx), np.rint(y * sy + dy)
            right = np.maximum(np.rint((x + w) * sx + dx), left + 1)
            bottom = np.maximum(np.rint((y + h) * sy + dy), top + 1)
            x, y, w, h = left, top, right - left, bottom - top
            p.resetTransform()
            p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            stroke_width = item.stroke_width * sx
        else:
            stroke_width = item.stroke_width
        p.setBrush(QColor(item.fill))
        if item.stroke and stroke_width > 0:
            pen = QPen(QColor(item.stroke), stroke_width)
            pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
            p.setPen(pen)
            if self.pixels is not None:
                # An outline inside the bar: keep its width within the snapped edges.
                inset = stroke_width / 2
                x, y, w, h = (
                    x + inset,
                    y + inset,
                    np.maximum(w - 2 * inset, 0),
                    np.maximum(h - 2 * inset, 0),
                )
                p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        else:
            p.setPen(Qt.PenStyle.NoPen)
        array = _rect_array(x, y, w, h)  # keep it alive: drawargs() points into it
        p.drawRects(*array.drawargs())
        p.restore()

    def hatch(self, item: Hatch) -> None:
        if not len(item) or not item.angles:
            return
        lines = [
            hatch_lines(item.x, item.y, item.w, item.h, angle, item.spacing)
            for angle in item.angles
        ]
        x1 = np.concatenate([seg[0] for seg in lines])
        if not len(x1):
            return
        y1 = np.concatenate([seg[1] for seg in lines])
        x2 = np.concatenate([seg[2] for seg in lines])
        y2 = np.concatenate([seg[3] for seg in lines])
        p = self.p
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pen = QPen(QColor(item.colour), item.width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        p.setPen(pen)
        array = internals.PrimitiveArray(QLineF, 4)
        array.resize(len(x1))
        memory = array.ndarray()
        memory[:, 0], memory[:, 1], memory[:, 2], memory[:, 3] = x1, y1, x2, y2
        p.drawLines(*array.drawargs())
        p.restore()

    def line(self, item: Line) -> None:
        p = self.p
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pen = QPen(QColor(item.colour), item.width)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        if item.dash:
            pen.setDashPattern([d / item.width for d in item.dash])
        p.setPen(pen)
        p.drawLine(QLineF(item.x1, item.y1, item.x2, item.y2))
        p.restore()

    def text(self, item: Text) -> None:
        p = self.p
        p.save()
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setFont(figure_font(item.size, item.bold))
        p.setPen(QColor(item.colour))
        x = item.x
        if item.anchor != "start":
            width = text_width(item.text, item.size, item.bold)
            x -= width if item.anchor == "end" else width / 2
        p.drawText(QPointF(x, item.y), item.text)
        p.restore()


def hatch_lines(
    x: FloatArray, y: FloatArray, w: FloatArray, h: FloatArray, angle: int, spacing: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Segments of the hatch lines crossing each rectangle: lines x + y = k·spacing
    (angle 45, "/"), x - y = k·spacing (angle -45, "\\"), y = (k + ½)·spacing (angle 0,
    "—") or x = (k + ½)·spacing (angle 90, "|"), k whole: anchored at the figure's origin,
    as the SVG writer's pattern is."""
    x0, y0, x1, y1 = x, y, x + w, y + h
    if angle in (0, 90):
        low, high = (y0, y1) if angle == 0 else (x0, x1)
        first = np.ceil(low / spacing - 0.5)
        count = np.maximum(np.floor(high / spacing - 0.5) - first + 1, 0).astype(np.int64)
        owner = np.repeat(np.arange(len(x)), count)
        offsets = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        c = (first[owner] + offsets + 0.5) * spacing
        if angle == 0:
            return x0[owner], c, x1[owner], c
        return c, y0[owner], c, y1[owner]
    if angle == 45:
        low, high = x0 + y0, x1 + y1
    else:
        low, high = x0 - y1, x1 - y0
    first = np.ceil(low / spacing)
    count = np.maximum(np.floor(high / spacing) - first + 1, 0).astype(np.int64)
    owner = np.repeat(np.arange(len(x)), count)
    offsets = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    c = (first[owner] + offsets) * spacing
    bx0, by0, bx1, by1 = x0[owner], y0[owner], x1[owner], y1[owner]
    if angle == 45:  # y = c - x
        start = np.maximum(bx0, c - by1)
        end = np.minimum(bx1, c - by0)
        return start, c - start, end, c - end
    start = np.maximum(bx0, c + by0)  # y = x - c
    end = np.minimum(bx1, c + by1)
    return start, start - c, end, end - c


def _rect_array(
    x: FloatArray, y: FloatArray, w: FloatArray, h: FloatArray
) -> internals.PrimitiveArray:
    array = internals.PrimitiveArray(QRectF, 4)
    array.resize(len(x))
    memory = array.ndarray()
    memory[:, 0], memory[:, 1], memory[:, 2], memory[:, 3] = x, y, w, h
    return array
