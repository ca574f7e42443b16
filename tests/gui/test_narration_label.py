"""The narration's label measures and draws as a rich-text QLabel does (the same pixels,
the same height for a width) but parses each text once; the narration parses once per
event the clock passes, not per tick."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from gui import theme
from gui.colours import DARK, LIGHT
from gui.narration_label import NarrationLabel

TEXTS = (
    "<b>sequential</b> — t = 1,107 s: the compute unit starts computing op 372; the load "
    "unit waits: the slot is held (op 372); it frees at 1,110 s; ops 373–1,000 wait for a "
    "slot<br><b>pipelined</b> — t = 1,107 s: the load unit starts reading op 929 while the "
    "compute unit starts computing op 928; the store unit is writing op 927",
    "<b>pipelined</b> — t = 0 s: nothing has started",
    "<br>".join(f"line {i}: the load unit waits for a slot" for i in range(5)),
    "<b>a</b> &amp; b &lt; c",
)


@pytest.mark.parametrize("colours", [LIGHT, DARK], ids=["light", "dark"])
def test_it_looks_and_measures_as_a_qlabel(qtbot, colours) -> None:
    app = QApplication.instance()
    theme.apply(app, colours)
    try:
        parent = QWidget()
        qtbot.addWidget(parent)
        parent.resize(1700, 400)
        parent.show()
        plain = QLabel(parent)
        plain.setAutoFillBackground(True)  # as ours does
        plain.setWordWrap(True)
        plain.setTextFormat(Qt.TextFormat.RichText)
        ours = NarrationLabel(parent)
        measure = QLabel()  # unsized: its heightForWidth is the text's
        measure.setWordWrap(True)
        measure.setTextFormat(Qt.TextFormat.RichText)
        for label in (plain, ours, measure):
            theme.dress(label, "narration")  # its font and padding, its colours
        plain.show()
        ours.show()
        for text in TEXTS:
            for width in (300, 900, 1249):
                for label in (plain, ours, measure):
                    label.setText(text)
                height = measure.heightForWidth(width)
                assert ours.height_for(width) == height, (text, width)
                for extra in (0, 7):  # taller than the text: centred alike
                    plain.setFixedSize(width, height + extra)
                    ours.setFixedSize(width, height + extra)
                    # The text, where both draw it (ours adds the role's rules outside).
                    inside = ours.contentsRect()
                    assert ours.grab(inside).toImage() == plain.grab(inside).toImage(), (
                        text,
                        width,
                    )
    finally:
        theme.apply(app, LIGHT)


def test_the_narration_parses_once_per_event(window) -> None:
    """Ticks between two events change nothing; an event's text is parsed once (it was
    twice: for the height on a twin label, then for the label's own paint)."""
    view = window.view
    events = window.clock.events
    window.clock.seek(float(events[1]) + 1e-3)
    QApplication.processEvents()
    label = view.narration_box.label
    before = label.parses
    for t in np.linspace(float(events[1]) + 2e-3, float(events[2]) - 1e-3, 5):
        window.clock.seek(float(t))
        QApplication.processEvents()
    assert label.parses == before
    window.clock.seek(float(events[2]) + 1e-3)
    QApplication.processEvents()
    label.repaint()
    assert label.parses == before + 1


def test_a_new_font_or_alignment_reaches_the_next_text(qtbot) -> None:
    """The document keeps its font and alignment between texts (setting them costs about
    what parsing a narration does); a new font or alignment still reaches the next one."""
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.resize(900, 400)
    parent.show()
    plain, ours = QLabel(parent), NarrationLabel(parent)
    plain.setAutoFillBackground(True)  # as ours does
    plain.setWordWrap(True)
    plain.setTextFormat(Qt.TextFormat.RichText)
    for label in (plain, ours):
        label.setFixedSize(600, 300)
        label.show()
    bigger = QFont(ours.font())
    bigger.setPointSizeF(ours.font().pointSizeF() * 1.6)
    centred = Qt.AlignmentFlag.AlignVCenter  # (this label always centres vertically)
    steps = (
        lambda label: None,
        lambda label: label.setFont(bigger),
        lambda label: label.setAlignment(centred | Qt.AlignmentFlag.AlignRight),
        lambda label: label.setAlignment(centred | Qt.AlignmentFlag.AlignHCenter),
    )
    for text, step in zip(TEXTS, steps, strict=True):
        for label in (plain, ours):
            step(label)
            label.setText(text)
        assert ours.grab().toImage() == plain.grab().toImage(), text
