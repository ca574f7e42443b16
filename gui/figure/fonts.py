"""The figure's typeface, and text widths in points.

Every back end names the same family: Qt draws it (PNG, PDF, frames) and the SVG asks for
it first, so librsvg, browsers and Inkscape set the text as the PNG shows it. Widths are
measured unhinted at a large pixel size and scaled, which is what a vector renderer does.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtGui import QFont, QFontMetricsF

FAMILY = "DejaVu Sans"
#: What the SVG asks for: DejaVu Sans first, then faces of about its width.
SVG_FAMILIES = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif"
_REFERENCE_PIXELS = 200


def figure_font(size: float, bold: bool = False) -> QFont:
    """The figure font at ``size`` points (for a device of 72 dots per inch: one point is
    one unit of the figure's coordinates)."""
    font = QFont(FAMILY)
    font.setPointSizeF(size)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    font.setKerning(True)
    return font


@lru_cache(maxsize=4)
def _metrics(bold: bool) -> QFontMetricsF:
    font = QFont(FAMILY)
    font.setPixelSize(_REFERENCE_PIXELS)
    font.setBold(bold)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return QFontMetricsF(font)


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width of ``text`` at ``size`` points, in points."""
    return _metrics(bold).horizontalAdvance(text) * size / _REFERENCE_PIXELS


def ascent(size: float) -> float:
    """Height of capitals and ascenders above the baseline, in points."""
    return _metrics(False).ascent() * size / _REFERENCE_PIXELS


def cap_height(size: float) -> float:
    """Height of a capital letter above the baseline, in points (for centring labels)."""
    return _metrics(False).capHeight() * size / _REFERENCE_PIXELS
