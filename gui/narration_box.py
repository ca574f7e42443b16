"""The narration's box under the assembly line: one row per Schedule shown ("<b>pipelined</b>
— t = 2 s: …"), in as much height as the view gives it, never cut through a line.

The current run's rows come first, then the pinned runs' (the current run's narration is
the one being watched; under the pinned runs' rows it was the one scrolled away or cut).
The rows are word-wrapped where they fit the box's height. Where they do not (pinned runs
beside the current one, a short window), the pinned runs' rows are cut to one line each,
and those that still do not fit under the current run's whole rows scroll; only where the
current run's rows do not fit whole either are they cut too. Each cut row ends in "…" and
the box's tooltip holds every row whole. What still does not fit scrolls, a whole line at
a time: the box's viewport ends at the bottom of a line (the strip under it stays empty)
and a scrolled view starts at the top of one, so no line is ever shown cut in half (at the
window's least size the first line was sliced through).

The box keeps the label at a fixed size that follows its width (a QLabel whose text
changes makes its parent's layout recompute, about a millisecond at every event): it asks
for the height its text needs only when the text needs more or fewer lines, and never
beyond its cap (`set_cap`). The label measures a text with the layout it then paints
(`NarrationLabel.height_for`): one layout per text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QScrollArea, QSizePolicy, QWidget

from gui.narration_label import NarrationLabel
from gui.theme import dress

#: The width the narration is measured at before the box is shown (it has none yet).
NOMINAL_WIDTH = 900
#: The least height the box takes, in lines of its font (where its text has them).
FLOOR_LINES = 2
#: A tooltip holds at most this many characters.
TOOLTIP_CHARS = 4000


class NarrationBox(QScrollArea):
    """Rows of narration in a `NarrationLabel`, wrapped or cut to whole lines that fit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidgetResizable(False)
        self.label = NarrationLabel()
        dress(self.label, "narration")
        self.setWidget(self.label)
        self._rows: tuple[tuple[str, str], ...] = ()
        self._pinned: tuple[bool, ...] = ()  # per row: a pinned run's (cut first)
        self._cap: int | None = None  # the most height the box takes (None: the floor)
        self._wanted = 0  # the height the text asks for (within the cap)
        self._snapping = self._trimming = False
        self.cut_rows = 0  # how many rows are shown cut to one line (tests read it)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.verticalScrollBar().valueChanged.connect(self._snap)
        self._fit()

    # -- size -----------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._wanted)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), min(self._wanted, self.floor()))

    def floor(self) -> int:
        """The least height the cap may be: `FLOOR_LINES` whole lines and the padding."""
        label = self.label
        margins = label.contentsMargins()
        lines = label.fontMetrics().lineSpacing() * FLOOR_LINES + 2
        return lines + margins.top() + margins.bottom()

    def set_cap(self, height: int) -> None:
        """Take at most ``height`` pixels (never less than `floor`); more text is cut to
        one line a row, then scrolls."""
        if height != self._cap:
            self._cap = height
            self._fit()

    # -- text -----------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[tuple[str, str]], pinned: Sequence[bool] = ()) -> None:
        """Show one row per (name, narration); ``pinned`` says which rows are pinned
        runs' (shown after the current run's, cut first). The box grows for a longer text
        but does not shrink back, so the views above it keep their size while the clock
        plays (see `reset`)."""
        flags = tuple(pinned) + (False,) * (len(rows) - len(pinned))
        order = sorted(range(len(rows)), key=lambda index: flags[index])  # stable
        rows, flags = tuple(rows[i] for i in order), tuple(flags[i] for i in order)
        if rows != self._rows or flags != self._pinned:
            self._rows, self._pinned = rows, flags
            self._fit(shrink=False)

    def set_text(self, text: str) -> None:
        """Show ``text`` (rich text) as it is: one row, never cut (the rows' own
        cutting needs `set_rows`)."""
        self._rows, self._pinned = (), ()
        if text != self.label.text():
            self.label.setText(text)
            self.cut_rows = 0
            self.setToolTip("")
            self._fit(shrink=False)

    def reset(self) -> None:
        """Fit the current text exactly (new Schedules)."""
        self._fit()

    def full_text(self) -> str:
        """Every row whole, as plain text (the tooltip, when anything is cut or hidden)."""
        return "\n".join(f"{name} — {line}" for name, line in self._rows)

    def _compose(self, cut: Sequence[bool], width: int) -> str:
        """The rows as rich text, each row flagged in ``cut`` cut to one line of ``width``
        pixels."""
        font = QFont(self.label.font())
        plain = QFontMetricsF(font)
        font.setBold(True)
        bold = QFontMetricsF(font)
        out = []
        for index, (name, line) in enumerate(self._rows):
            text = line
            if cut[index]:
                room = width - bold.horizontalAdvance(name) - plain.horizontalAdvance(" — ") - 8
                text = plain.elidedText(line, Qt.TextElideMode.ElideRight, max(0, int(room)))
            out.append(f"<b>{html.escape(name)}</b> — {html.escape(text)}")
        return "<br>".join(out)

    # -- fitting --------------------------------------------------------------------------

    def _text_width(self, width: int) -> int:
        margins = self.label.contentsMargins()
        return width - margins.left() - margins.right() - 2 * self.label.margin()

    def _fit(self, shrink: bool = True) -> None:
        label = self.label
        width = max(1, self.width() if self.isVisible() else max(self.width(), NOMINAL_WIDTH))
        cap = max(self.floor(), self._cap or 0)
        room = cap  # squeezed under its wanted height by the layout: what it was given
        if self.isVisible() and 0 < self.height() < self._wanted:
            room = min(cap, self.height())
        if self._rows:
            self._choose_text(width, room)
        needed = max(1, label.height_for(width))
        height = min(needed, cap)
        if not shrink:
            height = min(max(height, self._wanted), cap)
        shown = min(height, self.height()) if self.isVisible() else height
        if needed > shown:  # it scrolls: the scroll bar takes some of the width
            width = max(1, width - self.verticalScrollBar().sizeHint().width())
            needed = max(1, label.height_for(width))
        if label.size() != QSize(width, needed):
            label.setFixedSize(width, needed)
        if height != self._wanted:
            self._wanted = height
            self.setMaximumHeight(height)
            self.updateGeometry()
        self._trim()

    def _choose_text(self, width: int, room: int) -> None:
        """Wrap every row if they fit ``room`` pixels; else cut the pinned rows to a line
        each (under the current run's rows kept whole: what does not fit scrolls), and
        only where the current run's rows alone do not fit, every row (the tooltip then
        holds them whole)."""
        label = self.label
        text_width = self._text_width(width - self.verticalScrollBar().sizeHint().width())
        n = len(self._rows)
        for cut in ((False,) * n, self._pinned, (True,) * n):
            text = self._compose(cut, text_width)
            if text != label.text():
                label.setText(text)
            # A cut row is one line, under the rows kept whole: those must fit (the cut
            # ones may scroll).
            if all(cut) or label.height_for(width, without_last=sum(cut)) <= room:
                break
        self.cut_rows = sum(cut)
        fits = label.height_for(width) <= room
        tip = "" if not any(cut) and fits else self.full_text()
        if len(tip) > TOOLTIP_CHARS:
            tip = tip[: TOOLTIP_CHARS - 1] + "…"
        if tip != self.toolTip():
            self.setToolTip(tip)

    # -- whole lines ----------------------------------------------------------------------

    def _trim(self) -> None:
        """End the viewport at the bottom of the last line it shows whole (the strip
        under it stays empty): the line under it is never shown cut in half."""
        value = self.verticalScrollBar().value()
        height = self.height()
        edges = self.label.line_edges()
        cut = 0
        if edges and value + height < self.label.height():
            bottoms = [bottom for _, bottom in edges if bottom <= value + height]
            if bottoms:
                cut = max(0, int(value + height - max(bottoms)))
        if self.viewportMargins().bottom() != cut and not self._trimming:
            self._trimming = True  # (new margins send this box a resize event)
            try:
                self.setViewportMargins(0, 0, 0, cut)
            finally:
                self._trimming = False

    def _snap(self, value: int) -> None:
        """A scrolled view starts at the top of a line (the line above it is not shown
        cut), a line a step."""
        if self._snapping:
            return
        self._snapping = True
        try:
            edges = self.label.line_edges()
            bar = self.verticalScrollBar()
            if edges:
                bar.setSingleStep(max(1, round(edges[0][1] - edges[0][0])))
            if edges and value > 0:
                tops = [0] + [round(top) for top, _ in edges[1:]]
                tops = [top for top in tops if top <= bar.maximum()] or [0]
                snapped = min(tops, key=lambda top: abs(top - value))
                if snapped != value:
                    bar.setValue(snapped)
            self._trim()
        finally:
            self._snapping = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._trimming:
            return
        if event.oldSize() != event.size():
            self._fit()  # a new width wraps anew; a new height may bring the scroll bar
        else:
            self._trim()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit()  # the label's font or padding may have changed
