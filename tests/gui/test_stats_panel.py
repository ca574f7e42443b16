"""The Stats panel in a dock taller than its rows: the rows keep their natural height at
the top (one policy's stats spread over a tall dock with utilization bars 80 px thick)."""

from __future__ import annotations

from engine.model.scenario import load_preset
from engine.model.scheduler import simulate
from gui.stats_panel import StatsPanel, UtilizationBar


def test_few_rows_keep_their_height_in_a_tall_panel(qtbot) -> None:
    panel = StatsPanel()
    qtbot.addWidget(panel)
    panel.set_schedules([simulate(load_preset("book"), "pipelined")])
    panel.resize(360, 900)
    panel.show()
    qtbot.waitExposed(panel)
    bars = panel.findChildren(UtilizationBar)
    assert len(bars) == 3  # load, compute, store
    for bar in bars:
        assert bar.height() == bar.sizeHint().height()
    lowest = max(bar.mapTo(panel, bar.rect().bottomLeft()).y() for bar in bars)
    assert lowest < panel.sizeHint().height() < 450  # packed at the top, the rest empty
    assert panel.value_of("pipelined", "makespan") == "5 s"


def test_a_wrapped_value_never_breaks_between_a_number_and_its_unit(qtbot) -> None:
    """At every width the stats column can have, each line break of a comparison falls
    between values ("3 slots: 5 s" once broke as "5 / s")."""
    from PySide6.QtGui import QTextLayout, QTextOption
    from PySide6.QtWidgets import QLabel

    from engine.analysis.stats import StatLine
    from gui.stats_panel import _value_text

    text = _value_text(StatLine("vs pinned", "2 slots: 6 s · 3 slots: 5 s (1 s faster)", ""), False)
    font = QLabel().font()
    broken: list[tuple[int, str, str]] = []
    for width in range(30, 400, 3):
        layout = QTextLayout(text, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)  # a word-wrapped QLabel's mode
        layout.setTextOption(option)
        layout.beginLayout()
        ends = []
        while (line := layout.createLine()).isValid():
            line.setLineWidth(width)
            ends.append(line.textStart() + line.textLength())
        layout.endLayout()
        for end in ends[:-1]:
            before, after = text[:end].rstrip(), text[end:].lstrip()
            if before[-1:].isdigit() and after[:1].isalpha():
                broken.append((width, before[-6:], after[:6]))
    assert not broken
