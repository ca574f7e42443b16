"""SVG icons from assets/icons, rendered once per size and tinted to any colour (cached)."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from engine.base.resources import asset

ICONS_DIR = asset("icons")


@lru_cache(maxsize=32)
def _renderer(name: str) -> QSvgRenderer:
    data = (ICONS_DIR / f"{name}.svg").read_bytes()
    return QSvgRenderer(QByteArray(data))


@lru_cache(maxsize=512)
def tinted(name: str, width: int, height: int, rgba: int, ratio: float = 1.0) -> QImage:
    """Icon ``name`` drawn ``width``×``height`` device-independent pixels large with every
    pixel in colour ``rgba`` (keeping the icon's alpha): the worker figure in its op's
    colour, or grey when idle.

    The image holds ``ratio`` device pixels per pixel (``setDevicePixelRatio``), so at 200%
    scaling it is rendered at twice the size and stays sharp instead of being upscaled.
    """
    ratio = max(1.0, float(ratio))
    pixels_w, pixels_h = max(1, round(width * ratio)), max(1, round(height * ratio))
    image = QImage(pixels_w, pixels_h, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    renderer = _renderer(name)
    size = renderer.defaultSize()
    scale = min(pixels_w / max(1, size.width()), pixels_h / max(1, size.height()))
    w, h = size.width() * scale, size.height() * scale
    renderer.render(painter, QRectF((pixels_w - w) / 2, (pixels_h - h) / 2, w, h))
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(image.rect(), QColor.fromRgba(rgba))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return image


#: Device pixel ratios a toolbar icon carries pixmaps for (Qt picks the nearest).
ICON_RATIOS = (1.0, 1.25, 1.5, 2.0, 3.0)


def icon(name: str, colour: QColor, size: int = 24) -> QIcon:
    """A QIcon of ``name`` in ``colour`` (toolbar buttons follow the theme's text colour),
    with a pixmap rendered for each common device pixel ratio."""
    result = QIcon()
    for ratio in ICON_RATIOS:
        result.addPixmap(QPixmap.fromImage(tinted(name, size, size, colour.rgba(), ratio)))
    return result


def raw_icon(name: str) -> QIcon:
    """The icon as drawn in its file (the app icon keeps its own colours)."""
    return QIcon(str(ICONS_DIR / f"{name}.svg"))
