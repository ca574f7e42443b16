"""The narration's label: a word-wrapped rich-text QLabel that lays its text out once.

A QLabel with rich text parses and lays its text out when asked for its height at a
width and again on its first paint; measuring the height a new text needs took a second
label (a fixed-size label reports its fixed size), so at every event the clock passed the
narration parsed its text twice and laid it out three or four times. This label keeps one
`QTextDocument`: a text is parsed once, `height_for` lays it out at the width QLabel
measures at and the paint at the width QLabel paints at. It measures and draws as a QLabel
does (QLabel's own document options, margins, indent and vertical centring), so it looks
the same; ``text()``, font and margins are a QLabel's. It fills its background and draws
its role's rules above and below (`gui.theme.ROLES`).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QWidget

from gui.theme import rule_colour


class NarrationLabel(QLabel):
    """A word-wrapped rich-text label whose layout is kept per text, width and font."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setAutoFillBackground(True)
        self._document = QTextDocument(self)
        self._document.setUndoRedoEnabled(False)
        self._document.setDocumentMargin(0.0)
        self._parsed: tuple[object, ...] = ()  # (text, font, alignment) of the document
        self._styled: tuple[object, ...] = ()  # (font, alignment) the document was given
        self.parses = 0  # how often a text was parsed into the document (tests count)

    # -- measuring -----------------------------------------------------------------------

    def height_for(self, width: int, without_last: int = 0) -> int:
        """The height the text needs at ``width`` pixels: what QLabel's heightForWidth
        gives an unsized label; ``without_last``: the height of its lines but the last
        that many (what a box shows of it before those scroll)."""
        margins = self.contentsMargins()
        extra = 2 * self.margin() + self._indent_extra()
        text_width = max(width - extra - margins.left() - margins.right(), 0)
        document = self._layout(text_width)
        height = math.ceil(document.size().height())
        if without_last > 0:
            bottoms = []
            block = document.begin()
            while block.isValid():
                block_top = document.documentLayout().blockBoundingRect(block).top()
                lines = block.layout()
                bottoms += [
                    block_top + lines.lineAt(i).rect().bottom() for i in range(lines.lineCount())
                ]
                block = block.next()
            kept = bottoms[: max(0, len(bottoms) - without_last)]
            edge = kept[-1] if kept else 0.0
            height = math.ceil(edge + document.documentMargin())
        return height + 2 * self.margin() + margins.top() + margins.bottom()

    def _indent_extra(self) -> int:
        """QLabel's indent beside a frame (none here: the label draws no frame)."""
        if self.indent() >= 0 or not self.frameWidth():
            return max(0, self.indent())
        return self.fontMetrics().horizontalAdvance("x") - 2 * self.margin()

    def _layout(self, text_width: float) -> QTextDocument:
        """The document of the text, laid out at ``text_width`` (QLabel measures a little
        narrower than it paints, beside its frame: each is a cheap relayout of the
        parsed text; parsing the text is most of the cost)."""
        document = self._document
        style = (self.font().key(), int(self.alignment()))
        key = (self.text(), *style)
        if key != self._parsed:
            if style != self._styled:  # (each costs about what parsing a narration does)
                document.setDefaultFont(self.font())
                option = QTextOption(self.alignment())
                option.setWrapMode(QTextOption.WrapMode.WordWrap)
                document.setDefaultTextOption(option)
                self._styled = style
            document.setHtml(self.text())
            document.setTextWidth(text_width)
            self._parsed = key
            self.parses += 1
        elif document.textWidth() != text_width:
            document.setTextWidth(text_width)
        return document

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._parsed = self._styled = ()

    # -- painting ------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.text():
            super().paintEvent(event)
            painter = QPainter(self)
            self._paint_rules(painter)
            painter.end()
            return
        painter = QPainter(self)
        try:
            self._paint_rules(painter)
            self.drawFrame(painter)
            area = self.contentsRect().adjusted(
                self.margin(), self.margin(), -self.margin(), -self.margin()
            )
            indent = self._indent_extra() // 2 if self.indent() < 0 else self.indent()
            if indent > 0:
                area.setLeft(area.left() + indent)
            document = self._layout(area.width())
            # Centred vertically as QLabel does, on whole pixels.
            offset = max((area.height() - document.size().height()) / 2, 0.0)
            top = QRectF(area.left(), area.top() + offset, area.width(), area.height())
            corner = top.toAlignedRect().topLeft()
            palette = QPalette(self.palette())
            palette.setColor(QPalette.ColorRole.Text, palette.color(self.foregroundRole()))
            context = QAbstractTextDocumentLayout.PaintContext()
            context.palette = palette
            painter.translate(corner)
            painter.setClipRect(0, 0, area.width(), area.height())
            document.documentLayout().draw(painter, context)
        finally:
            painter.end()

    def _paint_rules(self, painter: QPainter) -> None:
        """The role's rules along the top and bottom edges, if it has any."""
        colour = rule_colour(self)
        if colour is not None:
            painter.save()
            painter.setPen(colour)
            right, bottom = self.width() - 1, self.height() - 1
            painter.drawLine(0, 0, right, 0)
            painter.drawLine(0, bottom, right, bottom)
            painter.restore()

    # -- lines ---------------------------------------------------------------------------

    def line_edges(self) -> list[tuple[float, float]]:
        """(top, bottom) of every laid-out line, in this label's pixels, as `paintEvent`
        draws them: what a box showing part of the label must not cut through."""
        if not self.text():
            return []
        area = self.contentsRect().adjusted(
            self.margin(), self.margin(), -self.margin(), -self.margin()
        )
        indent = self._indent_extra() // 2 if self.indent() < 0 else self.indent()
        document = self._layout(area.width() - max(0, indent))
        offset = max((area.height() - document.size().height()) / 2, 0.0)
        top = QRectF(area.left(), area.top() + offset, area.width(), area.height())
        origin = top.toAlignedRect().top()
        layout = document.documentLayout()
        edges = []
        block = document.begin()
        while block.isValid():
            block_top = layout.blockBoundingRect(block).top()
            lines = block.layout()
            for i in range(lines.lineCount()):
                rect = lines.lineAt(i).rect()
                edges.append((origin + block_top + rect.top(), origin + block_top + rect.bottom()))
            block = block.next()
        return edges
