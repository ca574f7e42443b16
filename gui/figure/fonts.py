"""The figure's typeface, and text widths in points.

Every back end names the same family: Qt draws it (PNG, PDF, frames) and the SVG asks for
it first, so librsvg, browsers and Inkscape set the text as the PNG shows it. Widths are
measured unhinted at a large pixel size and scaled, which is what a vector renderer does.
"""

from __future__ import annotations

import re
from functools import lru_cache

from PySide6.QtGui import QFont, QFontMetricsF

from gui.figure.model import Text

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


def descent(size: float) -> float:
    """Depth of descenders below the baseline, in points."""
    return _metrics(False).descent() * size / _REFERENCE_PIXELS


def text_box(
    text: str, x: float, y: float, size: float, anchor: str = "start", bold: bool = False
) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) in points of ``text`` set with its ``anchor`` end at
    ``x`` and its baseline at ``y``: its advance by the font's ascent and descent (what
    a reader sees as the text's place; layouts check that no two of them overlap)."""
    width = text_width(text, size, bold)
    left = x - (width if anchor == "end" else width / 2 if anchor == "middle" else 0.0)
    return left, y - ascent(size), left + width, y + descent(size)


def cap_height(size: float) -> float:
    """Height of a capital letter above the baseline, in points (for centring labels)."""
    return _metrics(False).capHeight() * size / _REFERENCE_PIXELS


#: Control characters and line breaks (a title typed with a newline, a TOML name with an
#: escape): a figure's line of text has none, and XML may not hold most of them.
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\s]+")


def one_line(text: str) -> str:
    """``text`` with control characters and runs of white space as one space."""
    return _BREAKS.sub(" ", text).strip()


def wrapped(text: str, size: float, width: float, bold: bool = False, lines: int = 2) -> list[str]:
    """``text`` (made `one_line`) broken at spaces into at most ``lines`` lines that fit
    ``width`` points at ``size``; only what still does not fit is cut with "…" (a title
    at column width lost its last words to a cut where a second line had room)."""
    words = one_line(text).split(" ")
    out: list[str] = []
    while words and words != [""]:
        if len(out) == lines - 1:
            out.append(fitted(" ".join(words), size, width, bold))
            break
        line = words.pop(0)
        while words and text_width(f"{line} {words[0]}", size, bold) <= width:
            line = f"{line} {words.pop(0)}"
        if text_width(line, size, bold) > width:  # one word wider than the line
            out.append(fitted(" ".join([line, *words]), size, width, bold))
            break
        out.append(line)
    return out


def fitted(text: str, size: float, width: float, bold: bool = False) -> str:
    """``text`` as one line that fits ``width`` points at ``size``: control characters and
    runs of white space become one space, and a line too long ends in "…" (a title longer
    than the figure was cut off at its edge)."""
    line = one_line(text)
    if text_width(line, size, bold) <= width:
        return line
    low, high = 0, len(line)  # the longest prefix that fits with its "…"
    while low < high:
        middle = (low + high + 1) // 2
        if text_width(line[:middle].rstrip() + "…", size, bold) <= width:
            low = middle
        else:
            high = middle - 1
    return line[:low].rstrip() + "…"


def box_of(text: Text) -> tuple[float, float, float, float]:
    """`text_box` of a laid-out text item."""
    return text_box(text.text, text.x, text.y, text.size, text.anchor, text.bold)
