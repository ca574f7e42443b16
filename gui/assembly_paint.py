"""Drawing pieces of the assembly line: op chips (a rounded square in the op's colour with
its number), shared-memory slots in each `SlotState`, and the number that fits a chip.

Raster frames blit chips from small pixmaps cached per colour, size and device pixel ratio
(drawn at size × ratio, so they stay sharp at 200%); vector exports draw shapes.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap

from engine.indexes.assembly_slots import SlotState
from gui.assembly_parts import CHIP_FONT_MIN, chip_font_px
from gui.colours import OP_COLOURS, Theme, ink_on, op_colour


def chip_label(op: int, width: float, height: float, base: QFont) -> tuple[str, QFont]:
    """The number (from 1) written on op ``op``'s chip ``width``×``height`` pixels, and
    its font: as large as fits, and "…456" (the last digits) when even the smallest font
    is too wide for the whole number."""
    digits = str(op + 1)
    kept, font = _chip_fit(len(digits), int(width), int(height), base)
    return (digits if kept == len(digits) else f"…{digits[-kept:]}"), font


@lru_cache(maxsize=256)
def _chip_fit(digits: int, width: int, height: int, base: QFont) -> tuple[int, QFont]:
    """How many trailing digits of a ``digits``-digit number a chip shows, and in which
    font (digits are equally wide: any number of that length fits alike)."""
    room = width - 4
    font = QFont(base)
    font.setBold(False)
    for kept in range(digits, 0, -1):
        text = "8" * kept if kept == digits else "…" + "8" * kept
        for px in range(chip_font_px(height), CHIP_FONT_MIN - 1, -1):
            font.setPixelSize(px)
            if QFontMetricsF(font).horizontalAdvance(text) <= room:
                return kept, QFont(font)
    font.setPixelSize(CHIP_FONT_MIN)
    return 1, font


def paint_chip(painter: QPainter, rect: QRectF, op: int) -> None:
    """An op's chip without its number: a rounded square in the op's colour."""
    colour = op_colour(op)
    painter.setPen(QPen(colour.darker(140), 1.2))
    painter.setBrush(colour)
    painter.drawRoundedRect(rect, 4, 4)


@lru_cache(maxsize=256)
def chip_pixmap(colour_index: int, width: int, height: int, ratio: float) -> QPixmap:
    """`paint_chip` drawn once per colour, size and device pixel ratio, with a pixel of
    margin for its outline: a frame blits these instead of drawing antialiased shapes."""
    pixmap = QPixmap(round((width + 2) * ratio), round((height + 2) * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    paint_chip(painter, QRectF(1, 1, width, height), colour_index)
    painter.end()
    return pixmap


def chip_ink(op: int) -> QColor:
    """The colour of the number on op ``op``'s chip."""
    return QColor(_ink_of(op % len(OP_COLOURS)))


@lru_cache(maxsize=len(OP_COLOURS))
def _ink_of(colour_index: int) -> QColor:
    return ink_on(op_colour(colour_index))


def paint_empty_slot(painter: QPainter, rect: QRectF, theme: Theme) -> None:
    """A free slot: a dashed outline."""
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(theme.colour("idle_hatch"), 1.2, Qt.PenStyle.DashLine))
    painter.drawRoundedRect(rect, 4, 4)


def paint_slot(
    painter: QPainter, rect: QRectF, state: int, op: int, fill: float, theme: Theme
) -> None:
    """A slot in ``state`` for op ``op``: reserved is a dashed outline in the op's colour;
    loading, held and writing are tinted with the op's colour and filled to ``fill``
    (a read fills the slot from the bottom, a write drains it)."""
    if state == SlotState.FREE:
        paint_empty_slot(painter, rect, theme)
        return
    colour = op_colour(op)
    painter.setBrush(theme.colour("surface"))
    if state == SlotState.RESERVED:
        painter.setPen(QPen(colour, 1.6, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(rect, 4, 4)
        return
    pale = QColor(colour)
    pale.setAlpha(45)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(pale)
    painter.drawRoundedRect(rect, 4, 4)
    if fill > 0:
        strong = QColor(colour)
        strong.setAlpha(140)
        painter.save()
        level = rect.height() * min(1.0, fill)
        painter.setClipRect(QRectF(rect.left(), rect.bottom() - level, rect.width(), level))
        painter.setBrush(strong)
        painter.drawRoundedRect(rect, 4, 4)
        painter.restore()
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(colour, 1.6))
    painter.drawRoundedRect(rect, 4, 4)


def ease(fraction: float) -> float:
    """Smoothstep: a glide starts and ends gently."""
    return fraction * fraction * (3 - 2 * fraction)
