"""Text from outside is shown in the space the layout gives and never sizes it: one line or
a few, elided with "…", whole (up to a cap) in the tooltip, control characters escaped."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetricsF

from gui.elided_label import HINT_WIDTH, TITLE_CHARS, TOOLTIP_CHARS, ElidedLabel, window_title


def fits(label: ElidedLabel) -> bool:
    """Every painted line is no wider than the label's text area."""
    metrics = QFontMetricsF(label.font())
    room = label.contentsRect().width()
    return all(
        metrics.horizontalAdvance(line) <= room + 0.5 for line in label.shown_text().split("\n")
    )


@pytest.mark.parametrize("lines", [1, 4])
def test_a_megabyte_of_text_neither_sizes_the_label_nor_overflows_it(qtbot, lines: int) -> None:
    text = "N" * 1_000_000
    label = ElidedLabel(text, lines=lines)
    qtbot.addWidget(label)
    assert label.sizeHint().width() <= HINT_WIDTH + 2
    assert label.minimumSizeHint().width() < 100
    label.resize(300, label.heightForWidth(300) if lines > 1 else 30)
    label.show()
    assert label.text() == text  # what it was given, whole
    shown = label.shown_text().split("\n")
    assert len(shown) == lines and shown[-1].endswith("…") and fits(label)
    assert label.is_cut()
    assert "1,000,000 characters" in label.toolTip() and len(label.toolTip()) < TOOLTIP_CHARS + 100


def test_a_short_text_is_shown_whole_without_a_tooltip(qtbot) -> None:
    label = ElidedLabel("The book example", lines=2)
    qtbot.addWidget(label)
    label.resize(400, 60)
    assert label.shown_text() == "The book example" and not label.is_cut()
    assert label.toolTip() == ""
    label.set_tip("three ops")
    assert "three ops" in label.toolTip() and "The book example" not in label.toolTip()


def test_words_wrap_and_the_last_line_is_elided(qtbot) -> None:
    label = ElidedLabel("word " * 200, lines=3)
    qtbot.addWidget(label)
    label.resize(200, label.heightForWidth(200))
    label.show()
    shown = label.shown_text().split("\n")
    assert len(shown) == 3 and all(line.startswith("word") for line in shown)
    assert shown[-1].endswith("…") and fits(label)
    assert label.heightForWidth(200) > label.heightForWidth(20000)  # one line when wide


def test_the_label_follows_its_width(qtbot) -> None:
    label = ElidedLabel("abc " * 50)
    qtbot.addWidget(label)
    label.show()
    label.resize(100, 30)
    narrow = label.shown_text()
    label.resize(3000, 30)
    assert len(label.shown_text()) > len(narrow) and not label.is_cut()


def test_control_characters_are_shown_escaped(qtbot) -> None:
    label = ElidedLabel("\x1b[31mRED\x1b]0;title\x07 \x00 \u202eevil", lines=2)
    qtbot.addWidget(label)
    label.resize(2000, 60)
    shown = label.shown_text()
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in shown)
    assert "\\x1b[31mRED" in shown and "\\u202e" in shown


def test_window_titles_are_cut_and_escaped() -> None:
    title = window_title("x" * 10_000 + "\x1b")
    assert len(title) == TITLE_CHARS and title.endswith("…")
    assert window_title("a\nb") == "a\\nb"
    assert "PipeLab" not in window_title("The book example")  # Qt appends the app's name
