"""Labels for text that comes from outside (a scenario's name and description, a file's
path, an error quoting either): shown in the space the layout gives, never sizing it.

A QLabel asks its layout for room for its whole text: a 10,000-character name made the
window 32,767 px wide, a million characters took gigabytes. `ElidedLabel` asks for at most
`HINT_WIDTH` pixels and accepts any width down to a few characters; there it shows its
text on up to ``lines`` lines, wrapped at word boundaries or anywhere in a word too long
for the line, the last line cut with "…". When the text is cut, its tooltip holds it
whole (itself cut at `TOOLTIP_CHARS`, wrapped). Control characters are shown escaped
(`engine.base.text.printable`).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetricsF, QResizeEvent, QTextLayout, QTextOption
from PySide6.QtWidgets import QLabel, QWidget

from engine.base.text import elided, elided_middle, printable

#: The widest a label asks to be (pixels); it takes more when the layout has more to give.
HINT_WIDTH = 480
#: The narrowest it accepts: this many average characters.
MIN_CHARS = 6
#: At most this many characters are laid out per line shown: no screen holds more on one
#: line, and laying out a megabyte of text would take seconds.
CHARS_PER_LINE = 2000
#: A tooltip holds at most this many characters of the text.
TOOLTIP_CHARS = 2000
#: Window titles hold at most this many characters of a name (the window manager cuts
#: further to the title bar).
TITLE_CHARS = 80


class ElidedLabel(QLabel):
    """A plain-text label of at most ``lines`` lines that elides what does not fit.

    ``text()`` is the whole text given; what is painted is the part that fits. ``tip``, when
    given, is shown as the tooltip, followed by the whole text whenever it is cut.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None, lines: int = 1) -> None:
        super().__init__(parent)
        self._lines = max(1, lines)
        self._full = ""
        self._tip = ""
        self._fitted_at = -1
        self._cut = False
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(False)
        self.setText(text)

    # -- text ------------------------------------------------------------------------------

    def text(self) -> str:  # the whole text, not the part shown
        return self._full

    def setText(self, text: str) -> None:
        text = str(text)
        if text == self._full and self._fitted_at >= 0:
            return
        self._full = text
        self._fitted_at = -1
        self._fit(self._text_width())
        self.updateGeometry()

    def set_tip(self, tip: str) -> None:
        """The tooltip's own words (the whole text follows them when the text is cut)."""
        self._tip = tip
        self._update_tooltip(self._cut)

    def shown_text(self) -> str:
        """The text as painted: what fits its width, on its lines."""
        self._fit(self._text_width())
        return super().text()

    def is_cut(self) -> bool:
        """Whether part of the text is not shown (at the label's width)."""
        self._fit(self._text_width())
        return self._cut

    # -- size ------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        metrics = QFontMetricsF(self.font())
        natural = metrics.horizontalAdvance(printable(self._full[:CHARS_PER_LINE]))
        width = min(HINT_WIDTH, int(natural) + 1) + self._extra_width()
        return QSize(width, self._height(self._line_count(width - self._extra_width())))

    def minimumSizeHint(self) -> QSize:
        metrics = QFontMetricsF(self.font())
        width = int(MIN_CHARS * metrics.averageCharWidth()) + self._extra_width()
        return QSize(width, self._height(1))

    def hasHeightForWidth(self) -> bool:
        return self._lines > 1

    def heightForWidth(self, width: int) -> int:
        return self._height(self._line_count(width - self._extra_width()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit(self._text_width())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fitted_at = -1  # lay the text out again in the new font
            self._fit(self._text_width())
            self.updateGeometry()

    # -- layout ----------------------------------------------------------------------------

    def _extra_width(self) -> int:
        margins = self.contentsMargins()
        return margins.left() + margins.right() + 2 * self.margin()

    def _text_width(self) -> int:
        return max(1, self.width() - self._extra_width())

    def _height(self, lines: int) -> int:
        margins = self.contentsMargins()
        spacing = QFontMetricsF(self.font()).lineSpacing()
        return int(lines * spacing + 0.999) + margins.top() + margins.bottom() + 2 * self.margin()

    def _line_count(self, width: int) -> int:
        return len(self._wrapped(width)[0]) if self._full else 1

    def _wrapped(self, width: float) -> tuple[list[str], bool]:
        """The text's lines at ``width`` pixels, at most ``lines`` of them, the last one
        elided when text remains; and whether it was cut."""
        text = printable(self._full[: CHARS_PER_LINE * self._lines])
        truncated = len(self._full) > CHARS_PER_LINE * self._lines
        metrics = QFontMetricsF(self.font())
        if self._lines == 1:
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(1.0, width))
            return [shown], truncated or shown != text
        layout = QTextLayout(text, self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        lines: list[str] = []
        layout.beginLayout()
        while len(lines) < self._lines:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(1.0, width))
            start, length = line.textStart(), line.textLength()
            if len(lines) == self._lines - 1:  # the last line shown: the rest, elided
                rest = text[start : start + CHARS_PER_LINE]
                last = metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width)
                lines.append(last)
                truncated = truncated or last != rest
                break
            lines.append(text[start : start + length].rstrip())
        layout.endLayout()
        return lines or [""], truncated

    def _fit(self, width: int) -> None:
        if width == self._fitted_at:
            return
        self._fitted_at = width
        lines, self._cut = self._wrapped(width)
        shown = "\n".join(lines)
        if shown != super().text():
            super().setText(shown)
        self._update_tooltip(self._cut)

    def _update_tooltip(self, cut: bool) -> None:
        parts = [html.escape(self._tip)] if self._tip else []
        if cut:
            parts.append(html.escape(elided_middle(self._full, TOOLTIP_CHARS)))
        self.setToolTip("<qt>" + "<br>".join(parts) + "</qt>" if parts else "")


def window_title(name: str) -> str:
    """The main window's title for a scenario called ``name``: at most `TITLE_CHARS` of it,
    escaped. The name alone: on X11 and Windows Qt appends the application's display name
    itself ("The book example — PipeLab"); saying it here too showed it twice."""
    return elided(name, TITLE_CHARS)
