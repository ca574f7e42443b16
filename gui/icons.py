"""SVG icons from gui/assets/icons, rendered once per size and tinted to any colour (cached)."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from engine.resources import resource

ICONS_DIR = resource("gui", "assets", "icons")


@lru_cache(maxsize=32)
def _renderer(name: str) -> QSvgRenderer:
    data = (ICONS_DIR / f"{name}.svg").read_bytes()
    return QSvgRenderer(QByteArray(data))


@lru_cache(maxsize=512)
def tinted(name: str, width: int, height: int, rgba: int) -> QImage:
    """Icon ``name`` drawn at ``width``×``height`` pixels with every pixel in colour ``rgba``
    (keeping the icon's alpha): the worker figure in its op's colour, or grey when idle."""
    image = QImage(max(1, width), max(1, height), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    renderer = _renderer(name)
    size = renderer.defaultSize()
    scale = min(width / max(1, size.width()), height / max(1, size.height()))
    w, h = size.width() * scale, size.height() * scale
    renderer.render(painter, QRectF((width - w) / 2, (height - h) / 2, w, h))
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(image.rect(), QColor.fromRgba(rgba))
    painter.end()
    return image


def icon(name: str, colour: QColor, size: int = 24) -> QIcon:
    """A QIcon of ``name`` in ``colour`` (toolbar buttons follow the theme's text colour)."""
    return QIcon(QPixmap.fromImage(tinted(name, size * 2, size * 2, colour.rgba())))


def raw_icon(name: str) -> QIcon:
    """The icon as drawn in its file (the app icon keeps its own colours)."""
    return QIcon(str(ICONS_DIR / f"{name}.svg"))
